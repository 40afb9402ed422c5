package txfuzz.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static txfuzz.exec.ConcurrentRunnerTest.assertNoLostIncrement;
import static txfuzz.exec.ConcurrentRunnerTest.assertWellFormed;
import static txfuzz.exec.ConcurrentRunnerTest.committed;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Target;
import txfuzz.dbms.TestServers;

/** The concurrent run mode on a real PostgreSQL server: SSI aborts without lost increments, deadlocks, hangs. */
class ConcurrentRunnerPostgresTest {
    private static Target target;
    private static ConcurrentRunner runner;

    /** The test JVM's shared PostgreSQL server. */
    @BeforeAll
    static void start() {
        target = TestServers.shared("postgres");
        runner = new ConcurrentRunner(target, ExecutorConfig.defaults());
    }

    @AfterAll
    static void stop() {
        runner.close();
    }

    @Test
    void atSerializableConflictingIncrementsAbortSomeButNeverLoseACommittedOne() throws Exception {
        // 5 sessions hammer one row: SSI must refuse some (40001), and every commit must count
        int attempts = 0;
        long aborted;
        do {
            TestCase c = ConcurrentRunnerTest.counter("postgres", IsolationLevel.SERIALIZABLE, 100);
            ConcurrentRun run = runner.run(c, 5);
            Trace trace = run.trace();
            assertWellFormed(c, 5, run);
            assertNoLostIncrement(run);
            aborted = trace.outcomes().values().stream().filter(o -> o.status() == TxnStatus.ABORTED).count();
            trace.outcomes().values().stream().filter(o -> o.status() == TxnStatus.ABORTED).forEach(o -> assertEquals(
                    ErrorClass.SERIALIZATION, trace.executed(o.cause()).orElseThrow().result().errorClass(), o.toString()));
            assertTrue(committed(trace).size() > 0);
            assertEquals(0, trace.stalls());
        } while (aborted == 0 && ++attempts < 3);
        assertTrue(aborted > 0, "no serialization failure in " + attempts + " runs");
    }

    @Test
    void atReadCommittedWritersWaitForEachOtherAndAllCommit() throws Exception {
        TestCase c = ConcurrentRunnerTest.counter("postgres", IsolationLevel.READ_COMMITTED, 60);
        ConcurrentRun run = runner.run(c, 4);
        assertWellFormed(c, 4, run);
        assertNoLostIncrement(run);
        assertEquals(60, committed(run.trace()).size(), run.trace().outcomes().toString());
    }

    @Test
    void crossingUpdatesDeadlockAndTheEngineBreaksTheCycles() throws Exception {
        TestCase c = ConcurrentRunnerTest.crossing("postgres", IsolationLevel.READ_COMMITTED, 40);
        long start = System.nanoTime();
        ConcurrentRun run = runner.run(c, 4);
        long ms = (System.nanoTime() - start) / 1_000_000;
        Trace trace = run.trace();
        assertWellFormed(c, 4, run);
        String n = String.valueOf(committed(trace).size());
        assertEquals(List.of(List.of("1", n), List.of("2", n)), trace.finalState().tables().get("t").stream()
                .sorted((a, b) -> a.get(0).compareTo(b.get(0))).toList());
        trace.outcomes().values().stream().filter(o -> o.status() == TxnStatus.ABORTED).forEach(o -> assertEquals(
                ErrorClass.DEADLOCK, trace.executed(o.cause()).orElseThrow().result().errorClass(), o.toString()));
        assertEquals(0, trace.stalls(), "PostgreSQL detects its deadlocks itself");
        assertTrue(ms < 20_000, ms + " ms");
    }

    @Test
    void aStatementThatSleepsWithoutWaitingOnALockIsCancelledAsHung() throws Exception {
        TestCase c = Cases.on("postgres").table("t")
                .setup("CREATE TABLE t(k INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)")
                .txn("UPDATE t SET v = v + 1 WHERE k = 1")
                .txn("UPDATE t SET v = v + 1 WHERE k = 1", "SELECT pg_sleep(60)")
                .txn("UPDATE t SET v = v + 1 WHERE k = 1")
                .txn("UPDATE t SET v = v + 1 WHERE k = 1")
                .order(1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 4, 4, 4);
        ExecutorConfig quick = new ExecutorConfig(Duration.ofMillis(200), Duration.ofSeconds(1), Duration.ofMillis(500));
        try (ConcurrentRunner r = new ConcurrentRunner(target, quick)) {
            long start = System.nanoTime();
            ConcurrentRun run = r.run(c, 2);
            long ms = (System.nanoTime() - start) / 1_000_000;
            Trace trace = run.trace();
            assertWellFormed(c, 2, run);
            assertEquals(List.of(new StmtRef(2, 2)), trace.hung(), trace.toString());
            HangEvidence e = trace.hangEvidence().get(new StmtRef(2, 2));
            assertTrue(e != null && e.probesAsked() > 0 && e.probesSawWaiting() == 0, "the probes' answers are kept: " + e);
            assertEquals(TxnStatus.ABORTED, trace.outcome(2).status());
            // the others (session 0's may wait on T2's row lock meanwhile: waiting is not hanging) commit
            assertTrue(!trace.executed(new StmtRef(2, 2)).orElseThrow().blocked(), "the sleep waits on no lock");
            assertEquals(java.util.Set.of(1, 3, 4), committed(trace));
            assertEquals(List.of(List.of("1", "3")), trace.finalState().tables().get("t"));
            assertEquals(0, trace.stalls());
            assertTrue(ms < 5_000, ms + " ms");
        }
    }
}
