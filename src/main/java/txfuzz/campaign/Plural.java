package txfuzz.campaign;

/** A count with its noun in the right number: "1 case", "2 cases". */
public final class Plural {
    private Plural() {
    }

    public static String of(long n, String singular) {
        return n + " " + (n == 1 ? singular : singular + "s");
    }

    /**
     * What a campaign found so far, in the same words on its progress lines and its last line: the
     * oracles' violations by classification, the findings (cases with one) they fall in, and how many
     * of those are unique, e.g. "4 violations (4 bug candidates, 0 documented, 0 flaky) in 2 findings:
     * 1 unique (1 bug candidate), 1 duplicate".
     */
    public static String findings(long bugCandidates, long documented, long flaky, long instrumentationEffects, long unique,
                                  long uniqueBugCandidates, long duplicates) {
        long violations = bugCandidates + documented + flaky + instrumentationEffects;
        return of(violations, "violation") + " (" + of(bugCandidates, "bug candidate") + ", " + documented + " documented, " + flaky + " flaky"
                + (instrumentationEffects == 0 ? "" : ", " + of(instrumentationEffects, "instrumentation effect")) + ") in "
                + of(unique + duplicates, "finding") + ": " + unique + " unique (" + of(uniqueBugCandidates, "bug candidate") + "), "
                + of(duplicates, "duplicate");
    }

    /** "; 3 not promised", or nothing when there are none: violations that break no promise of their level (filed only with --not-promised). */
    public static String notPromised(long n) {
        return n == 0 ? "" : "; " + n + " not promised";
    }
}
