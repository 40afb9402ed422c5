package txfuzz.dbms.sqlite;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.Database;
import txfuzz.dbms.Engine;
import txfuzz.dbms.Jdbc;
import txfuzz.dbms.LockProbe;
import txfuzz.dbms.OpenSessions;
import txfuzz.dbms.ReusedDatabases;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;

/**
 * SQLite through xerial's sqlite-jdbc. Each test case gets its own database file, in WAL mode, in a
 * temporary directory of this target; closing the database deletes the file and its -wal/-shm.
 * (A shared-cache in-memory database would bring table-level locking and SQLITE_LOCKED instead.)
 *
 * <p>Every connection has {@code busy_timeout = 0}: a statement that needs a lock another connection
 * holds fails at once with SQLITE_BUSY instead of retrying for the driver's default 3 s. SQLite never
 * waits on a lock then, so there is no lock probe, and no deadlock can form. Foreign keys are
 * enforced ({@code PRAGMA foreign_keys = ON}; SQLite's default is off). {@code synchronous = OFF}:
 * no fsync at commit, which only matters after a power loss.
 *
 * <p>Modes are BEGIN variants: "deferred" (the default; SQLite's own default too: a read snapshot at
 * the first read, the write lock at the first write) and "immediate" (the write lock at BEGIN, so a
 * second writer's BEGIN fails with SQLITE_BUSY). EXCLUSIVE is not offered: in WAL mode it is the same
 * as IMMEDIATE.
 *
 * <p>Transactions are opened and ended with the SQL a user types ({@code BEGIN DEFERRED},
 * {@code COMMIT}, {@code ROLLBACK}), with JDBC autocommit left on. The driver's own way
 * (setAutoCommit(false)) re-opens a transaction right after every commit, which with IMMEDIATE would
 * take the write lock again until autocommit is switched back on.
 */
public final class SqliteTarget implements Target {
    private static final AtomicLong NEXT_DB = new AtomicLong();

    /** A private in-memory database: for the version, and to find the driver. */
    static final String PROBE_URL = "jdbc:sqlite::memory:";

    private final SqliteEngine engine;
    private final Jdbc jdbc;
    private final String version;
    /** Each session's mode (its BEGIN), kept here: the driver's own record of it is a class of its version. */
    private final Map<Connection, String> modes = Collections.synchronizedMap(new WeakHashMap<>());
    private Path dir;

    /** The bundled sqlite-jdbc. */
    public SqliteTarget() {
        this(new SqliteEngine(), Engine.inProcessDriver(new SqliteEngine(), TargetOptions.none(), PROBE_URL));
    }

    SqliteTarget(SqliteEngine engine, Jdbc jdbc) {
        this.engine = engine;
        this.jdbc = jdbc;
        try (Connection c = jdbc.connect(PROBE_URL)) {
            version = "SQLite " + c.getMetaData().getDatabaseProductVersion();
        } catch (SQLException e) {
            throw new IllegalStateException("SQLite does not start: " + e.getMessage(), e);
        }
    }

    @Override
    public SqliteEngine engine() {
        return engine;
    }

    @Override
    public String version() {
        return version;
    }

    /**
     * Creating, switching to WAL and deleting a database file (with its -wal and -shm) three times a case was
     * most of SQLite's cost: each thread keeps its files, emptied between runs and checked (ReusedDatabases).
     */
    private final ReusedDatabases<SqliteDatabase> databases = new ReusedDatabases<>(
            // only the folder is shared: the file is created and switched to WAL outside the lock, so workers do not queue
            () -> new SqliteDatabase(directory().resolve("txfuzz_" + NEXT_DB.incrementAndGet() + ".db")), ReusedDatabases.ENABLED);

    @Override
    public Database freshDatabase() throws SQLException {
        return databases.take();
    }

    @Override
    public ReusedDatabases.Counts databaseReuse() {
        return databases.counts();
    }

    private final AtomicLong sessionsOpened = new AtomicLong();
    private final AtomicLong sessionsReused = new AtomicLong();

    /** Sessions opened, and sessions a run got that an earlier run closed (tests). */
    long[] sessionCounts() {
        return new long[] {sessionsOpened.get(), sessionsReused.get()};
    }

    /** Why the latest reset database was dropped instead of reused (tests). */
    String lastDiscardReason() {
        return databases.lastDiscardReason();
    }

    private synchronized Path directory() throws SQLException {
        if (dir == null) {
            try {
                dir = Files.createTempDirectory("txfuzz-sqlite-");
            } catch (IOException e) {
                throw new SQLException("cannot create a directory for SQLite databases: " + e.getMessage(), e);
            }
        }
        return dir;
    }

    // abortScope: the Target default. After SQLITE_BUSY or SQLITE_BUSY_SNAPSHOT inside a transaction
    /** BEGIN DEFERRED or BEGIN IMMEDIATE, as the connection's mode says; JDBC autocommit stays on. */
    @Override
    public void begin(Connection c) throws SQLException {
        execute(c, "BEGIN " + modes.getOrDefault(c, SqliteEngine.MODES.get(0)).toUpperCase(Locale.ROOT));
    }

    @Override
    public void commit(Connection c) throws SQLException {
        execute(c, "COMMIT");
    }

    @Override
    public void rollback(Connection c) throws SQLException {
        execute(c, "ROLLBACK");
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** Drops the kept databases and deletes the directory of this target's database files. */
    @Override
    public void close() {
        databases.close();
        deleteDirectory();
    }

    private synchronized void deleteDirectory() {
        if (dir != null) {
            deleteTree(dir);
            dir = null;
        }
    }

    private static void deleteTree(Path p) {
        try (Stream<Path> files = Files.walk(p)) {
            files.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(f -> {
                try {
                    Files.deleteIfExists(f);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException ignored) {
            // best effort: a temporary directory
        }
    }

    /**
     * What a case can leave in a SQLite file: its schema (tables, indexes, views, triggers, each with the SQL that
     * makes it as it now is, and SQLite's own tables such as sqlite_sequence or sqlite_stat1, which the reset does
     * not drop) and the settings that persist in the file.
     */
    private static final String FINGERPRINT = "SELECT type, name, tbl_name, sql FROM sqlite_schema"
            + " UNION ALL SELECT 'pragma', 'user_version', user_version, NULL FROM pragma_user_version"
            + " UNION ALL SELECT 'pragma', 'application_id', application_id, NULL FROM pragma_application_id"
            + " UNION ALL SELECT 'pragma', 'journal_mode', journal_mode, NULL FROM pragma_journal_mode"
            + " UNION ALL SELECT 'pragma', 'page_size', page_size, NULL FROM pragma_page_size"
            + " UNION ALL SELECT 'pragma', 'auto_vacuum', auto_vacuum, NULL FROM pragma_auto_vacuum"
            + " UNION ALL SELECT 'pragma', 'encoding', encoding, NULL FROM pragma_encoding"
            + " ORDER BY 1, 2";

    /**
     * A file keeps a case's tables for the case's next run (emptied and checked, ReusedDatabases) and its closed
     * sessions with them: SQLite locks the whole file, never a row or a page, so where the emptied rows' pages were
     * cannot change a run; a rowid table restarts at rowid 1 when empty, and emptying clears sqlite_sequence.
     * -Dtxfuzz.sqlite.keepSessions=false opens every session anew (for measurements side by side).
     */
    static final boolean KEEP_SESSIONS = ReusedDatabases.ENABLED && !"false".equals(System.getProperty("txfuzz.sqlite.keepSessions"));

    private final class SqliteDatabase implements ReusedDatabases.KeepsTables {
        private final Path file;
        private final String url;
        private final OpenSessions sessions = new OpenSessions();
        private final KeptSessions kept;
        /**
         * Whether the current run may get sessions a former run closed: set when its case's statements were told
         * ({@link #willRun}) and none could tell a kept session from a new one; cleared whenever the file is handed back
         * (ReusedDatabases checks for open sessions then), so a run that tells nothing gets new sessions.
         */
        private volatile boolean reuseSessions;
        /** Creates the file and resets it; foreign keys off, so dropping a parent table needs no order. */
        private final Connection keeper;

        SqliteDatabase(Path file) throws SQLException {
            this.file = file;
            this.url = "jdbc:sqlite:" + file;
            this.kept = new KeptSessions(m -> jdbc.connect(url, config(m)), KEEP_SESSIONS, sessionsOpened, sessionsReused);
            // Create the file and switch it to WAL (persistent in the file) before any session opens. The switch
            // comes after synchronous = OFF: the driver applies its properties in an order of its own, and a
            // switch made while synchronous is still FULL syncs the new file (~15 ms a database, three a case).
            Properties p = config(SqliteEngine.MODES.get(0));
            p.setProperty("foreign_keys", "false");
            keeper = jdbc.connect(url, p);
            try (Statement s = keeper.createStatement()) {
                s.execute("PRAGMA journal_mode = WAL");
            } catch (SQLException e) {
                keeper.close();
                throw e;
            }
        }

        /**
         * Refuses while a session of the last run is open, then drops every table and view the case made (their
         * indexes and triggers go with them) in one transaction, and sets the file's user_version and
         * application_id back to 0. BEGIN IMMEDIATE fails at once (busy_timeout 0) if any other connection
         * still holds the write lock.
         */
        @Override
        public void reset() throws SQLException {
            checkNoSessions();
            kept.clear(); // the next case's schema is another
            List<String> drops = new java.util.ArrayList<>();
            try (Statement s = keeper.createStatement();
                 java.sql.ResultSet rs = s.executeQuery("SELECT type, name FROM sqlite_schema WHERE type IN ('table', 'view')"
                         + " AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY type = 'table'")) {
                while (rs.next()) {
                    drops.add("DROP " + rs.getString(1).toUpperCase(Locale.ROOT) + " \"" + rs.getString(2).replace("\"", "\"\"") + "\"");
                }
            }
            drops.add("PRAGMA user_version = 0");
            drops.add("PRAGMA application_id = 0");
            inOneTransaction(drops);
        }

        /** {@code statements} on the keeper in one write transaction, rolled back if one fails. */
        private void inOneTransaction(List<String> statements) throws SQLException {
            try (Statement s = keeper.createStatement()) {
                s.execute("BEGIN IMMEDIATE");
                try {
                    for (String sql : statements) {
                        s.execute(sql);
                    }
                    s.execute("COMMIT");
                } catch (SQLException e) {
                    try {
                        s.execute("ROLLBACK");
                    } catch (SQLException second) {
                        e.addSuppressed(second);
                    }
                    throw e;
                }
            }
        }

        @Override
        public void willRun(txfuzz.model.TestCase testCase) {
            List<String> transactions = new java.util.ArrayList<>();
            for (txfuzz.model.Txn t : testCase.transactions()) {
                transactions.addAll(t.settings());
                t.statements().forEach(st -> transactions.add(st.sql()));
            }
            reuseSessions = KeptSessions.mayReuseFor(testCase.setup(), transactions);
            if (!reuseSessions) {
                kept.clear(); // its transactions may change the schema the kept sessions read
            }
        }

        @Override
        public void checkNoSessions() throws SQLException {
            reuseSessions = false;
            int open = sessions.stillOpen();
            if (open > 0) {
                throw new SQLException(open + " session(s) of the last run still open");
            }
        }

        /**
         * Deletes every row of every table, SQLite's sqlite_sequence too (AUTOINCREMENT counts from 1 again), in one
         * transaction on the keeper, whose foreign keys are off. A delete trigger that adds rows elsewhere leaves rows,
         * which the check finds.
         */
        @Override
        public void empty() throws SQLException {
            checkNoSessions();
            inOneTransaction(tables().stream().map(t -> "DELETE FROM " + t).toList());
        }

        @Override
        public long rows() throws SQLException {
            List<String> tables = tables();
            if (tables.isEmpty()) {
                return 0;
            }
            StringBuilder sql = new StringBuilder("SELECT 0");
            for (String t : tables) {
                sql.append(" + (SELECT COUNT(*) FROM ").append(t).append(')');
            }
            try (Statement s = keeper.createStatement(); java.sql.ResultSet rs = s.executeQuery(sql.toString())) {
                rs.next();
                return rs.getLong(1);
            }
        }

        /** The file's tables, quoted: the case's and sqlite_sequence (not sqlite_stat1, which the fingerprint names). */
        private List<String> tables() throws SQLException {
            List<String> out = new java.util.ArrayList<>();
            try (Statement s = keeper.createStatement();
                 java.sql.ResultSet rs = s.executeQuery("SELECT name FROM sqlite_schema WHERE type = 'table'"
                         + " AND (name NOT LIKE 'sqlite\\_%' ESCAPE '\\' OR name = 'sqlite_sequence') ORDER BY name")) {
                while (rs.next()) {
                    out.add("\"" + rs.getString(1).replace("\"", "\"\"") + "\"");
                }
            }
            return out;
        }

        @Override
        public String fingerprint() throws SQLException {
            return ReusedDatabases.rows(keeper, FINGERPRINT);
        }

        /**
         * sqlite-jdbc's SQLiteConfig as connection properties (pragma names): the same in every driver version.
         * No journal_mode: the file is in WAL mode already, and every session would set it again.
         */
        private static Properties config(String mode) {
            Properties p = new Properties();
            p.setProperty("busy_timeout", "0");
            p.setProperty("foreign_keys", "true");
            // durability against power loss is not under test: no fsync per commit (62 ms → 3 ms a case)
            p.setProperty("synchronous", "OFF");
            p.setProperty("transaction_mode", mode.toUpperCase(Locale.ROOT));
            return p;
        }

        @Override
        public Connection connect(IsolationLevel level, String mode) throws SQLException {
            SqliteEngine.checkLevel(level);
            String m = SqliteEngine.checkMode(mode);
            Connection c = sessions.register(kept.take(m, reuseSessions));
            modes.put(c, m);
            return c;
        }

        @Override
        public String sessionId(Connection c) {
            return sessions.id(c);
        }

        /** SQLite never waits for a lock here (busy_timeout = 0): there is nothing to probe. */
        @Override
        public Optional<LockProbe> lockProbe() {
            return Optional.empty();
        }

        @Override
        public void close() {
            sessions.closeAll();
            kept.close();
            try {
                keeper.close();
            } catch (SQLException ignored) {
                // closed already
            }
            for (String suffix : List.of("", "-wal", "-shm", "-journal")) {
                try {
                    Files.deleteIfExists(file.resolveSibling(file.getFileName() + suffix));
                } catch (IOException ignored) {
                    // the directory goes when the target closes
                }
            }
        }
    }
}
