package txfuzz.dbms.h2;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.Database;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.Dialect;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Feature;
import txfuzz.history.Anomaly;
import txfuzz.dbms.LevelSemantics;
import txfuzz.dbms.LockProbe;
import txfuzz.dbms.Profile;
import txfuzz.dbms.SqlStates;
import txfuzz.dbms.Target;

/** H2 2.x, in memory, one private named database per test case. */
public final class H2Target implements Target {
    private static final AtomicLong NEXT_DB = new AtomicLong();
    /** Far above a test case's lifetime, so a blocked statement stays blocked until its blocker ends. */
    private static final int LOCK_TIMEOUT_MS = 600_000;
    /** Longer than any statement on a handful of rows runs; see the lock probe. */
    private static final int INVISIBLE_WAIT_MS = 25;
    private static final String DOCS = "https://h2database.com/html/advanced.html#transaction_isolation";
    private static final String WRITE_SKEW_DOCUMENTED = DOCS + " (SERIALIZABLE: \"this isolation level in H2 currently doesn't ensure"
            + " equivalence of concurrent and serializable execution of transactions that perform write operations\": write skew)";

    private final String version;

    public H2Target() {
        try (Connection c = DriverManager.getConnection("jdbc:h2:mem:")) {
            version = "H2 " + c.getMetaData().getDatabaseProductVersion();
        } catch (SQLException e) {
            throw new IllegalStateException("H2 does not start: " + e.getMessage(), e);
        }
    }

    @Override
    public String name() {
        return "h2";
    }

    @Override
    public String version() {
        return version;
    }

    @Override
    public List<IsolationLevel> isolationLevels() {
        return List.of(IsolationLevel.READ_UNCOMMITTED, IsolationLevel.READ_COMMITTED, IsolationLevel.REPEATABLE_READ,
                IsolationLevel.SNAPSHOT, IsolationLevel.SERIALIZABLE);
    }

    @Override
    public Dialect dialect() {
        EnumSet<Feature> f = Dialect.core();
        f.addAll(Set.of(Feature.JOIN_RIGHT, Feature.FOR_UPDATE, Feature.MERGE));
        return new Dialect("h2", f, "DOUBLE PRECISION", "VARCHAR(10)");
    }

    @Override
    public Profile profile() {
        Map<IsolationLevel, LevelSemantics> m = new EnumMap<>(IsolationLevel.class);
        m.put(IsolationLevel.READ_UNCOMMITTED, LevelSemantics.permits(DOCS, Deviation.DIRTY_VISIBILITY, Deviation.STATEMENT_VISIBILITY));
        m.put(IsolationLevel.READ_COMMITTED, LevelSemantics.permits(DOCS, Deviation.STATEMENT_VISIBILITY));
        // H2 takes the snapshot of each table when the transaction first touches it.
        // H2 says even its SERIALIZABLE does not serialize transactions that write: the weaker
        // REPEATABLE READ cannot either, so write skew is documented there too.
        m.put(IsolationLevel.REPEATABLE_READ, LevelSemantics.permits(DOCS, Deviation.TRANSACTION_SNAPSHOT, Deviation.STATEMENT_VISIBILITY)
                .documenting(WRITE_SKEW_DOCUMENTED + "; REPEATABLE READ is weaker than SERIALIZABLE", Anomaly.WRITE_SKEW, Anomaly.G2_ITEM, Anomaly.G2));
        m.put(IsolationLevel.SNAPSHOT, LevelSemantics.permits(DOCS, Deviation.TRANSACTION_SNAPSHOT));
        // H2's SERIALIZABLE is snapshot isolation plus a check on updated rows; write skew is documented.
        m.put(IsolationLevel.SERIALIZABLE, LevelSemantics.permits(DOCS, Deviation.TRANSACTION_SNAPSHOT)
                .documenting(WRITE_SKEW_DOCUMENTED, Anomaly.WRITE_SKEW, Anomaly.G2_ITEM, Anomaly.G2));
        return new Profile(m);
    }

    @Override
    public Database freshDatabase() throws SQLException {
        String url = "jdbc:h2:mem:txfuzz_" + NEXT_DB.incrementAndGet() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=" + LOCK_TIMEOUT_MS;
        return new H2Database(url);
    }

    @Override
    public ErrorClass classify(SQLException e) {
        int code = e.getErrorCode();
        switch (code) {
            case 40001:
                return ErrorClass.DEADLOCK;
            case 90131: // concurrent update: first updater wins at REPEATABLE READ and above
                return ErrorClass.SERIALIZATION;
            case 50200:
                return ErrorClass.LOCK_TIMEOUT;
            case 50000: // "General error": an exception from inside the engine
                return ErrorClass.INTERNAL;
            case 90067: // connection broken
            case 90098: // database closed
            case 90121: // database called at VM shutdown
                return ErrorClass.CONNECTION_LOST;
            default:
                break;
        }
        ErrorClass standard = SqlStates.byStandardClass(e);
        if (standard != null) {
            return standard;
        }
        String state = e.getSQLState();
        if (state != null && state.startsWith("9")) {
            // 90xxx: H2's own codes are about invalid statements (unknown function, wrong type ...)
            return ErrorClass.INVALID_STATEMENT;
        }
        return state != null && state.startsWith("HY") ? ErrorClass.INTERNAL : ErrorClass.OTHER;
    }

    @Override
    public List<String> sessionSetupSql(IsolationLevel level, String mode) {
        return List.of("SET LOCK_TIMEOUT " + LOCK_TIMEOUT_MS, "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL " + level.sql());
    }

    @Override
    public void dropKeyConstraints(Connection c) throws SQLException {
        List<String> drops = new java.util.ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT TABLE_NAME, CONSTRAINT_NAME FROM "
                + "INFORMATION_SCHEMA.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = SCHEMA() AND CONSTRAINT_TYPE IN "
                + "('FOREIGN KEY', 'UNIQUE', 'PRIMARY KEY') ORDER BY CASE CONSTRAINT_TYPE WHEN 'FOREIGN KEY' THEN 0 ELSE 1 END")) {
            while (rs.next()) {
                drops.add("ALTER TABLE \"" + rs.getString(1) + "\" DROP CONSTRAINT \"" + rs.getString(2) + "\"");
            }
        }
        try (Statement s = c.createStatement()) {
            for (String sql : drops) {
                s.execute(sql);
            }
            List<String> indexes = new java.util.ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT INDEX_NAME FROM INFORMATION_SCHEMA.INDEXES WHERE TABLE_SCHEMA = SCHEMA() "
                    + "AND INDEX_TYPE_NAME = 'UNIQUE INDEX'")) {
                while (rs.next()) {
                    indexes.add(rs.getString(1));
                }
            }
            for (String index : indexes) {
                s.execute("DROP INDEX \"" + index + "\"");
            }
        }
    }

    @Override
    public void close() {
    }

    private static final class H2Database implements Database {
        private final String url;
        private final Connection keeper;

        H2Database(String url) throws SQLException {
            this.url = url;
            this.keeper = DriverManager.getConnection(url);
        }

        @Override
        public Connection connect(IsolationLevel level, String mode) throws SQLException {
            Connection c = DriverManager.getConnection(url);
            try (Statement s = c.createStatement()) {
                s.execute("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL " + level.sql());
            } catch (SQLException e) {
                c.close();
                throw e;
            }
            return c;
        }

        @Override
        public String sessionId(Connection c) throws SQLException {
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT SESSION_ID()")) {
                rs.next();
                return rs.getString(1);
            }
        }

        @Override
        public Optional<LockProbe> lockProbe() throws SQLException {
            Connection probe = DriverManager.getConnection(url);
            // BLOCKER_ID names the session whose row lock we wait for. H2 waits for an uncommitted
            // duplicate key differently: it spins, RUNNING, with no BLOCKER_ID. A write that has run for
            // longer than any statement on a few rows takes, while another session holds uncommitted
            // changes, is taken to be waiting for one of them (blocker unknown).
            PreparedStatement q = probe.prepareStatement("SELECT s.BLOCKER_ID, "
                    + "DATEDIFF('MILLISECOND', s.EXECUTING_STATEMENT_START, CURRENT_TIMESTAMP) > " + INVISIBLE_WAIT_MS + " AND EXISTS ("
                    + "SELECT 1 FROM INFORMATION_SCHEMA.SESSIONS o WHERE o.SESSION_ID <> s.SESSION_ID AND o.CONTAINS_UNCOMMITTED) "
                    + "FROM INFORMATION_SCHEMA.SESSIONS s WHERE s.SESSION_ID = ?");
            return Optional.of(new LockProbe() {
                @Override
                public Optional<Set<String>> waitsFor(String sessionId) throws SQLException {
                    for (int attempt = 1; ; attempt++) {
                        try {
                            return ask(sessionId);
                        } catch (SQLException e) {
                            // H2 2.3.232 can fail reading CONTAINS_UNCOMMITTED of a session whose transaction is
                            // ending ("General error": NullPointerException on Transaction.getStatus): ask again.
                            if (e.getErrorCode() != 50000 || attempt == 3) {
                                throw e;
                            }
                        }
                    }
                }

                private Optional<Set<String>> ask(String sessionId) throws SQLException {
                    q.setInt(1, Integer.parseInt(sessionId));
                    try (ResultSet rs = q.executeQuery()) {
                        if (rs.next()) {
                            String blocker = rs.getString(1);
                            if (blocker != null) {
                                return Optional.of(Set.of(blocker));
                            }
                            if (rs.getBoolean(2)) {
                                return Optional.of(Set.of());
                            }
                        }
                        return Optional.empty();
                    }
                }

                @Override
                public void close() {
                    try {
                        probe.close();
                    } catch (SQLException ignored) {
                        // the database is being dropped anyway
                    }
                }
            });
        }

        @Override
        public void close() {
            try (Statement s = keeper.createStatement()) {
                s.execute("SHUTDOWN");
            } catch (SQLException ignored) {
                // already gone: nothing left to drop
            }
            try {
                keeper.close();
            } catch (SQLException ignored) {
                // closed by SHUTDOWN
            }
        }
    }
}
