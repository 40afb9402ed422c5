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
import txfuzz.dbms.sqlite.SqliteTarget;

/** The execution protocol on SQLite: nothing ever waits; a second writer fails at once with SQLITE_BUSY. */
class SqliteExecutorTest {
    private static Executor executor;

    @BeforeAll
    static void start() {
        executor = new Executor(new SqliteTarget(), ExecutorConfig.defaults());
    }

    @AfterAll
    static void stop() {
        executor.target().close();
        executor.close();
    }

    private static Cases sqlite(String mode) {
        return Cases.on("sqlite").level(IsolationLevel.SERIALIZABLE).mode(mode).table("t");
    }

    /** Where a lock-based engine would make T2.1 wait, SQLite refuses it: T2 is rolled back, T1 commits. */
    @Test
    void aSecondWriterGetsBusyAtOnceAndIsRolledBack() throws Exception {
        TestCase c = sqlite("deferred")
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)")
                .txn("UPDATE t SET v = v + 1 WHERE id = 1")
                .txn("UPDATE t SET v = v + 10 WHERE id = 1")
                .order(1, 2, 1, 2, 1, 2);
        long t0 = System.nanoTime();
        Trace trace = executor.run(c);
        assertTrue(System.nanoTime() - t0 < 400_000_000L, "nothing waited for a timeout");
        assertEquals(List.of("T1.0", "T2.0", "T1.1", "T2.1", "T1.2"), scheduleOf(trace), trace.toString());
        assertEquals(ErrorClass.BUSY, trace.executed(new StmtRef(2, 1)).orElseThrow().result().errorClass());
        assertEquals(TxnStatus.ABORTED, trace.outcome(2).status());
        assertFalse(trace.executed(new StmtRef(2, 2)).isPresent(), "T2's COMMIT never runs");
        assertEquals(List.of(2, 1), trace.endOrder());
        assertTrue(trace.outcome(1).status().committed());
        assertEquals(rows("1,1"), trace.finalState().tables().get("t"));
        assertEquals(0, trace.blockedCount());
    }

    /** Crossing updates cannot deadlock: T2's first write is already refused, so T1 runs to its end. */
    @Test
    void crossingUpdatesEndWithTheSecondWriterBusy() throws Exception {
        TestCase c = sqlite("deferred")
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                .txn("UPDATE t SET v = 1 WHERE id = 1", "UPDATE t SET v = 1 WHERE id = 2")
                .txn("UPDATE t SET v = 2 WHERE id = 2", "UPDATE t SET v = 2 WHERE id = 1")
                .order(1, 2, 1, 2, 1, 2, 1, 2);
        Trace trace = executor.run(c);
        assertEquals(List.of("T1.0", "T2.0", "T1.1", "T2.1", "T1.2", "T1.3"), scheduleOf(trace), trace.toString());
        assertEquals(ErrorClass.BUSY, trace.executed(new StmtRef(2, 1)).orElseThrow().result().errorClass());
        assertEquals(TxnStatus.ABORTED, trace.outcome(2).status());
        assertEquals(List.of(2, 1), trace.endOrder());
        assertEquals(rows("1,1", "2,1"), trace.finalState().tables().get("t"));
    }

    /** A reader whose snapshot predates another's commit cannot write: SQLITE_BUSY_SNAPSHOT. */
    @Test
    void aStaleReaderThatWritesIsRolledBack() throws Exception {
        TestCase c = sqlite("deferred")
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)")
                .txn("SELECT v FROM t WHERE id = 1", "UPDATE t SET v = v + 1 WHERE id = 1")
                .autocommit("UPDATE t SET v = v + 10 WHERE id = 1")
                .order(1, 1, 2, 1, 1);
        Trace trace = executor.run(c);
        assertEquals(List.of("T1.0", "T1.1", "T2.0", "T1.2"), scheduleOf(trace), trace.toString());
        assertEquals(ErrorClass.BUSY, trace.executed(new StmtRef(1, 2)).orElseThrow().result().errorClass());
        assertEquals(TxnStatus.ABORTED, trace.outcome(1).status());
        assertEquals(List.of(2, 1), trace.endOrder());
        assertEquals(rows("1,10"), trace.finalState().tables().get("t"));
    }

    /** In IMMEDIATE mode the second BEGIN is already refused. */
    @Test
    void immediateModeRefusesTheSecondBegin() throws Exception {
        TestCase c = sqlite("immediate")
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)")
                .txn("UPDATE t SET v = v + 1 WHERE id = 1")
                .txn("UPDATE t SET v = v + 10 WHERE id = 1")
                .order(1, 2, 1, 2, 1, 2);
        Trace trace = executor.run(c);
        assertEquals(List.of("T1.0", "T2.0", "T1.1", "T1.2"), scheduleOf(trace), trace.toString());
        assertEquals(ErrorClass.BUSY, trace.executed(new StmtRef(2, 0)).orElseThrow().result().errorClass());
        assertEquals(TxnStatus.ABORTED, trace.outcome(2).status());
        assertEquals(rows("1,1"), trace.finalState().tables().get("t"));
    }
}
