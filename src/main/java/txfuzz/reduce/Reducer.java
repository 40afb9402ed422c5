package txfuzz.reduce;

import java.util.List;
import txfuzz.exec.Executor;
import txfuzz.model.TestCase;
import txfuzz.oracle.Oracle;
import txfuzz.oracle.Violation;

/**
 * Shrinks a failing case while the same violation keeps appearing (delta debugging over
 * transactions, statements, schema and rows, then expression simplification).
 * STUB: the real implementation is being written; this one returns the case unchanged.
 */
public final class Reducer {
    private final Executor executor;
    private final List<Oracle> oracles;
    private final ReduceConfig config;

    public Reducer(Executor executor, List<Oracle> oracles, ReduceConfig config) {
        this.executor = executor;
        this.oracles = List.copyOf(oracles);
        this.config = config;
    }

    /** Never throws for an engine failure during a candidate run: such a candidate just does not count as failing. */
    public Reduction reduce(TestCase c, Violation v) {
        int n = dataStatements(c);
        return new Reduction(c, c, v, n, n, 0, 0, false);
    }

    /** Statements other than BEGIN/COMMIT/ROLLBACK. */
    public static int dataStatements(TestCase c) {
        return (int) c.transactions().stream().flatMap(t -> t.statements().stream()).filter(s -> !s.kind().isControl()).count();
    }
}
