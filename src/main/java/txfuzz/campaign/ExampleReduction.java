package txfuzz.campaign;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import txfuzz.exec.Executor;
import txfuzz.model.TestCase;
import txfuzz.oracle.ExampleReducer;
import txfuzz.oracle.OracleContext;
import txfuzz.oracle.Violation;
import txfuzz.reduce.ReduceConfig;
import txfuzz.reduce.Reducer;
import txfuzz.reduce.Reduction;

/**
 * Reduces a study's examples once its campaign has run, on the campaign's subjects (still open), one example at a
 * time and each within {@code budget}: the same reducer a finding gets, judged by a fresh oracle of the study's
 * registration, so a reduced example shows the same violation (oracle, kind, statement) as its scenario's example.
 */
public final class ExampleReduction implements ExampleReducer, AutoCloseable {
    private final OracleSet oracles;
    private final Executor executor;
    private final ReduceConfig config;

    /**
     * Makes the oracle named {@code oracle} over {@code context}, and an executor on its primary subject; each reduction
     * ends, keeping the example as generated, when {@code stop} says so (the campaign was interrupted).
     */
    public ExampleReduction(OracleContext context, String oracle, Duration budget, java.util.function.BooleanSupplier stop) {
        this.oracles = Oracles.create(List.of(oracle), context);
        this.executor = new Executor(context.primary(), context.executor());
        this.config = new ReduceConfig(budget, stop);
    }

    @Override
    public Optional<Reduced> reduce(TestCase example, Violation shown) {
        Reduction r;
        try {
            r = new Reducer(executor, oracles.oracles(), config).reduce(example, shown);
        } catch (RuntimeException e) {
            // the reducer's own failure costs only the reduction: the example is shown as generated
            return Optional.of(Reduced.not(Reducer.dataStatements(example), "the reducer failed: " + e));
        }
        if (r.changed()) {
            return Optional.of(new Reduced(r.reduced(), r.violation(), r.statementsBefore(), r.statementsAfter(), null));
        }
        String why = switch (r.end()) {
            case NOT_FAILING -> "the example did not show its divergence again when rerun";
            case VIOLATION_LOST -> "reruns of the example diverged otherwise (another statement or kind)";
            case INTERRUPTED -> "the campaign was interrupted";
            case TIME_UP -> "no smaller case was confirmed within the budget";
            case FIXED_POINT -> "nothing could be removed";
        };
        return Optional.of(Reduced.not(r.statementsBefore(), why + " (" + r.runs() + " runs, " + Math.round(r.seconds()) + " s)"));
    }

    @Override
    public void close() {
        try {
            executor.close();
        } finally {
            oracles.close();
        }
    }
}
