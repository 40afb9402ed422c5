package txfuzz.dbms.h2;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.Database;
import txfuzz.dbms.Engine;
import txfuzz.dbms.Jdbc;
import txfuzz.dbms.LockProbe;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;

/** H2 2.x, live: in memory, one private named database per test case. The description is {@link H2Engine}. */
public final class H2Target implements Target {
    private static final AtomicLong NEXT_DB = new AtomicLong();
    /** Longer than any statement on a handful of rows runs; see the lock probe. */
    private static final int INVISIBLE_WAIT_MS = 25;
    /** Statements H2 may retry while another session's uncommitted row is in the way (SQL text as H2 shows it). */
    static final String ROW_CHANGING_STATEMENT = "^\\s*(INSERT|UPDATE|MERGE|DELETE|REPLACE)\\b|\\bFOR\\s+UPDATE\\b";

    /** A private, unnamed in-memory database: for the version, and to find the driver. */
    static final String PROBE_URL = "jdbc:h2:mem:";

    private final H2Engine engine;
    private final Jdbc jdbc;
    private final String version;
    /** The subject's settings ({@link H2Engine#settings()}), appended to every database URL: ";MODE=PostgreSQL". */
    private final String urlSettings;
    private final java.util.Map<String, String> settings;

    /** The bundled H2. */
    public H2Target() {
        this(new H2Engine(), Engine.inProcessDriver(new H2Engine(), TargetOptions.none(), PROBE_URL), java.util.Map.of());
    }

    H2Target(H2Engine engine, Jdbc jdbc, java.util.Map<String, String> settings) {
        this.engine = engine;
        this.jdbc = jdbc;
        StringBuilder u = new StringBuilder();
        settings.forEach((k, v) -> u.append(';').append(k).append('=').append(v));
        this.urlSettings = u.toString();
        this.settings = settings;
        try (Connection c = jdbc.connect(PROBE_URL)) {
            version = "H2 " + c.getMetaData().getDatabaseProductVersion();
        } catch (SQLException e) {
            throw new IllegalStateException("H2 does not start: " + e.getMessage(), e);
        }
    }

    @Override
    public H2Engine engine() {
        return engine;
    }

    @Override
    public java.util.Map<String, String> settings() {
        return settings;
    }

    /** The engine's session set-up, then the subject's settings as the engine's own client sets them (reproduce.sql). */
    @Override
    public java.util.List<String> sessionSetupSql(txfuzz.model.IsolationLevel level, String mode) {
        java.util.List<String> out = new java.util.ArrayList<>(engine().sessionSetupSql(level, mode));
        out.addAll(txfuzz.dbms.EngineSetting.sessionSql(engine(), settings));
        return out;
    }

    @Override
    public String version() {
        return version;
    }

    @Override
    public Database freshDatabase() throws SQLException {
        String url = "jdbc:h2:mem:txfuzz_" + NEXT_DB.incrementAndGet() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=" + H2Engine.LOCK_TIMEOUT_MS + urlSettings;
        return new H2Database(jdbc, url);
    }

    @Override
    public void close() {
    }

    private static final class H2Database implements Database {
        private final Jdbc jdbc;
        private final String url;
        private final Connection keeper;

        H2Database(Jdbc jdbc, String url) throws SQLException {
            this.jdbc = jdbc;
            this.url = url;
            this.keeper = jdbc.connect(url);
        }

        @Override
        public Connection connect(IsolationLevel level, String mode) throws SQLException {
            Connection c = jdbc.connect(url);
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
            Connection probe = jdbc.connect(url);
            // BLOCKER_ID names the session whose row lock we wait for. H2 waits for an uncommitted
            // duplicate key in a unique secondary index differently: it retries the statement, RUNNING, with
            // no BLOCKER_ID, and shows nothing else of the wait. Only a statement that changes rows can be
            // retried so (H2 retries on a concurrent update), and only for a row of a table that another
            // session holding uncommitted changes has locked too: what H2 says it executes and what its
            // LOCKS view shows decide. Elapsed time alone never does (a COMMIT or a query slowed by a cold
            // JVM is not waiting); it only keeps a write that has just begun from counting.
            PreparedStatement q = probe.prepareStatement("SELECT s.BLOCKER_ID, "
                    + "DATEDIFF('MILLISECOND', s.EXECUTING_STATEMENT_START, CURRENT_TIMESTAMP) > " + INVISIBLE_WAIT_MS
                    + " AND REGEXP_LIKE(s.EXECUTING_STATEMENT, '" + ROW_CHANGING_STATEMENT + "', 'i') AND EXISTS ("
                    + "SELECT 1 FROM INFORMATION_SCHEMA.SESSIONS o"
                    + " JOIN INFORMATION_SCHEMA.LOCKS lo ON lo.SESSION_ID = o.SESSION_ID"
                    + " JOIN INFORMATION_SCHEMA.LOCKS lw ON lw.SESSION_ID = s.SESSION_ID"
                    + " AND lw.TABLE_SCHEMA = lo.TABLE_SCHEMA AND lw.TABLE_NAME = lo.TABLE_NAME"
                    + " WHERE o.SESSION_ID <> s.SESSION_ID AND o.CONTAINS_UNCOMMITTED) "
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
