package txfuzz.oracle.diff;

import java.util.Optional;

/**
 * What comparing two runs of one case gave: they agree, they diverge (the first divergence), or they
 * cannot be compared (why). Not comparable is counted, never reported.
 */
public record Comparison(Status status, Divergence divergence, String reason) {
    public enum Status { AGREE, DIVERGE, NOT_COMPARABLE }

    public static Comparison agree() {
        return new Comparison(Status.AGREE, null, null);
    }

    public static Comparison diverge(Divergence d) {
        return new Comparison(Status.DIVERGE, d, null);
    }

    public static Comparison notComparable(String reason) {
        return new Comparison(Status.NOT_COMPARABLE, null, reason);
    }

    /** Not comparable because a divergence did not come back on a second run. */
    public boolean flaky() {
        return status == Status.NOT_COMPARABLE && reason.startsWith(FLAKY);
    }

    private static final String FLAKY = "flaky: ";

    public Optional<Divergence> first() {
        return Optional.ofNullable(divergence);
    }

    /**
     * The verdict over two comparisons of fresh runs: a divergence counts only when the second run shows the
     * same one (same kind, same statement); one that does not come back is flaky, not comparable.
     */
    public Comparison confirmedBy(Comparison again) {
        if (status != Status.DIVERGE) {
            return this;
        }
        if (again.status == Status.NOT_COMPARABLE) {
            return again;
        }
        if (again.status == Status.DIVERGE && divergence.sameAs(again.divergence)) {
            return this;
        }
        return notComparable(FLAKY + divergence + " did not come back on a second run of both sides"
                + (again.status == Status.AGREE ? " (they agreed)" : " (they diverged otherwise: " + again.divergence + ")"));
    }
}
