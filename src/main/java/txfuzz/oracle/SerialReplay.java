package txfuzz.oracle;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Trace;
import txfuzz.exec.TxnStatus;
import txfuzz.model.Stmt;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;

/**
 * The committed transactions of a run, replayed whole one after another in a given order (WriteCheck's tx-WSS
 * schedule), as a test case of its own with the map from its statements back to the run's. Shared by the oracles
 * that compare a run with its serial replay (wss; diff's promised rules).
 *
 * @param testCase the serial case: transactions one after another
 * @param origin   serial statement → the original statement it replays
 * @param txnOrder original transaction ids in the order they run
 */
public record SerialReplay(TestCase testCase, Map<StmtRef, StmtRef> origin, List<Integer> txnOrder) {
    public SerialReplay {
        origin = Map.copyOf(origin);
        txnOrder = List.copyOf(txnOrder);
    }

    /** The committed transactions in the order they ended: First-Commit/Rollback-First-Scheduled order (WriteCheck §3.3). */
    public static List<Integer> committedInEndOrder(Trace trace) {
        return trace.endOrder().stream().filter(id -> trace.outcome(id).status() == TxnStatus.COMMITTED).toList();
    }

    /**
     * The body statements of committed transaction {@code txn} that took effect: those that ran and did not fail
     * with a concurrency conflict (a conflict undoes the statement, so a serial replay must leave it out).
     */
    public static List<StmtRef> effective(TestCase c, Trace trace, int txn) {
        Txn t = c.txn(txn);
        List<StmtRef> refs = new ArrayList<>();
        int first = t.explicit() ? 1 : 0;
        int last = t.explicit() ? t.statements().size() - 1 : t.statements().size();
        for (int i = first; i < last; i++) {
            StmtRef ref = new StmtRef(txn, i);
            Optional<ExecutedStmt> e = trace.executed(ref);
            if (e.isPresent() && !(e.get().result().failed() && e.get().result().errorClass().isConcurrencyConflict())) {
                refs.add(ref);
            }
        }
        return refs;
    }

    /** Each transaction of {@code order} whole (its effective statements, within its BEGIN and end), one after another. */
    public static SerialReplay of(TestCase c, Trace trace, List<Integer> order) {
        return of(c, trace, order, s -> true);
    }

    /**
     * {@link #of(TestCase, Trace, List)} with only the effective statements {@code kept} accepts: a replay whose reads are
     * not compared leaves out reads that change nothing (the row tracking's), each a round trip on a server.
     */
    public static SerialReplay of(TestCase c, Trace trace, List<Integer> order, java.util.function.Predicate<Stmt> kept) {
        List<Txn> txns = new ArrayList<>();
        List<Integer> submitted = new ArrayList<>();
        Map<StmtRef, StmtRef> origin = new HashMap<>();
        for (int original : order) {
            Txn t = c.txn(original);
            int id = txns.size() + 1;
            List<Stmt> stmts = new ArrayList<>();
            if (t.explicit()) {
                stmts.add(t.statements().get(0));
            }
            for (StmtRef ref : effective(c, trace, original)) {
                if (!kept.test(c.stmt(ref))) {
                    continue;
                }
                origin.put(new StmtRef(id, stmts.size()), ref);
                stmts.add(c.stmt(ref));
            }
            if (t.explicit()) {
                stmts.add(t.statements().get(t.statements().size() - 1));
            }
            if (stmts.isEmpty()) {
                continue; // an autocommit statement that conflicted: nothing to replay
            }
            txns.add(t.with(id, stmts)); // keeps the session's settings and its own level
            stmts.forEach(s -> submitted.add(id));
        }
        return new SerialReplay(c.withTransactions(txns, submitted), origin, order);
    }
}
