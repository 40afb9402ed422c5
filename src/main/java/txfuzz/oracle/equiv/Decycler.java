package txfuzz.oracle.equiv;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import txfuzz.model.StmtRef;

/**
 * Graph decycling (OSDI 2023 §3.3, Fig. 8) together with TxCheck's blocking scheduling (§4,
 * Fig. 11): refines a test case until its statement-dependency graph is acyclic, the precondition
 * of Theorem 1.
 *
 * <p>Each round builds the SDG of the latest run and then:
 * <ol>
 *   <li>if a committed statement {@linkplain StmtExec#blocked() blocked} between its instrumentation
 *       reads and its completion, its BWR/VSR may describe another state than the one it acted on,
 *       and the graph cannot be trusted: all such statements are removed (blocking scheduling: "it
 *       deletes the inserted statements and target statements in such situations");</li>
 *   <li>else, if the graph has a cycle (strongly connected components via JGraphT), one statement is
 *       chosen at random among the statements on cycles and removed (Fig. 8 step 5–6: "randomly
 *       select one node in the cycles"; nothing else is removed with it);</li>
 *   <li>else the run, its acyclic graph and its results are the output (step 7).</li>
 * </ol>
 * After a removal the case is re-executed from the initial state through the caller's
 * {@link Reexecution} — necessary, "because a refined test case may result in the construction of
 * a significantly different SDG, which might also contain new cycles". The paper's loop always
 * converges because statements are finite; here it is also bounded by {@code maxRounds}
 * re-executions, after which the result says it gave up.
 */
public final class Decycler {

    /** Runs the case again, from its initial database, without the given statements. */
    @FunctionalInterface
    public interface Reexecution {
        /**
         * @param removed every statement removed so far (cumulative), by its identity in the original
         *                case; the returned run must keep those identities and contain none of them
         */
        Execution run(Set<StmtRef> removed);
    }

    public enum Reason {
        /** removed because it blocked (TxCheck §4, blocking scheduling) */
        BLOCKED,
        /** removed to break a cycle (§3.3, graph decycling) */
        CYCLE
    }

    /** One refinement: what was removed and why; {@code cycles} are the SCCs seen when it was a cycle. */
    public record Step(int round, Reason reason, List<StmtRef> removed, List<Set<StmtRef>> cycles) {
        public Step {
            removed = List.copyOf(removed);
            cycles = List.copyOf(cycles);
        }
    }

    /**
     * @param execution the last run (the refined case's statements are its statements)
     * @param graph     its SDG: acyclic unless {@code gaveUp}
     * @param removed   all statements removed, in the original case's identities
     * @param gaveUp    the round budget ran out before the graph became acyclic
     */
    public record Result(Execution execution, StatementDependencyGraph graph, Set<StmtRef> removed, List<Step> steps, int reexecutions,
                         boolean gaveUp) {
        public Result {
            removed = Set.copyOf(removed);
            steps = List.copyOf(steps);
        }
    }

    private Decycler() {
    }

    /**
     * @param first     the first transactional run of the (instrumented) case
     * @param seed      seeds the choice of the statement removed from a cycle
     * @param maxRounds at most this many re-executions
     */
    public static Result decycle(Execution first, Reexecution rerun, long seed, int maxRounds) {
        if (maxRounds < 0) {
            throw new IllegalArgumentException("maxRounds must be >= 0");
        }
        Random random = Seeds.random(seed);
        Execution exec = first;
        Set<StmtRef> removed = new TreeSet<>();
        List<Step> steps = new ArrayList<>();
        int reexecutions = 0;
        while (true) {
            StatementDependencyGraph g = StatementDependencyGraph.build(exec);
            List<StmtRef> blocked = exec.committedStmts().stream().filter(StmtExec::blocked).map(StmtExec::ref).sorted().toList();
            List<Set<StmtRef>> cycles = blocked.isEmpty() ? g.cyclicComponents() : List.of();
            if (blocked.isEmpty() && cycles.isEmpty()) {
                return new Result(exec, g, removed, steps, reexecutions, false);
            }
            if (reexecutions >= maxRounds) {
                return new Result(exec, g, removed, steps, reexecutions, true);
            }
            List<StmtRef> now;
            Reason reason;
            if (!blocked.isEmpty()) {
                now = blocked;
                reason = Reason.BLOCKED;
            } else {
                List<StmtRef> candidates = new ArrayList<>(g.cycleNodes());
                now = List.of(candidates.get(random.nextInt(candidates.size())));
                reason = Reason.CYCLE;
            }
            removed.addAll(now);
            steps.add(new Step(reexecutions + 1, reason, now, cycles));
            exec = rerun.run(java.util.Collections.unmodifiableSet(new TreeSet<>(removed)));
            reexecutions++;
            for (StmtExec s : exec.stmts()) {
                if (removed.contains(s.ref())) {
                    throw new IllegalStateException("the re-execution still ran removed statement " + s.label());
                }
            }
        }
    }
}
