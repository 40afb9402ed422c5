package txfuzz.exec;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import txfuzz.model.ExecutionMode;
import txfuzz.model.Stmt;
import txfuzz.model.Values;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.SqlStates;
import txfuzz.dbms.Target;

/** One connection that runs one transaction's statements, one at a time, on a pool thread. */
final class Session implements AutoCloseable {
    /** A statement's result with the moment it finished, to order statements that resume together. */
    record Completed(StmtResult result, long finishedNanos) {
    }

    private final Target target;
    private final Connection connection;
    private final String engineId;
    private final ExecutionMode mode;
    private final Map<String, PreparedStatement> prepared = new HashMap<>();
    private Statement plain;
    private volatile Statement running;
    /** A background rollback is still releasing this session's locks. */
    private volatile CompletableFuture<Void> background = CompletableFuture.completedFuture(null);

    boolean rollingBack() {
        return !background.isDone();
    }

    /**
     * A background rollback that can go on by itself: none waits behind a statement given up on that still runs
     * (an in-process engine's session runs one call at a time, so such a rollback ends only once that statement does).
     */
    boolean rollingBackFreely() {
        return rollingBack() && !busy;
    }

    /** A statement was submitted and has not returned: closing must not wait for it. */
    private volatile boolean busy;
    /** txfuzz cancelled a statement of it, or it failed as the engine or its connection broke: never handed to another transaction. */
    private volatile boolean spoilt;
    /** The thread running the statement in flight (for a hang's evidence: its stack); null between statements. */
    private volatile Thread runner;
    /** Guards {@link #runner} between the statement's thread and an abort that interrupts it. */
    private final Object runnerLock = new Object();

    Session(Target target, Connection connection, String engineId, ExecutionMode mode) {
        this.target = target;
        this.connection = connection;
        this.engineId = engineId;
        this.mode = mode;
    }

    String engineId() {
        return engineId;
    }

    /**
     * Whether another transaction may run on it as on a session of its own: no statement in flight, no rollback going on,
     * back in autocommit (its last transaction ended), and nothing cancelled or broken.
     */
    boolean freeForAnotherTransaction() {
        if (busy || spoilt || rollingBack()) {
            return false;
        }
        try {
            return !connection.isClosed() && connection.getAutoCommit();
        } catch (SQLException | RuntimeException e) {
            return false;
        }
    }

    CompletableFuture<Completed> submit(Stmt stmt, ExecutorService pool) {
        busy = true;
        return CompletableFuture.supplyAsync(() -> {
            synchronized (runnerLock) {
                runner = Thread.currentThread();
            }
            try {
                StmtResult r = execute(stmt);
                return new Completed(r, System.nanoTime());
            } finally {
                synchronized (runnerLock) {
                    runner = null;
                    Thread.interrupted(); // an interrupt of an abandoned statement ends with it, never reaches the pool's next task
                }
                busy = false;
            }
        }, pool);
    }

    /**
     * The stack of the thread running this session's statement, innermost frame first (a thread dump
     * of it: for an in-process engine, where the engine is busy), or "" when none is running.
     */
    String runningStack() {
        Thread t = runner;
        if (t == null) {
            return "";
        }
        StringBuilder out = new StringBuilder("\"" + t.getName() + "\" " + t.getState() + "\n");
        for (StackTraceElement frame : t.getStackTrace()) {
            out.append("    at ").append(frame).append('\n');
        }
        return out.toString().strip();
    }

    /**
     * Runs a session setting on the calling thread, before the session's transaction: empty when the engine took it,
     * else the engine's error (the session goes on without it; the trace records it, never drops it).
     */
    java.util.Optional<String> setting(String sql) {
        try (Statement s = connection.createStatement()) {
            s.execute(sql);
            return java.util.Optional.empty();
        } catch (SQLException e) {
            return java.util.Optional.of((e.getErrorCode() != 0 ? "error " + e.getErrorCode() + ": " : "") + SqlStates.message(e));
        }
    }

    /** Runs a statement on the calling thread. */
    StmtResult execute(Stmt stmt) {
        try {
            return switch (stmt.kind()) {
                case BEGIN -> {
                    target.begin(connection);
                    if (stmt.beginVariant().isPresent()) {
                        // START TRANSACTION … in the open transaction: what the variant adds (a snapshot taken now)
                        run(target.inOpenTransaction(stmt.sql()));
                    }
                    yield StmtResult.ok();
                }
                case COMMIT -> {
                    target.commit(connection);
                    yield StmtResult.ok();
                }
                case ROLLBACK -> {
                    target.rollback(connection);
                    yield StmtResult.ok();
                }
                default -> {
                    StmtResult r = run(stmt.sql());
                    // a write with RETURNING: its rows, and as many affected rows as it returned
                    yield stmt.kind().isWrite() && r.rows() != null ? new StmtResult(r.rows(), r.rows().size(), null) : r;
                }
            };
        } catch (SQLException e) {
            StmtResult.EngineError error = error(e);
            spoilt |= error.errorClass() != null && error.errorClass().isEngineFailure();
            return StmtResult.failed(error);
        } catch (RuntimeException | StackOverflowError | AssertionError e) {
            // A driver or embedded engine that throws something other than SQLException failed internally.
            spoilt = true;
            return StmtResult.failed(new StmtResult.EngineError(ErrorClass.INTERNAL, null, 0,
                    e.getClass().getName() + ": " + e.getMessage()));
        }
    }

    private StmtResult run(String sql) throws SQLException {
        Statement s = statementFor(sql);
        running = s;
        try {
            // By mode, not by type: DuckDB's createStatement() returns a PreparedStatement with nothing prepared.
            boolean hasRows = mode == ExecutionMode.PREPARED ? ((PreparedStatement) s).execute() : s.execute(sql);
            if (hasRows) {
                try (ResultSet rs = s.getResultSet()) {
                    return StmtResult.ofRows(readRows(rs));
                }
            }
            return StmtResult.ofCount(s.getUpdateCount());
        } finally {
            running = null;
        }
    }

    private Statement statementFor(String sql) throws SQLException {
        if (mode == ExecutionMode.PREPARED) {
            PreparedStatement p = prepared.get(sql);
            if (p == null || p.isClosed()) { // DuckDB's driver closes a statement that raised an error
                p = connection.prepareStatement(sql);
                prepared.put(sql, p);
            }
            return p;
        }
        if (plain == null || plain.isClosed()) {
            plain = connection.createStatement();
        }
        return plain;
    }

    static List<List<String>> readRows(ResultSet rs) throws SQLException {
        ResultSetMetaData md = rs.getMetaData();
        int n = md.getColumnCount();
        List<List<String>> rows = new ArrayList<>();
        while (rs.next()) {
            List<String> row = new ArrayList<>(n);
            for (int i = 1; i <= n; i++) {
                row.add(Values.normalise(rs.getObject(i)));
            }
            rows.add(row);
        }
        return rows;
    }

    StmtResult.EngineError error(SQLException e) {
        ErrorClass c;
        try {
            c = target.classify(e);
        } catch (RuntimeException classifyFailed) {
            c = ErrorClass.OTHER;
        }
        return new StmtResult.EngineError(c, e.getSQLState(), e.getErrorCode(), SqlStates.message(e));
    }

    /** Ends the transaction after the engine aborted it; errors are expected (it may be gone already). */
    void rollbackQuietly() {
        try {
            target.rollback(connection);
        } catch (SQLException | RuntimeException ignored) {
            // the engine already rolled it back, or the connection is gone: either way it is over
        }
    }

    /**
     * Ends the transaction of a statement txfuzz cancelled or gave up on, on a thread of its own:
     * drivers that serialise calls per connection (Derby) would block the executor behind a
     * statement that is still stuck.
     */
    void rollbackInBackground() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        background = done;
        Thread t = new Thread(() -> {
            try {
                rollbackQuietly();
            } finally {
                done.complete(null);
            }
        }, "txfuzz-rollback");
        t.setDaemon(true);
        t.start();
    }

    /** Completes when the last background rollback has (already done when there was none). */
    CompletableFuture<Void> backgroundRollback() {
        return background;
    }

    /**
     * Asks the engine to cancel the running statement (to break a stall the engine did not); with
     * {@code interruptWait}, also interrupts the thread running it, for an in-process engine whose lock waits
     * ignore a cancel ({@link txfuzz.dbms.Engine#lockWaitEndsOnInterrupt()}).
     */
    void cancel(boolean interruptWait) {
        spoilt = true;
        Statement s = running;
        if (s != null) {
            try {
                s.cancel();
            } catch (SQLException | RuntimeException ignored) {
                // falls back to closing the connection
            }
        }
        if (interruptWait) {
            synchronized (runnerLock) {
                if (runner != null) {
                    runner.interrupt(); // cleared when the statement ends, see submit
                }
            }
        }
    }

    /**
     * Forces the connection shut when cancelling did not stop the statement. Some drivers block
     * close() while a statement runs, so it happens on a thread of its own that nobody waits for.
     */
    void abortConnection() {
        spoilt = true;
        Thread t = new Thread(() -> {
            try {
                connection.abort(Runnable::run);
            } catch (SQLException | RuntimeException | AbstractMethodError ignored) {
                // fall through to close
            }
            try {
                connection.close();
            } catch (SQLException | RuntimeException ignored) {
                // already broken
            }
        }, "txfuzz-abort");
        t.setDaemon(true);
        t.start();
    }

    /**
     * Closing while a statement is still in flight: the connection is aborted and the statement's thread
     * interrupted, since the database is being thrown away.
     */
    private void abandon() {
        abortConnection();
        // H2 waits for a row lock in Object.wait (until LOCK_TIMEOUT, 10 minutes) and neither cancel() nor close()
        // ends that wait; only an interrupt does (a lock-timeout error). Without it every abandoned statement kept
        // its thread, the abort thread and its whole in-memory database for 10 minutes (bench --soak: threads and
        // memory rising). The database is being thrown away, so what the interrupt does to it does not matter.
        synchronized (runnerLock) {
            if (runner != null) {
                runner.interrupt();
            }
        }
    }

    @Override
    public void close() {
        if (busy) {
            abandon(); // a stuck statement holds the connection (Derby): never wait for it
            return;
        }
        try {
            for (PreparedStatement p : prepared.values()) {
                p.close();
            }
            if (plain != null) {
                plain.close();
            }
        } catch (SQLException | RuntimeException ignored) {
            // closing the connection below releases them too
        }
        try {
            if (!connection.isClosed()) {
                if (!connection.getAutoCommit()) {
                    connection.rollback();
                }
                connection.close();
            }
        } catch (SQLException | RuntimeException ignored) {
            // a broken connection is closed already
        }
    }
}
