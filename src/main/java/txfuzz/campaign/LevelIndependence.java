package txfuzz.campaign;

import java.sql.SQLException;
import java.util.function.UnaryOperator;
import txfuzz.dbms.Target;
import txfuzz.exec.Executor;
import txfuzz.exec.SetupFailedException;
import txfuzz.exec.Trace;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Violation;

/**
 * Whether an engine failure does not depend on the isolation level, decided by running its reduced
 * case at every level the target has: such a failure is one bug, whichever level the campaign hit
 * it at, and is signed without a level. Only a case with a single transaction qualifies, so that no
 * schedule is involved either.
 */
final class LevelIndependence {
    private LevelIndependence() {
    }

    /**
     * True when {@code shown} is direct evidence of an engine failure, {@code reduced} is one
     * transaction, and a fresh run of it at each of the target's levels shows {@code shown} again
     * (the same statement, the same error). Any run that cannot be made counts against it.
     */
    static boolean holds(TestCase reduced, Violation shown, Target target, Executor executor, Judge judge) {
        if (!shown.kind().engineFailure() || reduced.transactions().size() != 1) {
            return false;
        }
        for (IsolationLevel level : target.isolationLevels()) {
            TestCase at = reduced.withIsolation(level);
            try {
                Trace trace = executor.run(at);
                if (judge.judge(at, trace).stream()
                        .noneMatch(v -> v.classification() == shown.classification() && shown.sameAs(v, UnaryOperator.identity()))) {
                    return false;
                }
            } catch (SQLException | SetupFailedException | RuntimeException e) {
                return false;
            }
        }
        return true;
    }
}
