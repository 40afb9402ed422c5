package txfuzz.oracle.diff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static txfuzz.oracle.diff.Traces.ref;
import static txfuzz.oracle.diff.Traces.state0;
import static txfuzz.oracle.diff.Traces.trace;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.ErrorClass;
import txfuzz.exec.Cases;
import txfuzz.exec.Trace;
import txfuzz.exec.TxnStatus;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;

/** The comparison core on hand-built traces: each divergence kind, and the cases that are not comparable. */
class TraceComparisonTest {
    /** T1: BEGIN, UPDATE, SELECT, COMMIT; T2: BEGIN, UPDATE, COMMIT; T1's UPDATE first, then T2's (which may wait). */
    static final TestCase CASE = Cases.on("h2").table("t").level(IsolationLevel.REPEATABLE_READ).setup("CREATE TABLE t (k INT PRIMARY KEY, v INT)",
                    "INSERT INTO t VALUES (1, 0)")
            .txn("UPDATE t SET v = v + 1 WHERE k = 1", "SELECT k, v FROM t")
            .txn("UPDATE t SET v = v + 10 WHERE k = 1")
            .order(1, 1, 2, 2, 1, 1, 2);
    static final List<List<String>> SETUP = List.of(List.of("1", "0"));
    static final Rules RULES = Rules.multisets(true);

    /** T2's UPDATE waits for T1, T1 reads and commits, T2 resumes: the reference run every test varies. */
    static Traces waiting() {
        return trace().ok(1, 0).count(1, 1, 1).ok(2, 0).rows(1, 2, List.of(List.of("1", "1"))).ok(1, 3).ended(1, TxnStatus.COMMITTED, 3)
                .blockedCount(2, 1, 1).ok(2, 2).ended(2, TxnStatus.COMMITTED, 2);
    }

    static final List<List<String>> BOTH = List.of(List.of("1", "11"));

    private static Comparison compare(Trace left, Trace right) {
        return TraceComparison.compare(CASE, new SideRun(state0(SETUP), left), new SideRun(state0(SETUP), right), RULES);
    }

    private static Comparison compare(SideRun left, SideRun right) {
        return TraceComparison.compare(CASE, left, right, RULES);
    }

    @Test
    void equalRunsAgree() {
        assertEquals(Comparison.Status.AGREE, compare(waiting().state(BOTH), waiting().state(BOTH)).status());
    }

    @Test
    void errorsCompareByClassNeverByMessageOrCode() {
        Trace a = trace().ok(1, 0).error(1, 1, ErrorClass.CONSTRAINT).state(SETUP);
        Trace b = trace().ok(1, 0).errorWithOtherMessage(1, 1, ErrorClass.CONSTRAINT).state(SETUP);
        assertEquals(Comparison.Status.AGREE, compare(a, b).status(), "same class, other message and code");
    }

    @Test
    void aStatementThatWaitsOnOneSideOnlyIsABlockingDivergence() {
        Trace noWait = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).rows(1, 2, List.of(List.of("1", "1"))).ok(1, 3).ended(1, TxnStatus.COMMITTED, 3)
                .count(2, 1, 1).ok(2, 2).ended(2, TxnStatus.COMMITTED, 2).state(BOTH);
        Comparison c = compare(waiting().state(BOTH), noWait);
        assertEquals(DivergenceKind.BLOCKING, c.divergence().kind());
        assertEquals(ref(2, 1), c.divergence().at());
    }

    @Test
    void whetherADeadlocksSurvivorOrVictimWasSeenWaitingIsNotCompared() {
        // T2's UPDATE and T1's statement waited on each other; the engine broke the cycle with T1 the victim on both
        // sides, and T2's UPDATE went on: seen waiting first on one side only (when the detector ran is timing)
        Trace seen = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).blockedError(1, 2, ErrorClass.DEADLOCK).ended(1, TxnStatus.ABORTED, 2)
                .blockedCount(2, 1, 1).ok(2, 2).ended(2, TxnStatus.COMMITTED, 2).state(BOTH);
        Trace unseen = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).error(1, 2, ErrorClass.DEADLOCK).ended(1, TxnStatus.ABORTED, 2)
                .count(2, 1, 1).ok(2, 2).ended(2, TxnStatus.COMMITTED, 2).state(BOTH);
        assertTrue(TraceComparison.inDeadlockCycle(seen, ref(2, 1)) && TraceComparison.inDeadlockCycle(unseen, ref(2, 1)));
        assertEquals(Comparison.Status.AGREE, compare(seen, unseen).status());
        // the outcome is still compared: the survivor affecting other rows is a divergence
        Trace otherCount = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).error(1, 2, ErrorClass.DEADLOCK).ended(1, TxnStatus.ABORTED, 2)
                .count(2, 1, 0).ok(2, 2).ended(2, TxnStatus.COMMITTED, 2).state(BOTH);
        assertEquals(DivergenceKind.AFFECTED, compare(seen, otherCount).divergence().kind());
        // without a deadlock, a wait on one side only is still a blocking divergence (aStatementThatWaitsOnOneSideOnly...)
        assertTrue(!TraceComparison.inDeadlockCycle(waiting().state(BOTH), ref(2, 1)));
    }

    @Test
    void statementsAreMatchedByReferenceNotByPosition() {
        // the second side completes T2's BEGIN before T1's UPDATE: positions differ, references agree
        Trace reordered = trace().ok(1, 0).ok(2, 0).count(1, 1, 1).rows(1, 2, List.of(List.of("1", "1"))).ok(1, 3).ended(1, TxnStatus.COMMITTED, 3)
                .blockedCount(2, 1, 1).ok(2, 2).ended(2, TxnStatus.COMMITTED, 2).state(BOTH);
        assertEquals(Comparison.Status.AGREE, compare(waiting().state(BOTH), reordered).status());
    }

    @Test
    void aSerializationFailureOnOneSideIsAnAbortDivergence() {
        Trace aborted = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).rows(1, 2, List.of(List.of("1", "1"))).ok(1, 3).ended(1, TxnStatus.COMMITTED, 3)
                .blockedError(2, 1, ErrorClass.SERIALIZATION).ended(2, TxnStatus.ABORTED, 1).state(List.of(List.of("1", "1")));
        Comparison c = compare(waiting().state(BOTH), aborted);
        assertEquals(DivergenceKind.ABORT, c.divergence().kind());
        assertEquals(ref(2, 1), c.divergence().at());
        assertTrue(c.divergence().right().contains("SERIALIZATION"), c.divergence().toString());
    }

    @Test
    void anotherErrorOnOneSideIsAnErrorDivergence() {
        Trace a = trace().ok(1, 0).count(1, 1, 1).state(SETUP);
        Trace b = trace().ok(1, 0).error(1, 1, ErrorClass.DATA).state(SETUP);
        assertEquals(DivergenceKind.ERROR, compare(a, b).divergence().kind());
    }

    @Test
    void rowsCompareAsMultisetsUnlessTotallyOrdered() {
        List<List<String>> two = List.of(List.of("1", "1"), List.of("2", "2"));
        List<List<String>> swapped = List.of(List.of("2", "2"), List.of("1", "1"));
        Trace a = trace().ok(1, 0).rows(1, 2, two).state(SETUP);
        Trace b = trace().ok(1, 0).rows(1, 2, swapped).state(SETUP);
        assertEquals(Comparison.Status.AGREE, compare(a, b).status());
        Comparison ordered = TraceComparison.compare(CASE, new SideRun(state0(SETUP), a), new SideRun(state0(SETUP), b), new Rules(s -> true, true));
        assertEquals(DivergenceKind.ROWS, ordered.divergence().kind());
        Trace c = trace().ok(1, 0).rows(1, 2, List.of(List.of("1", "1"))).state(SETUP);
        Comparison fewer = compare(a, c);
        assertEquals(DivergenceKind.ROWS, fewer.divergence().kind());
        assertEquals(List.of("(2, 2)"), fewer.divergence().onlyLeft());
        assertEquals(List.of(), fewer.divergence().onlyRight());
    }

    @Test
    void affectedRowsDiffer() {
        Trace a = trace().ok(1, 0).count(1, 1, 1).state(SETUP);
        Trace b = trace().ok(1, 0).count(1, 1, 0).state(SETUP);
        assertEquals(DivergenceKind.AFFECTED, compare(a, b).divergence().kind());
    }

    @Test
    void upsertCountsCompareOnlyWhereBothSidesDefineThemTheSame() {
        TestCase upsert = Cases.on("h2").table("t").setup("CREATE TABLE t (k INT PRIMARY KEY, v INT)")
                .autocommit("MERGE INTO t KEY (k) VALUES (1, 1)").order(1);
        Trace a = trace().count(1, 0, 1).state(SETUP);
        Trace b = trace().count(1, 0, 2).state(SETUP);
        SideRun l = new SideRun(state0(SETUP), a);
        SideRun r = new SideRun(state0(SETUP), b);
        assertEquals(Comparison.Status.AGREE, TraceComparison.compare(upsert, l, r, Rules.multisets(false)).status());
        assertEquals(DivergenceKind.AFFECTED, TraceComparison.compare(upsert, l, r, Rules.multisets(true)).divergence().kind());
    }

    @Test
    void aStatementRunOnOneSideOnlyIsOneSided() {
        Trace a = trace().ok(1, 0).error(1, 1, ErrorClass.CONSTRAINT).rows(1, 2, List.of()).state(SETUP);
        Trace b = trace().ok(1, 0).error(1, 1, ErrorClass.CONSTRAINT).ended(1, TxnStatus.ABORTED, 1).state(SETUP);
        Comparison c = compare(a, b);
        assertEquals(DivergenceKind.ONE_SIDED, c.divergence().kind());
        assertEquals(ref(1, 2), c.divergence().at());
        assertEquals("did not run", c.divergence().right());
    }

    @Test
    void theFinalStateIsComparedWhenEveryStatementAgreed() {
        Comparison c = compare(waiting().state(BOTH), waiting().state(List.of(List.of("1", "1"))));
        assertEquals(DivergenceKind.STATE, c.divergence().kind());
        assertEquals(null, c.divergence().at());
        assertEquals(List.of("t: (1, 11)"), c.divergence().onlyLeft());
        assertEquals(List.of("t: (1, 1)"), c.divergence().onlyRight());
    }

    @Test
    void theFirstDivergenceInExecutionOrderWins() {
        // T1's SELECT differs (position 3) and T2's UPDATE does not wait (position 5): the SELECT comes first
        Trace other = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).rows(1, 2, List.of(List.of("1", "0"))).ok(1, 3).ended(1, TxnStatus.COMMITTED, 3)
                .count(2, 1, 1).ok(2, 2).ended(2, TxnStatus.COMMITTED, 2).state(BOTH);
        assertEquals(DivergenceKind.ROWS, compare(waiting().state(BOTH), other).divergence().kind());
    }

    @Test
    void differentSetupIsNotComparable() {
        Comparison c = compare(new SideRun(state0(SETUP), waiting().state(BOTH)), new SideRun(state0(List.of()), waiting().state(BOTH)));
        assertEquals(Comparison.Status.NOT_COMPARABLE, c.status());
        assertTrue(c.reason().startsWith("setup differs"), c.reason());
    }

    @Test
    void aStallTheExecutorBrokeIsNotComparable() {
        Comparison c = compare(waiting().state(BOTH), waiting().stalled().state(List.of(List.of("1", "1"))));
        assertEquals(Comparison.Status.NOT_COMPARABLE, c.status());
        assertTrue(c.reason().contains("stall"), c.reason());
    }

    @Test
    void aDivergenceThatDoesNotComeBackIsFlaky() {
        Comparison first = compare(waiting().state(BOTH), waiting().state(List.of(List.of("1", "1"))));
        Comparison agreedNext = compare(waiting().state(BOTH), waiting().state(BOTH));
        Comparison flaky = first.confirmedBy(agreedNext);
        assertEquals(Comparison.Status.NOT_COMPARABLE, flaky.status());
        assertTrue(flaky.flaky(), flaky.reason());
        assertTrue(!first.confirmedBy(compare(waiting().state(BOTH), waiting().stalled().state(BOTH))).flaky(), "a stall the second time is no flake");
        assertEquals(first, first.confirmedBy(compare(waiting().state(BOTH), waiting().state(List.of(List.of("1", "1"))))), "the same divergence again");
        Trace blocking = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).rows(1, 2, List.of(List.of("1", "1"))).ok(1, 3).ended(1, TxnStatus.COMMITTED, 3)
                .count(2, 1, 1).ok(2, 2).ended(2, TxnStatus.COMMITTED, 2).state(BOTH);
        assertEquals(Comparison.Status.NOT_COMPARABLE, first.confirmedBy(compare(waiting().state(BOTH), blocking)).status(), "another divergence");
    }
}
