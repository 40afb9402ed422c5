package txfuzz.dbms.duckdb;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import org.duckdb.DuckDBConnection;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.AbortScope;
import txfuzz.dbms.Database;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.Dialect;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Feature;
import txfuzz.dbms.LevelSemantics;
import txfuzz.dbms.LockProbe;
import txfuzz.dbms.OpenSessions;
import txfuzz.dbms.Profile;
import txfuzz.dbms.Target;

/**
 * DuckDB, one in-memory database instance per test case ({@code jdbc:duckdb:} opens a new private
 * one); every session is a {@link DuckDBConnection#duplicate()} of its first connection, and the
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
    private static final String DOCS = "https://duckdb.org/docs/stable/connect/concurrency";
    private static final String ABORTED = "Current transaction is aborted";

    private final String version;

    public DuckdbTarget() {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:", properties())) {
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
    public String name() {
        return "duckdb";
    }

    @Override
    public String version() {
        return version;
    }

    @Override
    public List<IsolationLevel> isolationLevels() {
        return List.of(IsolationLevel.SNAPSHOT);
    }

    @Override
    public Dialect dialect() {
        EnumSet<Feature> f = Dialect.core();
        // MERGE since 1.4; INSERT ... ON CONFLICT; INSERT OR REPLACE but not REPLACE INTO; no FOR UPDATE.
        f.addAll(Set.of(Feature.JOIN_RIGHT, Feature.JOIN_FULL, Feature.INSERT_ON_CONFLICT, Feature.MERGE));
        // Foreign keys are left out (measured on 1.4.4). A child row deleted earlier in the same
        // transaction still counts as referencing its parent (DELETE child; DELETE parent fails; the
        // error points to DuckDB's documented FK limitations), so autocommit replays would disagree
        // with transactional runs for no bug. And a concurrent DELETE of a parent and INSERT of its
        // child both commit, leaving an orphan — a real bug, but one every FK case would rediscover.
        f.remove(Feature.FOREIGN_KEY);
        return new Dialect("duckdb", f, "DOUBLE PRECISION", "VARCHAR(10)");
    }

    @Override
    public Profile profile() {
        return new Profile(Map.of(IsolationLevel.SNAPSHOT, LevelSemantics.permits(DOCS, Deviation.TRANSACTION_SNAPSHOT)));
    }

    @Override
    public Database freshDatabase() throws SQLException {
        return new DuckdbDatabase();
    }

    /**
     * DuckDB's JDBC driver gives neither SQLState nor vendor code; the message starts with the
     * engine's exception type ("Constraint Error: ..."), which is what this goes by:
     * <pre>
     *  TransactionContext: "Current transaction is aborted"  IN_FAILED_TRANSACTION
     *                      "Conflict on ..." / "write-write conflict" / "Failed to commit"  SERIALIZATION
     *                      other (no transaction active, nested BEGIN)  OTHER
     *  Constraint                                              CONSTRAINT
     *  Conversion, Out of Range, Invalid Input, Mismatch Type, Divide by Zero, Decimal, Sequence   DATA
     *  Parser, Syntax, Binder, Catalog, Not implemented, Dependency, Planner, Parameter Not ...,
     *    Unknown Type, Invalid type, Missing Extension, Settings, Invalid Configuration    INVALID_STATEMENT
     *  INTERNAL, NullPointer, Serialization, IO, Index, Executor, Expression, Optimizer,
     *    Scheduler, Stat, Out of Memory                         INTERNAL
     *  FATAL (database invalidated), Connection, "Connection was closed"   CONNECTION_LOST
     * </pre>
     */
    @Override
    public ErrorClass classify(SQLException e) {
        String msg = String.valueOf(e.getMessage()).strip();
        if (msg.contains(ABORTED)) {
            return ErrorClass.IN_FAILED_TRANSACTION;
        }
        if (msg.contains("database has been invalidated") || msg.startsWith("Connection was closed")
                || msg.startsWith("Connection has been closed")) {
            return ErrorClass.CONNECTION_LOST;
        }
        int colon = msg.indexOf(" Error:");
        String type = colon < 0 ? "" : msg.substring(0, colon);
        return switch (type) {
            case "TransactionContext" -> msg.contains("onflict") || msg.contains("Failed to commit")
                    ? ErrorClass.SERIALIZATION : ErrorClass.OTHER;
            case "Constraint" -> ErrorClass.CONSTRAINT;
            case "Conversion", "Out of Range", "Invalid Input", "Mismatch Type", "Divide by Zero", "Decimal", "Sequence" -> ErrorClass.DATA;
            case "Parser", "Syntax", "Binder", "Catalog", "Not implemented", "Dependency", "Planner", "Parameter Not Resolved",
                    "Parameter Not Allowed", "Unknown Type", "Invalid type", "Missing Extension", "Settings",
                    "Invalid Configuration" -> ErrorClass.INVALID_STATEMENT;
            case "INTERNAL", "NullPointer", "Serialization", "IO", "Index", "Executor", "Expression", "Optimizer", "Scheduler",
                    "Stat", "Out of Memory" -> ErrorClass.INTERNAL;
            case "FATAL", "Connection" -> ErrorClass.CONNECTION_LOST;
            default -> ErrorClass.OTHER;
        };
    }

    /**
     * DuckDB aborts the whole transaction on any error raised while a statement executes — a conflict,
     * but also a constraint violation or a data error (measured: the next statement fails with
     * "Current transaction is aborted (please ROLLBACK)" and nothing of the transaction survives).
     * Errors raised before execution (Parser, Binder, Catalog: INVALID_STATEMENT) leave it intact.
     * The aborted transaction stays open until ROLLBACK, which the executor sends for TRANSACTION.
     */
    @Override
    public AbortScope abortScope(ErrorClass c) {
        return switch (c) {
            case CONSTRAINT, DATA -> AbortScope.TRANSACTION;
            default -> Target.super.abortScope(c);
        };
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
            if (!String.valueOf(e.getMessage()).contains(ABORTED)) {
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
    public List<String> sessionSetupSql(IsolationLevel level, String mode) {
        checkLevel(level);
        return List.of("SET threads = 1");
    }

    @Override
    public void close() {
    }

    private static void checkLevel(IsolationLevel level) {
        if (level != IsolationLevel.SNAPSHOT) {
            throw new IllegalArgumentException("DuckDB has only SNAPSHOT, not " + level);
        }
    }

    /** First line of a message (DuckDB appends the query with a caret on later lines). */
    private static String firstLine(SQLException e) {
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    private static final class DuckdbDatabase implements Database {
        private final DuckDBConnection first;
        private final OpenSessions sessions = new OpenSessions();

        DuckdbDatabase() throws SQLException {
            first = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:", properties());
        }

        @Override
        public Connection connect(IsolationLevel level, String mode) throws SQLException {
            checkLevel(level);
            if (mode != null && !mode.equals("default")) {
                throw new IllegalArgumentException("DuckDB has only the mode 'default', not '" + mode + "'");
            }
            return sessions.register(first.duplicate());
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
