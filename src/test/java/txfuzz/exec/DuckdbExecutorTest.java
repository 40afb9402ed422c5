package txfuzz.exec;

import static txfuzz.exec.TraceViews.scheduleOf;
import static txfuzz.exec.TraceViews.rows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.duckdb.DuckdbTarget;

/** The execution protocol on DuckDB: optimistic, a conflicting write fails at once and aborts its transaction. */
class DuckdbExecutorTest {
    private static Executor executor;

    @BeforeAll
    static void start() {
        executor = new Executor(new DuckdbTarget(), ExecutorConfig.defaults());
    }

    @AfterAll
    static void stop() {
        executor.target().close();
        executor.close();
    }

    /**
     * Runs {@code c}, and fails if the executor runs DuckDB's plain statements as prepared ones:
     * DuckDB's createStatement() returns a DuckDBPreparedStatement, so choosing by type instead of
     * by the case's execution mode calls execute() with nothing prepared ("Prepare something first").
     */
    private static Trace run(TestCase c) throws Exception {
        Trace trace = executor.run(c);
        boolean misuse = trace.schedule().stream().anyMatch(e -> e.result().failed()
                && String.valueOf(e.result().error().message()).contains("Prepare something first"));
        assertFalse(misuse, "executor bug: Session runs DuckDB's plain Statement as a PreparedStatement");
        return trace;
    }

    private static Cases duckdb() {
        return Cases.on("duckdb").level(IsolationLevel.SNAPSHOT).table("t");
    }

    /** Where a lock-based engine would make T2.1 wait, DuckDB fails it before T1 even commits. */
    @Test
    void aSecondWriterOfARowFailsAtOnceAndIsRolledBack() throws Exception {
        TestCase c = duckdb()
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)")
                .txn("UPDATE t SET v = v + 1 WHERE id = 1")
                .txn("UPDATE t SET v = v + 10 WHERE id = 1")
                .order(1, 2, 1, 2, 1, 2);
        Trace trace = run(c);
        // T2.1 fails before T1's COMMIT runs and nothing counts as blocked: it did not wait (no wall-clock
        // bound here: on a loaded machine a run that waited for nothing still took over 400 ms)
        assertEquals(List.of("T1.0", "T2.0", "T1.1", "T2.1", "T1.2"), scheduleOf(trace), trace.toString());
        assertEquals(ErrorClass.SERIALIZATION, trace.executed(new StmtRef(2, 1)).orElseThrow().result().errorClass());
        assertEquals(TxnStatus.ABORTED, trace.outcome(2).status());
        assertFalse(trace.executed(new StmtRef(2, 2)).isPresent(), "T2's COMMIT never runs");
        assertEquals(List.of(2, 1), trace.endOrder());
        assertEquals(rows("1,1"), trace.finalState().tables().get("t"));
        assertEquals(0, trace.blockedCount());
    }

    /**
     * Crossing updates: T1.2 writes the row T2 wrote and fails; once T1 is rolled back its row 1 is free,
     * so T2.2 succeeds and T2 commits.
     */
    @Test
    void crossingUpdatesAbortTheFirstToTouchTheOthersRow() throws Exception {
        TestCase c = duckdb()
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                .txn("UPDATE t SET v = 1 WHERE id = 1", "UPDATE t SET v = 1 WHERE id = 2")
                .txn("UPDATE t SET v = 2 WHERE id = 2", "UPDATE t SET v = 2 WHERE id = 1")
                .order(1, 2, 1, 2, 1, 2, 1, 2);
        Trace trace = run(c);
        assertEquals(List.of("T1.0", "T2.0", "T1.1", "T2.1", "T1.2", "T2.2", "T2.3"), scheduleOf(trace), trace.toString());
        assertEquals(ErrorClass.SERIALIZATION, trace.executed(new StmtRef(1, 2)).orElseThrow().result().errorClass());
        assertEquals(TxnStatus.ABORTED, trace.outcome(1).status());
        assertTrue(trace.outcome(2).status().committed());
        assertEquals(List.of(1, 2), trace.endOrder());
        assertEquals(rows("1,2", "2,2"), trace.finalState().tables().get("t"));
    }

    /** A constraint error aborts a DuckDB transaction too; the executor rolls it back and skips the rest. */
    @Test
    void aConstraintErrorAbortsTheTransaction() throws Exception {
        TestCase c = duckdb()
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)")
                .txn("UPDATE t SET v = 5 WHERE id = 1", "INSERT INTO t VALUES (1, 1)", "INSERT INTO t VALUES (2, 2)")
                .order(1, 1, 1, 1, 1);
        Trace trace = run(c);
        assertEquals(List.of("T1.0", "T1.1", "T1.2"), scheduleOf(trace), trace.toString());
        assertEquals(ErrorClass.CONSTRAINT, trace.executed(new StmtRef(1, 2)).orElseThrow().result().errorClass());
        assertEquals(TxnStatus.ABORTED, trace.outcome(1).status());
        assertEquals(rows("1,0"), trace.finalState().tables().get("t"));
    }

    /** Two inserts of one key both run; the second COMMIT fails and the transaction is aborted. */
    @Test
    void concurrentInsertsOfOneKeyFailAtTheSecondCommit() throws Exception {
        TestCase c = duckdb()
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)")
                .txn("INSERT INTO t VALUES (1, 1)")
                .txn("INSERT INTO t VALUES (1, 2)")
                .order(1, 2, 1, 2, 1, 2);
        Trace trace = run(c);
        assertEquals(List.of("T1.0", "T2.0", "T1.1", "T2.1", "T1.2", "T2.2"), scheduleOf(trace), trace.toString());
        assertEquals(ErrorClass.SERIALIZATION, trace.executed(new StmtRef(2, 2)).orElseThrow().result().errorClass());
        assertEquals(TxnStatus.ABORTED, trace.outcome(2).status());
        assertEquals(rows("1,1"), trace.finalState().tables().get("t"));
    }
}
