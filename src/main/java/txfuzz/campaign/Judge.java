package txfuzz.campaign;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import txfuzz.exec.Executor;
import txfuzz.exec.SetupFailedException;
import txfuzz.exec.Trace;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Oracle;
import txfuzz.oracle.Run;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;

/** Runs the chosen oracles on a trace and confirms what they find by running the case again. */
public final class Judge {
    private final List<Oracle> oracles;
    private final Executor executor;
    /** Where each oracle's judging time goes (bench's cost table); judging inside a timed phase counts as that phase. */
    private final CaseCosts costs;

    public Judge(List<Oracle> oracles, Executor executor) {
        this(oracles, executor, CaseCosts.NONE);
    }

    public Judge(List<Oracle> oracles, Executor executor, CaseCosts costs) {
        this.oracles = List.copyOf(oracles);
        this.executor = executor;
        this.costs = costs;
    }

    /** The oracles, in the order they judge (the reducer re-judges candidates with them). */
    public List<Oracle> oracles() {
        return oracles;
    }

    public List<Violation> judge(TestCase c, Trace trace) throws SQLException, SetupFailedException {
        return judge(Run.controlled(c, trace));
    }

    /** Every oracle's violations on the run; on an uncontrolled run, only the oracles that judge such runs. */
    public List<Violation> judge(Run run) throws SQLException, SetupFailedException {
        List<Violation> all = new ArrayList<>();
        verdicts(run).forEach(v -> all.addAll(v.violations()));
        return all;
    }

    /** Every oracle's whole verdict on the run (with why it did not apply, where it did not), in the oracles' order. */
    public List<Verdict> verdicts(Run run) throws SQLException, SetupFailedException {
        List<Verdict> all = new ArrayList<>();
        for (Oracle o : oracles) {
            if (!run.uncontrolled() || o.judgesUncontrolledRuns()) {
                try (CaseCosts.Timing timed = costs.time(CaseCosts.oracle(o.name()))) {
                    all.add(o.judge(run, executor));
                }
            }
        }
        return all;
    }

    /** The oracle that reported {@code v} (one of these), if any. */
    public java.util.Optional<Oracle> oracleOf(Violation v) {
        return oracles.stream().filter(o -> o.name().equals(v.oracle())).findFirst();
    }

    /**
     * Re-runs the case once; a violation that does not come back ({@link Violation#sameAs}: the same
     * kind about the same statements, differing the same way) is flaky. A confirmed violation keeps
     * the classification of the first run, whose evidence is reported.
     */
    public List<Violation> confirm(TestCase c, List<Violation> first) throws SQLException, SetupFailedException {
        Trace again = executor.run(c);
        executor.forgetSerialRuns(); // the second verdict replays afresh, as the first did
        return confirmed(first, judge(c, again));
    }

    /**
     * {@link #confirm(TestCase, List)} of the violations found on {@code firstRun}. Where the re-run's trace equals it and
     * every violation is one that cannot headline (not a bug candidate) from an oracle whose verdict follows from the trace,
     * the second verdict would repeat the first, so it is not asked for: the run came back, and so did what it showed. A bug
     * candidate is always judged again, so a replay or simulation that differs from one time to the next still makes it flaky.
     */
    public List<Violation> confirm(TestCase c, Trace firstRun, List<Violation> first) throws SQLException, SetupFailedException {
        Trace again = executor.run(c);
        if (again.equals(firstRun) && first.stream().allMatch(this::followsFromTrace)) {
            return first;
        }
        executor.forgetSerialRuns(); // the second verdict replays afresh, as the first did
        return confirmed(first, judge(c, again));
    }

    private boolean followsFromTrace(Violation v) {
        return v.classification() != Classification.BUG_CANDIDATE && oracleOf(v).map(Oracle::verdictFollowsFromTrace).orElse(false);
    }

    private static List<Violation> confirmed(List<Violation> first, List<Violation> second) {
        List<Violation> out = new ArrayList<>();
        for (Violation v : first) {
            if (second.stream().noneMatch(w -> v.sameAs(w, UnaryOperator.identity()))) {
                out.add(v.withClassification(Classification.FLAKY, null));
            } else {
                out.add(v);
            }
        }
        return out;
    }
}
