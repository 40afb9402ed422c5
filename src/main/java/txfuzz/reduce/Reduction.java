package txfuzz.reduce;

import txfuzz.model.TestCase;
import txfuzz.oracle.Violation;

/**
 * The outcome of reducing one finding.
 *
 * @param original          the case as the campaign found it
 * @param reduced           the smallest case found that still shows the violation (the original when nothing could be removed)
 * @param violation         the violation as the reduced case shows it (same oracle, kind and classification as the original)
 * @param statementsBefore  data statements of the original (BEGIN/COMMIT/ROLLBACK not counted)
 * @param statementsAfter   data statements of the reduced case
 * @param runs              how many times the engine ran a candidate
 * @param seconds           wall time spent
 * @param exhausted         the time budget ran out before reduction reached a fixed point
 */
public record Reduction(TestCase original, TestCase reduced, Violation violation, int statementsBefore, int statementsAfter, int runs,
                        double seconds, boolean exhausted) {
    /** statementsAfter / statementsBefore (1.0 when nothing was removed). */
    public double ratio() {
        return statementsBefore == 0 ? 1.0 : (double) statementsAfter / statementsBefore;
    }
}
