package txfuzz.exec;

import static txfuzz.exec.TraceViews.scheduleOf;

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
import txfuzz.dbms.h2.H2Target;

class H2ExecutorTest {
    private static Executor executor;

    @BeforeAll
    static void start() {
        executor = new Executor(new H2Target(), ExecutorConfig.defaults());
    }

    @AfterAll
    static void stop() {
        executor.close();
    }

    @Test
    void aWriterBlocksOnAnUncommittedRowUntilItsBlockerCommits() throws Exception {
        // T1 updates row 1 and holds it; T2's update of the same row must wait for T1's COMMIT.
        TestCase c = Cases.on("h2").table("t")
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)")
                .txn("UPDATE t SET v = v + 1 WHERE id = 1")
                .txn("UPDATE t SET v = v + 10 WHERE id = 1")
                .order(1, 2, 1, 2, 1, 2);
        Trace trace = executor.run(c);
        // Submitted: T1.0 T2.0 T1.1 T2.1(blocks) T1.2(commit) → T2.1 resumes → T2.2
        assertEquals(List.of("T1.0", "T2.0", "T1.1", "T1.2", "T2.1*", "T2.2"), scheduleOf(trace));
        assertEquals(List.of(1, 2), trace.endOrder());
        assertTrue(trace.outcome(1).status().committed());
        assertTrue(trace.outcome(2).status().committed());
        assertEquals(List.of(List.of("1", "11")), trace.finalState().tables().get("t"));
        assertEquals(1, trace.blockedCount());
    }

    @Test
    void crossingUpdatesDeadlockAndTheVictimIsRolledBack() throws Exception {
        TestCase c = Cases.on("h2").table("t")
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                .txn("UPDATE t SET v = 1 WHERE id = 1", "UPDATE t SET v = 1 WHERE id = 2")
                .txn("UPDATE t SET v = 2 WHERE id = 2", "UPDATE t SET v = 2 WHERE id = 1")
                .order(1, 2, 1, 2, 1, 2, 1, 2);
        Trace trace = executor.run(c);
        // T1.2 waits for T2's row 2; T2.2 closes the cycle: H2 detects it and rolls T2 back.
        ExecutedStmt t22 = trace.executed(new StmtRef(2, 2)).orElseThrow();
        assertEquals(ErrorClass.DEADLOCK, t22.result().errorClass(), trace.toString());
        assertEquals(TxnStatus.ABORTED, trace.outcome(2).status());
        assertTrue(trace.outcome(1).status().committed());
        assertFalse(trace.executed(new StmtRef(2, 3)).isPresent(), "the victim's COMMIT never runs");
        assertTrue(trace.executed(new StmtRef(1, 2)).orElseThrow().blocked());
        assertEquals(List.of(2, 1), trace.endOrder());
        assertEquals(List.of(List.of("1", "1"), List.of("2", "1")), trace.finalState().tables().get("t"));
        assertEquals(0, trace.stalls());
    }

    @Test
    void snapshotLevelFailsTheSecondUpdaterOfARow() throws Exception {
        TestCase c = Cases.on("h2").table("t").level(IsolationLevel.SNAPSHOT)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)")
                .txn("SELECT v FROM t WHERE id = 1", "UPDATE t SET v = v + 1 WHERE id = 1")
                .txn("UPDATE t SET v = v + 10 WHERE id = 1")
                .order(1, 1, 2, 2, 2, 1, 1);
        Trace trace = executor.run(c);
        assertTrue(trace.outcome(2).status().committed(), trace.toString());
        assertEquals(TxnStatus.ABORTED, trace.outcome(1).status(), trace.toString());
        assertEquals(List.of(List.of("1", "10")), trace.finalState().tables().get("t"));
    }

    @Test
    void sameCaseSameTrace() throws Exception {
        TestCase c = Cases.on("h2").table("t")
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                .txn("UPDATE t SET v = 1 WHERE id = 1", "UPDATE t SET v = 1 WHERE id = 2")
                .txn("UPDATE t SET v = 2 WHERE id = 2", "UPDATE t SET v = 2 WHERE id = 1")
                .autocommit("DELETE FROM t WHERE id = 2")
                .order(1, 2, 3, 1, 2, 1, 2, 1, 2);
        Trace first = executor.run(c);
        for (int i = 0; i < 5; i++) {
            Trace again = executor.run(c);
            assertEquals(scheduleOf(first), scheduleOf(again));
            assertEquals(first.outcomes(), again.outcomes());
            assertEquals(first.finalState(), again.finalState());
        }
    }
}
