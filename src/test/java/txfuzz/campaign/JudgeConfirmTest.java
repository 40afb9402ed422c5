package txfuzz.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
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
class JudgeConfirmTest {

    /**
     * H2 2.5.252, seed 1 iteration 85 at READ UNCOMMITTED: T2.1 deletes more rows than in the serial replay, every run. Its
     * violation is confirmed; the same kind claimed about T4.3, which no run shows differing, is not.
     */
    @Test
    void onlyTheSameStatementDifferingTheSameWayConfirmsAViolation() throws Exception {
        TestCase c = CaseJson.read(Path.of(JudgeConfirmTest.class.getResource("/txfuzz/reduce/h2-RU-s1-i85.case.json").toURI()));
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
