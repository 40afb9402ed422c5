package txfuzz.oracle.diff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static txfuzz.oracle.diff.TraceComparisonTest.BOTH;
import static txfuzz.oracle.diff.TraceComparisonTest.CASE;
import static txfuzz.oracle.diff.TraceComparisonTest.SETUP;
import static txfuzz.oracle.diff.Traces.state0;
import static txfuzz.oracle.diff.Traces.trace;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Promise;
import txfuzz.exec.Trace;
import txfuzz.exec.TxnStatus;
import txfuzz.model.IsolationLevel;
import txfuzz.oracle.Verdict;

/**
 * The promised-rules route of triage on hand-built traces, one rule at a time: a side that breaks a rule both levels
 * promise while the other keeps it is the bug candidate, with the evidence; both keeping it is not this route. The
 * serial replay, the engine step, is a function returning the trace an engine would (as the equiv core is tested).
 * CASE: T1 = BEGIN, UPDATE k=1 (+1), SELECT, COMMIT; T2 = BEGIN, UPDATE k=1 (+10), COMMIT.
 */
class PromisedRulesTest {
    private static final Verdict CLEAN = Verdict.clean("explicit");

    /** T2's UPDATE was sent before T1 committed, waited, then changed the row T1 had changed, and both committed. */
    private static final Trace BOTH_COMMITTED = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).rows(1, 2, List.of(List.of("1", "1"))).ok(1, 3)
            .ended(1, TxnStatus.COMMITTED, 3).blockedCount(2, 1, 1, 3).ok(2, 2).ended(2, TxnStatus.COMMITTED, 2).state(BOTH);

    /**
     * As {@link #BOTH_COMMITTED}, but T2's write lost T1's update (the row ends at (1, 10)): what first-committer-wins is
     * for. Both committing with the state a serial order leaves lost nothing, and breaks no promise (see the H2 test).
     */
    private static final Trace LOST_UPDATE = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).rows(1, 2, List.of(List.of("1", "1"))).ok(1, 3)
            .ended(1, TxnStatus.COMMITTED, 3).blockedCount(2, 1, 1, 3).ok(2, 2).ended(2, TxnStatus.COMMITTED, 2).state(List.of(List.of("1", "10")));

    /** The same, but T2's UPDATE failed as a write conflict once T1 had committed. */
    private static Trace t2Failed(ErrorClass e) {
        return trace().ok(1, 0).count(1, 1, 1).ok(2, 0).rows(1, 2, List.of(List.of("1", "1"))).ok(1, 3).ended(1, TxnStatus.COMMITTED, 3)
                .blockedError(2, 1, e).ended(2, TxnStatus.ABORTED, 1).state(List.of(List.of("1", "1")));
    }

    /** The serial case of T1 then T2 as an engine runs it: T1 reads (1, 1), the final state is (1, 11). */
    private static final Trace SERIAL_T1_T2 = trace().ok(1, 0).count(1, 1, 1).rows(1, 2, List.of(List.of("1", "1"))).ok(1, 3)
            .ended(1, TxnStatus.COMMITTED, 3).ok(2, 0).count(2, 1, 1).ok(2, 2).ended(2, TxnStatus.COMMITTED, 2).state(BOTH);

    private static Side side(String label) {
        return new Side(label, "engine", label.equals("new") ? "Engine 2.0" : "Engine 1.0", "mode default, PLAIN", IsolationLevel.SERIALIZABLE,
                "https://manual/" + label, List.of(CLEAN));
    }

    private static SideRun run(Trace t) {
        return new SideRun(state0(SETUP), t);
    }

    /** A replay that returns {@code t} whatever it is asked to run, and notes each run's transactions by their first UPDATE. */
    private static PromisedRules.Replay replaying(Trace t, List<List<String>> asked) {
        return (txns, order) -> {
            asked.add(txns.stream().map(x -> x.statements().get(1).sql()).toList());
            return t;
        };
    }

    private static final String T1 = "UPDATE t SET v = v + 1 WHERE k = 1";
    private static final String T2 = "UPDATE t SET v = v + 10 WHERE k = 1";

    private static PromisedRules.Promised promising(Promise p, boolean readsInCommitOrder, PromisedRules.Replay replay) {
        return new PromisedRules.Promised(p, readsInCommitOrder, "https://manual/promise", replay);
    }

    private static Triaged triage(Trace old, Trace neu, PromisedRules rules) {
        return triage(old, neu, rules, "engine");
    }

    /** {@code newEngine}: the engine of side "new" ("engine": two versions of one engine). */
    private static Triaged triage(Trace old, Trace neu, PromisedRules rules, String newEngine) {
        Divergence d = TraceComparison.compare(CASE, run(old), run(neu), Rules.multisets(true)).divergence();
        Side neuSide = side("new");
        neuSide = new Side(neuSide.label(), newEngine, neuSide.version(), neuSide.settings(), neuSide.level(), neuSide.reference(), neuSide.own());
        return Triage.triage(CASE, d, side("old"), run(old), neuSide, run(neu), null, rules);
    }

    private static PromisedRules both(Promise p, boolean reads, Trace replay) {
        return new PromisedRules(promising(p, reads, replaying(replay, new ArrayList<>())), promising(p, reads, replaying(replay, new ArrayList<>())));
    }

    private static boolean says(Triaged t, String start) {
        return t.evidence().stream().anyMatch(s -> s.startsWith(start));
    }

    @Test
    void aSideThatLetsTheSecondWriterCommitBreaksFirstCommitterWins() {
        Triaged t = triage(LOST_UPDATE, t2Failed(ErrorClass.SERIALIZATION), both(Promise.SNAPSHOT_ISOLATION, false, SERIAL_T1_T2));
        assertEquals(Label.BUG_CANDIDATE, t.label(), t.evidence().toString());
        assertEquals(List.of("old"), t.culprits());
        assertEquals("fixed in new", t.change());
        assertTrue(says(t, "old breaks first-committer-wins, which the other side keeps: T2 began (T2.1 was sent) before T1 committed (T1.3)"),
                t.evidence().toString());
        assertTrue(t.evidence().stream().anyMatch(s -> s.contains("new failed T2.1 as a write conflict (SERIALIZATION")), t.evidence().toString());
    }

    /** H2 reports a row changed since the snapshot as a deadlock; with no other transaction open it is a write conflict. */
    @Test
    void aDeadlockWithNoOtherTransactionOpenIsAWriteConflictToo() {
        Triaged t = triage(LOST_UPDATE, t2Failed(ErrorClass.DEADLOCK), both(Promise.SNAPSHOT_ISOLATION, false, SERIAL_T1_T2));
        assertEquals(List.of("old"), t.culprits(), t.evidence().toString());
        // T1 still open when T2's UPDATE failed as a deadlock: a cycle was possible, so no evidence of a write conflict
        Trace realDeadlock = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).blockedError(2, 1, ErrorClass.DEADLOCK).ended(2, TxnStatus.ABORTED, 1)
                .rows(1, 2, List.of(List.of("1", "1"))).ok(1, 3).ended(1, TxnStatus.COMMITTED, 3).state(List.of(List.of("1", "1")));
        Triaged other = triage(BOTH_COMMITTED, realDeadlock, both(Promise.SNAPSHOT_ISOLATION, false, SERIAL_T1_T2));
        assertTrue(other.culprits().isEmpty(), other.evidence().toString());
    }

    @Test
    void sidesThatBothKeepFirstCommitterWinsAreNotThisRoute() {
        // T2's UPDATE changes no row on one side: a divergence, but neither side failed a write as a conflict
        Trace noRow = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).rows(1, 2, List.of(List.of("1", "1"))).ok(1, 3)
                .ended(1, TxnStatus.COMMITTED, 3).blockedCount(2, 1, 0, 3).ok(2, 2).ended(2, TxnStatus.COMMITTED, 2).state(List.of(List.of("1", "1")));
        Triaged t = triage(BOTH_COMMITTED, noRow, both(Promise.SNAPSHOT_ISOLATION, false, SERIAL_T1_T2));
        assertEquals(Label.BEHAVIOUR_CHANGE, t.label(), t.evidence().toString());
        assertTrue(t.culprits().isEmpty());
        assertTrue(says(t, "Both levels promise first-committer-wins"), t.evidence().toString());
    }

    @Test
    void aRuleOnlyOneLevelPromisesIsNotChecked() {
        PromisedRules rules = new PromisedRules(promising(Promise.READ_COMMITTED, false, replaying(SERIAL_T1_T2, new ArrayList<>())),
                promising(Promise.SNAPSHOT_ISOLATION, false, replaying(SERIAL_T1_T2, new ArrayList<>())));
        Triaged t = triage(BOTH_COMMITTED, t2Failed(ErrorClass.SERIALIZATION), rules);
        assertTrue(t.culprits().isEmpty(), t.evidence().toString());
        assertTrue(says(t, "No rule is promised by both levels (old: read committed; new: snapshot isolation)"), t.evidence().toString());
    }

    @Test
    void aSideWhoseFinalStateNoSerialOrderLeavesBreaksTheSerialReplayRule() {
        Trace lost = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).rows(1, 2, List.of(List.of("1", "1"))).ok(1, 3)
                .ended(1, TxnStatus.COMMITTED, 3).blockedCount(2, 1, 1, 3).ok(2, 2).ended(2, TxnStatus.COMMITTED, 2).state(List.of(List.of("1", "10")));
        List<List<String>> askedOld = new ArrayList<>();
        List<List<String>> askedNew = new ArrayList<>();
        PromisedRules rules = new PromisedRules(promising(Promise.SERIALIZABLE, false, replaying(SERIAL_T1_T2, askedOld)),
                promising(Promise.SERIALIZABLE, false, replaying(SERIAL_T1_T2, askedNew)));
        Triaged t = triage(lost, BOTH_COMMITTED, rules);
        assertEquals(Label.BUG_CANDIDATE, t.label(), t.evidence().toString());
        assertEquals(List.of("old"), t.culprits());
        assertEquals(List.of(List.of(T1, T2), List.of(T2, T1)), askedOld, "the commit order first, then every other order");
        assertEquals(List.of(List.of(T1, T2)), askedNew, "the commit order's replay gives its state");
        assertTrue(says(t, "old breaks same serial replay result, which the other side keeps: its final state is what no serial order of its"
                + " committed transactions T1 → T2 leaves (all 2 tried): table t has (1, 10) where the serial replay in commit order T1 → T2 has (1, 11)"),
                t.evidence().toString());
    }

    @Test
    void sidesWhoseStatesSerialOrdersLeaveAreNotThisRoute() {
        // T2's UPDATE reports another count on one side; both final states are the serial replay's
        Trace miscounted = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).rows(1, 2, List.of(List.of("1", "1"))).ok(1, 3)
                .ended(1, TxnStatus.COMMITTED, 3).blockedCount(2, 1, 2, 3).ok(2, 2).ended(2, TxnStatus.COMMITTED, 2).state(BOTH);
        Triaged t = triage(miscounted, BOTH_COMMITTED, both(Promise.SERIALIZABLE, false, SERIAL_T1_T2));
        assertEquals(Label.BEHAVIOUR_CHANGE, t.label(), t.evidence().toString());
        assertTrue(says(t, "Both levels promise same serial replay result"), t.evidence().toString());
        assertFalse(says(t, "Both levels promise serializable-in-commit-order reads"), "the profiles do not promise reads in commit order");
    }

    @Test
    void aSideWhoseQueryDiffersFromTheCommitOrderReplayBreaksSerializableReads() {
        Trace stale = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).rows(1, 2, List.of(List.of("1", "5"))).ok(1, 3)
                .ended(1, TxnStatus.COMMITTED, 3).blockedCount(2, 1, 1, 3).ok(2, 2).ended(2, TxnStatus.COMMITTED, 2).state(BOTH);
        Triaged t = triage(BOTH_COMMITTED, stale, both(Promise.SERIALIZABLE, true, SERIAL_T1_T2));
        assertEquals(Label.BUG_CANDIDATE, t.label(), t.evidence().toString());
        assertEquals(List.of("new"), t.culprits());
        assertEquals("not in old (a regression)", t.change());
        assertTrue(says(t, "new breaks serializable-in-commit-order reads, which the other side keeps: in the serial replay in commit order T1 → T2,"
                + " T1.2 `SELECT k, v FROM t` returned (1, 5) where the replay returns (1, 1)"), t.evidence().toString());
    }

    @Test
    void sidesWhoseQueriesMatchTheCommitOrderReplayAreNotThisRoute() {
        Trace miscounted = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).rows(1, 2, List.of(List.of("1", "1"))).ok(1, 3)
                .ended(1, TxnStatus.COMMITTED, 3).blockedCount(2, 1, 2, 3).ok(2, 2).ended(2, TxnStatus.COMMITTED, 2).state(BOTH);
        Triaged t = triage(BOTH_COMMITTED, miscounted, both(Promise.SERIALIZABLE, true, SERIAL_T1_T2));
        assertEquals(Label.BEHAVIOUR_CHANGE, t.label(), t.evidence().toString());
        assertTrue(says(t, "Both levels promise serializable-in-commit-order reads"), t.evidence().toString());
    }

    /** A replay allocates generated keys anew: the serial rules are not checked where the schema generates them. */
    @Test
    void theSerialRulesAreNotCheckedWhereTheSchemaGeneratesKeys() {
        assertFalse(PromisedRules.allocatesKeys(CASE));
        for (String ddl : List.of("CREATE TABLE t (k INT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, v INT)",
                "CREATE TABLE t (k INT AUTO_INCREMENT PRIMARY KEY, v INT)", "CREATE TABLE t (k SERIAL PRIMARY KEY, v INT)",
                "CREATE SEQUENCE s")) {
            assertTrue(PromisedRules.allocatesKeys(txfuzz.exec.Cases.on("h2").table("t").level(IsolationLevel.SERIALIZABLE).setup(ddl)
                    .txn("SELECT 1").order(1, 1, 1)), ddl);
        }
    }

    @Test
    void sidesThatBothBreakARuleAreNotAttributed() {
        Trace lost = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).rows(1, 2, List.of(List.of("1", "1"))).ok(1, 3)
                .ended(1, TxnStatus.COMMITTED, 3).blockedCount(2, 1, 1, 3).ok(2, 2).ended(2, TxnStatus.COMMITTED, 2).state(List.of(List.of("1", "10")));
        Trace lostOther = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).rows(1, 2, List.of(List.of("1", "1"))).ok(1, 3)
                .ended(1, TxnStatus.COMMITTED, 3).blockedCount(2, 1, 1, 3).ok(2, 2).ended(2, TxnStatus.COMMITTED, 2).state(List.of(List.of("1", "1")));
        Triaged t = triage(lost, lostOther, both(Promise.SERIALIZABLE, false, SERIAL_T1_T2), "other-engine");
        assertTrue(t.culprits().isEmpty(), t.evidence().toString());
        assertEquals(1, t.evidence().stream().filter(s -> s.equals("Not attributed: both sides break same serial replay result.")).count(),
                t.evidence().toString());
    }

    /**
     * Issue 33 rule 8: two versions of one engine that both lose a write each broke their own level's promise; each is a
     * bug candidate, where between other engines the break on both sides is not attributed.
     */
    @Test
    void twoVersionsThatBothBreakTheirOwnPromiseAreBothBugCandidates() {
        Trace lost = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).rows(1, 2, List.of(List.of("1", "1"))).ok(1, 3)
                .ended(1, TxnStatus.COMMITTED, 3).blockedCount(2, 1, 1, 3).ok(2, 2).ended(2, TxnStatus.COMMITTED, 2).state(List.of(List.of("1", "10")));
        Trace lostOther = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).rows(1, 2, List.of(List.of("1", "1"))).ok(1, 3)
                .ended(1, TxnStatus.COMMITTED, 3).blockedCount(2, 1, 1, 3).ok(2, 2).ended(2, TxnStatus.COMMITTED, 2).state(List.of(List.of("1", "1")));
        Triaged t = triage(lost, lostOther, both(Promise.SERIALIZABLE, false, SERIAL_T1_T2));
        assertEquals(Label.BUG_CANDIDATE, t.label(), t.evidence().toString());
        assertEquals(List.of("old", "new"), t.culprits(), t.evidence().toString());
        assertTrue(says(t, "old breaks same serial replay result, which its own level promises"), t.evidence().toString());
    }

    @Test
    void ownOraclesFlaggingTheStatementComeFirst() {
        // no replay may run when an own oracle already names the culprit
        PromisedRules.Replay refusing = (txns, order) -> {
            throw new AssertionError("replayed although an own oracle flagged the divergent statement");
        };
        PromisedRules rules = new PromisedRules(promising(Promise.SERIALIZABLE, true, refusing), promising(Promise.SERIALIZABLE, true, refusing));
        Verdict flagged = new Verdict("explicit", List.of(new txfuzz.oracle.Violation(txfuzz.oracle.explicit.ExplicitKind.values()[0],
                txfuzz.oracle.Classification.BUG_CANDIDATE, "flagged at T2.1", "", null, java.util.Map.of(), new txfuzz.oracle.Evidence() {
                    @Override
                    public java.util.Optional<txfuzz.oracle.ViolationIdentity> identity() {
                        return java.util.Optional.of(new txfuzz.oracle.ViolationIdentity(List.of(Traces.ref(2, 1)), "at T2.1"));
                    }
                })));
        Side old = new Side("old", "engine", "Engine 1.0", "mode default, PLAIN", IsolationLevel.SERIALIZABLE, "https://manual/old", List.of(flagged));
        Trace aborted = t2Failed(ErrorClass.SERIALIZATION);
        Divergence d = TraceComparison.compare(CASE, run(BOTH_COMMITTED), run(aborted), Rules.multisets(true)).divergence();
        Triaged t = Triage.triage(CASE, d, old, run(BOTH_COMMITTED), side("new"), run(aborted), null, rules);
        assertEquals(List.of("old"), t.culprits());
    }
}
