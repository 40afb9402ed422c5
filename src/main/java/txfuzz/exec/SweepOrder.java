package txfuzz.exec;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiPredicate;
import java.util.function.Predicate;

/**
 * The order in which statements found finished in one sweep are recorded. Their clients' finishing times order them,
 * except where the engine's own order is known to differ: a statement that ended its transaction (a deadlock victim's
 * error, a COMMIT, a ROLLBACK) released the locks a statement last seen waiting for that transaction waited on, so in the
 * engine it ended first. Its client can still see it last: H2 rolls the victim back, which wakes the waiter, before
 * the victim's error reaches its client, and a waiter recorded first would make the victim's writes look alive while
 * the waiter ran.
 */
final class SweepOrder {
    private SweepOrder() {
    }

    /**
     * {@code byFinishingTime} reordered so that each statement for which {@code endedItsTransaction} holds comes before the
     * statements that {@code waitedFor} it; otherwise in the given order.
     *
     * @param waitedFor (waiter, ender): whether the waiter was last seen waiting for the ender's transaction
     */
    static <T> List<T> of(List<T> byFinishingTime, Predicate<T> endedItsTransaction, BiPredicate<T, T> waitedFor) {
        List<T> out = new ArrayList<>(byFinishingTime.size());
        List<T> left = new ArrayList<>(byFinishingTime);
        while (!left.isEmpty()) {
            T next = left.get(0);
            // the first left whose release nobody left is waiting on; a cycle of waits (which no release could have
            // ended) keeps the finishing order
            for (T candidate : left) {
                if (left.stream().noneMatch(ender -> ender != candidate && endedItsTransaction.test(ender) && waitedFor.test(candidate, ender))) {
                    next = candidate;
                    break;
                }
            }
            left.remove(next);
            out.add(next);
        }
        return out;
    }
}
