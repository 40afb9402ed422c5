package txfuzz.dbms.duckdb;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.Properties;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.Database;
import txfuzz.dbms.Engine;
import txfuzz.dbms.Jdbc;
import txfuzz.dbms.LockProbe;
import txfuzz.dbms.OpenSessions;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;

/**
 * DuckDB, one in-memory database instance per test case ({@code jdbc:duckdb:} opens a new private
 * one); every session is a {@code DuckDBConnection.duplicate()} of its first connection, and the
 * instance goes away when the last of them closes. {@code threads = 1}: test cases are tiny, and so
 * an open database costs no worker thread.
 *
 * <p>DuckDB has one isolation level, snapshot isolation (JDBC isolation settings are ignored), and
 * optimistic concurrency control: it never waits for a lock. Writing a row another live or
 * since-committed transaction wrote fails at once ("TransactionContext Error: Conflict on update!"),
 * before the first writer commits, and aborts the transaction: every later statement fails with
 * "Current transaction is aborted (please ROLLBACK)". Concurrent inserts of one key are caught at the
 * second COMMIT ("Failed to commit: PRIMARY KEY or UNIQUE constraint violation"). Any other error
 * raised while a statement executes (constraint, data) aborts the transaction as well.
 *
 * <p>A COMMIT of an aborted transaction — by JDBC's commit() or by SQL — returns normally and rolls
 * it back. {@link #commit} therefore asks first (a {@code SELECT 1} fails in an aborted transaction)
 * and throws instead of pretending to commit.
 */
public final class DuckdbTarget implements Target {

    /** A new private in-memory database. */
    static final String URL = "jdbc:duckdb:";

    private final DuckdbEngine engine;
    private final Jdbc jdbc;
    private final String version;

    /** The bundled DuckDB. */
    public DuckdbTarget() {
        this(new DuckdbEngine(), Engine.inProcessDriver(new DuckdbEngine(), TargetOptions.none(), URL));
    }

    DuckdbTarget(DuckdbEngine engine, Jdbc jdbc) {
        this.engine = engine;
        this.jdbc = jdbc;
        try (Connection c = jdbc.connect(URL, properties())) {
            version = "DuckDB " + c.getMetaData().getDatabaseProductVersion();
        } catch (SQLException e) {
            throw new IllegalStateException("DuckDB does not start: " + e.getMessage(), e);
        }
    }

    private static Properties properties() {
        Properties p = new Properties();
        p.setProperty("threads", "1");
        return p;
    }

    @Override
    public DuckdbEngine engine() {
        return engine;
    }

    @Override
    public String version() {
        return version;
    }

    @Override
    public Database freshDatabase() throws SQLException {
        return new DuckdbDatabase(jdbc);
    }

    /**
     * Transactions are opened and ended with SQL (BEGIN TRANSACTION, COMMIT, ROLLBACK), JDBC
     * autocommit left on, as in DuckDB's own client. (The driver's setAutoCommit(true) commits, so
     * after a failed COMMIT it throws "cannot commit - no transaction is active" over the real error.)
     * DuckDB's BEGIN takes its snapshot lazily, at the first statement, like JDBC's.
     */
    @Override
    public void begin(Connection c) throws SQLException {
        execute(c, "BEGIN TRANSACTION");
    }

    /**
     * Commits, unless DuckDB already aborted the transaction: then it rolls back and throws (an
     * IN_FAILED_TRANSACTION error), because DuckDB's own COMMIT would return normally without
     * committing. A failure inside the commit itself (a key inserted concurrently: "Failed to
     * commit: PRIMARY KEY or UNIQUE constraint violation") is thrown as DuckDB reports it; the
     * transaction is over either way.
     */
    @Override
    public void commit(Connection c) throws SQLException {
        try {
            execute(c, "SELECT 1");
        } catch (SQLException e) {
            if (!String.valueOf(e.getMessage()).contains(DuckdbEngine.ABORTED)) {
                throw e;
            }
            try {
                execute(c, "ROLLBACK");
            } catch (SQLException alreadyOver) {
                e.addSuppressed(alreadyOver);
            }
            throw new SQLException(firstLine(e) + " — COMMIT refused: DuckDB had aborted the transaction, it was rolled back", e);
        }
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
    public void close() {
    }

    /** First line of a message (DuckDB appends the query with a caret on later lines). */
    private static String firstLine(SQLException e) {
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    private static final class DuckdbDatabase implements Database {
        private final Connection first;
        private final OpenSessions sessions = new OpenSessions();

        DuckdbDatabase(Jdbc jdbc) throws SQLException {
            first = jdbc.connect(URL, properties());
        }

        /**
         * A new connection to {@code first}'s instance: DuckDBConnection.duplicate(), called by name,
         * since the driver may come from a class loader of its own (another version) whose
         * DuckDBConnection is not txfuzz's.
         */
        private Connection duplicate() throws SQLException {
            try {
                return (Connection) first.getClass().getMethod("duplicate").invoke(first);
            } catch (java.lang.reflect.InvocationTargetException e) {
                if (e.getCause() instanceof SQLException s) {
                    throw s;
                }
                throw new IllegalStateException("DuckDBConnection.duplicate() failed", e.getCause());
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("this DuckDB driver has no DuckDBConnection.duplicate()", e);
            }
        }

        @Override
        public Connection connect(IsolationLevel level, String mode) throws SQLException {
            DuckdbEngine.checkLevel(level);
            if (mode != null && !mode.equals("default")) {
                throw new IllegalArgumentException("DuckDB has only the mode 'default', not '" + mode + "'");
            }
            return sessions.register(duplicate());
        }

        @Override
        public String sessionId(Connection c) {
            return sessions.id(c);
        }

        /** DuckDB never waits for a lock: conflicts fail at once. */
        @Override
        public Optional<LockProbe> lockProbe() {
            return Optional.empty();
        }

        /** Closing the last connection to the instance frees the database. */
        @Override
        public void close() {
            sessions.closeAll();
            try {
                first.close();
            } catch (SQLException ignored) {
                // closed already
            }
        }
    }
}
