package txfuzz.report;

import java.util.List;
import txfuzz.exec.Trace;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;

/**
 * Everything a finding's folder says.
 *
 * @param id             the folder name, e.g. {@code h2-RC-s1-i156}
 * @param testCase       the case in {@code case.json}: the reduced one once reduction ran, else the case as found
 * @param trace          a run of {@code testCase} (null when the case could not be run)
 * @param violations     what the oracles found in the run of the case as found
 * @param primary        the violation the finding is about, as {@code testCase} shows it (for a reduced case: the reducer's)
 * @param signature      the finding's signature (of {@code testCase} and {@code primary})
 * @param duplicateOf    id of the earlier finding this one duplicates; null when it is unique (or not yet decided)
 * @param duplicateOfSignature that finding's signature (equal to {@code signature}, or covered by it); null when unique
 * @param reduction      how the case was reduced (status and figures)
 * @param original       the case as found, when {@code testCase} is its reduction; else null
 * @param originalTrace  the run of {@code original} the oracles judged; null unless reduced
 * @param onNewest       for a bug candidate found on an older release: what the newest release does with the case; else null
 * @param plainForm      for a reduced case with row tracking: its plain program and how it compared; else null
 */
public record Finding(String id, TestCase testCase, Trace trace, List<Violation> violations, Violation primary, Signature signature,
                      String duplicateOf, Signature duplicateOfSignature, ReductionRecord reduction, TestCase original, Trace originalTrace,
                      OnNewestRelease onNewest, PlainForm plainForm) {
    public Finding {
        violations = List.copyOf(violations);
    }

    /** A finding as first written, before any reduction or de-duplication. */
    public static Finding unreduced(String id, TestCase c, Trace trace, List<Violation> violations, ReductionRecord reduction) {
        Violation p = primaryOf(violations);
        return new Finding(id, c, trace, violations, p, Signature.of(c, p), null, null, reduction, null, null, null, null);
    }

    /**
     * The violation a finding is about: a bug candidate before documented behaviour before flaky;
     * among equals a kind that is direct evidence of an engine failure (crash, hang, internal error) first, as the most
     * direct evidence; then the oracle's own order.
     */
    public static Violation primaryOf(List<Violation> violations) {
        if (violations.isEmpty()) {
            throw new IllegalArgumentException("a finding needs at least one violation");
        }
        Violation best = violations.get(0);
        for (Violation v : violations) {
            if (rank(v) < rank(best)) {
                best = v;
            }
        }
        return best;
    }

    private static int rank(Violation v) {
        int byClass = v.classification() == Classification.BUG_CANDIDATE ? 0 : v.classification() == Classification.DOCUMENTED ? 2 : 4;
        return byClass + (v.kind().engineFailure() ? 0 : 1);
    }

    public boolean reduced() {
        return original != null;
    }

    /** Filed as a duplicate of {@code representative} (null: unique), whose signature is {@code theirs}. */
    public Finding withDuplicateOf(String representative, Signature theirs) {
        return new Finding(id, testCase, trace, violations, primary, signature, representative, representative == null ? null : theirs,
                reduction, original, originalTrace, onNewest, plainForm);
    }

    public Finding withReduction(ReductionRecord r) {
        return new Finding(id, testCase, trace, violations, primary, signature, duplicateOf, duplicateOfSignature, r, original, originalTrace,
                onNewest, plainForm);
    }

    public Finding withOnNewest(OnNewestRelease n) {
        return new Finding(id, testCase, trace, violations, primary, signature, duplicateOf, duplicateOfSignature, reduction, original,
                originalTrace, n, plainForm);
    }

    public Finding withPlainForm(PlainForm p) {
        return new Finding(id, testCase, trace, violations, primary, signature, duplicateOf, duplicateOfSignature, reduction, original,
                originalTrace, onNewest, p);
    }

    /** The plain program the report shows first: present when it behaved as the tracked case did. */
    public java.util.Optional<PlainForm> plainShown() {
        return plainForm != null && plainForm.behavesTheSame() ? java.util.Optional.of(plainForm) : java.util.Optional.empty();
    }
}
