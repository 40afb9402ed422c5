package txfuzz.oracle;

import java.util.List;

/**
 * What one oracle concluded about one run.
 *
 * @param notApplicable why the oracle did not judge the run (its premise does not hold for this case or run), or null when it
 *                      did: an oracle that could not judge says so, rather than pass what it never examined
 */
public record Verdict(String oracle, List<Violation> violations, String notApplicable) {
    public Verdict {
        violations = List.copyOf(violations);
        if (notApplicable != null && !violations.isEmpty()) {
            throw new IllegalArgumentException("a verdict that found violations was applicable");
        }
    }

    public Verdict(String oracle, List<Violation> violations) {
        this(oracle, violations, null);
    }

    public static Verdict clean(String oracle) {
        return new Verdict(oracle, List.of());
    }

    /** The oracle did not judge the run, because {@code why} (a short phrase, the same for every case it holds for). */
    public static Verdict notApplicable(String oracle, String why) {
        return new Verdict(oracle, List.of(), java.util.Objects.requireNonNull(why));
    }

    public boolean isClean() {
        return violations.isEmpty();
    }

    public boolean applicable() {
        return notApplicable == null;
    }
}
