package txfuzz.oracle.equiv;

import java.util.Map;
import txfuzz.model.DbState;
import txfuzz.model.StmtRef;

/**
 * Per-statement outcomes and the final database state of one run — the transactional run
 * ({@code t_results} of OSDI 2023 Alg. 1) or a non-transactional one ({@code o_results}).
 * Statements of the non-transactional run are keyed by the transactional statement they replay.
 */
public record RunResult(Map<StmtRef, StmtOutcome> outcomes, DbState finalState) {
    public RunResult {
        outcomes = Map.copyOf(outcomes);
    }
}
