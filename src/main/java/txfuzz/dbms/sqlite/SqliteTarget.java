package txfuzz.dbms.sqlite;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteConnection;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.Database;
import txfuzz.dbms.Dialect;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Feature;
import txfuzz.dbms.LevelSemantics;
import txfuzz.dbms.LockProbe;
import txfuzz.dbms.OpenSessions;
import txfuzz.dbms.Profile;
import txfuzz.dbms.Target;

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
    private static final List<String> MODES = List.of("deferred", "immediate");
    private static final String DOCS = "https://www.sqlite.org/isolation.html";

    private final String version;
    private Path dir;

    public SqliteTarget() {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:")) {
            version = "SQLite " + c.getMetaData().getDatabaseProductVersion();
        } catch (SQLException e) {
            throw new IllegalStateException("SQLite does not start: " + e.getMessage(), e);
        }
    }

    @Override
    public String name() {
        return "sqlite";
    }

    @Override
    public String version() {
        return version;
    }

    @Override
    public List<IsolationLevel> isolationLevels() {
        return List.of(IsolationLevel.SERIALIZABLE);
    }

    @Override
    public List<String> modes() {
        return MODES;
    }

    @Override
    public Dialect dialect() {
        EnumSet<Feature> f = Dialect.core();
        // RIGHT and FULL JOIN since 3.39; UPSERT (ON CONFLICT) since 3.24; REPLACE INTO. No FOR UPDATE,
        // no MERGE. Column types are affinities: VARCHAR(10) does not limit length, DOUBLE PRECISION is REAL.
        f.addAll(Set.of(Feature.JOIN_RIGHT, Feature.JOIN_FULL, Feature.INSERT_ON_CONFLICT, Feature.REPLACE));
        return new Dialect("sqlite", f, "DOUBLE PRECISION", "VARCHAR(10)");
    }

    /**
     * SQLite isolates connections serializably: one writer at a time, and in WAL mode a reader keeps
     * the snapshot of its first read; a transaction that read an old snapshot and then writes fails
     * with SQLITE_BUSY_SNAPSHOT. So writes are serial in commit order (no deviation). But a read-only
     * transaction serializes at its snapshot, not at its COMMIT: it may commit after a writer whose
     * changes it never saw. Reads therefore do not have to match the commit-order serial schedule
     * (serializableReads = false) — with BEGIN IMMEDIATE they would, as every transaction takes the
     * write lock at BEGIN (see {@link #profile(String)}).
     */
    @Override
    public Profile profile() {
        return profile(MODES.get(0));
    }

    /** With BEGIN IMMEDIATE every transaction holds the write lock from BEGIN: reads too follow commit order. */
    @Override
    public Profile profile(String mode) {
        boolean immediate = "immediate".equals(mode);
        return new Profile(Map.of(IsolationLevel.SERIALIZABLE, new LevelSemantics(Set.of(), immediate, DOCS)));
    }

    @Override
    public synchronized Database freshDatabase() throws SQLException {
        if (dir == null) {
            try {
                dir = Files.createTempDirectory("txfuzz-sqlite-");
            } catch (IOException e) {
                throw new SQLException("cannot create a directory for SQLite databases: " + e.getMessage(), e);
            }
        }
        return new SqliteDatabase(dir.resolve("txfuzz_" + NEXT_DB.incrementAndGet() + ".db"));
    }

    /**
     * By SQLite's result code (sqlite-jdbc's vendor code is the primary code; the extended code is
     * in SQLiteException.getResultCode(); SQLState is null):
     * <pre>
     *  5 BUSY (incl. 517 BUSY_SNAPSHOT, 261 BUSY_RECOVERY), 6 LOCKED    BUSY
     *  19 CONSTRAINT (1555 PK, 2067 UNIQUE, 1299 NOT NULL, 275 CHECK, 787 FK)   CONSTRAINT
     *  20 MISMATCH, 18 TOOBIG                                          DATA
     *  1 ERROR: "integer overflow" DATA; "... transaction ..." (no transaction is active,
     *    within a transaction) OTHER; otherwise (syntax, no such table/column) INVALID_STATEMENT
     *  25 RANGE                                                        INVALID_STATEMENT
     *  2 INTERNAL, 7 NOMEM, 10 IOERR, 11 CORRUPT, 13 FULL, 14 CANTOPEN, 15 PROTOCOL, 21 MISUSE,
     *    26 NOTADB                                                     INTERNAL
     *  vendor code 0 "database connection closed" / "stmt pointer is closed"   CONNECTION_LOST
     * </pre>
     */
    @Override
    public ErrorClass classify(SQLException e) {
        int code = e.getErrorCode();
        if (e instanceof SQLiteException se && se.getResultCode() != null && se.getResultCode() != SQLiteErrorCode.UNKNOWN_ERROR) {
            code = se.getResultCode().code;
        }
        String msg = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
        switch (code & 0xff) {
            case 5, 6:
                return ErrorClass.BUSY;
            case 19:
                return ErrorClass.CONSTRAINT;
            case 20, 18:
                return ErrorClass.DATA;
            case 1:
                if (msg.contains("integer overflow")) {
                    return ErrorClass.DATA;
                }
                if (msg.contains("transaction")) {
                    return ErrorClass.OTHER;
                }
                return ErrorClass.INVALID_STATEMENT;
            case 25:
                return ErrorClass.INVALID_STATEMENT;
            case 2, 7, 10, 11, 13, 14, 15, 21, 26:
                return ErrorClass.INTERNAL;
            case 0:
                if (msg.contains("closed")) {
                    return ErrorClass.CONNECTION_LOST;
                }
                return ErrorClass.OTHER;
            default:
                return ErrorClass.OTHER;
        }
    }

    // abortScope: the Target default. After SQLITE_BUSY or SQLITE_BUSY_SNAPSHOT inside a transaction
    // SQLite fails only the statement and leaves the transaction open (holding its read snapshot, which
    // after BUSY_SNAPSHOT can never write again), so the executor's ROLLBACK is what ends it. Constraint
    // violations (default conflict resolution ABORT) undo only their statement.

    /** BEGIN DEFERRED or BEGIN IMMEDIATE, as the connection's mode says; JDBC autocommit stays on. */
    @Override
    public void begin(Connection c) throws SQLException {
        SQLiteConfig.TransactionMode m = c.unwrap(SQLiteConnection.class).getCurrentTransactionMode();
        execute(c, "BEGIN " + (m == null ? SQLiteConfig.TransactionMode.DEFERRED : m).name());
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

    @Override
    public List<String> sessionSetupSql(IsolationLevel level, String mode) {
        checkLevel(level);
        checkMode(mode);
        return List.of("PRAGMA journal_mode = WAL", "PRAGMA busy_timeout = 0", "PRAGMA foreign_keys = ON", "PRAGMA synchronous = OFF");
    }

    /** The default mode's BEGIN; {@link #beginSql(String)} spells the others. */
    @Override
    public String beginSql() {
        return beginSql(MODES.get(0));
    }

    public String beginSql(String mode) {
        return "BEGIN " + checkMode(mode).toUpperCase(Locale.ROOT);
    }

    /** Deletes the directory of this target's database files. */
    @Override
    public synchronized void close() {
        if (dir != null) {
            deleteTree(dir);
            dir = null;
        }
    }

    private static void checkLevel(IsolationLevel level) {
        if (level != IsolationLevel.SERIALIZABLE) {
            throw new IllegalArgumentException("SQLite has only SERIALIZABLE, not " + level);
        }
    }

    private static String checkMode(String mode) {
        String m = mode == null || mode.equals("default") ? MODES.get(0) : mode.toLowerCase(Locale.ROOT);
        if (!MODES.contains(m)) {
            throw new IllegalArgumentException("SQLite has no mode '" + mode + "'; it has " + MODES);
        }
        return m;
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

    private static final class SqliteDatabase implements Database {
        private final Path file;
        private final String url;
        private final OpenSessions sessions = new OpenSessions();

        SqliteDatabase(Path file) throws SQLException {
            this.file = file;
            this.url = "jdbc:sqlite:" + file;
            // create the file and switch it to WAL (persistent in the file) before any session opens
            config(MODES.get(0)).createConnection(url).close();
        }

        private static SQLiteConfig config(String mode) {
            SQLiteConfig cfg = new SQLiteConfig();
            cfg.setJournalMode(SQLiteConfig.JournalMode.WAL);
            cfg.setBusyTimeout(0);
            cfg.enforceForeignKeys(true);
            // durability against power loss is not under test: no fsync per commit (62 ms → 3 ms a case)
            cfg.setSynchronous(SQLiteConfig.SynchronousMode.OFF);
            cfg.setTransactionMode(SQLiteConfig.TransactionMode.valueOf(mode.toUpperCase(Locale.ROOT)));
            return cfg;
        }

        @Override
        public Connection connect(IsolationLevel level, String mode) throws SQLException {
            checkLevel(level);
            return sessions.register(config(checkMode(mode)).createConnection(url));
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
