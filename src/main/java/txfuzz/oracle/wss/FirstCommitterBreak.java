package txfuzz.oracle.wss;

import java.util.List;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Trace;
import txfuzz.model.DbState;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;

/** How a break of first-committer-wins is told: the writes, the commits and the row they share. */
final class FirstCommitterBreak {
    private final TestCase testCase;
    private final Trace trace;
    /** whether rows carry the simulation's identity column as their last value */
    private final boolean withRowIds;
    /** whether the rule is measured on the engine rather than promised by its manual */
    private final boolean measured;

    FirstCommitterBreak(TestCase testCase, Trace trace, boolean withRowIds, boolean measured) {
        this.testCase = testCase;
        this.trace = trace;
        this.withRowIds = withRowIds;
        this.measured = measured;
    }

    /**
     * {@code later} and {@code earlier}, writes of two overlapping transactions ({@code earlier}'s
     * committed first, after {@code later}'s transaction took its snapshot of {@code table}), both
     * changed or deleted {@code row}, and both transactions committed.
     */
    DeviationExplainer.RuleBreak bothCommitted(StmtRef later, StmtRef earlier, String table, List<String> row) {
        int t = later.txn();
        int u = earlier.txn();
        StmtRef tEnd = trace.outcome(t).cause();
        StmtRef uEnd = trace.outcome(u).cause();
        String summary = "first-committer-wins broken at " + later + ": it and " + earlier + " of T" + u + " changed or deleted the same row"
                + " version in overlapping transactions, and both committed (" + commit(uEnd) + ", then " + commit(tEnd) + ") where "
                + level() + " requires a serialization failure";
        String details = rule()
                + "\n\n- " + write(earlier) + "\n- " + write(later) + "\n\nBoth change or delete the row `" + format(row) + "` of table `"
                + table + "`, simulated on each transaction's snapshot. T" + u + " committed at " + commit(uEnd) + " (schedule position "
                + trace.position(uEnd) + "), after T" + t + " had taken its snapshot of `" + table + "`, so the two transactions"
                + " overlapped; T" + t + " then committed too, at " + commit(tEnd) + " (position " + trace.position(tEnd) + "). "
                + "One of them had to fail, whichever wrote first" + (measured ? ": T" + u + " committed the row changed or deleted, not as T"
                + t + "'s snapshot shows it, so a conflict check that compares values finds a conflict too" : "") + ". The rule was broken (the"
                + " snapshot simulation is therefore not taken as an explanation).\n";
        return new DeviationExplainer.RuleBreak(later, List.of(earlier, later), summary, details);
    }

    /** {@code ref}, an upsert that arbitrated on the newest data, changed {@code row} in a version its snapshot does not show. */
    DeviationExplainer.RuleBreak arbitratedOnLatest(StmtRef ref, List<String> row) {
        int t = ref.txn();
        String summary = "first-committer-wins broken at " + ref + ": it changed a row version a concurrent transaction had changed, and"
                + " succeeded (" + result(ref) + ") where " + level() + " requires a serialization failure";
        String details = rule() + "\n\n- " + write(ref) + "\n\nIts conflict arbitration found the row `" + format(row) + "` in a version T" + t
                + "'s snapshot does not show (a concurrent transaction wrote it); T" + t + " committed at "
                + commit(trace.outcome(t).cause()) + ". Whatever the final state, the rule was broken (the snapshot simulation is"
                + " therefore not taken as an explanation).\n";
        return new DeviationExplainer.RuleBreak(ref, List.of(ref), summary, details);
    }

    private String rule() {
        return "At " + level() + " the engine " + (measured ? "was measured to keep first-committer-wins, of which its manual says nothing"
                : "documents first-committer-wins") + " (snapshot isolation): of two concurrent transactions that"
                + " change or delete one row version, at most one commits — the other's write or commit fails with a serialization error.";
    }

    private String level() {
        return testCase.isolation().sql();
    }

    private String write(StmtRef ref) {
        return "T" + ref.txn() + "'s " + ref + " `" + testCase.stmt(ref).sql() + "`: " + result(ref);
    }

    private String result(StmtRef ref) {
        return trace.executed(ref).map(ExecutedStmt::result).map(r -> r.summary()).orElse("not run");
    }

    private String commit(StmtRef end) {
        String sql = testCase.stmt(end).sql();
        return end + (sql.trim().equalsIgnoreCase("COMMIT") ? " COMMIT" : " (autocommit)");
    }

    private String format(List<String> row) {
        return DbState.formatRow(withRowIds ? row.subList(0, row.size() - 1) : row);
    }
}
