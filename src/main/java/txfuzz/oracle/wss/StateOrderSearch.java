package txfuzz.oracle.wss;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
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

    /**
     * The orders checked, with a serial order that gives the actual final state if one does.
     *
     * @param commitOrders the commit orders already replayed
     * @param stateOrder   one of them whose transaction-level replay gave the final state, or null (then the others are searched)
     */
    static SerialOrders run(TestCase c, Trace trace, Executor executor, List<List<Integer>> commitOrders, List<Integer> stateOrder,
                            String promise) throws SQLException, SetupFailedException {
        List<Integer> committed = SerialSchedule.fcrfsCommitted(trace);
        long all = factorial(committed.size());
        if (stateOrder != null) {
            return new SerialOrders(commitOrders, stateOrder, commitOrders.size(), commitOrders.size() >= all, promise);
        }
        GeneratedKeys keys = GeneratedKeys.of(c);
        DbState actual = keys.normalise(trace.finalState());
        int replays = commitOrders.size();
        for (List<Integer> order : permutations(committed, MAX_STATE_ORDERS + commitOrders.size())) {
            if (commitOrders.contains(order)) {
                continue;
            }
            if (replays - commitOrders.size() >= MAX_STATE_ORDERS) {
                break;
            }
            Trace replay = executor.run(SerialSchedule.transactionLevel(c, trace, order).testCase());
            replays++;
            if (replay.hung().isEmpty() && actual.diff(keys.normalise(replay.finalState())).isEmpty()) {
                return new SerialOrders(commitOrders, order, replays, replays >= all, promise);
            }
        }
        return new SerialOrders(commitOrders, null, replays, replays >= all, promise);
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
        List<List<Integer>> out = new ArrayList<>();
        permute(new ArrayList<>(), new ArrayList<>(items), out, limit);
        return out;
    }

    private static void permute(List<Integer> prefix, List<Integer> rest, List<List<Integer>> out, int limit) {
        if (out.size() >= limit) {
            return;
        }
        if (rest.isEmpty()) {
            out.add(List.copyOf(prefix));
            return;
        }
        for (int i = 0; i < rest.size(); i++) {
            List<Integer> r = new ArrayList<>(rest);
            prefix.add(r.remove(i));
            permute(prefix, r, out, limit);
            prefix.remove(prefix.size() - 1);
        }
    }
}
