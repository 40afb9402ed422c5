package txfuzz.reduce;

import txfuzz.model.TestCase;
import txfuzz.oracle.Violation;

/**
 * The outcome of reducing one finding.
 *
 * @param original          the case as the campaign found it
 * @param reduced           the smallest confirmed case found that still shows the violation (the original when nothing could be
 *                          removed, or when the reduction was interrupted)
 * @param origin            each statement of {@code reduced} → the statement of {@code original} it came from
 * @param violation         the violation as the reduced case shows it: the original one ({@link Violation#sameAs}, with
 *                          {@code origin}), with the same classification
 * @param statementsBefore  data statements of the original (BEGIN/COMMIT/ROLLBACK not counted)
 * @param statementsAfter   data statements of the reduced case
 * @param runs              how many times the engine ran a candidate
 * @param refused           runs that showed a violation of the same kind that was not the original one (another statement,
 *                          the other direction): steps refused for drifting onto another behaviour
 * @param seconds           wall time spent
 * @param end               why the reduction stopped
 * @param otherOfKind       for {@link End#VIOLATION_LOST}: what the runs of the case as found showed instead; else null
 */
public record Reduction(TestCase original, TestCase reduced, java.util.Map<txfuzz.model.StmtRef, txfuzz.model.StmtRef> origin,
                        Violation violation, int statementsBefore, int statementsAfter, int runs, int refused, double seconds, End end,
                        Violation otherOfKind) {
    public Reduction {
        origin = java.util.Map.copyOf(origin);
    }

    /** Why a reduction stopped. */
    public enum End {
        /** Nothing more could be removed (a fixed point). */
        FIXED_POINT,
        /** The time budget ran out first. */
        TIME_UP,
        /** It was asked to stop (Ctrl-C); {@code reduced} is the original. */
        INTERRUPTED,
        /** The case as given did not show the violation again. */
        NOT_FAILING,
        /**
         * The case as given showed only other violations of the same kind (about another statement, or
         * differing the other way), never the original one: there is no reduction of it to make.
         */
        VIOLATION_LOST
    }

    /** The statement of the original case that {@code ref} of the reduced one came from; null when none. */
    public txfuzz.model.StmtRef originOf(txfuzz.model.StmtRef ref) {
        return origin.get(ref);
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
        return end != End.INTERRUPTED && end != End.VIOLATION_LOST && end != End.NOT_FAILING && !reduced.equals(original);
    }
}
