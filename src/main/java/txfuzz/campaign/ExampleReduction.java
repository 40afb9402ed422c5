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
    private final Duration budget;

    /** Makes the oracle named {@code oracle} over {@code context}, and an executor on its primary subject. */
    public ExampleReduction(OracleContext context, String oracle, Duration budget) {
        this.oracles = Oracles.create(List.of(oracle), context);
        this.executor = new Executor(context.primary(), context.executor());
        this.budget = budget;
    }

    @Override
    public Optional<Reduced> reduce(TestCase example, Violation shown) {
        Reduction r;
        try {
            r = new Reducer(executor, oracles.oracles(), new ReduceConfig(budget)).reduce(example, shown);
        } catch (RuntimeException e) {
            return Optional.empty(); // the reducer's own failure costs only the reduction: the example is shown as generated
        }
        return r.changed() ? Optional.of(new Reduced(r.reduced(), r.violation(), r.statementsBefore(), r.statementsAfter())) : Optional.empty();
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
