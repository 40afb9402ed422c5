package txfuzz.dbms.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import txfuzz.dbms.Target;
import txfuzz.dbms.WaitingWriteSkipsRowTarget;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.wss.WssOracle;

/**
 * PostgreSQL's READ COMMITTED re-check of a row changed meanwhile uses "the same rows from these relations that were joined
 * to the locked rows" (src/backend/executor/README, "EvalPlanQual"): a subquery the planner turned into a semi-join keeps
 * the one row it first joined, an anti-join none; the subquery is not run again on the snapshot. Campaign finding
 * postgres-RC-s33-i810 (PostgreSQL 18.6) was a false bug candidate because txfuzz ran it again. Measured here on the real
 * server (the first joined row depends on the scan order), and its negative control: a waiting DELETE that skips a row
 * whose joined row still matches stays a bug candidate.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PostgresRecheckJoinedRowsTest {
    private static Executor executor;

    @BeforeAll
    static void start() {
        executor = new Executor(SharedServer.target(), ExecutorConfig.defaults());
    }

    @AfterAll
    static void stop() {
        executor.close();
    }

    /** t1 holds {@code firstThenSecond} in that insertion order; T1 sets t0's only row to {@code set}; T2's DELETE waits for it. */
    private static TestCase deleteByExistsWaitsFor(String set, String subquery, int... t1Rows) {
        String[] setup = new String[3 + t1Rows.length];
        setup[0] = "CREATE TABLE t0 (c3 INT, c4 INT)";
        setup[1] = "CREATE TABLE t1 (c0 INT)";
        setup[2] = "INSERT INTO t0 (c3, c4) VALUES (0, 0)";
        for (int i = 0; i < t1Rows.length; i++) {
            setup[3 + i] = "INSERT INTO t1 (c0) VALUES (" + t1Rows[i] + ")";
        }
        return Cases.on("postgres").level(IsolationLevel.READ_COMMITTED).table("t0").table("t1").setup(setup)
                .txn("UPDATE t0 SET " + set)
                .autocommit("DELETE FROM t0 WHERE " + subquery)
                .order(1, 1, 2, 1);
    }

    private static final String EXISTS = "EXISTS (SELECT 0 FROM t1 s0 WHERE s0.c0 >= t0.c3)";

    private record Judged(Trace trace, Verdict verdict) {
        long deleted() {
            return trace.executed(new StmtRef(2, 0)).orElseThrow().result().updateCount();
        }

        boolean waited() {
            return trace.executed(new StmtRef(2, 0)).orElseThrow().blocked();
        }

        List<String> labels() {
            return verdict.violations().stream().map(x -> x.kind().label() + "/" + x.classification().label()).toList();
        }

        boolean anyBugCandidate() {
            return verdict.violations().stream().anyMatch(x -> x.classification() == Classification.BUG_CANDIDATE);
        }
    }

    private static Judged judge(Target target, TestCase c) throws Exception {
        try (Executor ex = target == SharedServer.target() ? null : new Executor(target, ExecutorConfig.defaults())) {
            Executor run = ex == null ? executor : ex;
            Trace trace = run.run(c);
            return new Judged(trace, new WssOracle().judge(c, trace, run));
        }
    }

    /** i810: the semi-join first joined t1's (0); re-checked with it, the row's new c3 = 1 no longer matches, though (1) would. */
    @Test
    void aSemiJoinIsRecheckedAgainstTheRowItFirstJoined_notABugCandidate() throws Exception {
        Judged j = judge(SharedServer.target(), deleteByExistsWaitsFor("c3 = 1", EXISTS, 0, 1));
        assertTrue(j.waited(), j.trace().toString());
        assertEquals(0, j.deleted(), "PostgreSQL skips the row: " + j.trace());
        assertFalse(j.verdict().violations().isEmpty(), "no serial order deletes nothing: " + j.verdict());
        assertFalse(j.anyBugCandidate(), j.labels().toString());
        assertTrue(j.verdict().violations().stream().allMatch(x -> x.classification() == Classification.DOCUMENTED), j.labels().toString());
    }

    /** The same with t1's rows in the other order: the scan joins (1) first, which still matches, and the row is deleted. */
    @Test
    void theRowFirstJoinedFollowsTheScanOrder() throws Exception {
        Judged j = judge(SharedServer.target(), deleteByExistsWaitsFor("c3 = 1", EXISTS, 1, 0));
        assertTrue(j.waited(), j.trace().toString());
        assertEquals(1, j.deleted(), j.trace().toString());
        assertFalse(j.anyBugCandidate(), j.labels().toString());
    }

    /** An uncorrelated IN is a semi-join too; NOT EXISTS an anti-join, whose re-check joins no row and so passes. */
    @Test
    void anInSemiJoinAndANotExistsAntiJoinAreRecheckedAgainstTheirJoinedRows_notBugCandidates() throws Exception {
        Judged in = judge(SharedServer.target(), deleteByExistsWaitsFor("c3 = 1", "c3 IN (SELECT c0 FROM t1)", 0, 1));
        assertEquals(0, in.deleted(), in.trace().toString());
        assertFalse(in.anyBugCandidate(), in.labels().toString());
        Judged anti = judge(SharedServer.target(), deleteByExistsWaitsFor("c3 = 5", "NOT EXISTS (SELECT 0 FROM t1 s0 WHERE s0.c0 = t0.c3)", 5));
        assertEquals(1, anti.deleted(), "the anti-join's re-check finds no t1 row: " + anti.trace());
        assertFalse(anti.verdict().violations().isEmpty(), anti.verdict().toString());
        assertFalse(anti.anyBugCandidate(), anti.labels().toString());
    }

    /** A correlated IN and an EXISTS under OR stay subplans: the re-check runs them again, finds t1's (1), and deletes the row. */
    @Test
    void subqueriesThatStaySubplansAreRunAgainByTheRecheck() throws Exception {
        for (String where : java.util.List.of("1 IN (SELECT s0.c0 FROM t1 s0 WHERE s0.c0 >= t0.c3)", "c3 = 9 OR " + EXISTS)) {
            Judged j = judge(SharedServer.target(), deleteByExistsWaitsFor("c3 = 1", where, 0, 1));
            assertTrue(j.waited(), j.trace().toString());
            assertEquals(1, j.deleted(), where + ": " + j.trace());
            assertFalse(j.anyBugCandidate(), j.labels().toString());
        }
    }

    /**
     * Negative control: T1 changes only c4, so every t1 row the semi-join could have joined still matches; a waiting DELETE
     * that then deletes nothing is no re-check against any joined row, and stays a bug candidate.
     */
    @Test
    void aWaitingDeleteThatSkipsARowWhoseJoinedRowStillMatchesIsABugCandidate() throws Exception {
        TestCase c = deleteByExistsWaitsFor("c4 = 1", EXISTS, 0, 1);
        Judged plain = judge(SharedServer.target(), c);
        assertEquals(1, plain.deleted(), "real PostgreSQL deletes the row after the wait: " + plain.trace());
        assertTrue(plain.verdict().violations().isEmpty(), plain.verdict().toString());
        Judged faulty = judge(new WaitingWriteSkipsRowTarget(SharedServer.target()), c);
        assertTrue(faulty.waited(), "the injected DELETE still waits: " + faulty.trace());
        assertEquals(0, faulty.deleted(), faulty.trace().toString());
        assertTrue(faulty.anyBugCandidate(), faulty.labels().toString());
    }
}
