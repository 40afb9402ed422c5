package txfuzz.report;

import txfuzz.reduce.Reduction;

/**
 * A finding's reduction as summary.json records it.
 *
 * @param status           {@code reduced} (the reducer shrank the case; {@code case.json} is its result, {@code original.case.json}
 *                         the case as found), {@code pending} (being reduced), {@code skipped-duplicate} (an earlier reduced finding
 *                         already explains it), {@code off} (reduction disabled), {@code not-applicable} (flaky, or a failure
 *                         outside the oracles' reach), {@code time-up} (the campaign's time ran out first, or the reduction's own
 *                         budget ran out before a smaller case was confirmed), {@code on-request} (not a bug candidate, and the
 *                         campaign reduces only those: {@code txfuzz reduce} shrinks it), {@code interrupted} (stopped by Ctrl-C),
 *                         {@code minimal} (the reducer removed nothing), {@code not-reproduced} (the reducer's runs of the case did
 *                         not show the violation again), {@code violation-lost} (they showed only other violations of its kind:
 *                         another statement, or the other direction; reducing those would report another behaviour), {@code failed}
 *                         (the reducer itself failed). In every status but
 *                         {@code reduced}, {@code case.json} is the case as found and there are no {@code original.*} files.
 * @param statementsBefore data statements of the case as found (BEGIN/COMMIT/ROLLBACK not counted)
 * @param statementsAfter  data statements of the reduced case; null unless reduced
 * @param ratio            statementsAfter / statementsBefore; null unless reduced
 * @param seconds          wall time the reduction took; null unless the reducer ran
 * @param runs             candidate runs the reducer made; null unless the reducer ran
 * @param exhausted        the reduction's time budget ran out before a fixed point; null unless the reducer ran
 * @param note             what the status alone does not say: for {@code reduced}: how the statements the violation is about were renumbered ("T2.1 is T3.1 of the
 *                         case as found"); for {@code violation-lost}: why the case stayed as found; else null
 */
public record ReductionRecord(String status, int statementsBefore, Integer statementsAfter, Double ratio, Double seconds, Integer runs,
                              Boolean exhausted, String note) {
    public ReductionRecord(String status, int statementsBefore, Integer statementsAfter, Double ratio, Double seconds, Integer runs,
                           Boolean exhausted) {
        this(status, statementsBefore, statementsAfter, ratio, seconds, runs, exhausted, null);
    }

    public static final String REDUCED = "reduced";
    public static final String PENDING = "pending";
    public static final String SKIPPED_DUPLICATE = "skipped-duplicate";
    public static final String OFF = "off";
    public static final String NOT_APPLICABLE = "not-applicable";
    public static final String TIME_UP = "time-up";
    public static final String ON_REQUEST = "on-request";
    public static final String FAILED = "failed";
    public static final String INTERRUPTED = "interrupted";
    public static final String MINIMAL = "minimal";
    public static final String NOT_REPRODUCED = "not-reproduced";
    public static final String VIOLATION_LOST = "violation-lost";

    /** A reduction that shrank the case; anything else is {@link #unchanged}. */
    public static ReductionRecord of(Reduction r) {
        if (!r.changed()) {
            throw new IllegalArgumentException("an unchanged case is not reduced (" + r.end() + ")");
        }
        return new ReductionRecord(REDUCED, r.statementsBefore(), r.statementsAfter(), round(r.ratio()), round(r.seconds()), r.runs(),
                r.exhausted(), renumbered(r));
    }

    /**
     * Where the reduced case renumbered the statements its violation is about: "T2.1 is T3.1 of the case as found" (the
     * verdict of the case as found names T3.1); null when it names none or kept their numbers.
     */
    private static String renumbered(Reduction r) {
        java.util.List<String> moved = new java.util.ArrayList<>();
        for (txfuzz.model.StmtRef now : r.violation().evidence().identity().map(i -> i.statements()).orElse(java.util.List.of())) {
            txfuzz.model.StmtRef was = r.originOf(now);
            if (was != null && !was.equals(now)) {
                moved.add(now + " is " + was);
            }
        }
        return moved.isEmpty() ? null : String.join(", ", moved) + " of the case as found";
    }

    /**
     * A reduction that ran but left the case as found: {@code interrupted}, {@code time-up} (its budget ran out before a smaller
     * case was confirmed), {@code minimal} (nothing could be removed) or {@code not-reproduced} (the case did not show the
     * violation again); its seconds and runs are kept, statementsAfter and ratio are null.
     */
    public static ReductionRecord unchanged(Reduction.End end, Reduction r) {
        String status = switch (end) {
            case INTERRUPTED -> INTERRUPTED;
            case TIME_UP -> TIME_UP;
            case FIXED_POINT -> MINIMAL;
            case NOT_FAILING -> NOT_REPRODUCED;
            case VIOLATION_LOST -> VIOLATION_LOST;
        };
        String reason = end == Reduction.End.VIOLATION_LOST && r.otherOfKind() != null
                ? "its runs showed `" + r.otherOfKind().summary().replaceAll("\\s+", " ").strip() + "` instead, a violation of the same kind"
                        + " about another statement or differing the other way"
                : null;
        return new ReductionRecord(status, r.statementsBefore(), null, null, round(r.seconds()), r.runs(), end == Reduction.End.TIME_UP,
                reason);
    }

    /** A reduction whose result did not show the violation again when run for its report: the case as found stays the finding. */
    public static ReductionRecord lost(Reduction r, String reason) {
        return new ReductionRecord(VIOLATION_LOST, r.statementsBefore(), null, null, round(r.seconds()), r.runs(), r.exhausted(), reason);
    }

    public static ReductionRecord notRun(String status, int statementsBefore) {
        return new ReductionRecord(status, statementsBefore, null, null, null, null, null);
    }

    public boolean reduced() {
        return REDUCED.equals(status);
    }

    private static double round(double d) {
        return Math.round(d * 1000) / 1000.0;
    }
}
