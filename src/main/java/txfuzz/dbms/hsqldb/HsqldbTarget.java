package txfuzz.dbms.hsqldb;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
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

/**
 * HSQLDB 2.7, in memory, one private database per test case ({@code jdbc:hsqldb:mem:txfuzz_N}).
 *
 * <p>Modes are HSQLDB's transaction control models, set per database with
 * {@code SET DATABASE TRANSACTION CONTROL}: "mvcc" (our default; the engine's own default is LOCKS),
 * "locks" (two-phase locking on whole tables) and "mvlocks" (two-phase locking, READ COMMITTED reads
 * from snapshots). Measured on 2.7.4:
 * <ul>
 * <li>READ UNCOMMITTED is accepted but promoted to READ COMMITTED in every mode, so it is not offered.</li>
 * <li>mvcc, READ COMMITTED: a writer waits for the uncommitted writer of the same row and then
 *     re-executes; the waiter's THIS_WAITING_FOR names its blocker.</li>
 * <li>mvcc, REPEATABLE READ and SERIALIZABLE: snapshot isolation; writing a row another live or
 *     since-committed transaction wrote fails at once with 40001 (first updater wins) — no waiting.</li>
 * <li>locks and mvlocks: table locks. RR and SERIALIZABLE keep read locks to the end (both strict 2PL);
 *     READ COMMITTED releases them after each statement. Only the blocker's WAITING_FOR_THIS names the
 *     waiter; the waiter's THIS_WAITING_FOR stays empty.</li>
 * <li>Deadlocks are detected when the cycle closes, with no timeout: the session whose wait would
 *     close it gets 40001 at once. HSQLDB has no lock-wait timeout at all; a wait lasts until the
 *     blocker ends (only JDBC's query timeout, 40502, ends it otherwise).</li>
 * </ul>
 */
public final class HsqldbTarget implements Target {
    private static final AtomicLong NEXT_DB = new AtomicLong();
    static final String DOCS_MVCC = "https://hsqldb.org/doc/2.0/guide/sessions-chapt.html#snc_tx_mvcc";
    static final String DOCS_2PL = "https://hsqldb.org/doc/2.0/guide/sessions-chapt.html#snc_tx_2pl";
    private static final List<String> MODES = List.of("mvcc", "locks", "mvlocks");
    private static final String USER = "SA";

    private final String version;

    public HsqldbTarget() {
        String url = "jdbc:hsqldb:mem:txfuzz_version_" + NEXT_DB.incrementAndGet();
        try (Connection c = DriverManager.getConnection(url, USER, "")) {
            version = "HSQLDB " + c.getMetaData().getDatabaseProductVersion();
            try (Statement s = c.createStatement()) {
                s.execute("SHUTDOWN");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("HSQLDB does not start: " + e.getMessage(), e);
        }
    }

    @Override
    public String name() {
        return "hsqldb";
    }

    @Override
    public String version() {
        return version;
    }

    /** READ UNCOMMITTED is left out: HSQLDB runs it as READ COMMITTED in every mode. */
    @Override
    public List<IsolationLevel> isolationLevels() {
        return List.of(IsolationLevel.READ_COMMITTED, IsolationLevel.REPEATABLE_READ, IsolationLevel.SERIALIZABLE);
    }

    @Override
    public List<String> modes() {
        return MODES;
    }

    @Override
    public Dialect dialect() {
        EnumSet<Feature> f = Dialect.core();
        // FOR UPDATE is accepted in every mode, but only LOCKS/MVLOCKS lock for it (a table write lock);
        // MVCC takes no lock for it. REPLACE / ON DUPLICATE KEY exist only under MySQL syntax mode.
        f.addAll(Set.of(Feature.JOIN_RIGHT, Feature.JOIN_FULL, Feature.FOR_UPDATE, Feature.MERGE));
        return new Dialect("hsqldb", f, "DOUBLE PRECISION", "VARCHAR(10)");
    }

    /**
     * The profile of the default mode, mvcc. Profile has no mode dimension yet; {@link #profile(String)}
     * gives the other modes' semantics, which differ at REPEATABLE READ and SERIALIZABLE.
     */
    @Override
    public Profile profile() {
        return profile(MODES.get(0));
    }

    /** What HSQLDB documents for each level in {@code mode}. */
    public Profile profile(String mode) {
        Map<IsolationLevel, LevelSemantics> m = new EnumMap<>(IsolationLevel.class);
        if (checkMode(mode).equals("mvcc")) {
            m.put(IsolationLevel.READ_COMMITTED, LevelSemantics.permits(DOCS_MVCC, Deviation.STATEMENT_VISIBILITY));
            // "REPEATABLE READ and SERIALIZABLE are both snapshot isolation" in MVCC: write skew is allowed.
            String si = DOCS_MVCC + " (MVCC: REPEATABLE READ and SERIALIZABLE are snapshot isolation, which permits write skew)";
            m.put(IsolationLevel.REPEATABLE_READ, LevelSemantics.permits(DOCS_MVCC, Deviation.TRANSACTION_SNAPSHOT)
                    .documenting(si, Anomaly.WRITE_SKEW, Anomaly.G2_ITEM, Anomaly.G2));
            m.put(IsolationLevel.SERIALIZABLE, LevelSemantics.permits(DOCS_MVCC, Deviation.TRANSACTION_SNAPSHOT)
                    .documenting(si, Anomaly.WRITE_SKEW, Anomaly.G2_ITEM, Anomaly.G2));
        } else {
            // LOCKS and MVLOCKS: read locks are released after each statement at READ COMMITTED and
            // kept to commit above it (REPEATABLE READ is upgraded to SERIALIZABLE): strict 2PL on tables.
            m.put(IsolationLevel.READ_COMMITTED, LevelSemantics.permits(DOCS_2PL, Deviation.STATEMENT_VISIBILITY));
            m.put(IsolationLevel.REPEATABLE_READ, LevelSemantics.strict(DOCS_2PL));
            m.put(IsolationLevel.SERIALIZABLE, LevelSemantics.strict(DOCS_2PL));
        }
        return new Profile(m);
    }

    @Override
    public Database freshDatabase() throws SQLException {
        return new HsqldbDatabase("txfuzz_" + NEXT_DB.incrementAndGet());
    }

    /**
     * By vendor code first (HSQLDB's codes are negative; the SQLState is derived from them):
     * <pre>
     *  -4861 40001 serialization failure   SERIALIZATION (MVCC write conflict AND 2PL deadlock victim:
     *                                        HSQLDB reports both alike, so no DEADLOCK here)
     *  -4860 40000 transaction rollback    SERIALIZATION
     *  -4862 40002 integrity violation at commit, transaction rolled back: SERIALIZATION
     *  -4872 40502 statement timeout       LOCK_TIMEOUT (only with a JDBC query timeout)
     *  S1000 (-458 "General error", -460 out of memory, file/IO errors)   INTERNAL
     *  08xxx (-1353 08503 "connection exception: closed")                 CONNECTION_LOST
     *  23xxx CONSTRAINT, 22xxx DATA, 42xxx and 0Axxx INVALID_STATEMENT (e.g. -5581 42581 unexpected
     *  token, -5501 42501 object not found)
     * </pre>
     */
    @Override
    public ErrorClass classify(SQLException e) {
        switch (Math.abs(e.getErrorCode())) {
            case 4861, 4860, 4862:
                return ErrorClass.SERIALIZATION;
            case 4872:
                return ErrorClass.LOCK_TIMEOUT;
            case 458, 460:
                return ErrorClass.INTERNAL;
            default:
                break;
        }
        String state = e.getSQLState();
        if (state == null) {
            return ErrorClass.OTHER;
        }
        if (state.startsWith("S1") || state.startsWith("HY")) {
            return ErrorClass.INTERNAL;
        }
        ErrorClass standard = SqlStates.byStandardClass(e);
        return standard != null ? standard : ErrorClass.OTHER;
    }

    // abortScope: the Target default. With hsqldb.tx_conflict_rollback=true (the default, and set in
    // our URL) HSQLDB has already rolled the whole transaction back when it raises 40001 — the session
    // is out of the transaction and the executor's ROLLBACK is a harmless no-op. Other errors undo only
    // their statement.

    @Override
    public List<String> sessionSetupSql(IsolationLevel level, String mode) {
        return List.of(
                "SET DATABASE TRANSACTION CONTROL " + checkMode(mode).toUpperCase(Locale.ROOT),
                "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL " + checkLevel(level).sql(),
                "SET AUTOCOMMIT TRUE");
    }

    /**
     * HSQLDB's START TRANSACTION does nothing in autocommit mode (the next statement still commits at
     * once), so a transaction is opened the way JDBC does it: autocommit off, the transaction begins
     * with its first statement. Each session runs a single transaction, so autocommit stays off after
     * its COMMIT.
     */
    @Override
    public String beginSql() {
        return "SET AUTOCOMMIT FALSE";
    }

    @Override
    public void close() {
    }

    private IsolationLevel checkLevel(IsolationLevel level) {
        if (!isolationLevels().contains(level)) {
            throw new IllegalArgumentException("HSQLDB has no isolation level " + level + "; it offers " + isolationLevels());
        }
        return level;
    }

    private static String checkMode(String mode) {
        String m = mode == null || mode.equals("default") ? MODES.get(0) : mode.toLowerCase(Locale.ROOT);
        if (!MODES.contains(m)) {
            throw new IllegalArgumentException("HSQLDB has no mode '" + mode + "'; it has " + MODES);
        }
        return m;
    }

    private final class HsqldbDatabase implements Database {
        private final String url;
        private final Connection keeper;
        private final List<Connection> opened = new CopyOnWriteArrayList<>();
        /** Session ids, learnt at connect: asking later would wait behind a statement blocked in that session. */
        private final Map<Connection, String> ids = new ConcurrentHashMap<>();
        private String mode = MODES.get(0);

        HsqldbDatabase(String name) throws SQLException {
            this.url = "jdbc:hsqldb:mem:" + name;
            this.keeper = DriverManager.getConnection(url + ";hsqldb.tx=" + mode + ";hsqldb.tx_conflict_rollback=true", USER, "");
        }

        @Override
        public Connection connect(IsolationLevel level, String mode) throws SQLException {
            checkLevel(level);
            switchMode(checkMode(mode));
            // ifexists: after SHUTDOWN a connect must fail, not silently create a new empty database
            Connection c = DriverManager.getConnection(url + ";ifexists=true", USER, "");
            opened.add(c);
            try (Statement s = c.createStatement()) {
                s.execute("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL " + level.sql());
            }
            ids.put(c, querySessionId(c));
            return c;
        }

        /** The mode is per database; it can change only while no session is in a transaction (else it waits). */
        private synchronized void switchMode(String wanted) throws SQLException {
            if (!wanted.equals(mode)) {
                try (Statement s = keeper.createStatement()) {
                    s.execute("SET DATABASE TRANSACTION CONTROL " + wanted.toUpperCase(Locale.ROOT));
                }
                mode = wanted;
            }
        }

        @Override
        public String sessionId(Connection c) throws SQLException {
            String id = ids.get(c);
            return id != null ? id : querySessionId(c);
        }

        private static String querySessionId(Connection c) throws SQLException {
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("VALUES (SESSION_ID())")) {
                rs.next();
                return rs.getString(1);
            }
        }

        /**
         * INFORMATION_SCHEMA.SYSTEM_SESSIONS: a blocker's WAITING_FOR_THIS lists the sessions waiting
         * for it (all modes); a waiter's THIS_WAITING_FOR lists its blockers (MVCC only). Both are
         * comma-separated session ids. Read by an admin session, which sees every session.
         */
        @Override
        public Optional<LockProbe> lockProbe() throws SQLException {
            Connection probe = DriverManager.getConnection(url + ";ifexists=true", USER, "");
            opened.add(probe);
            PreparedStatement q = probe.prepareStatement(
                    "SELECT SESSION_ID, WAITING_FOR_THIS, THIS_WAITING_FOR FROM INFORMATION_SCHEMA.SYSTEM_SESSIONS");
            return Optional.of(new LockProbe() {
                @Override
                public Optional<Set<String>> waitsFor(String sessionId) throws SQLException {
                    Set<String> blockers = new LinkedHashSet<>();
                    try (ResultSet rs = q.executeQuery()) {
                        while (rs.next()) {
                            String id = rs.getString(1);
                            if (id.equals(sessionId)) {
                                blockers.addAll(ids(rs.getString(3)));
                            } else if (ids(rs.getString(2)).contains(sessionId)) {
                                blockers.add(id);
                            }
                        }
                    }
                    return blockers.isEmpty() ? Optional.empty() : Optional.of(Set.copyOf(blockers));
                }

                @Override
                public void close() {
                    closeQuietly(probe);
                }
            });
        }

        /** SHUTDOWN drops the in-memory database and ends every session, including blocked ones. */
        @Override
        public void close() {
            try (Statement s = keeper.createStatement()) {
                s.execute("SHUTDOWN");
            } catch (SQLException ignored) {
                // already shut down
            }
            closeQuietly(keeper);
            for (Connection c : opened) {
                closeQuietly(c);
            }
            opened.clear();
            ids.clear();
        }
    }

    static List<String> ids(String list) {
        if (list == null || list.isBlank()) {
            return List.of();
        }
        return List.of(list.trim().split("\\s*,\\s*"));
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException ignored) {
            // the database is gone already
        }
    }
}
