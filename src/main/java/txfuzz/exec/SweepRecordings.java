package txfuzz.exec;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The recordings of a run that its executor could equally have made. Statements found finished in one sweep are
 * recorded in the order their clients saw them finish ({@link SweepOrder}), which need not be the engine's: two
 * statements one COMMIT released can reach their clients in either order. A recording that puts them otherwise is as
 * much the run as the one made, except where the engine named a wait: a statement last seen waiting for a transaction
 * whose ending statement is in the same sweep finished after it.
 */
final class SweepRecordings {
    /** The most statements of one sweep that are tried in every order. */
    private static final int MAX_REORDERED = 4;

    private SweepRecordings() {
    }

    /** {@code trace} first, then the other recordings, at most {@code limit} in all. */
    static List<Trace> of(Trace trace, int limit) {
        List<Trace> out = new ArrayList<>();
        out.add(trace);
        List<List<ExecutedStmt>> schedules = new ArrayList<>();
        orders(trace, new ArrayList<>(trace.schedule()), 0, schedules, limit);
        for (List<ExecutedStmt> schedule : schedules) {
            if (!schedule.equals(trace.schedule())) {
                out.add(withSchedule(trace, schedule));
            }
        }
        return out;
    }

    /** Every schedule from {@code schedule} by reordering the sweeps at or after {@code from}, depth first; at most {@code limit}. */
    private static void orders(Trace trace, List<ExecutedStmt> schedule, int from, List<List<ExecutedStmt>> out, int limit) {
        int start = from;
        while (start < schedule.size() && !inSweepWithNext(schedule, start)) {
            start++;
        }
        if (start >= schedule.size()) {
            out.add(List.copyOf(schedule));
            return;
        }
        int end = start + 1;
        while (end < schedule.size() && schedule.get(end).resumedWith() == schedule.get(start).resumedWith()) {
            end++;
        }
        List<ExecutedStmt> sweep = List.copyOf(schedule.subList(start, end));
        // a larger sweep keeps its recorded order: its orders are too many to try (5! = 120 for one sweep)
        for (List<ExecutedStmt> order : sweep.size() <= MAX_REORDERED ? permutations(sweep) : List.of(sweep)) {
            if (out.size() >= limit) {
                return;
            }
            if (allowed(trace, order)) {
                List<ExecutedStmt> next = new ArrayList<>(schedule);
                for (int i = 0; i < order.size(); i++) {
                    next.set(start + i, order.get(i));
                }
                orders(trace, next, end, out, limit);
            }
        }
    }

    private static boolean inSweepWithNext(List<ExecutedStmt> schedule, int i) {
        return schedule.get(i).resumedWith() >= 0 && i + 1 < schedule.size() && schedule.get(i + 1).resumedWith() == schedule.get(i).resumedWith();
    }

    /** No statement comes before the ending statement of a transaction it was last seen waiting for. */
    private static boolean allowed(Trace trace, List<ExecutedStmt> order) {
        for (int i = 0; i < order.size(); i++) {
            for (int j = i + 1; j < order.size(); j++) {
                ExecutedStmt ender = order.get(j);
                if (order.get(i).waitedFor().contains(ender.ref().txn()) && endsItsTransaction(trace, ender)) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean endsItsTransaction(Trace trace, ExecutedStmt e) {
        TxnOutcome o = trace.outcome(e.ref().txn());
        return o != null && e.ref().equals(o.cause());
    }

    /** Every order of {@code items}, the given one first. */
    private static <T> List<List<T>> permutations(List<T> items) {
        List<List<T>> out = new ArrayList<>();
        if (items.size() <= 1) {
            out.add(List.copyOf(items));
            return out;
        }
        for (int i = 0; i < items.size(); i++) {
            List<T> rest = new ArrayList<>(items);
            T first = rest.remove(i);
            for (List<T> tail : permutations(rest)) {
                List<T> p = new ArrayList<>();
                p.add(first);
                p.addAll(tail);
                out.add(p);
            }
        }
        return out;
    }

    /** {@code trace} with {@code schedule}, its transactions' end order following the statements that ended them. */
    private static Trace withSchedule(Trace trace, List<ExecutedStmt> schedule) {
        Map<Integer, Integer> endedAt = new HashMap<>();
        for (int i = 0; i < schedule.size(); i++) {
            ExecutedStmt e = schedule.get(i);
            if (endsItsTransaction(trace, e)) {
                endedAt.put(e.ref().txn(), i);
            }
        }
        // transactions ended by a reordered statement took the places they held among themselves; the rest stay put
        List<Integer> endOrder = new ArrayList<>(trace.endOrder());
        List<Integer> places = new ArrayList<>();
        List<Integer> moved = new ArrayList<>();
        for (int i = 0; i < endOrder.size(); i++) {
            int txn = endOrder.get(i);
            Integer at = endedAt.get(txn);
            if (at != null && schedule.get(at).resumedWith() >= 0) {
                places.add(i);
                moved.add(txn);
            }
        }
        moved.sort(java.util.Comparator.comparing(endedAt::get));
        for (int k = 0; k < places.size(); k++) {
            endOrder.set(places.get(k), moved.get(k));
        }
        return new Trace(schedule, trace.outcomes(), endOrder, trace.finalState(), trace.stalls(), trace.hung(), trace.hangEvidence(),
                trace.refusedSettings());
    }
}
