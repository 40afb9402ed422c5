package txfuzz.oracle;

import java.util.List;

/** What one oracle concluded about one run. */
public record Verdict(String oracle, List<Violation> violations) {
    public Verdict {
        violations = List.copyOf(violations);
    }

    public static Verdict clean(String oracle) {
        return new Verdict(oracle, List.of());
    }

    public boolean isClean() {
        return violations.isEmpty();
    }
}
