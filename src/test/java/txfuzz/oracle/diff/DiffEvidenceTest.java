package txfuzz.oracle.diff;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;

/**
 * What a reduction keeps of a divergence (its identity): a study's scenario is kind × cause × consequence, so a case
 * whose divergence is the same but costs something else (the final states now equal) is not the scenario's example.
 */
@Tag("unit")
class DiffEvidenceTest {
    private static Violation blockedUpdate(Consequence consequence) {
        Divergence d = new Divergence(DivergenceKind.BLOCKING, new StmtRef(1, 0), "blocked, then affected 1", "affected 1");
        Triaged t = new Triaged(Label.COMPATIBILITY, List.of(), Cause.BLOCKING_MODEL, null, List.of(), Map.of());
        DiffSignature sig = new DiffSignature("a vs b", IsolationLevel.READ_COMMITTED, d.kind(), null, t.cause(), t.label());
        return new Violation(d.kind(), Classification.DOCUMENTED, "s", "d", null, Map.of(),
                new DiffEvidence(d, t, sig, "UPDATE t0 SET c0 = 1", consequence));
    }

    @Test
    void theSameDivergenceWithTheSameConsequenceIsTheSameViolation() {
        assertTrue(blockedUpdate(Consequence.DATABASE_STATE).sameAs(blockedUpdate(Consequence.DATABASE_STATE), UnaryOperator.identity()));
    }

    @Test
    void theSameDivergenceWithAnotherConsequenceIsNot() {
        assertFalse(blockedUpdate(Consequence.DATABASE_STATE).sameAs(blockedUpdate(Consequence.NO_DIFFERENCE), UnaryOperator.identity()));
        assertFalse(blockedUpdate(Consequence.QUERY_RESULT).sameAs(blockedUpdate(Consequence.DATABASE_STATE), UnaryOperator.identity()));
    }
}
