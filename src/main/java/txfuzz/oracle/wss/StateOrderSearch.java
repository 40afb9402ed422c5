package txfuzz.oracle.wss;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import txfuzz.exec.Executor;
import txfuzz.exec.SetupFailedException;
import txfuzz.exec.Trace;
import txfuzz.model.DbState;
import txfuzz.model.TestCase;

/**
 * For a final state no commit order gave, a search of the other serial orders of whole
 * transactions: a state one of them gives is serializable, only not in commit order — which a
 * report must say, not "no serial order gives it".
 */
final class StateOrderSearch {
    private StateOrderSearch() {
    }

    /** At most this many more serial orders are replayed: every order of three transactions; reductions judge often. */
    static final int MAX_STATE_ORDERS = 6;

    /** How many searches have run in this process: a test proves a judged run that files nothing runs none. */
    private static final AtomicLong SEARCHES = new AtomicLong();

    static long searches() {
        return SEARCHES.get();
    }

    /**
     * The orders checked, with a serial order that gives the actual final state if one does. When none of the
     * commit orders does, the other orders are searched only when the outcome is first asked for (a report's headline).
     *
     * @param commitOrders the commit orders already replayed
     * @param stateOrder   one of them whose transaction-level replay gave the final state, or null (then the others are searched)
     */
    static SerialOrders run(TestCase c, Trace trace, Executor executor, List<List<Integer>> commitOrders, List<Integer> stateOrder,
                            String promise) {
        List<List<Integer>> tried = commitOrders.stream().map(List::copyOf).toList();
        long all = factorial(SerialSchedule.fcrfsCommitted(trace).size());
        if (stateOrder != null) {
            return new SerialOrders(tried, new SerialOrders.Outcome(stateOrder, tried.size(), tried.size() >= all), promise);
        }
        return new SerialOrders(tried, () -> search(c, trace, executor, tried, all), promise);
    }

    private static SerialOrders.Outcome search(TestCase c, Trace trace, Executor executor, List<List<Integer>> commitOrders, long all) {
        SEARCHES.incrementAndGet();
        GeneratedKeys keys = GeneratedKeys.of(c, executor.target().dialect());
        DbState actual = keys.normalise(trace.finalState());
        int replays = commitOrders.size();
        try {
            for (List<Integer> order : permutations(SerialSchedule.fcrfsCommitted(trace), MAX_STATE_ORDERS + commitOrders.size())) {
                if (commitOrders.contains(order)) {
                    continue;
                }
                if (replays - commitOrders.size() >= MAX_STATE_ORDERS) {
                    break;
                }
                Trace replay = executor.runSerial(SerialSchedule.transactionLevel(c, trace, order).testCase());
                replays++;
                if (replay.hung().isEmpty() && actual.diff(keys.normalise(replay.finalState())).isEmpty()) {
                    return new SerialOrders.Outcome(order, replays, replays >= all);
                }
            }
        } catch (SQLException | SetupFailedException | RuntimeException e) {
            // The search could not finish (the report is written after the engine failed): the headline says only
            // what the replays that did run showed.
        }
        return new SerialOrders.Outcome(null, replays, replays >= all);
    }

    private static long factorial(int n) {
        long f = 1;
        for (int i = 2; i <= n && f < Integer.MAX_VALUE; i++) {
            f *= i;
        }
        return f;
    }

    /** The orders of {@code items}, lexicographically by position, at most {@code limit}. */
    static List<List<Integer>> permutations(List<Integer> items, int limit) {
        return permutations(items, limit, order -> true);
    }

    /** The orders of {@code items} that {@code keep} accepts, lexicographically by position, at most {@code limit}. */
    static List<List<Integer>> permutations(List<Integer> items, int limit, java.util.function.Predicate<List<Integer>> keep) {
        List<List<Integer>> out = new ArrayList<>();
        permute(new ArrayList<>(), new ArrayList<>(items), out, limit, keep);
        return out;
    }

    private static void permute(List<Integer> prefix, List<Integer> rest, List<List<Integer>> out, int limit,
                                java.util.function.Predicate<List<Integer>> keep) {
        if (out.size() >= limit) {
            return;
        }
        if (rest.isEmpty()) {
            if (keep.test(prefix)) {
                out.add(List.copyOf(prefix));
            }
            return;
        }
        for (int i = 0; i < rest.size(); i++) {
            List<Integer> r = new ArrayList<>(rest);
            prefix.add(r.remove(i));
            permute(prefix, r, out, limit, keep);
            prefix.remove(prefix.size() - 1);
        }
    }
}
