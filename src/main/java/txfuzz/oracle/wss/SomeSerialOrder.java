package txfuzz.oracle.wss;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.Promise;
import txfuzz.exec.SetupFailedException;
import txfuzz.exec.Trace;
import txfuzz.model.StmtRef;

/**
 * {@link Deviation#SOME_SERIAL_ORDER}: the run is serializable, not necessarily in commit order; some serial order of the
 * committed transactions reproduces the final state. One instance per case: it keeps the order it found.
 */
final class SomeSerialOrder extends Mechanism {
    SomeSerialOrder() {
        super(Deviation.SOME_SERIAL_ORDER, Promise.SERIALIZABLE, "WriteCountTest");
    }

    @Override
    String describe(DeviationExplainer sim, Deviation.ReadPoint readPoint) {
        return "serializable in an order other than commit order: " + lastSerialOrder;
    }

    /** At most this many orders are tried (5 transactions have 120). */
    private static final int MAX_ORDERS = 120;
    private String lastSerialOrder = "";

    /**
     * Whether running the committed transactions one after another in some order gives the actual final state; the
     * writes' update counts in that order are recorded, and an order that gives every count too is preferred.
     */
    @Override
    boolean simulate(DeviationExplainer sim, Deviation.ReadPoint readPoint) throws SQLException, SetupFailedException {
        List<List<Integer>> orders = new ArrayList<>();
        permutations(new ArrayList<>(sim.committed), 0, orders);
        String stateOnly = null;
        for (List<Integer> order : orders) {
            List<StmtRef> statements = new ArrayList<>();
            order.forEach(t -> statements.addAll(SerialSchedule.effective(sim.testCase, sim.trace, t)));
            SerialSchedule serial = SerialSchedule.autocommit(sim.testCase, statements, order);
            Trace replay = sim.executor.runSerial(serial.testCase());
            sim.simulatedCounts.clear();
            serial.origin().forEach((at, original) -> {
                if (sim.testCase.stmt(original).kind().isWrite()) {
                    // a write that failed in this order has no count: it does not give the run's
                    replay.executed(at).filter(e -> !e.result().failed()).ifPresent(e -> sim.simulatedCounts.put(original, e.result().updateCount()));
                }
            });
            boolean state = sim.keys.normalise(replay.finalState()).equals(sim.keys.normalise(sim.trace.finalState()));
            String described = String.join(" → ", order.stream().map(t -> "T" + t).toList());
            if (state && stateOnly == null && !sim.everyCountReproduced()) {
                stateOnly = described;
            }
            if (sim.accepted(state)) {
                lastSerialOrder = described;
                return true;
            }
        }
        if (stateOnly != null) {
            lastSerialOrder = stateOnly; // explains() falls back on its counts
        }
        return false;
    }

    private static void permutations(List<Integer> items, int k, List<List<Integer>> out) {
        if (out.size() >= MAX_ORDERS) {
            return;
        }
        if (k == items.size()) {
            out.add(List.copyOf(items));
            return;
        }
        for (int i = k; i < items.size(); i++) {
            java.util.Collections.swap(items, k, i);
            permutations(items, k + 1, out);
            java.util.Collections.swap(items, k, i);
        }
    }
}
