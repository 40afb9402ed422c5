package txfuzz.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import txfuzz.exec.Trace;
import txfuzz.model.DbState;
import txfuzz.oracle.Oracle;
import txfuzz.oracle.Run;
import txfuzz.oracle.Verdict;
import txfuzz.dbms.h2.H2Target;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.model.CaseJson;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;
import txfuzz.oracle.explicit.ExplicitOracle;
import txfuzz.oracle.wss.WssEvidence;
import txfuzz.oracle.wss.WssKind;
import txfuzz.oracle.wss.WssOracle;

/** The confirming run must show the same violation, not just one of the same kind. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JudgeConfirmTest {
    private static TestCase deletesMoreRowsThanSerial() throws Exception {
        return CaseJson.read(Path.of(JudgeConfirmTest.class.getResource("/txfuzz/reduce/h2-RU-s1-i85.case.json").toURI()));
    }

    /** wss, counting its verdicts. */
    private static final class CountedWss implements Oracle {
        private final WssOracle wss = new WssOracle();
        final AtomicInteger verdicts = new AtomicInteger();

        @Override
        public String name() {
            return wss.name();
        }

        @Override
        public List<? extends txfuzz.oracle.ViolationKind> kinds() {
            return wss.kinds();
        }

        @Override
        public Verdict judge(Run run, Executor executor) throws java.sql.SQLException, txfuzz.exec.SetupFailedException {
            verdicts.incrementAndGet();
            return wss.judge(run, executor);
        }

        @Override
        public boolean verdictFollowsFromTrace() {
            return wss.verdictFollowsFromTrace();
        }
    }

    /** T2.1's violation, classified {@code as}, from a run judged by {@code wss}. */
    private static Violation deleted(Judge judge, TestCase c, Trace run, Classification as) throws Exception {
        Violation v = judge.judge(c, run).stream()
                .filter(x -> x.kind() == WssKind.WRITE_OUTCOME && new StmtRef(2, 1).equals(((WssEvidence) x.evidence()).statement()))
                .findFirst().orElseThrow();
        return v.classification() == as ? v : v.withClassification(as, null);
    }

    /** A documented violation of a run that came back the same needs no second verdict: the second run is the evidence. */
    @Test
    void aRunThatComesBackTheSameConfirmsWhatCannotHeadlineWithoutASecondVerdict() throws Exception {
        TestCase c = deletesMoreRowsThanSerial();
        try (Executor ex = new Executor(new H2Target(), ExecutorConfig.defaults())) {
            CountedWss wss = new CountedWss();
            Judge judge = new Judge(List.of(wss), ex);
            Trace run = ex.run(c);
            Violation documented = deleted(judge, c, run, Classification.DOCUMENTED);
            List<Violation> confirmed = judge.confirm(c, run, List.of(documented));
            assertSame(documented, confirmed.get(0));
            assertEquals(1, wss.verdicts.get(), "the re-run equal to the first, nothing is judged again");
        }
    }

    /** A bug candidate is judged again whatever the re-run: a replay that differs from one time to the next makes it flaky. */
    @Test
    void aBugCandidateIsAlwaysJudgedAgain() throws Exception {
        TestCase c = deletesMoreRowsThanSerial();
        try (Executor ex = new Executor(new H2Target(), ExecutorConfig.defaults())) {
            CountedWss wss = new CountedWss();
            Judge judge = new Judge(List.of(wss), ex);
            Trace run = ex.run(c);
            Violation candidate = deleted(judge, c, run, Classification.BUG_CANDIDATE);
            assertEquals(Classification.BUG_CANDIDATE, judge.confirm(c, run, List.of(candidate)).get(0).classification());
            assertEquals(2, wss.verdicts.get());
        }
    }

    /**
     * Negative control of the shortcut: a re-run that differs from the first run is judged again, and a documented violation
     * the second verdict does not show is flaky. The first run here is the real one with its final state changed, so the
     * engine's re-run cannot equal it.
     */
    @Test
    void aRunThatComesBackDifferentIsJudgedAgain() throws Exception {
        TestCase c = deletesMoreRowsThanSerial();
        try (Executor ex = new Executor(new H2Target(), ExecutorConfig.defaults())) {
            CountedWss wss = new CountedWss();
            Judge judge = new Judge(List.of(wss), ex);
            Trace real = ex.run(c);
            Violation documented = deleted(judge, c, real, Classification.DOCUMENTED);
            WssEvidence e = (WssEvidence) documented.evidence();
            Violation elsewhere = documented.withEvidence(new WssEvidence(e.kind(), new StmtRef(4, 3), e.actual(), e.sql(), e.orders(), e.direction()));
            Trace other = new Trace(real.schedule(), real.outcomes(), real.endOrder(), new DbState(java.util.Map.of()), real.stalls(), real.hung(),
                    real.hangEvidence(), real.refusedSettings());
            List<Violation> confirmed = judge.confirm(c, other, List.of(documented, elsewhere));
            assertEquals(2, wss.verdicts.get(), "judged again");
            assertEquals(Classification.DOCUMENTED, confirmed.get(0).classification());
            assertEquals(Classification.FLAKY, confirmed.get(1).classification());
        }
    }

    /**
     * H2 2.5.252, seed 1 iteration 85 at READ UNCOMMITTED: T2.1 deletes more rows than in the serial replay, every run. Its
     * violation is confirmed; the same kind claimed about T4.3, which no run shows differing, is not.
     */
    @Test
    void onlyTheSameStatementDifferingTheSameWayConfirmsAViolation() throws Exception {
        TestCase c = deletesMoreRowsThanSerial();
        try (Executor ex = new Executor(new H2Target(), ExecutorConfig.defaults())) {
            Judge judge = new Judge(List.of(new WssOracle(), new ExplicitOracle()), ex);
            Violation atLike = judge.judge(c, ex.run(c)).stream()
                    .filter(v -> v.kind() == WssKind.WRITE_OUTCOME && new StmtRef(2, 1).equals(((WssEvidence) v.evidence()).statement()))
                    .findFirst().orElseThrow();
            assertNotEquals(Classification.FLAKY, judge.confirm(c, List.of(atLike)).get(0).classification());

            WssEvidence e = (WssEvidence) atLike.evidence();
            Violation elsewhere = atLike.withEvidence(new WssEvidence(e.kind(), new StmtRef(4, 3), e.actual(), e.sql(), e.orders(), e.direction()));
            assertEquals(Classification.FLAKY, judge.confirm(c, List.of(elsewhere)).get(0).classification());
            Violation otherWay = atLike.withEvidence(new WssEvidence(e.kind(), e.statement(), e.actual(), e.sql(), e.orders(),
                    "changed fewer rows than serial"));
            assertEquals(Classification.FLAKY, judge.confirm(c, List.of(otherWay)).get(0).classification());
        }
    }
}
