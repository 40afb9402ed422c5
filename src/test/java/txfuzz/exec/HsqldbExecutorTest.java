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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.hsqldb.HsqldbTarget;

/** The execution protocol on HSQLDB, in its lock-based (locks) and multi-version (mvcc) modes. */
class HsqldbExecutorTest {
    private static Executor executor;

    @BeforeAll
    static void start() {
        executor = new Executor(new HsqldbTarget(), ExecutorConfig.defaults());
    }

    @AfterAll
    static void stop() {
        executor.target().close();
        executor.close();
    }

    /** T1 updates row 1 and holds it; T2's update of row 1 waits for T1's COMMIT, then re-reads it. */
    @ParameterizedTest
    @ValueSource(strings = {"mvcc", "locks", "mvlocks"})
    void aWriterBlocksOnAnUncommittedRowUntilItsBlockerCommits(String mode) throws Exception {
        TestCase c = Cases.on("hsqldb").mode(mode).table("t")
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)")
                .txn("UPDATE t SET v = v + 1 WHERE id = 1")
                .txn("UPDATE t SET v = v + 10 WHERE id = 1")
                .order(1, 2, 1, 2, 1, 2);
        Trace trace = executor.run(c);
        // T2.1 waits; T1's COMMIT releases it; then T2 commits
        assertEquals(List.of("T1.0", "T2.0", "T1.1", "T1.2", "T2.1*", "T2.2"), scheduleOf(trace), trace.toString());
        assertEquals(List.of(1, 2), trace.endOrder());
        assertTrue(trace.outcome(1).status().committed());
        assertTrue(trace.outcome(2).status().committed());
        assertEquals(rows("1,11"), trace.finalState().tables().get("t"));
        assertEquals(0, trace.stalls());
    }

    /** Crossing row updates: T1.2 waits for T2; T2.2 would close the cycle and fails at once (40001). */
    @Test
    void crossingRowUpdatesInMvccFailTheCycleCloser() throws Exception {
        TestCase c = Cases.on("hsqldb").mode("mvcc").table("t")
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                .txn("UPDATE t SET v = 1 WHERE id = 1", "UPDATE t SET v = 1 WHERE id = 2")
                .txn("UPDATE t SET v = 2 WHERE id = 2", "UPDATE t SET v = 2 WHERE id = 1")
                .order(1, 2, 1, 2, 1, 2, 1, 2);
        Trace trace = executor.run(c);
        ExecutedStmt t22 = trace.executed(new StmtRef(2, 2)).orElseThrow();
        assertEquals(ErrorClass.SERIALIZATION, t22.result().errorClass(), trace.toString());
        assertFalse(t22.blocked(), "HSQLDB refuses the wait that would close the cycle instead of waiting");
        assertEquals(TxnStatus.ABORTED, trace.outcome(2).status());
        assertFalse(trace.executed(new StmtRef(2, 3)).isPresent(), "the victim's COMMIT never runs");
        // T2's abort releases row 2: T1.2 resumes, then T1 commits
        assertEquals(List.of("T1.0", "T2.0", "T1.1", "T2.1", "T2.2", "T1.2*", "T1.3"), scheduleOf(trace), trace.toString());
        assertEquals(List.of(2, 1), trace.endOrder());
        assertTrue(trace.outcome(1).status().committed());
        assertEquals(rows("1,1", "2,1"), trace.finalState().tables().get("t"));
        assertEquals(0, trace.stalls());
    }

    /** LOCKS locks whole tables: the same crossing row updates just queue, there is no deadlock. */
    @Test
    void crossingRowUpdatesInLocksModeQueueBehindTheTableLock() throws Exception {
        TestCase c = Cases.on("hsqldb").mode("locks").table("t")
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                .txn("UPDATE t SET v = 1 WHERE id = 1", "UPDATE t SET v = 1 WHERE id = 2")
                .txn("UPDATE t SET v = 2 WHERE id = 2", "UPDATE t SET v = 2 WHERE id = 1")
                .order(1, 2, 1, 2, 1, 2, 1, 2);
        Trace trace = executor.run(c);
        // T2.1 waits for T1's table lock, which holds back T2.2; T1 runs on and commits; T2 follows
        assertEquals(List.of("T1.0", "T2.0", "T1.1", "T1.2", "T1.3", "T2.1*", "T2.2", "T2.3"), scheduleOf(trace), trace.toString());
        assertEquals(List.of(1, 2), trace.endOrder());
        assertEquals(rows("1,2", "2,2"), trace.finalState().tables().get("t"));
    }

    /** Crossing updates of two tables deadlock in LOCKS; the session closing the cycle gets 40001. */
    @Test
    void crossingTableUpdatesInLocksModeDeadlock() throws Exception {
        TestCase c = Cases.on("hsqldb").mode("locks").table("t").table("u")
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)",
                        "CREATE TABLE u(id INT PRIMARY KEY, v INT)", "INSERT INTO u VALUES (1, 0)")
                .txn("UPDATE t SET v = 1 WHERE id = 1", "UPDATE u SET v = 1 WHERE id = 1")
                .txn("UPDATE u SET v = 2 WHERE id = 1", "UPDATE t SET v = 2 WHERE id = 1")
                .order(1, 2, 1, 2, 1, 2, 1, 2);
        Trace trace = executor.run(c);
        assertEquals(ErrorClass.SERIALIZATION, trace.executed(new StmtRef(2, 2)).orElseThrow().result().errorClass(), trace.toString());
        assertEquals(TxnStatus.ABORTED, trace.outcome(2).status());
        assertEquals(List.of("T1.0", "T2.0", "T1.1", "T2.1", "T2.2", "T1.2*", "T1.3"), scheduleOf(trace), trace.toString());
        assertEquals(List.of(2, 1), trace.endOrder());
        assertEquals(rows("1,1"), trace.finalState().tables().get("t"));
        assertEquals(rows("1,1"), trace.finalState().tables().get("u"));
    }

    /** MVCC REPEATABLE READ is snapshot isolation: the second writer of a row fails at once, without waiting. */
    @Test
    void mvccRepeatableReadFailsTheSecondWriterAtOnce() throws Exception {
        TestCase c = Cases.on("hsqldb").mode("mvcc").level(IsolationLevel.REPEATABLE_READ).table("t")
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)")
                .txn("UPDATE t SET v = v + 1 WHERE id = 1")
                .txn("UPDATE t SET v = v + 10 WHERE id = 1")
                .order(1, 2, 1, 2, 1, 2);
        Trace trace = executor.run(c);
        assertEquals(List.of("T1.0", "T2.0", "T1.1", "T2.1", "T1.2"), scheduleOf(trace), trace.toString());
        assertEquals(ErrorClass.SERIALIZATION, trace.executed(new StmtRef(2, 1)).orElseThrow().result().errorClass());
        assertEquals(TxnStatus.ABORTED, trace.outcome(2).status());
        assertEquals(List.of(2, 1), trace.endOrder());
        assertEquals(rows("1,1"), trace.finalState().tables().get("t"));
    }
}
