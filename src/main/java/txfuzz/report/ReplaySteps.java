package txfuzz.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.StmtResult;
import txfuzz.exec.Trace;
import txfuzz.exec.TxnOutcome;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;

/**
 * A finding's run as a client script replays it, statement by statement: for scripts that cannot ask
 * the engine whether a statement waits (mysqltest, a JDBC program), so they must be told.
 *
 * <p>Statements come in the order the recorded run submitted them. One the engine made wait is
 * {@link Action#SEND sent} (its session stays busy) and {@link Action#REAP collected} once every
 * statement that completed before it in the run has run, i.e. after the one that released it. When the
 * engine aborted a transaction before its end, the script rolls it back as txfuzz did and lists the
 * statements that never ran. Without a recorded run, every statement runs in the case's order.
 */
final class ReplaySteps {
    private ReplaySteps() {
    }

    enum Action {
        /** Run and wait for it: it did not wait in the recorded run. */
        RUN,
        /** Start it and go on: the engine made it wait (or it hung) in the recorded run. */
        SEND,
        /** Collect a sent statement's result. */
        REAP,
        /** End a transaction the engine aborted before its own COMMIT/ROLLBACK, as txfuzz does. */
        ROLLBACK,
        /** Listed only: it never ran, its transaction had ended. */
        NOT_RUN
    }

    /**
     * @param number   the statement's step in the case's submitted order (1-based, as reproduce.sql numbers it)
     * @param recorded what it returned in the recorded run; null when there is none (no trace, never ran, ROLLBACK)
     */
    record Step(Action action, StmtRef ref, int number, StmtResult recorded) {
        /** A statement that hung in the recorded run is never reaped: txfuzz cancelled it. */
        boolean hung(Trace trace) {
            return trace != null && trace.hung().contains(ref);
        }
    }

    static List<Step> of(TestCase c, Trace trace) {
        List<StmtRef> order = c.submittedOrder();
        List<Step> out = new ArrayList<>();
        if (trace == null) {
            for (int i = 0; i < order.size(); i++) {
                out.add(new Step(Action.RUN, order.get(i), i + 1, null));
            }
            return out;
        }
        new Builder(c, trace, order, out).build();
        return out;
    }

    private static final class Builder {
        private final TestCase c;
        private final Trace trace;
        private final List<StmtRef> order;
        private final List<Step> out;
        private final Set<StmtRef> listed = new HashSet<>();
        private int completed;

        Builder(TestCase c, Trace trace, List<StmtRef> order, List<Step> out) {
            this.c = c;
            this.trace = trace;
            this.order = order;
            this.out = out;
        }

        void build() {
            List<ExecutedStmt> bySubmission = new ArrayList<>(trace.schedule());
            bySubmission.sort(Comparator.comparingInt(ExecutedStmt::submitSeq));
            for (ExecutedStmt e : bySubmission) {
                reapUpTo(e.completedBefore());
                if (waited(e)) {
                    add(Action.SEND, e.ref(), e.result());
                } else {
                    add(Action.RUN, e.ref(), e.result());
                    ended(e.ref());
                }
            }
            reapUpTo(trace.schedule().size());
            for (StmtRef ref : order) {
                if (!listed.contains(ref)) { // a transaction that ended some other way (a broken stall)
                    add(Action.NOT_RUN, ref, null);
                }
            }
        }

        private boolean waited(ExecutedStmt e) {
            return e.blocked() || trace.hung().contains(e.ref());
        }

        /** Collects the statements that waited and completed among the first {@code n} completions. */
        private void reapUpTo(int n) {
            for (; completed < Math.min(n, trace.schedule().size()); completed++) {
                ExecutedStmt e = trace.schedule().get(completed);
                if (waited(e) && !trace.hung().contains(e.ref())) {
                    add(Action.REAP, e.ref(), e.result());
                    ended(e.ref());
                }
            }
        }

        /**
         * After {@code ref} completed: if txfuzz rolled its transaction back there (the engine aborted it, a failed COMMIT
         * included: {@link PrintedOrder#rolledBackByTxfuzz}), roll it back too and list the rest.
         */
        private void ended(StmtRef ref) {
            TxnOutcome o = trace.outcome(ref.txn());
            int last = c.txn(ref.txn()).statements().size() - 1;
            if (o == null || !ref.equals(o.cause()) || !PrintedOrder.rolledBackByTxfuzz(c.txn(ref.txn()), o, trace)) {
                return;
            }
            out.add(new Step(Action.ROLLBACK, ref, 0, null));
            for (int i = ref.index() + 1; i <= last; i++) {
                StmtRef rest = new StmtRef(ref.txn(), i);
                if (trace.position(rest) < 0) {
                    add(Action.NOT_RUN, rest, null);
                }
            }
        }

        private void add(Action a, StmtRef ref, StmtResult recorded) {
            listed.add(ref);
            out.add(new Step(a, ref, order.indexOf(ref) + 1, recorded));
        }
    }
}
