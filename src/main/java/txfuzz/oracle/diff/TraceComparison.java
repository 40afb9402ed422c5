package txfuzz.oracle.diff;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import txfuzz.dbms.ErrorClass;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.StmtResult;
import txfuzz.exec.Trace;
import txfuzz.model.DbState;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;

/**
 * DT2's comparison (§4.3), engine-free: two runs of the same case in the same submitted order give their
 * first divergence. Setup must be equal first (else the runs are not comparable), and neither side may have
 * needed the executor to break a stall or cancel a hung statement (the run was then the executor's, not the
 * engine's). Statements are matched by reference, not by position, and visited in execution order: each
 * statement at the earliest position either side completed it. Per statement: blocked or not (except in a deadlock
 * both sides broke, {@link #inDeadlockCycle}), then a
 * concurrency abort (deadlock, serialization failure), then any other error (by class only, never message or
 * vendor code), then rows (multisets, or lists where {@link Rules#totallyOrdered} says so), then affected rows
 * (an upsert's only where {@link Rules#upsertCountsComparable}); then the final state.
 */
public final class TraceComparison {
    private TraceComparison() {
    }

    public static Comparison compare(TestCase c, SideRun left, SideRun right, Rules rules) {
        if (!left.setup().equals(right.setup())) {
            return Comparison.notComparable("setup differs: " + describe(left.setup().diff(right.setup())));
        }
        for (SideRun side : List.of(left, right)) {
            Trace t = side.trace();
            if (t.stalls() > 0) {
                return Comparison.notComparable("the executor broke a stall on one side");
            }
            if (!t.hung().isEmpty()) {
                return Comparison.notComparable("a statement hung on one side: " + t.hung());
            }
        }
        Optional<Divergence> at = firstStatementDivergence(c, left.trace(), right.trace(), rules);
        if (at.isPresent()) {
            return Comparison.diverge(at.get());
        }
        return stateDivergence(left.trace().finalState(), right.trace().finalState()).map(Comparison::diverge).orElse(Comparison.agree());
    }

    /** Statements of either schedule, each at the earliest position either side completed it (left first on ties). */
    static List<StmtRef> executionOrder(Trace left, Trace right) {
        Set<StmtRef> all = new LinkedHashSet<>();
        left.schedule().forEach(e -> all.add(e.ref()));
        right.schedule().forEach(e -> all.add(e.ref()));
        List<StmtRef> refs = new ArrayList<>(all);
        refs.sort(Comparator.comparingInt((StmtRef r) -> earliest(left, right, r)).thenComparingInt(r -> left.position(r) < 0 ? 1 : 0));
        return refs;
    }

    private static int earliest(Trace a, Trace b, StmtRef r) {
        int pa = a.position(r);
        int pb = b.position(r);
        return pa < 0 ? pb : pb < 0 ? pa : Math.min(pa, pb);
    }

    static Optional<Divergence> firstStatementDivergence(TestCase c, Trace left, Trace right, Rules rules) {
        for (StmtRef ref : executionOrder(left, right)) {
            boolean waitIsTiming = inDeadlockCycle(left, ref) && inDeadlockCycle(right, ref);
            Optional<Divergence> d = compare(c.stmt(ref), ref, left.executed(ref).orElse(null), right.executed(ref).orElse(null), rules, waitIsTiming);
            if (d.isPresent()) {
                return d;
            }
        }
        return Optional.empty();
    }

    /**
     * Whether {@code ref} was part of a deadlock the engine broke on this side: it is the victim (it failed with a
     * deadlock), or it was in flight when another transaction's statement failed with one and completed after it
     * (the survivor, released by the victim's rollback). Whether the engine let such a statement be seen waiting
     * before it broke the cycle depends on when its detector ran, not on its locking: on both sides, its
     * blocked-or-not is not compared (its outcome still is).
     */
    static boolean inDeadlockCycle(Trace t, StmtRef ref) {
        Optional<ExecutedStmt> own = t.executed(ref);
        if (own.isEmpty()) {
            return false;
        }
        if (own.get().result().errorClass() == ErrorClass.DEADLOCK) {
            return true;
        }
        int at = t.position(ref);
        int submittedAfter = -1; // the position of the transaction's statement before ref: ref was sent after it
        for (int i = 0; i < at; i++) {
            if (t.schedule().get(i).ref().txn() == ref.txn()) {
                submittedAfter = i;
            }
        }
        for (int i = submittedAfter + 1; i < at; i++) {
            ExecutedStmt e = t.schedule().get(i);
            if (e.ref().txn() != ref.txn() && e.result().errorClass() == ErrorClass.DEADLOCK) {
                return true;
            }
        }
        return false;
    }

    /** The divergence at one statement, or empty when both sides did the same. */
    static Optional<Divergence> compare(Stmt stmt, StmtRef ref, ExecutedStmt l, ExecutedStmt r, Rules rules) {
        return compare(stmt, ref, l, r, rules, false);
    }

    /** The same; {@code waitIsTiming}: the statement was in a deadlock both sides broke, whose waits are not compared. */
    static Optional<Divergence> compare(Stmt stmt, StmtRef ref, ExecutedStmt l, ExecutedStmt r, Rules rules, boolean waitIsTiming) {
        if (l == null || r == null) {
            return Optional.of(new Divergence(DivergenceKind.ONE_SIDED, ref, l == null ? "did not run" : describe(l), r == null ? "did not run" : describe(r)));
        }
        if (l.blocked() != r.blocked() && !waitIsTiming) {
            return Optional.of(new Divergence(DivergenceKind.BLOCKING, ref, describe(l), describe(r)));
        }
        ErrorClass le = l.result().errorClass();
        ErrorClass re = r.result().errorClass();
        if (!Objects.equals(le, re)) {
            boolean abort = isAbort(le) || isAbort(re);
            return Optional.of(new Divergence(abort ? DivergenceKind.ABORT : DivergenceKind.ERROR, ref, describe(l), describe(r)));
        }
        if (le != null) {
            return Optional.empty();
        }
        StmtResult lr = l.result();
        StmtResult rr = r.result();
        if (lr.rows() != null || rr.rows() != null) {
            List<List<String>> a = lr.rows() == null ? List.of() : lr.rows();
            List<List<String>> b = rr.rows() == null ? List.of() : rr.rows();
            boolean same = rules.totallyOrdered().test(stmt) ? a.equals(b) : DbState.sorted(a).equals(DbState.sorted(b));
            if (!same) {
                return Optional.of(new Divergence(DivergenceKind.ROWS, ref, describe(l), describe(r), rows(minus(a, b)), rows(minus(b, a))));
            }
        }
        boolean countsComparable = stmt.kind() != StmtKind.UPSERT || rules.upsertCountsComparable();
        if (countsComparable && lr.updateCount() != rr.updateCount()) {
            return Optional.of(new Divergence(DivergenceKind.AFFECTED, ref, describe(l), describe(r)));
        }
        return Optional.empty();
    }

    static Optional<Divergence> stateDivergence(DbState left, DbState right) {
        List<DbState.TableDiff> diffs = left.diff(right);
        if (diffs.isEmpty()) {
            return Optional.empty();
        }
        List<String> onlyLeft = new ArrayList<>();
        List<String> onlyRight = new ArrayList<>();
        for (DbState.TableDiff d : diffs) {
            d.onlyHere().forEach(row -> onlyLeft.add(d.table() + ": " + row(row)));
            d.onlyThere().forEach(row -> onlyRight.add(d.table() + ": " + row(row)));
        }
        return Optional.of(new Divergence(DivergenceKind.STATE, null, onlyLeft.size() + " rows only here", onlyRight.size() + " rows only here",
                onlyLeft, onlyRight));
    }

    /** Deadlock, serialization failure and their kin: concurrency control ended the statement. */
    static boolean isAbort(ErrorClass e) {
        return e != null && e.isConcurrencyConflict();
    }

    /** "blocked, then affected 1" / "error SERIALIZATION". Never the message or the vendor code. */
    static String describe(ExecutedStmt e) {
        StmtResult r = e.result();
        String what = r.failed() ? "error " + r.errorClass() : r.rows() != null ? rows(r.rows()).toString() : r.summary();
        return e.blocked() ? "blocked, then " + what : what;
    }

    private static String describe(List<DbState.TableDiff> diffs) {
        return String.join("; ", diffs.stream().map(DbState.TableDiff::table).toList());
    }

    private static List<List<String>> minus(List<List<String>> a, List<List<String>> b) {
        List<List<String>> rest = new ArrayList<>(b);
        List<List<String>> out = new ArrayList<>();
        for (List<String> row : a) {
            if (!rest.remove(row)) {
                out.add(row);
            }
        }
        return out;
    }

    private static List<String> rows(List<List<String>> rows) {
        return rows.stream().map(TraceComparison::row).toList();
    }

    static String row(List<String> row) {
        return "(" + String.join(", ", row.stream().map(v -> v == null ? "NULL" : v).toList()) + ")";
    }
}
