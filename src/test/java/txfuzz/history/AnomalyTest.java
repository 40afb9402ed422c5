package txfuzz.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static txfuzz.history.History.row;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.model.IsolationLevel;

/**
 * Hand-built histories, one or more per anomaly kind, each positive (the kind is reported) and
 * negative (a history without it does not report it). Rows are in table "t"; wLists are written
 * out, T0 being the initial state.
 */
@Tag("unit")
class AnomalyTest {
    static Set<Anomaly> observed(History h) {
        return IsolationChecker.analyze(h).observed();
    }

    static AnomalyFinding only(History h, Anomaly a) {
        List<AnomalyFinding> fs = IsolationChecker.analyze(h).findings().stream().filter(f -> f.anomaly() == a).toList();
        assertEquals(1, fs.size(), () -> "expected one " + a + " in " + IsolationChecker.analyze(h).findings());
        return fs.get(0);
    }

    static void assertOnly(History h, Anomaly... kinds) {
        Set<Anomaly> expected = EnumSet.noneOf(Anomaly.class);
        for (Anomaly k : kinds) {
            for (Anomaly a = k; a != null; a = a.parent()) {
                expected.add(a);
            }
        }
        Analysis an = IsolationChecker.analyze(h);
        assertEquals(expected, an.observed(), () -> an.findings().stream().map(AnomalyFinding::summary).toList().toString());
    }

    // ---- no anomaly -------------------------------------------------------------------------

    @Test
    void aSerialHistoryHasNoAnomaly() {
        History h = History.builder()
                .txn(1).read("x", 0).update("x", 0).update("y", 0).commit()
                .txn(2).read("x", 0, 1).read("y", 0, 1).update("x", 0, 1).commit()
                .txn(3).read("x", 0, 1, 2).read("y", 0, 1).commit()
                .build();
        assertOnly(h);
        DependencyGraph g = IsolationChecker.analyze(h).graph();
        assertEquals(3, g.graph().vertexSet().size());
        assertEquals("T0,T1,T2", g.row("t", "x").versionOrder().toString());
    }

    // ---- G0 ---------------------------------------------------------------------------------

    @Test
    void g0IsAWriteCycle() {
        History h = History.builder()
                .txn(1).update("x", 0).update("y", 0, 2).commit()
                .txn(2).update("x", 0, 1).update("y", 0).commit()
                .build();
        assertOnly(h, Anomaly.G0);
        AnomalyFinding f = only(h, Anomaly.G0);
        assertEquals(2, f.cycle().size());
        assertTrue(f.cycle().stream().allMatch(d -> d.type() == DepType.WW));
    }

    @Test
    void writesInOneOrderOnEveryRowAreNotG0() {
        History h = History.builder()
                .txn(1).update("x", 0).update("y", 0).commit()
                .txn(2).update("x", 0, 1).update("y", 0, 1).commit()
                .build();
        assertOnly(h);
    }

    // ---- G1a, dirty update -----------------------------------------------------------------

    @Test
    void readingAnAbortedWriteIsG1a() {
        History h = History.builder()
                .txn(1).update("x", 0).abort()
                .txn(2).read("x", 0, 1).commit()
                .build();
        assertOnly(h, Anomaly.G1A);
        AnomalyFinding f = only(h, Anomaly.G1A);
        assertEquals(List.of(1L, 2L), f.transactions());
        assertTrue(f.mermaid().contains("T1 (aborted)"), f.mermaid());
    }

    @Test
    void anAbortedWriterNobodyReadIsNoAnomaly() {
        History h = History.builder()
                .txn(1).update("x", 0).abort()
                .txn(2).read("x", 0).update("x", 0).commit()
                .txn(3).read("x", 0, 2).commit()
                .build();
        assertOnly(h);
    }

    @Test
    void anAbortedReaderOfAnAbortedWriteIsNoAnomaly() {
        History h = History.builder()
                .txn(1).update("x", 0).abort()
                .txn(2).read("x", 0, 1).abort()
                .build();
        assertOnly(h);
    }

    @Test
    void aCommittedWriteOnTopOfAnAbortedOneIsADirtyUpdate() {
        History h = History.builder()
                .txn(1).update("x", 0).abort()
                .txn(2).update("x", 0, 1).commit()
                .build();
        assertOnly(h, Anomaly.DIRTY_UPDATE);
    }

    // ---- G1b --------------------------------------------------------------------------------

    @Test
    void readingAVersionItsWriterOverwroteIsG1b() {
        History h = History.builder()
                .txn(1).update("x", 0).update("x", 0, 1).commit()
                .txn(2).read("x", 0, 1).commit()
                .build();
        assertOnly(h, Anomaly.G1B);
    }

    @Test
    void readingTheFinalVersionOrOnesOwnIntermediateIsNotG1b() {
        History h = History.builder()
                .txn(1).update("x", 0).read("x", 0, 1).update("x", 0, 1).commit()
                .txn(2).read("x", 0, 1, 1).commit()
                .build();
        assertOnly(h);
    }

    // ---- G1c --------------------------------------------------------------------------------

    @Test
    void eachReadingTheOthersWriteIsG1c() {
        History h = History.builder()
                .txn(1).update("x", 0).read("y", 0, 2).commit()
                .txn(2).update("y", 0).read("x", 0, 1).commit()
                .build();
        assertOnly(h, Anomaly.G1C);
    }

    @Test
    void oneWayInformationFlowIsNotG1c() {
        History h = History.builder()
                .txn(1).update("x", 0).read("y", 0, 2).commit()
                .txn(2).update("y", 0).read("x", 0).commit()
                .build();
        // T2 read x before T1's write: T2 -rw-> T1 and T2 -wr-> T1, no cycle
        assertOnly(h);
    }

    // ---- G-single forms ---------------------------------------------------------------------

    @Test
    void lostUpdate() {
        History h = History.builder()
                .txn(1).read("x", 0).update("x", 0, 2).commit()
                .txn(2).update("x", 0).commit()
                .build();
        assertOnly(h, Anomaly.LOST_UPDATE);
        AnomalyFinding f = only(h, Anomaly.LOST_UPDATE);
        assertEquals("lost update: T1 -rw t.x-> T2 -ww t.x-> T1", f.summary());
    }

    @Test
    void readModifyWriteOfTheLatestVersionIsNoLostUpdate() {
        History h = History.builder()
                .txn(2).update("x", 0).commit()
                .txn(1).read("x", 0, 2).update("x", 0, 2).commit()
                .build();
        assertOnly(h);
    }

    @Test
    void nonRepeatableRead() {
        History h = History.builder()
                .txn(1).read("x", 0).read("x", 0, 2).commit()
                .txn(2).update("x", 0).commit()
                .build();
        assertOnly(h, Anomaly.NON_REPEATABLE_READ);
    }

    @Test
    void repeatableReadsAreNoNonRepeatableRead() {
        History h = History.builder()
                .txn(1).read("x", 0).read("x", 0).commit()
                .txn(2).update("x", 0).commit()
                .build();
        assertOnly(h);
    }

    @Test
    void readSkew() {
        History h = History.builder()
                .txn(1).read("x", 0).read("y", 0, 2).commit()
                .txn(2).update("x", 0).update("y", 0).commit()
                .build();
        assertOnly(h, Anomaly.READ_SKEW);
    }

    @Test
    void aConsistentSnapshotIsNoReadSkew() {
        History h = History.builder()
                .txn(1).read("x", 0).read("y", 0).commit()
                .txn(2).update("x", 0).update("y", 0).commit()
                .build();
        assertOnly(h);
    }

    /** IsoRel Fig. 1/3: MySQL REPEATABLE READ read-write skew. r1 in t1, r5 inserted into t2. */
    @Test
    void readWriteSkewOfIsoRelFigure1() {
        History h = History.builder()
                .txn(1).session(1).read("t1", "r1", 0).update("t2", "r4", 0).update("t2", "r5", 2).commit()
                .txn(2).session(2).update("t1", "r1", 0).insert("t2", "r5").commit()
                .txn(3).session(1).read("t1", "r1", 0, 2).read("t1", "r2", 0).read("t2", "r4", 0, 1).read("t2", "r5", 2, 1).commit()
                .build();
        assertOnly(h, Anomaly.READ_WRITE_SKEW);
        AnomalyFinding f = only(h, Anomaly.READ_WRITE_SKEW);
        assertEquals("read-write skew: T1 -rw t1.r1-> T2 -ww t2.r5-> T1", f.summary());
    }

    @Test
    void writingAfterTheOtherCommittedWithoutStaleReadIsNoReadWriteSkew() {
        History h = History.builder()
                .txn(2).update("t1", "r1", 0).insert("t2", "r5").commit()
                .txn(1).read("t1", "r1", 0, 2).update("t2", "r5", 2).commit()
                .build();
        assertOnly(h);
    }

    // ---- several anti-dependencies -----------------------------------------------------------

    @Test
    void writeSkew() {
        History h = History.builder()
                .txn(1).read("x", 0).update("y", 0).commit()
                .txn(2).read("y", 0).update("x", 0).commit()
                .build();
        assertOnly(h, Anomaly.WRITE_SKEW);
        Analysis an = IsolationChecker.analyze(h);
        AnomalyFinding f = an.judge(IsolationLevel.SNAPSHOT, Set.of()).get(0);
        assertFalse(f.proscribed(), "snapshot isolation permits write skew");
        assertTrue(an.judge(IsolationLevel.SERIALIZABLE, Set.of()).get(0).bugCandidate());
        assertTrue(an.judge(IsolationLevel.REPEATABLE_READ, Set.of()).get(0).proscribed(), "PL-2.99 proscribes G2-item");
    }

    @Test
    void readingTheOthersWriteIsNoWriteSkew() {
        History h = History.builder()
                .txn(1).read("x", 0).update("y", 0).commit()
                .txn(2).read("y", 0, 1).update("x", 0).commit()
                .build();
        assertOnly(h);
    }

    @Test
    void threeTransactionsWithAdjacentAntiDependenciesAreG2Item() {
        History h = History.builder()
                .txn(1).read("a", 0).update("c", 0, 3).commit()
                .txn(2).update("a", 0).read("b", 0).commit()
                .txn(3).update("b", 0).update("c", 0).commit()
                .build();
        assertOnly(h, Anomaly.G2_ITEM);
        assertEquals(3, only(h, Anomaly.G2_ITEM).cycle().size());
    }

    @Test
    void nonAdjacentAntiDependenciesAreGNonadjacentWhichSnapshotIsolationProscribes() {
        History h = History.builder()
                .txn(1).read("a", 0).read("d", 0, 4).commit()
                .txn(2).update("a", 0).update("b", 0).commit()
                .txn(3).read("b", 0, 2).read("c", 0).commit()
                .txn(4).update("c", 0).update("d", 0).commit()
                .build();
        assertOnly(h, Anomaly.G_NONADJACENT);
        AnomalyFinding f = IsolationChecker.check(h, IsolationLevel.SNAPSHOT, Set.of()).get(0);
        assertTrue(f.bugCandidate());
        assertEquals(4, f.cycle().size());
    }

    // ---- predicates -------------------------------------------------------------------------

    @Test
    void aRowInsertedBetweenTwoPredicateReadsIsAPhantom() {
        History h = History.builder()
                .txn(1).predicateRead("t", "c1 < 5", false, row("r1", 0)).predicateRead("t", "c1 < 5", false, row("r1", 0), row("r2", 2)).commit()
                .txn(2).insert("r2").commit()
                .build();
        assertOnly(h, Anomaly.PHANTOM);
        Analysis an = IsolationChecker.analyze(h);
        assertFalse(an.judge(IsolationLevel.REPEATABLE_READ, Set.of()).get(0).proscribed(), "PL-2.99 permits phantoms");
        assertTrue(an.judge(IsolationLevel.SNAPSHOT, Set.of()).get(0).proscribed());
        assertTrue(an.findings().get(0).explanation().contains("did not return t.r2"), an.findings().get(0).explanation());
    }

    @Test
    void aSnapshotThatNeverSeesTheNewRowIsNoPhantom() {
        History h = History.builder()
                .txn(1).predicateRead("t", "c1 < 5", false, row("r1", 0)).predicateRead("t", "c1 < 5", false, row("r1", 0)).commit()
                .txn(2).insert("r2").commit()
                .txn(3).predicateRead("t", "c1 < 5", false, row("r1", 0), row("r2", 2)).commit()
                .build();
        assertOnly(h);
        // T1 saw the table before T2's insert: a predicate anti-dependency, but no cycle
        assertTrue(IsolationChecker.analyze(h).graph().graph().edgeSet().stream()
                .anyMatch(d -> d.type() == DepType.RW && d.predicate() && d.from() == 1 && d.to() == 2));
    }

    @Test
    void predicatesWithDifferentKeysDoNotInferAnything() {
        History h = History.builder()
                .txn(1).predicateRead("t", "c1 < 5", false, row("r1", 0)).predicateRead("t", "c1 < 9", false, row("r1", 0), row("r2", 2)).commit()
                .txn(2).insert("r2").commit()
                .build();
        assertOnly(h);
    }

    @Test
    void missingARowThatAlwaysMatchedIsAPredicateReadMiss() {
        History h = History.builder()
                .txn(1).predicateRead("t", "c1 < 5", false, row("r1", 0)).commit()
                .txn(2).predicateRead("t", "c1 < 5", false).commit()
                .build();
        assertOnly(h, Anomaly.PREDICATE_READ_MISS);
    }

    @Test
    void missingARowThatChangedIsNoPredicateReadMiss() {
        History h = History.builder()
                .txn(1).predicateRead("t", "c1 < 5", false, row("r1", 0)).commit()
                .txn(3).update("r1", 0).commit()
                .txn(2).predicateRead("t", "c1 < 5", false).commit()
                .build();
        assertOnly(h);
    }

    // ---- deletes and REPLACE ----------------------------------------------------------------

    @Test
    void rereadingADeletedRowFromASnapshotIsNoAnomaly() {
        History h = History.builder()
                .txn(1).read("r1", 0).read("r1", 0).commit()
                .txn(2).delete("r1", 0).commit()
                .build();
        assertOnly(h);
        RowVersions r = IsolationChecker.analyze(h).graph().row("t", "r1");
        assertTrue(r.deleted());
        assertEquals("T0,T2", r.versionOrder().toString());
    }

    /**
     * The first read returned r1, so the deletion overwrote a row T1 had read: an item anti-dependency,
     * whatever the second read was (Adya 1999 §4.2: a cycle with an item anti-dependency is G2-item, which
     * PL-2.99 proscribes; a locking REPEATABLE READ holds r1's read lock). Not a phantom, which REPEATABLE
     * READ permits: that needs the anti-dependency itself to go through the predicate (a row never read).
     */
    @Test
    void aRowThatVanishesBetweenTwoPredicateReadsIsANonRepeatableReadOfIt() {
        History h = History.builder()
                .txn(1).predicateRead("t", "c1 < 5", false, row("r1", 0)).predicateRead("t", "c1 < 5", false).commit()
                .txn(2).delete("r1", 0).commit()
                .build();
        assertOnly(h, Anomaly.NON_REPEATABLE_READ);
        assertFalse(IsolationChecker.check(h, IsolationLevel.READ_COMMITTED, Set.of()).get(0).proscribed());
        assertTrue(IsolationChecker.check(h, IsolationLevel.REPEATABLE_READ, Set.of()).get(0).proscribed());
    }

    @Test
    void aDeleteAndReadModifyWriteOnAStaleReadIsALostUpdate() {
        History h = History.builder()
                .txn(1).read("r1", 0).delete("r1", 0, 2).commit()
                .txn(2).update("r1", 0).commit()
                .build();
        assertOnly(h, Anomaly.LOST_UPDATE);
    }

    @Test
    void readingADeletedRowIsAnIncompatibleOrder() {
        History h = History.builder()
                .txn(2).delete("r1", 0).commit()
                .txn(3).update("r1", 0, 2).commit()
                .build();
        assertOnly(h, Anomaly.INCOMPATIBLE_ORDER);
    }

    @Test
    void aDeleteThatAbortedLeavesTheRow() {
        History h = History.builder()
                .txn(2).delete("r1", 0).abort()
                .txn(3).read("r1", 0).update("r1", 0).commit()
                .txn(4).read("r1", 0, 3).commit()
                .build();
        assertOnly(h);
    }

    /** REPLACE on key 1: deletes r1 (locking read first), inserts r2 with a new rowId. */
    @Test
    void replaceDeletesTheOldRowAndInsertsANewOne() {
        History clean = History.builder()
                .txn(1).read("r1", 0).commit()
                .txn(2).delete("r1", 0).insert("r2").commit()
                .txn(3).read("r2", 2).commit()
                .build();
        assertOnly(clean);
        History skewed = History.builder()
                .txn(1).read("r1", 0).read("r2", 2).commit()
                .txn(2).delete("r1", 0).insert("r2").commit()
                .build();
        // T1 saw the old row of key 1 and the new row of key 1: read skew
        assertOnly(skewed, Anomaly.READ_SKEW);
    }

    // ---- session order ----------------------------------------------------------------------

    @Test
    void notSeeingTheSessionsOwnEarlierCommitIsAnAnomalyViaSessionOrder() {
        History h = History.builder()
                .txn(1).session(7).update("x", 0).commit()
                .txn(2).session(7).read("x", 0).commit()
                .build();
        assertOnly(h, Anomaly.G_SINGLE);
        AnomalyFinding f = only(h, Anomaly.G_SINGLE);
        assertTrue(f.viaSessionOrder());
        assertTrue(f.explanation().contains("T2 ran after T1 in session 7"), f.explanation());
    }

    @Test
    void seeingTheSessionsOwnEarlierCommitIsFine() {
        History h = History.builder()
                .txn(1).session(7).update("x", 0).commit()
                .txn(2).session(7).read("x", 0, 1).commit()
                .txn(3).session(8).read("x", 0).commit()
                .build();
        assertOnly(h);
    }

    // ---- IsoRel §3.4 ------------------------------------------------------------------------

    @Test
    void aCycleClosedByALockingReadIsExemptPerIsoRelSection34() {
        History h = History.builder()
                .txn(1).read("x", 0).lockingRead("x", 0, 2).commit()
                .txn(2).update("x", 0).commit()
                .build();
        Analysis an = IsolationChecker.analyze(h);
        assertEquals(Set.of(), an.observed());
        assertEquals(1, an.exemptedCycles());
    }

    @Test
    void theExemptionNeedsTheLockingReadToCloseTheCycle() {
        // the stale read is the locking one: not what §3.4 describes
        History h = History.builder()
                .txn(1).lockingRead("x", 0).read("x", 0, 2).commit()
                .txn(2).update("x", 0).commit()
                .build();
        assertOnly(h, Anomaly.NON_REPEATABLE_READ);
    }

    @Test
    void theExemptionCoversOnlyTwoTransactionCycles() {
        History h = History.builder()
                .txn(1).read("x", 0).lockingRead("y", 0, 3).commit()
                .txn(2).update("x", 0).commit()
                .txn(3).read("x", 0, 2).update("y", 0).commit()
                .build();
        assertOnly(h, Anomaly.READ_SKEW);
    }

    @Test
    void aPlainReadOfTheSameVersionStillClosesTheCycle() {
        History h = History.builder()
                .txn(1).read("x", 0).lockingRead("x", 0, 2).read("x", 0, 2).commit()
                .txn(2).update("x", 0).commit()
                .build();
        assertOnly(h, Anomaly.NON_REPEATABLE_READ);
    }

    // ---- broken version orders --------------------------------------------------------------

    @Test
    void divergentWListsAreAnIncompatibleOrder() {
        History h = History.builder()
                .txn(1).update("x", 0).commit()
                .txn(2).update("x", 0).commit()
                .txn(3).read("x", 0, 1).read("x", 0, 2).commit()
                .build();
        assertOnly(h, Anomaly.INCOMPATIBLE_ORDER);
        assertTrue(IsolationChecker.analyze(h).graph().row("t", "x").inconsistent());
        assertTrue(IsolationChecker.check(h, IsolationLevel.READ_UNCOMMITTED, Set.of()).get(0).proscribed());
    }

    @Test
    void aWriterMissingFromTheHistoryIsAGarbageRead() {
        History h = History.builder()
                .txn(1).read("x", 0, 99).commit()
                .build();
        assertOnly(h, Anomaly.GARBAGE_READ);
    }

    @Test
    void notSeeingOnesOwnWriteIsInternal() {
        History h = History.builder()
                .txn(1).update("x", 0).read("x", 0).commit()
                .build();
        assertOnly(h, Anomaly.INTERNAL);
    }

    // ---- outcomes ---------------------------------------------------------------------------

    @Test
    void anUnknownOutcomeObservedByACommittedReaderCountsAsCommitted() {
        History h = History.builder()
                .txn(1).update("x", 0).unknown()
                .txn(2).read("x", 0, 1).commit()
                .txn(3).update("y", 0).unknown()
                .build();
        assertOnly(h);
        DependencyGraph g = IsolationChecker.analyze(h).graph();
        assertTrue(g.committed(1));
        assertFalse(g.committed(3));
    }

    // ---- judging ----------------------------------------------------------------------------

    @Test
    void levelsAndProfilesDecideWhatIsABugCandidate() {
        History h = History.builder()
                .txn(1).read("x", 0).update("x", 0, 2).commit()
                .txn(2).update("x", 0).commit()
                .build();
        Analysis an = IsolationChecker.analyze(h);
        assertFalse(an.judge(IsolationLevel.READ_COMMITTED, Set.of()).get(0).proscribed());
        assertTrue(an.judge(IsolationLevel.REPEATABLE_READ, Set.of()).get(0).bugCandidate());
        assertTrue(an.judge(IsolationLevel.SNAPSHOT, Set.of()).get(0).bugCandidate());
        AnomalyFinding documented = an.judge(IsolationLevel.REPEATABLE_READ, Set.of(Anomaly.LOST_UPDATE)).get(0);
        assertTrue(documented.proscribed() && documented.permittedByProfile() && !documented.bugCandidate());
        // a profile that permits G-single at a level permits its named forms too
        assertFalse(an.judge(IsolationLevel.REPEATABLE_READ, Set.of(Anomaly.G_SINGLE)).get(0).bugCandidate());
        // but permitting write skew does not permit lost update
        assertTrue(an.judge(IsolationLevel.REPEATABLE_READ, Set.of(Anomaly.WRITE_SKEW, Anomaly.G2_ITEM)).get(0).bugCandidate());
    }

    // ---- graph queries and bounds ------------------------------------------------------------

    @Test
    void typedChainsFindAPatternsDependencyPath() {
        History h = History.builder()
                .txn(1).read("x", 0).update("x", 0, 2).commit()
                .txn(2).update("x", 0).commit()
                .build();
        DependencyGraph g = IsolationChecker.analyze(h).graph();
        List<List<Dep>> lost = g.chains(List.of(DepType.RW, DepType.WW), true, 10);
        assertEquals(1, lost.size());
        assertEquals("T1 -rw t.x-> T2", lost.get(0).get(0).toString());
        assertEquals(0, g.chains(List.of(DepType.RW, DepType.RW), true, 10).size());
        assertEquals(0, g.chains(List.of(DepType.WR), false, 10).size(), "T1 read the initial version: T0 is no vertex, so no wr edge");
        assertEquals(2, g.chains(List.of(DepType.WW), false, 10).size() + g.chains(List.of(DepType.RW), false, 10).size());
    }

    @Test
    void findingsAreCappedPerKindButCounted() {
        History.Builder b = History.builder();
        for (int i = 0; i < 30; i++) {
            b.txn(100 + i).update("x" + i, 0).abort();
            b.txn(200 + i).read("x" + i, 0, 100 + i).commit();
        }
        Analysis an = IsolationChecker.analyze(b.build());
        assertEquals(30, an.count(Anomaly.G1A));
        assertEquals(20, an.findings().size());
    }

    // ---- G2 through predicates ------------------------------------------------------------------

    /** "Doctors on call": each checks the on-call rows by predicate and inserts its own; neither saw the other's. */
    @Test
    void predicateWriteSkewIsG2() {
        History h = History.builder()
                .txn(1).predicateRead("t", "oncall", false, row("r1", 0)).insert("r3").commit()
                .txn(2).predicateRead("t", "oncall", false, row("r1", 0)).insert("r2").commit()
                .txn(3).predicateRead("t", "oncall", false, row("r1", 0), row("r2", 2), row("r3", 1)).commit()
                .build();
        assertOnly(h, Anomaly.G2);
        Analysis an = IsolationChecker.analyze(h);
        assertFalse(an.judge(IsolationLevel.SNAPSHOT, Set.of()).get(0).proscribed());
        assertFalse(an.judge(IsolationLevel.REPEATABLE_READ, Set.of()).get(0).proscribed());
        assertTrue(an.judge(IsolationLevel.SERIALIZABLE, Set.of()).get(0).bugCandidate());
    }

    @Test
    void seeingTheOthersInsertIsNoG2() {
        History h = History.builder()
                .txn(1).predicateRead("t", "oncall", false, row("r1", 0)).insert("r3").commit()
                .txn(2).predicateRead("t", "oncall", false, row("r1", 0), row("r3", 1)).insert("r2").commit()
                .txn(3).predicateRead("t", "oncall", false, row("r1", 0), row("r2", 2), row("r3", 1)).commit()
                .build();
        assertOnly(h);
    }

    // ---- the level table --------------------------------------------------------------------

    @Test
    void theLevelTableIsCumulativeAndNamedFormsFollowTheirKind() {
        Set<Anomaly> ru = IsolationModel.proscribed(IsolationLevel.READ_UNCOMMITTED);
        Set<Anomaly> rc = IsolationModel.proscribed(IsolationLevel.READ_COMMITTED);
        Set<Anomaly> rr = IsolationModel.proscribed(IsolationLevel.REPEATABLE_READ);
        Set<Anomaly> si = IsolationModel.proscribed(IsolationLevel.SNAPSHOT);
        Set<Anomaly> ser = IsolationModel.proscribed(IsolationLevel.SERIALIZABLE);
        assertTrue(rc.containsAll(ru) && rr.containsAll(rc) && si.containsAll(rc) && ser.containsAll(rr) && ser.containsAll(si));
        assertEquals(EnumSet.allOf(Anomaly.class), ser);
        for (IsolationLevel l : IsolationLevel.values()) {
            for (Anomaly a : Anomaly.values()) {
                if (a.parent() != null && a != Anomaly.PHANTOM && IsolationModel.proscribes(l, a.parent())) {
                    assertTrue(IsolationModel.proscribes(l, a), a + " at " + l);
                }
            }
        }
        assertTrue(si.contains(Anomaly.LOST_UPDATE) && !si.contains(Anomaly.WRITE_SKEW) && si.contains(Anomaly.G_NONADJACENT));
        assertTrue(rr.contains(Anomaly.WRITE_SKEW) && !rr.contains(Anomaly.PHANTOM) && !rr.contains(Anomaly.G2));
        assertEquals(Anomaly.LOST_UPDATE, Anomaly.parse("lost-update"));
        assertEquals(Anomaly.G_SINGLE, Anomaly.parse("G-single"));
        assertEquals(Anomaly.G1A, Anomaly.parse("g1a"));
    }
}
