package txfuzz.oracle.wss;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.function.BiPredicate;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.Promise;
import txfuzz.exec.SetupFailedException;
import txfuzz.exec.Trace;
import txfuzz.model.StmtRef;

/**
 * {@link Deviation#SOME_SERIAL_ORDER}: the run is serializable, not necessarily in commit order; some serial order of the
 * committed transactions reproduces the final state. One instance per case: it keeps the order it found.
 *
 * <p>Only orders that keep real time are tried: a transaction that ended before another's first statement began comes
 * first. Every engine lets a statement see what was committed before it began, so no run of a correct engine needs such
 * an order turned round; a run that does (an UPDATE that missed a row committed before its transaction began, and so
 * looks like it ran first) is the bug this would otherwise hide.
 */
final class SomeSerialOrder extends Mechanism {
    SomeSerialOrder() {
        super(Deviation.SOME_SERIAL_ORDER, Promise.SERIALIZABLE, "WriteCountTest");
    }

    @Override
    String describe(DeviationExplainer sim, Deviation.ReadPoint readPoint) {
        return "serializable in an order other than commit order: " + lastSerialOrder + " (it keeps real time: no transaction comes"
                + " before one that ended before it began)";
    }

    /** At most this many orders are tried (5 transactions have 120). */
    private static final int MAX_ORDERS = 120;
    private String lastSerialOrder = "";

    /**
     * Whether running the committed transactions one after another in some order gives the actual final state and every
     * write's update count. An order that gives the state alone explains nothing, not even the state: the run is then
     * equivalent to no serial order (a commit that reported success and dropped its writes leaves the state of an order
     * where a later DELETE came first, with the writes' counts of none).
     */
    @Override
    boolean simulate(DeviationExplainer sim, Deviation.ReadPoint readPoint) throws SQLException, SetupFailedException {
        List<List<Integer>> orders = new ArrayList<>();
        Map<Integer, Integer> ended = new HashMap<>();
        Map<Integer, OptionalInt> began = new HashMap<>();
        for (int t : sim.committed) {
            ended.put(t, sim.endPosition(t));
            began.put(t, firstStatementBegan(sim, t));
        }
        // a transaction that ended before another began comes first (the cap counts only orders that keep real time)
        orders(new ArrayList<>(sim.committed), 0, (a, b) -> began.get(b).isPresent() && ended.get(a) < began.get(b).getAsInt(), orders);
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
            if (state && sim.everyCountReproduced()) {
                lastSerialOrder = String.join(" → ", order.stream().map(t -> "T" + t).toList());
                return true;
            }
        }
        return false;
    }

    /**
     * How many statements had finished when transaction {@code txn}'s first effective statement was submitted (a BEGIN takes
     * no snapshot on any engine: the first statement does).
     */
    private static OptionalInt firstStatementBegan(DeviationExplainer sim, int txn) {
        List<StmtRef> body = SerialSchedule.effective(sim.testCase, sim.trace, txn);
        return body.isEmpty() ? OptionalInt.empty()
                : sim.trace.executed(body.get(0)).map(e -> OptionalInt.of(e.completedBefore())).orElse(OptionalInt.empty());
    }

    /**
     * The orders of {@code items} in which no item comes before one that {@code mustPrecede} it, at most {@link #MAX_ORDERS}
     * of them ({@code items} from {@code k} on are still to be placed).
     */
    private static void orders(List<Integer> items, int k, BiPredicate<Integer, Integer> mustPrecede, List<List<Integer>> out) {
        if (out.size() >= MAX_ORDERS) {
            return;
        }
        if (k == items.size()) {
            out.add(List.copyOf(items));
            return;
        }
        for (int i = k; i < items.size(); i++) {
            Collections.swap(items, k, i);
            boolean placeable = true;
            for (int j = k + 1; j < items.size() && placeable; j++) {
                placeable = !mustPrecede.test(items.get(j), items.get(k)); // one still to come ended before this one began
            }
            if (placeable) {
                orders(items, k + 1, mustPrecede, out);
            }
            Collections.swap(items, k, i);
        }
    }
}
