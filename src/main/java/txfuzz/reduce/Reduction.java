package txfuzz.reduce;

import txfuzz.model.TestCase;
import txfuzz.oracle.Violation;

/**
 * The outcome of reducing one finding.
 *
 * @param original          the case as the campaign found it
 * @param reduced           the smallest confirmed case found that still shows the violation (the original when nothing could be
 *                          removed, or when the reduction was interrupted)
 * @param violation         the violation as the reduced case shows it (same oracle, kind and classification as the original)
 * @param statementsBefore  data statements of the original (BEGIN/COMMIT/ROLLBACK not counted)
 * @param statementsAfter   data statements of the reduced case
 * @param runs              how many times the engine ran a candidate
 * @param seconds           wall time spent
 * @param end               why the reduction stopped
 */
public record Reduction(TestCase original, TestCase reduced, Violation violation, int statementsBefore, int statementsAfter, int runs,
                        double seconds, End end) {
    /** Why a reduction stopped. */
    public enum End {
        /** Nothing more could be removed (a fixed point). */
        FIXED_POINT,
        /** The time budget ran out first. */
        TIME_UP,
        /** It was asked to stop (Ctrl-C); {@code reduced} is the original. */
        INTERRUPTED,
        /** The case as given did not show the violation again. */
        NOT_FAILING
    }

    /** statementsAfter / statementsBefore (1.0 when nothing was removed). */
    public double ratio() {
        return statementsBefore == 0 ? 1.0 : (double) statementsAfter / statementsBefore;
    }

    /** The time budget ran out before reduction reached a fixed point. */
    public boolean exhausted() {
        return end == End.TIME_UP;
    }

    /** A smaller (or simpler) confirmed case was found: only then is there a reduced case to write. */
    public boolean changed() {
        return end != End.INTERRUPTED && !reduced.equals(original);
    }
}
