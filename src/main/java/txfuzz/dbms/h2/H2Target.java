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
import txfuzz.dbms.ReusedDatabases;
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

    /**
     * Off unless -Dtxfuzz.h2.reuse=true: measured, a new in-memory H2 database and its SHUTDOWN cost less than
     * DROP ALL OBJECTS and the check (INFORMATION_SCHEMA.SETTINGS alone is ~1-2 ms), see docs/performance.md.
     */
    private final boolean reuse = ReusedDatabases.ENABLED && Boolean.getBoolean("txfuzz.h2.reuse");
    private final ReusedDatabases<H2Database> databases = new ReusedDatabases<>(this::createDatabase, reuse);

    /** A new database, or (with -Dtxfuzz.h2.reuse=true) one of an earlier run of this thread, emptied with DROP ALL OBJECTS and checked. */
    @Override
    public Database freshDatabase() throws SQLException {
        return databases.take();
    }

    private H2Database createDatabase() throws SQLException {
        String url = "jdbc:h2:mem:txfuzz_" + NEXT_DB.incrementAndGet() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=" + H2Engine.LOCK_TIMEOUT_MS + urlSettings;
        return new H2Database(jdbc, url, reuse);
    }

    @Override
    public ReusedDatabases.Counts databaseReuse() {
        return databases.counts();
    }

    /** Why the latest reset database was dropped instead of reused (tests). */
    String lastDiscardReason() {
        return databases.lastDiscardReason();
    }

    @Override
    public void close() {
        databases.close();
    }

    /**
     * What a case can leave in an H2 database: objects of every schema but INFORMATION_SCHEMA, users and roles,
     * and the database's settings (SET MODE, SET DEFAULT_LOCK_TIMEOUT, ... are database-wide in H2).
     */
    private static final String FINGERPRINT = "SELECT 'schema ' || SCHEMA_NAME FROM INFORMATION_SCHEMA.SCHEMATA"
            + " UNION ALL SELECT 'table ' || TABLE_SCHEMA || '.' || TABLE_NAME || ' ' || TABLE_TYPE FROM INFORMATION_SCHEMA.TABLES"
            + " WHERE TABLE_SCHEMA <> 'INFORMATION_SCHEMA'"
            + " UNION ALL SELECT 'index ' || INDEX_SCHEMA || '.' || INDEX_NAME FROM INFORMATION_SCHEMA.INDEXES"
            + " UNION ALL SELECT 'sequence ' || SEQUENCE_SCHEMA || '.' || SEQUENCE_NAME FROM INFORMATION_SCHEMA.SEQUENCES"
            + " UNION ALL SELECT 'trigger ' || TRIGGER_SCHEMA || '.' || TRIGGER_NAME FROM INFORMATION_SCHEMA.TRIGGERS"
            + " UNION ALL SELECT 'routine ' || ROUTINE_SCHEMA || '.' || ROUTINE_NAME FROM INFORMATION_SCHEMA.ROUTINES"
            + " UNION ALL SELECT 'constant ' || CONSTANT_SCHEMA || '.' || CONSTANT_NAME FROM INFORMATION_SCHEMA.CONSTANTS"
            + " UNION ALL SELECT 'domain ' || DOMAIN_SCHEMA || '.' || DOMAIN_NAME FROM INFORMATION_SCHEMA.DOMAINS"
            + " UNION ALL SELECT 'synonym ' || SYNONYM_SCHEMA || '.' || SYNONYM_NAME FROM INFORMATION_SCHEMA.SYNONYMS"
            + " UNION ALL SELECT 'user ' || USER_NAME || ' ' || IS_ADMIN FROM INFORMATION_SCHEMA.USERS"
            + " UNION ALL SELECT 'role ' || ROLE_NAME FROM INFORMATION_SCHEMA.ROLES"
            + " UNION ALL SELECT 'setting ' || SETTING_NAME || '=' || COALESCE(SETTING_VALUE, '') FROM INFORMATION_SCHEMA.SETTINGS"
            + " WHERE SETTING_NAME NOT LIKE 'info.%' AND SETTING_NAME NOT LIKE 'property.%'" // the build and the JVM, and figures that move
            + " ORDER BY 1";

    private static final class H2Database implements ReusedDatabases.Reusable {
        private final Jdbc jdbc;
        private final String url;
        private final Connection keeper;
        /** The database-wide settings as the new database had them, restored by {@link #reset()}. */
        private final java.util.Map<String, String> settingsWhenNew;

        /** @param reusable whether it will be reset for another run: only then are its settings read when new (~1 ms) */
        H2Database(Jdbc jdbc, String url, boolean reusable) throws SQLException {
            this.jdbc = jdbc;
            this.url = url;
            this.keeper = jdbc.connect(url);
            java.util.Map<String, String> settings = java.util.Map.of();
            if (reusable) {
                try (Statement s = keeper.createStatement()) {
                    settings = settings(s);
                } catch (SQLException olderCatalog) {
                    // H2 1.4 names the columns otherwise; its databases are not reused
                }
            }
            this.settingsWhenNew = settings;
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

        /**
         * Refuses while another session is open (a statement given up on may still wait or hold a lock), then
         * DROP ALL OBJECTS: every table, view, sequence, schema, alias, role and user but the keeper's.
         */
        @Override
        public void reset() throws SQLException {
            try (Statement s = keeper.createStatement()) {
                try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE SESSION_ID <> SESSION_ID()")) {
                    rs.next();
                    if (rs.getInt(1) > 0) {
                        throw new SQLException(rs.getInt(1) + " session(s) of the last run still open");
                    }
                }
                s.execute("DROP ALL OBJECTS");
                restoreSettings(s);
            }
        }

        /**
         * A setting the run changed (SET name value is database-wide in H2) is set back to its value when the
         * database was new. One the new database did not list (H2 lists a setting once it was set, e.g.
         * DEFAULT_LOCK_TIMEOUT or IGNORECASE) or that cannot be set so stays, and the fingerprint check drops the database.
         */
        private void restoreSettings(Statement s) throws SQLException {
            java.util.Map<String, String> now = settings(s);
            for (var e : settingsWhenNew.entrySet()) {
                if (!e.getValue().equals(now.get(e.getKey())) && !e.getKey().startsWith("info.")) {
                    try {
                        s.execute("SET " + e.getKey() + " " + e.getValue());
                    } catch (SQLException notSettableSo) {
                        // left to the fingerprint check
                    }
                }
            }
        }

        private static java.util.Map<String, String> settings(Statement s) throws SQLException {
            java.util.Map<String, String> out = new java.util.HashMap<>();
            try (ResultSet rs = s.executeQuery("SELECT SETTING_NAME, SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS")) {
                while (rs.next()) {
                    out.put(rs.getString(1), String.valueOf(rs.getString(2)));
                }
            }
            return out;
        }

        @Override
        public String fingerprint() throws SQLException {
            return ReusedDatabases.rows(keeper, FINGERPRINT);
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
