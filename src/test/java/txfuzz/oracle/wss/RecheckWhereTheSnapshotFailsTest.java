package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;

/**
 * A waiting UPDATE whose SET fails on the snapshot's version of the row it waited for (here {@code c0 = t0.c1} with the
 * snapshot's c1 NULL, c0 being a primary key) and passes on the newest, which is the version H2's READ COMMITTED re-checks and
 * writes, its subquery still reading the snapshot (campaign h2-RC-s60-i15826). The model ran the statement on the snapshot
 * first and gave up when it failed there, so the run was a bug candidate. Real H2, in process.
 */
class RecheckWhereTheSnapshotFailsTest {
    private static final String UPDATE = "UPDATE t0 SET c0 = t0.c1 WHERE t0.c0 = 11 AND NOT EXISTS (SELECT 1 FROM t0 s0 WHERE s0.c0 = 0)";

    /**
     * T1 sets each row's c1 and inserts row 0; the autocommit UPDATE (T2), whose snapshot has no row 0, chooses row 11, waits for
     * it, and after T1's commit gives it key 1 from its newest c1. Run after T1 it sees row 0 and changes nothing.
     */
    private static TestCase updateWaitsForARowWhoseSnapshotVersionFails() {
        return Cases.on("h2").level(IsolationLevel.READ_COMMITTED).table("t0")
                .setup("CREATE TABLE t0 (c0 INT PRIMARY KEY, c1 INT)", "INSERT INTO t0 VALUES (11, NULL), (12, NULL)")
                .txn("UPDATE t0 SET c1 = c0 - 10", "INSERT INTO t0 VALUES (0, NULL)")
                .autocommit(UPDATE)
                .order(1, 1, 1, 2, 1);
    }

    private static Set<List<String>> t0(WssRun run) {
        return new HashSet<>(run.trace().finalState().tables().get("t0"));
    }

    @Test
    void theRowIsRecheckedOnItsNewestVersionAndTheRunIsNoBugCandidate() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            WssRun run = WssRun.of(h2, updateWaitsForARowWhoseSnapshotVersionFails());
            var update = run.trace().executed(new StmtRef(2, 0)).orElseThrow();
            assertTrue(update.blocked(), "the UPDATE waits for row 11: " + run.trace());
            assertEquals(1, update.result().updateCount(), run.trace().toString());
            assertEquals(Set.of(Arrays.asList("0", null), List.of("1", "1"), List.of("12", "2")), t0(run), run.trace().toString());
            assertFalse(run.verdict().violations().isEmpty(), "run after T1 it changes nothing: " + run.verdict());
            assertTrue(run.verdict().violations().stream().allMatch(v -> v.classification() == Classification.NOT_PROMISED), run.verdict().toString());
        }
    }

    /**
     * The negative control: in the run only, the UPDATE also takes row 12, which its WHERE does not choose (injected: the WHERE
     * widened to both rows). Re-checking the rows the statement chose does not give row 12's new key, so the run stays a bug
     * candidate.
     */
    @Test
    void aRowTheWhereDidNotChooseWrittenAfterTheWaitStaysABugCandidate() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            String widened = UPDATE.replace("t0.c0 = 11", "t0.c0 IN (11, 12)");
            WssRun faulty = WssRun.of(RewritingTarget.once(h2, UPDATE, widened), updateWaitsForARowWhoseSnapshotVersionFails());
            var update = faulty.trace().executed(new StmtRef(2, 0)).orElseThrow();
            assertTrue(update.blocked(), "the injected UPDATE still waits: " + faulty.trace());
            assertEquals(2, update.result().updateCount(), faulty.trace().toString());
            faulty.assertBugCandidate();
        }
    }

    @Test
    void theProbeDeletesWhatTheStatementChooses() {
        assertEquals(Optional.of("DELETE FROM t0_copy AS t0 WHERE t0.c0 = 11 AND NOT EXISTS (SELECT 1 FROM t0 s0 WHERE s0.c0 = 0)"),
                StatementParts.chosenRowsProbe(UPDATE, "t0_copy"));
        assertEquals(Optional.of("DELETE FROM t0_copy AS x WHERE x.c1 = (SELECT MAX(s0.c1) FROM t0 s0 WHERE s0.c0 > 1)"),
                StatementParts.chosenRowsProbe("UPDATE t0 x SET c1 = (SELECT MIN(s0.c1) FROM t0 s0 WHERE s0.c0 = 'WHERE') WHERE x.c1 = "
                        + "(SELECT MAX(s0.c1) FROM t0 s0 WHERE s0.c0 > 1)", "t0_copy"));
        assertEquals(Optional.of("DELETE FROM t0_copy AS t0"), StatementParts.chosenRowsProbe("UPDATE t0 SET c1 = 5", "t0_copy"));
        assertEquals(Optional.of("DELETE FROM t0_copy AS t0 WHERE (t0.c1 > 2)"), StatementParts.chosenRowsProbe("DELETE FROM t0 WHERE (t0.c1 > 2)", "t0_copy"));
        assertEquals(Optional.empty(), StatementParts.chosenRowsProbe("INSERT INTO t0 VALUES (1, 2)", "t0_copy"));
    }
}
