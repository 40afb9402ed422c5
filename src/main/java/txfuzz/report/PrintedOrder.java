package txfuzz.report;

import java.util.ArrayList;
import java.util.List;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Trace;
import txfuzz.exec.TxnOutcome;
import txfuzz.exec.TxnStatus;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;

/**
 * The lines of a printed reproducer, in the case's submitted order: every statement of the case, and every statement
 * txfuzz itself sent during the recorded run, where it sent it. txfuzz ends a transaction the engine aborted (a
 * deadlock or serialization-failure victim, a failed COMMIT) or one it cancelled to break a stall with a ROLLBACK on
 * its session; a reproducer without it is not the run: on H2 a deadlock victim keeps its locks until that ROLLBACK, so
 * the script run as printed waits for the lock timeout. Statements that never ran (their transaction had ended) are
 * listed as such, not to be run: run after the ROLLBACK they would start a transaction of their own.
 */
final class PrintedOrder {
    private PrintedOrder() {
    }

    enum Kind {
        /** A statement of the case, run in the recorded run. */
        STATEMENT,
        /** A statement of the case that never ran: its transaction had ended. */
        NEVER_RAN,
        /** The ROLLBACK txfuzz sent to end a transaction the engine aborted or txfuzz cancelled. */
        TXFUZZ_ROLLBACK
    }

    /**
     * @param step for a statement of the case, its step in the submitted order (1-based); for txfuzz's ROLLBACK, the
     *             step after which txfuzz sent it
     * @param ref  the statement; for txfuzz's ROLLBACK the statement whose end made txfuzz send it
     * @param why  for txfuzz's ROLLBACK, why it was sent (the run's reason the transaction ended); else null
     */
    record Line(Kind kind, StmtRef ref, int step, String why) {
        int txn() {
            return ref.txn();
        }
    }

    static List<Line> of(TestCase c, Trace trace) {
        List<StmtRef> order = c.submittedOrder();
        List<Line> out = new ArrayList<>();
        for (int i = 0; i < order.size(); i++) {
            StmtRef ref = order.get(i);
            boolean ran = trace == null || trace.executed(ref).isPresent();
            out.add(new Line(ran ? Kind.STATEMENT : Kind.NEVER_RAN, ref, i + 1, null));
            if (trace == null) {
                continue;
            }
            for (Txn t : c.transactions()) {
                TxnOutcome o = trace.outcome(t.id());
                if (rolledBackByTxfuzz(t, o, trace) && sentAfter(o.cause(), trace, order) == i) {
                    out.add(new Line(Kind.TXFUZZ_ROLLBACK, o.cause(), i + 1, o.reason()));
                }
            }
        }
        return out;
    }

    /**
     * Whether txfuzz sent a ROLLBACK on {@code t}'s session after {@code o.cause()} completed (see the executor): when
     * the engine aborted an explicit transaction there, or txfuzz cancelled its statement (any transaction). An
     * autocommit statement the engine aborted ended its transaction itself.
     */
    static boolean rolledBackByTxfuzz(Txn t, TxnOutcome o, Trace trace) {
        return o != null && o.status() == TxnStatus.ABORTED && o.cause() != null && trace.position(o.cause()) >= 0
                && (t.explicit() || cancelledByTxfuzz(o));
    }

    /** A transaction txfuzz ended itself, to break a stall the engine did not (its statement was cancelled first). */
    static boolean cancelledByTxfuzz(TxnOutcome o) {
        return o.reason() != null && o.reason().startsWith("cancelled by txfuzz");
    }

    /**
     * The index in {@code order} of the last statement submitted before {@code cause} completed: txfuzz sent the
     * ROLLBACK right after that completion, so before any statement submitted later.
     */
    private static int sentAfter(StmtRef cause, Trace trace, List<StmtRef> order) {
        int completion = trace.position(cause);
        int last = order.indexOf(cause);
        for (ExecutedStmt e : trace.schedule()) {
            if (e.completedBefore() <= completion) {
                last = Math.max(last, order.indexOf(e.ref()));
            }
        }
        return last;
    }
}
