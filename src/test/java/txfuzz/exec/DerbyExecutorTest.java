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
import txfuzz.dbms.derby.DerbyTarget;

/** The execution protocol on Derby: row locks, deadlocks found as soon as the cycle closes. */
class DerbyExecutorTest {
    private static Executor executor;

    @BeforeAll
    static void start() {
        executor = new Executor(new DerbyTarget(), ExecutorConfig.defaults());
    }

    @AfterAll
    static void stop() {
        executor.target().close();
        executor.close();
    }

    /** T1 updates row 1 and holds it; T2's update of row 1 waits for T1's COMMIT. */
    @Test
    void aWriterBlocksOnAnUncommittedRowUntilItsBlockerCommits() throws Exception {
        TestCase c = Cases.on("derby").table("t")
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)")
                .txn("UPDATE t SET v = v + 1 WHERE id = 1")
                .txn("UPDATE t SET v = v + 10 WHERE id = 1")
                .order(1, 2, 1, 2, 1, 2);
        Trace trace = executor.run(c);
        assertEquals(List.of("T1.0", "T2.0", "T1.1", "T1.2", "T2.1*", "T2.2"), scheduleOf(trace), trace.toString());
        assertEquals(List.of(1, 2), trace.endOrder());
        assertTrue(trace.outcome(1).status().committed());
        assertTrue(trace.outcome(2).status().committed());
        assertEquals(rows("1,11"), trace.finalState().tables().get("t"));
        assertEquals(0, trace.stalls());
    }

    /**
     * Crossing row updates: T1.2 waits for T2's row 2, T2.2 closes the cycle. With deadlockTimeout 0
     * Derby finds it at once (in T2.2's thread) and picks its victim by lock count — here, every time,
     * T1, the one that waited first. T1's wait ends with 40001, Derby has rolled T1 back, and T2.2 gets row 1.
     */
    @Test
    void crossingUpdatesDeadlockAndDerbysVictimIsRolledBack() throws Exception {
        TestCase c = Cases.on("derby").table("t")
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                .txn("UPDATE t SET v = 1 WHERE id = 1", "UPDATE t SET v = 1 WHERE id = 2")
                .txn("UPDATE t SET v = 2 WHERE id = 2", "UPDATE t SET v = 2 WHERE id = 1")
                .order(1, 2, 1, 2, 1, 2, 1, 2);
        long t0 = System.nanoTime();
        Trace trace = executor.run(c);
        assertTrue(System.nanoTime() - t0 < 3_000_000_000L, "no waiting for a deadlock timeout");
        ExecutedStmt t12 = trace.executed(new StmtRef(1, 2)).orElseThrow();
        assertEquals(ErrorClass.DEADLOCK, t12.result().errorClass(), trace.toString());
        assertTrue(t12.blocked(), "the victim was waiting when the cycle closed");
        assertEquals(TxnStatus.ABORTED, trace.outcome(1).status());
        assertFalse(trace.executed(new StmtRef(1, 3)).isPresent(), "the victim's COMMIT never runs");
        // Derby rolls T1 back as it raises the error, so T2.2 gets row 1 at that very moment: the two
        // finish together, in either order, and T2.2's short wait may be too short to be seen.
        List<String> schedule = trace.schedule().stream().map(e -> e.ref().toString()).toList();
        assertEquals(List.of("T1.0", "T2.0", "T1.1", "T2.1"), schedule.subList(0, 4), trace.toString());
        assertEquals(java.util.Set.of("T1.2", "T2.2"), java.util.Set.copyOf(schedule.subList(4, 6)), trace.toString());
        assertEquals("T2.3", schedule.get(6));
        assertTrue(trace.executed(new StmtRef(2, 2)).orElseThrow().result().updateCount() == 1);
        assertEquals(List.of(1, 2), trace.endOrder());
        assertTrue(trace.outcome(2).status().committed());
        assertEquals(rows("1,2", "2,2"), trace.finalState().tables().get("t"), "T1's first update was rolled back too");
        assertEquals(0, trace.stalls());
    }

    /** SERIALIZABLE keeps read locks: T1's read of row 1 holds back T2's update until T1 commits. */
    @Test
    void serializableReadLocksHoldBackAWriter() throws Exception {
        TestCase c = Cases.on("derby").level(IsolationLevel.SERIALIZABLE).table("t")
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)")
                .txn("SELECT v FROM t WHERE id = 1", "SELECT v FROM t WHERE id = 1")
                .txn("UPDATE t SET v = 5 WHERE id = 1")
                .order(1, 1, 2, 2, 1, 1, 2);
        Trace trace = executor.run(c);
        assertEquals(List.of("T1.0", "T1.1", "T2.0", "T1.2", "T1.3", "T2.1*", "T2.2"), scheduleOf(trace), trace.toString());
        assertEquals(List.of(List.of("0")), trace.executed(new StmtRef(1, 2)).orElseThrow().result().rows(), "repeatable read");
        assertEquals(rows("1,5"), trace.finalState().tables().get("t"));
    }
}
