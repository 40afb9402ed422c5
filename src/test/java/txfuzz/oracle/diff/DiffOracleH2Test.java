package txfuzz.oracle.diff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.gen.CaseGenerator;
import txfuzz.gen.GenConfig;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.CommitDroppingTarget;
import txfuzz.oracle.Oracle;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;
import txfuzz.oracle.wss.WssOracle;

/** DiffOracle on real H2: an injected fault is a bug candidate of the faulty subject; identical subjects report nothing. */
class DiffOracleH2Test {
    private static final java.util.function.Function<String, List<Oracle>> WSS = label -> List.of(new WssOracle());

    /** Two writers on different rows, overlapping in time, plus a blocked writer on a shared row. */
    private static TestCase overlappingWriters(IsolationLevel level) {
        return Cases.on("h2").table("t").level(level)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0), (3, 0)")
                .txn("UPDATE t SET v = v + 1 WHERE id = 1", "UPDATE t SET v = v + 1 WHERE id = 3")
                .txn("UPDATE t SET v = v + 10 WHERE id = 2", "UPDATE t SET v = v * 2 WHERE id = 3")
                .autocommit("DELETE FROM t WHERE v = 0")
                .order(1, 2, 1, 2, 1, 2, 3, 1, 2);
    }

    private static Verdict judge(DiffOracle diff, Target primary, TestCase c) throws Exception {
        try (Executor ex = new Executor(primary, ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            return diff.judge(c, trace, ex);
        }
    }

    @Test
    void aSubjectWhoseCommitsDropWritesIsTheBugCandidate() throws Exception {
        try (Target h2 = Targets.create("h2"); Target faulty = new CommitDroppingTarget(Targets.create("h2"));
             DiffOracle diff = new DiffOracle("h2", List.of(OtherSubject.sameLevels("h2-faulty", faulty)), WSS)) {
            Verdict v = judge(diff, h2, overlappingWriters(IsolationLevel.READ_COMMITTED));
            assertEquals(1, v.violations().size(), v.toString());
            Violation x = v.violations().get(0);
            System.out.println(x.summary());
            assertEquals(Classification.BUG_CANDIDATE, x.classification(), x.details());
            DiffEvidence e = (DiffEvidence) x.evidence();
            assertEquals(List.of("h2-faulty"), e.triaged().culprits(), x.details());
            assertEquals(Label.BUG_CANDIDATE, e.signature().label());
            assertTrue(x.details().contains(SideBySide.MARK) || e.divergence().at() == null, x.details());
            assertEquals(Map.of("compared", 1L, "agreeing", 0L, "diverged", 1L, "notComparable", 0L, "flaky", 0L, "unpairedLevel", 0L), diff.figures());
        }
    }

    @Test
    void aSubjectWhoseUpdatesMiscountUnderConcurrencyIsTheBugCandidateAtThatUpdate() throws Exception {
        try (Target h2 = Targets.create("h2"); Target faulty = new ConcurrentMiscountTarget(Targets.create("h2"));
             DiffOracle diff = new DiffOracle("h2", List.of(OtherSubject.sameLevels("h2-miscounting", faulty)), WSS)) {
            Verdict v = judge(diff, h2, overlappingWriters(IsolationLevel.READ_COMMITTED));
            assertEquals(1, v.violations().size(), v.toString());
            Violation x = v.violations().get(0);
            System.out.println(x.summary());
            DiffEvidence e = (DiffEvidence) x.evidence();
            assertEquals(DivergenceKind.AFFECTED, e.divergence().kind(), x.details());
            // T2's UPDATE is the first one while another transaction has written (T1's UPDATE ran before T2 had)
            assertEquals(new txfuzz.model.StmtRef(2, 1), e.divergence().at(), x.details());
            assertEquals(Cause.UNEXPLAINED, e.triaged().cause(), "run serially the subjects agree, so it is not the statement's meaning");
            assertEquals(List.of("h2-miscounting"), e.triaged().culprits(), x.details());
            assertTrue(x.details().contains("(at the divergent statement)"), x.details());
        }
    }

    /** A campaign judges a divergent case again to confirm it (and a reduction again): the study counts the case once. */
    @Test
    void aCaseJudgedAgainIsCountedOnceInTheStudy() throws Exception {
        try (Target h2 = Targets.create("h2"); Target faulty = new ConcurrentMiscountTarget(Targets.create("h2"));
             DiffOracle diff = new DiffOracle("h2", List.of(OtherSubject.sameLevels("h2-miscounting", faulty)), WSS)) {
            TestCase c = overlappingWriters(IsolationLevel.READ_COMMITTED);
            assertEquals(1, judge(diff, h2, c).violations().size());
            assertEquals(1, judge(diff, h2, c).violations().size(), "judged again, it still diverges");
            assertEquals(2L, diff.figures().get("compared"), "the oracle's figures count judgements");
            Study s = diff.studies().get(0);
            assertEquals(1, s.compared(), "the study counts cases");
            assertEquals(1, s.scenarios().get(0).seen(), s.toString());
        }
    }

    /** Two writers of different rows, overlapping; then T3 reads T1's row: the versions first diverge at T3's read. */
    private static TestCase lostWriteReadLater(IsolationLevel level) {
        return Cases.on("h2").table("t").level(level)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                .txn("UPDATE t SET v = v + 1 WHERE id = 1")
                .txn("UPDATE t SET v = v + 10 WHERE id = 2")
                .autocommit("SELECT v FROM t WHERE id = 1")
                .order(1, 2, 1, 2, 1, 2, 3);
    }

    /**
     * Negative control for issue 33 rule 8: one "version" of H2 (real H2 with commits dropped under concurrency injected)
     * loses T1's and T2's writes; the versions first diverge at T3's later read, away from what its own oracle (wss)
     * flags (the final state its writes left). A lost write is a wrong result, not a behaviour change between versions:
     * it is a bug candidate naming the version that lost it. Before, the flag away from the divergent statement made
     * no culprit and the divergence was filed as a documented behaviour change.
     */
    @Test
    void aVersionThatLosesAWriteIsTheBugCandidateNotABehaviourChange() throws Exception {
        for (IsolationLevel level : List.of(IsolationLevel.READ_COMMITTED, IsolationLevel.SERIALIZABLE)) {
            try (Target h2 = Targets.create("h2"); Target faulty = new CommitDroppingTarget(Targets.create("h2"));
                 DiffOracle diff = new DiffOracle("h2", List.of(OtherSubject.sameLevels("h2-faulty", faulty)), WSS)) {
                Verdict v = judge(diff, h2, lostWriteReadLater(level));
                assertEquals(1, v.violations().size(), level + ": " + v);
                Violation x = v.violations().get(0);
                DiffEvidence e = (DiffEvidence) x.evidence();
                assertEquals(new txfuzz.model.StmtRef(3, 0), e.divergence().at(), level + ": " + x.details());
                assertEquals(Classification.BUG_CANDIDATE, x.classification(), level + ": " + x.details());
                assertEquals(List.of("h2-faulty"), e.triaged().culprits(), level + ": " + x.details());
                assertTrue(x.details().contains("h2-faulty's own oracles report a bug candidate away from the divergent statement"),
                        level + ": " + x.details());
            }
        }
    }

    @Test
    void theFaultIsAttributedWhicheverSideIsPrimary() throws Exception {
        try (Target h2 = Targets.create("h2"); Target faulty = new CommitDroppingTarget(Targets.create("h2"));
             DiffOracle diff = new DiffOracle("h2-faulty", List.of(OtherSubject.sameLevels("h2", h2)), WSS)) {
            Verdict v = judge(diff, faulty, overlappingWriters(IsolationLevel.READ_COMMITTED));
            assertEquals(1, v.violations().size(), v.toString());
            assertEquals(List.of("h2-faulty"), ((DiffEvidence) v.violations().get(0).evidence()).triaged().culprits());
        }
    }

    @Test
    void twoIdenticalSubjectsOverAFixedSeedBatchReportNothing() throws Exception {
        int cases = 100;
        CaseGenerator gen = new CaseGenerator(GenConfig.defaults());
        try (Target h2 = Targets.create("h2"); Target again = Targets.create("h2");
             DiffOracle diff = new DiffOracle("h2", List.of(OtherSubject.sameLevels("h2 again", again)), WSS);
             Executor ex = new Executor(h2, ExecutorConfig.defaults())) {
            List<IsolationLevel> levels = h2.isolationLevels();
            for (int i = 0; i < cases; i++) {
                TestCase c = gen.generate("h2", h2.dialect(), levels.get(i % levels.size()), "default", 7, i);
                Verdict v = diff.judge(c, ex.run(c), ex);
                assertTrue(v.isClean(), "case " + i + ": " + v);
            }
            Map<String, Long> f = diff.figures();
            assertEquals(cases, f.get("compared"), f.toString());
            assertTrue(f.get("agreeing") >= cases * 9 / 10, f.toString());
            Study s = diff.studies().get(0);
            assertEquals(cases, s.compared());
            assertFalse(StudyReport.render(diff.studies()).isBlank());
            System.out.println("identical H2 subjects over " + cases + " cases: " + f + "; not comparable by reason " + s.notComparable());
        }
    }
}
