package txfuzz.report;

import txfuzz.reduce.Reduction;

/**
 * A finding's reduction as summary.json records it.
 *
 * @param status           {@code reduced} (the reducer ran; {@code case.json} is its result, {@code original.case.json} the
 *                         case as found), {@code pending} (being reduced), {@code skipped-duplicate} (an earlier reduced finding
 *                         already explains it), {@code off} (reduction disabled), {@code not-applicable} (flaky, or a failure
 *                         outside the oracles' reach), {@code time-up} (the campaign's time ran out first), {@code failed} (the reducer
 *                         itself failed; the case as found is kept)
 * @param statementsBefore data statements of the case as found (BEGIN/COMMIT/ROLLBACK not counted)
 * @param statementsAfter  data statements of the reduced case; null unless reduced
 * @param ratio            statementsAfter / statementsBefore; null unless reduced
 * @param seconds          wall time the reduction took; null unless reduced
 * @param runs             candidate runs the reducer made; null unless reduced
 * @param exhausted        the reduction's time budget ran out before a fixed point; null unless reduced
 */
public record ReductionRecord(String status, int statementsBefore, Integer statementsAfter, Double ratio, Double seconds, Integer runs,
                              Boolean exhausted) {
    public static final String REDUCED = "reduced";
    public static final String PENDING = "pending";
    public static final String SKIPPED_DUPLICATE = "skipped-duplicate";
    public static final String OFF = "off";
    public static final String NOT_APPLICABLE = "not-applicable";
    public static final String TIME_UP = "time-up";
    public static final String FAILED = "failed";

    public static ReductionRecord of(Reduction r) {
        return new ReductionRecord(REDUCED, r.statementsBefore(), r.statementsAfter(), round(r.ratio()), round(r.seconds()), r.runs(),
                r.exhausted());
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
