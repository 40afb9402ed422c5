package txfuzz.dbms.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
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
 * H2's READ COMMITTED re-check, which its manual does not describe (measured; H2's DataChangeStatement
 * .lockAndRecheckCondition): a DELETE, UPDATE or MERGE that waited for a row lock re-checks that row on its newest committed
 * version while its subqueries keep the statement's snapshot — PostgreSQL's documented READ COMMITTED. The write-specific
 * violation it makes breaks no promise of the level (PL-2, and the manual's "Dirty reads aren't possible"): not promised,
 * never a bug candidate, never documented. The negative control injects a waiting DELETE that skips a row still matching
 * ({@link WaitingWriteSkipsRowTarget}): no reading of committed data gives that, and it stays a bug candidate.
 */
class H2ReadCommittedRecheckTest {
    /** T1 changes row 1's c1 from 1 to 5; T2's DELETE, choosing rows by a subquery on c1, waits for T1, then re-checks row 1. */
    static TestCase deleteBySubqueryWaitsForAnUpdate() {
        return Cases.on("h2").level(IsolationLevel.READ_COMMITTED).table("t0")
                .setup("CREATE TABLE t0 (c0 INT PRIMARY KEY, c1 INT)", "INSERT INTO t0 VALUES (1, 1), (2, 2)")
                .txn("UPDATE t0 SET c1 = 5 WHERE c0 = 1")
                .autocommit("DELETE FROM t0 WHERE c1 IN (SELECT c1 FROM t0 WHERE c0 = 1)")
                .order(1, 1, 2, 1);
    }

    /** T1 changes row 1's c1 (its key stays); T2's DELETE of row 1 waits for T1: once T1 commits the row still matches. */
    static TestCase deleteWaitsForAnUpdateOfItsRow() {
        return Cases.on("h2").level(IsolationLevel.READ_COMMITTED).table("t0")
                .setup("CREATE TABLE t0 (c0 INT PRIMARY KEY, c1 INT)", "INSERT INTO t0 VALUES (1, 1), (2, 2)")
                .txn("UPDATE t0 SET c1 = c1 + 10 WHERE c0 = 1")
                .autocommit("DELETE FROM t0 WHERE c0 = 1")
                .order(1, 1, 2, 1);
    }

    private static Verdict judge(Target target, TestCase c, Trace[] ran) throws Exception {
        try (Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            ran[0] = trace;
            return new WssOracle().judge(c, trace, ex);
        }
    }

    private static List<String> labels(Verdict v) {
        return v.violations().stream().map(x -> x.kind().label() + "/" + x.classification().label()).toList();
    }

    /** The measurement the rule rests on: the subquery read the statement's snapshot ({1}), the row's newest version has c1 = 5. */
    @Test
    void aWaitingDeleteKeepsItsSubquerysSnapshotAndRechecksTheRowItWaitedFor() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            Trace[] ran = new Trace[1];
            Verdict v = judge(h2, deleteBySubqueryWaitsForAnUpdate(), ran);
            var delete = ran[0].executed(new StmtRef(2, 0)).orElseThrow();
            assertTrue(delete.blocked(), "the DELETE waits for T1: " + ran[0]);
            assertEquals(0, delete.result().updateCount(), ran[0].toString());
            assertEquals(List.of(List.of("1", "5"), List.of("2", "2")), ran[0].finalState().tables().get("t0"), ran[0].toString());
            // no serial order gives it (T1 first deletes row 1, T2 first leaves (1, 5) but T1 then changes nothing)...
            assertFalse(v.violations().isEmpty(), v.toString());
            // ...and it breaks no promise of READ COMMITTED: not promised, neither a bug candidate nor documented
            assertTrue(v.violations().stream().allMatch(x -> x.classification() == Classification.NOT_PROMISED), labels(v).toString());
            assertTrue(v.violations().get(0).reference().contains("measured, not in the manual"), v.violations().get(0).reference());
        }
    }

    /** Negative control: a waiting DELETE that skips a row still matching on its newest version stays a bug candidate. */
    @Test
    void aWaitingDeleteThatSkipsARowStillMatchingIsABugCandidate() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            Trace[] ran = new Trace[1];
            Verdict plain = judge(h2, deleteWaitsForAnUpdateOfItsRow(), ran);
            assertTrue(plain.violations().isEmpty(), "real H2 deletes the row after the wait: " + plain);
            Verdict faulty = judge(new WaitingWriteSkipsRowTarget(h2), deleteWaitsForAnUpdateOfItsRow(), ran);
            assertTrue(ran[0].executed(new StmtRef(2, 0)).orElseThrow().blocked(), "the injected DELETE still waits: " + ran[0]);
            assertTrue(faulty.violations().stream().anyMatch(x -> x.classification() == Classification.BUG_CANDIDATE), labels(faulty).toString());
            assertTrue(faulty.violations().stream().noneMatch(x -> x.classification() == Classification.NOT_PROMISED), labels(faulty).toString());
        }
    }
    /**
     * Campaign h2-RC-s11-i76, reduced: T1 sets {@code c2 = 'b'} in both rows of a table declared with {@code CHECK (c2 >= 'b')};
     * T2's autocommit UPDATE waits for T1 and, once T1 commits, updates the one row its WHERE matched as submitted (row 0),
     * computing its SET on that row's newest version ({@code 'e'}). On the versions as submitted the same SET gives {@code ''},
     * which the CHECK refuses: the simulation chooses the rows by the WHERE alone there, and the run is the re-check, as
     * without the CHECK.
     */
    static TestCase waitingUpdateWhoseSetFailsAsSubmitted() {
        return Cases.on("h2").level(IsolationLevel.READ_COMMITTED).table("t0")
                .setup("CREATE TABLE t0 (c0 INT, c1 INT, c2 VARCHAR(10) CHECK (c2 >= 'b'), c3 DOUBLE PRECISION)",
                        "INSERT INTO t0 (c0, c1, c2, c3) VALUES (0, 0, NULL, 0)", "INSERT INTO t0 (c0, c1, c2, c3) VALUES (1, 0, NULL, 0)")
                .txn("UPDATE t0 SET c2 = 'b'")
                .autocommit("UPDATE t0 SET c2 = CASE WHEN t0.c3 <> 1 THEN CASE WHEN t0.c2 >= '' THEN 'e' ELSE '' END ELSE '' END"
                        + " WHERE (t0.c0 = 0 OR t0.c2 <= 'e')")
                .order(1, 1, 2, 1);
    }

    @Test
    void aWaitingUpdateWhoseSetFailsOnTheVersionsAsSubmittedIsTheRecheckNotABugCandidate() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            Trace[] ran = new Trace[1];
            Verdict v = judge(h2, waitingUpdateWhoseSetFailsAsSubmitted(), ran);
            assertTrue(ran[0].executed(new StmtRef(2, 0)).orElseThrow().blocked(), "the UPDATE waits for T1: " + ran[0]);
            assertTrue(ran[0].executed(new StmtRef(2, 0)).orElseThrow().result().updateCount() == 1, "it updates row 0 only: " + ran[0]);
            assertFalse(v.violations().isEmpty(), "run after T1 it updates both rows: " + ran[0]);
            assertTrue(v.violations().stream().allMatch(x -> x.classification() == Classification.NOT_PROMISED), labels(v).toString());
        }
    }

    /** The negative control of the one above: the same waiting UPDATE made to change nothing stays a bug candidate. */
    @Test
    void aWaitingUpdateWhoseSetFailsAsSubmittedThatChangesNothingStaysABugCandidate() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            Trace[] ran = new Trace[1];
            Verdict v = judge(new WaitingWriteSkipsRowTarget(h2), waitingUpdateWhoseSetFailsAsSubmitted(), ran);
            assertTrue(ran[0].executed(new StmtRef(2, 0)).orElseThrow().blocked(), "the injected UPDATE still waits: " + ran[0]);
            assertTrue(ran[0].executed(new StmtRef(2, 0)).orElseThrow().result().updateCount() == 0, ran[0].toString());
            assertTrue(v.violations().stream().anyMatch(x -> x.classification() == Classification.BUG_CANDIDATE), labels(v).toString());
        }
    }
}
