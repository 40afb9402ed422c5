package txfuzz.oracle.equiv;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import txfuzz.model.StmtRef;

/**
 * A transactional run at statement level: its data statements with their instrumentation outputs,
 * how each transaction ended, and (optionally) what each statement returned and the final state.
 * Statements are kept in completion order; a statement whose {@code completion} is unset (-1) is
 * placed by its position in {@code stmts}.
 *
 * @param result what the run gave per statement and the final state, or null when only the graph is
 *               wanted
 */
public record Execution(List<StmtExec> stmts, Map<Integer, TxnEnd> ends, RunResult result) {

    public Execution {
        List<StmtExec> numbered = new ArrayList<>();
        for (int i = 0; i < stmts.size(); i++) {
            StmtExec s = stmts.get(i);
            numbered.add(s.completion() >= 0 ? s : s.withCompletion(i));
        }
        numbered.sort(Comparator.comparingInt(StmtExec::completion));
        Map<StmtRef, StmtExec> seen = new LinkedHashMap<>();
        for (StmtExec s : numbered) {
            if (seen.put(s.ref(), s) != null) {
                throw new IllegalArgumentException("statement " + s.label() + " appears twice");
            }
            if (!ends.containsKey(s.ref().txn())) {
                throw new IllegalArgumentException(s.label() + ": transaction T" + s.ref().txn() + " has no commit/abort");
            }
        }
        stmts = List.copyOf(numbered);
        ends = Map.copyOf(ends);
    }

    public Execution(List<StmtExec> stmts, Map<Integer, TxnEnd> ends) {
        this(stmts, ends, null);
    }

    public boolean committed(StmtRef r) {
        return ends.get(r.txn()) == TxnEnd.COMMITTED;
    }

    /** Statements of committed transactions, in completion order: the nodes of the SDG. */
    public List<StmtExec> committedStmts() {
        return stmts.stream().filter(s -> committed(s.ref())).toList();
    }

    public Optional<StmtExec> stmt(StmtRef r) {
        return stmts.stream().filter(s -> s.ref().equals(r)).findFirst();
    }
}
