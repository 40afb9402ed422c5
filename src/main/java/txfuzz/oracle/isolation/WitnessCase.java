package txfuzz.oracle.isolation;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Trace;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;

/**
 * Turns what a concurrent run did into a controlled case the executor can replay: the chosen
 * transactions (e.g. an anomaly's cycle), renumbered 1..k, submitted in the order their statements
 * completed in the concurrent run. A concurrent interleaving cannot be replayed as such; this
 * linearisation usually shows the same dependencies, and then the finding is reproducible and
 * reducible like any other. The row-tracking tags keep their text: the history recorder maps a
 * tag to the transaction whose statements carry it, whatever its new id.
 */
public final class WitnessCase {
    private WitnessCase() {
    }

    /** The witness of {@code txnIds} (ids of {@code c}); statements that never ran follow their transaction's last one that did. */
    public static TestCase of(TestCase c, Trace trace, Collection<Integer> txnIds) {
        TreeSet<Integer> keep = new TreeSet<>(txnIds);
        Map<Integer, Integer> newId = new HashMap<>();
        List<Txn> txns = new ArrayList<>();
        for (int old : keep) {
            newId.put(old, txns.size() + 1);
            txns.add(c.txn(old).with(txns.size() + 1, c.txn(old).statements()));
        }
        Map<Integer, Integer> executed = new HashMap<>();
        for (ExecutedStmt e : trace.schedule()) {
            executed.merge(e.ref().txn(), 1, Integer::sum);
        }
        Map<Integer, Integer> placed = new HashMap<>();
        List<Integer> order = new ArrayList<>();
        for (ExecutedStmt e : trace.schedule()) {
            int old = e.ref().txn();
            if (!keep.contains(old)) {
                continue;
            }
            order.add(newId.get(old));
            int done = placed.merge(old, 1, Integer::sum);
            if (done == executed.get(old)) {
                // an aborted transaction's statements that never ran go right after its last one that did
                for (int i = done; i < c.txn(old).statements().size(); i++) {
                    order.add(newId.get(old));
                }
            }
        }
        for (int old : keep) {
            if (!executed.containsKey(old)) {
                for (int i = 0; i < c.txn(old).statements().size(); i++) {
                    order.add(newId.get(old));
                }
            }
        }
        return new TestCase(c.formatVersion(), c.dbms(), c.seed(), c.iteration(), c.isolation(), c.mode(), c.execution(), c.tables(), c.setup(),
                txns, order);
    }
}
