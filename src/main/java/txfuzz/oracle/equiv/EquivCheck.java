package txfuzz.oracle.equiv;

import java.util.ArrayList;
import java.util.List;
import txfuzz.model.StmtRef;

/**
 * The whole of TxCheck's oracle over engine-free callbacks (OSDI 2023 Fig. 2 ③–④): decycle the
 * run's statement-dependency graph, take up to {@code maxOrders} topological orders, replay each
 * without transactions and compare with the transactional run. The caller supplies the two engine
 * steps: re-running the refined case transactionally ({@link Decycler.Reexecution}) and replaying an
 * order in autocommit from the initial state ({@link Replay}).
 */
public final class EquivCheck {

    /** Runs these statements one by one in autocommit on a fresh copy of the initial database. */
    @FunctionalInterface
    public interface Replay {
        /** @return each statement's outcome, keyed by its transactional identity, and the final state */
        RunResult run(List<StmtExec> order);
    }

    /** One replayed order and how it differed (empty: equivalent). */
    public record OrderCheck(List<StmtRef> order, List<Difference> differences) {
        public OrderCheck {
            order = List.copyOf(order);
            differences = List.copyOf(differences);
        }
    }

    /**
     * @param decycling what decycling did; when it gave up, {@code checks} is empty
     * @param checks    one per replayed order
     */
    public record Outcome(Decycler.Result decycling, List<OrderCheck> checks) {
        public Outcome {
            checks = List.copyOf(checks);
        }

        /** Some order's replay disagreed with the transactional run. */
        public boolean differs() {
            return checks.stream().anyMatch(c -> !c.differences().isEmpty());
        }

        public boolean gaveUp() {
            return decycling.gaveUp();
        }
    }

    private EquivCheck() {
    }

    /**
     * @param first the transactional run; its {@link Execution#result()} (and that of every
     *              re-execution) must be set
     */
    public static Outcome check(Execution first, Decycler.Reexecution rerun, Replay replay, long seed, int maxRounds, int maxOrders) {
        Decycler.Result d = Decycler.decycle(first, rerun, seed, maxRounds);
        if (d.gaveUp()) {
            return new Outcome(d, List.of());
        }
        RunResult transactional = d.execution().result();
        if (transactional == null) {
            throw new IllegalArgumentException("the transactional run carries no results to compare with");
        }
        List<OrderCheck> checks = new ArrayList<>();
        for (List<StmtRef> order : OracleOrders.orders(d.graph(), seed, maxOrders)) {
            RunResult seq = replay.run(OracleOrders.statements(d.graph(), order));
            checks.add(new OrderCheck(order, ResultComparison.compare(transactional, seq, order)));
        }
        return new Outcome(d, checks);
    }
}
