package txfuzz.oracle.wss;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import txfuzz.exec.Trace;
import txfuzz.model.Stmt;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;
import txfuzz.oracle.SerialReplay;

/**
 * A serial schedule derived from an actual run, as a test case of its own, with the map from its
 * statements back to the original ones.
 *
 * @param testCase  the serial case: transactions one after another
 * @param origin    serial statement → the original statement it replays
 * @param txnOrder  original transaction ids in the order they run
 */
public record SerialSchedule(TestCase testCase, Map<StmtRef, StmtRef> origin, List<Integer> txnOrder) {

    /** The committed transactions in First-Commit/Rollback-First-Scheduled order (WriteCheck §3.3). */
    public static List<Integer> fcrfsCommitted(Trace trace) {
        return SerialReplay.committedInEndOrder(trace);
    }

    /** The body statements of committed transaction {@code txn} that took effect ({@link SerialReplay#effective}). */
    public static List<StmtRef> effective(TestCase c, Trace trace, int txn) {
        return SerialReplay.effective(c, trace, txn);
    }

    /**
     * The FCRFS order and the other orders the run cannot rule out: transactions whose ending
     * statements resumed in the same sweep may have ended in the engine in any order among
     * themselves. The recorded order comes first; at most {@code limit} orders.
     */
    public static List<List<Integer>> possibleOrders(Trace trace, int limit) {
        List<Integer> recorded = fcrfsCommitted(trace);
        List<List<Integer>> out = new ArrayList<>();
        out.add(recorded);
        Map<Integer, Integer> groupOf = new HashMap<>();
        for (int t : recorded) {
            trace.executed(trace.outcome(t).cause()).ifPresent(e -> groupOf.put(t, e.resumedWith()));
        }
        expand(recorded, 0, groupOf, out, limit);
        return out;
    }

    private static void expand(List<Integer> order, int from, Map<Integer, Integer> groupOf, List<List<Integer>> out, int limit) {
        for (int i = from; i + 1 < order.size() && out.size() < limit; i++) {
            int g = groupOf.getOrDefault(order.get(i), -1);
            if (g < 0 || groupOf.getOrDefault(order.get(i + 1), -1) != g) {
                continue;
            }
            List<Integer> swapped = new ArrayList<>(order);
            java.util.Collections.swap(swapped, i, i + 1);
            if (!out.contains(swapped)) {
                out.add(swapped);
                expand(swapped, 0, groupOf, out, limit);
            }
        }
    }

    /** tx-WSS: each committed transaction whole, in FCRFS order. */
    public static SerialSchedule transactionLevel(TestCase c, Trace trace) {
        return transactionLevel(c, trace, fcrfsCommitted(trace));
    }

    /** tx-WSS with the committed transactions in {@code order}. */
    public static SerialSchedule transactionLevel(TestCase c, Trace trace, List<Integer> order) {
        SerialReplay r = SerialReplay.of(c, trace, order);
        return new SerialSchedule(r.testCase(), r.origin(), r.txnOrder());
    }

    /**
     * tx-WSS with the committed transactions in {@code order}, for a comparison of final states and writes' outcomes only:
     * the row tracking's reads are left out (they change no row; with equiv's version-set reads they were two statements in
     * five of a PostgreSQL replay).
     */
    public static SerialSchedule transactionLevelWithoutTrackingReads(TestCase c, Trace trace, List<Integer> order) {
        SerialReplay r = SerialReplay.of(c, trace, order, s -> !txfuzz.oracle.TrackingReads.isTrackingRead(s));
        return new SerialSchedule(r.testCase(), r.origin(), r.txnOrder());
    }

    /** stmt-WSS: every effective statement of the committed transactions as its own autocommit statement. */
    public static Optional<SerialSchedule> statementLevel(TestCase c, Trace trace) {
        return statementLevel(c, trace, fcrfsCommitted(trace));
    }

    /**
     * stmt-WSS with the committed transactions in {@code order}. A statement using a function that returns the key the session
     * generated last ({@link Stmt#LAST_GENERATED}) reads a value an earlier statement of its transaction allocated on the
     * same session; stmt-WSS runs every statement as its own autocommit transaction, where that value is not there
     * (PostgreSQL fails: "currval of sequence is not yet defined in this session"), so such a transaction has no
     * statement-level replay.
     */
    public static Optional<SerialSchedule> statementLevel(TestCase c, Trace trace, List<Integer> order) {
        List<StmtRef> refs = new ArrayList<>();
        for (int original : order) {
            if (!c.txn(original).canRunStatementLevel()) {
                return Optional.empty();
            }
            List<StmtRef> effective = effective(c, trace, original);
            if (effective.stream().anyMatch(r -> Stmt.LAST_GENERATED.matcher(c.stmt(r).sql()).find())) {
                return Optional.empty();
            }
            // only the final state is compared: the tracking's reads change nothing there, and each would be a transaction of its own
            effective.stream().filter(r -> !txfuzz.oracle.TrackingReads.isTrackingRead(c.stmt(r))).forEach(refs::add);
        }
        return Optional.of(autocommit(c, refs, order));
    }

    /** The given statements, each as an autocommit transaction, in the given order. */
    public static SerialSchedule autocommit(TestCase c, List<StmtRef> statements, List<Integer> txnOrder) {
        List<Txn> txns = new ArrayList<>();
        List<Integer> submitted = new ArrayList<>();
        Map<StmtRef, StmtRef> origin = new HashMap<>();
        for (StmtRef ref : statements) {
            int id = txns.size() + 1;
            txns.add(c.txn(ref.txn()).with(id, List.of(c.stmt(ref))));
            submitted.add(id);
            origin.put(new StmtRef(id, 0), ref);
        }
        return new SerialSchedule(c.withTransactions(txns, submitted), origin, txnOrder);
    }

    public String describeOrder() {
        if (txnOrder.isEmpty()) {
            return "(no committed transaction)";
        }
        return String.join(" → ", txnOrder.stream().map(id -> "T" + id).toList());
    }
}
