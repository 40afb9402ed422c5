package txfuzz.oracle.equiv;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import txfuzz.model.DbState;
import txfuzz.model.StmtRef;

/**
 * Oracle checking's comparison (OSDI 2023 Alg. 1, lines 5–15): each statement of the
 * non-transactional order must give what it gave in the transactional run, and the final database
 * contents must be equal. Unlike Algorithm 1, which stops at the first difference, every difference
 * is reported: statements in replay order, then tables. Rows compare as multisets of normalised
 * values ({@link StmtOutcome}); errors compare by class only (messages differ between contexts).
 */
public final class ResultComparison {

    private ResultComparison() {
    }

    /**
     * @param order the statements the replay ran, in its order (committed statements of the
     *              transactional run); statements outside it (aborted transactions) are not compared
     */
    public static List<Difference> compare(RunResult transactional, RunResult sequential, List<StmtRef> order) {
        List<Difference> out = new ArrayList<>();
        for (StmtRef s : order) {
            StmtOutcome t = transactional.outcomes().get(s);
            StmtOutcome q = sequential.outcomes().get(s);
            Difference d = compare(s, t, q);
            if (d != null) {
                out.add(d);
            }
        }
        DbState ts = transactional.finalState();
        DbState qs = sequential.finalState();
        if (ts != null && qs != null) {
            for (DbState.TableDiff td : ts.diff(qs)) {
                out.add(new Difference(Difference.Aspect.STATE, null, td.table(),
                        ts.tables().getOrDefault(td.table(), List.of()).size() + " rows",
                        qs.tables().getOrDefault(td.table(), List.of()).size() + " rows", td.onlyHere(), td.onlyThere()));
            }
        } else if (ts != qs) {
            out.add(new Difference(Difference.Aspect.STATE, null, null, ts == null ? "no state" : "a state",
                    qs == null ? "no state" : "a state", null, null));
        }
        return out;
    }

    /** The difference for one statement, or null when both runs agree. */
    public static Difference compare(StmtRef s, StmtOutcome t, StmtOutcome q) {
        if (t == null || q == null) {
            return t == q ? null
                    : new Difference(Difference.Aspect.MISSING, s, null, t == null ? "no outcome" : t.toString(),
                    q == null ? "no outcome" : q.toString(), null, null);
        }
        if (!Objects.equals(t.errorClass(), q.errorClass())) {
            return new Difference(Difference.Aspect.ERROR, s, null, t.toString(), q.toString(), null, null);
        }
        if (t.errorClass() != null) {
            return null;
        }
        if (!Objects.equals(t.rows(), q.rows())) {
            List<List<String>> tr = t.rows() == null ? List.of() : t.rows();
            List<List<String>> qr = q.rows() == null ? List.of() : q.rows();
            return new Difference(Difference.Aspect.ROWS, s, null, t.toString(), q.toString(), minus(tr, qr), minus(qr, tr));
        }
        if (t.affected() != q.affected()) {
            return new Difference(Difference.Aspect.AFFECTED, s, null, t.toString(), q.toString(), null, null);
        }
        return null;
    }

    private static List<List<String>> minus(List<List<String>> a, List<List<String>> b) {
        List<List<String>> rest = new ArrayList<>(b);
        List<List<String>> out = new ArrayList<>();
        for (List<String> r : a) {
            if (!rest.remove(r)) {
                out.add(r);
            }
        }
        return out;
    }
}
