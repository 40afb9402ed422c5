package txfuzz.oracle.equiv;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import txfuzz.model.StmtRef;

/**
 * Transactional oracle construction (OSDI 2023 §3.3, Algorithm 1 {@code OracleGen}): topological
 * orders of an acyclic SDG, each a sequence of statements to run one by one without transactions
 * (autocommit). By Theorem 1 every such order gives each statement the result it had in the
 * transactional run, and the same final state.
 *
 * <p>The paper takes one order, choosing at random among the statements of in-degree zero; §5.3
 * (Table 5) shows a bug can be hidden from some orders, so this returns up to {@code max} distinct
 * orders: first by repeating Algorithm 1 with a {@link Random} of the given (scrambled) seed, then — when random
 * draws keep repeating themselves because the graph has few orders — by enumerating the remaining
 * ones depth-first, so a graph with fewer than {@code max} orders yields all of them. Candidates are
 * considered in {@link StmtRef} order, so the result is a function of (graph, seed, max).
 */
public final class OracleOrders {

    private OracleOrders() {
    }

    public static List<List<StmtRef>> orders(StatementDependencyGraph g, long seed, int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max must be >= 1");
        }
        if (!g.acyclic()) {
            throw new IllegalArgumentException("the statement-dependency graph has cycles " + g.cyclicComponents() + "; decycle it first");
        }
        Set<StmtRef> nodes = new TreeSet<>(g.graph().vertexSet());
        Set<List<StmtRef>> found = new LinkedHashSet<>();
        Random random = Seeds.random(seed);
        int misses = 0;
        while (found.size() < max && misses < 8 + 2 * max) {
            if (!found.add(randomOrder(g, nodes, random))) {
                misses++;
            }
        }
        if (found.size() < max) {
            enumerate(g, nodes, indegrees(g, nodes), new ArrayList<>(), found, max);
        }
        return List.copyOf(found);
    }

    /** Algorithm 1, lines 17–26. */
    static List<StmtRef> randomOrder(StatementDependencyGraph g, Set<StmtRef> nodes, Random random) {
        Map<StmtRef, Integer> in = indegrees(g, nodes);
        List<StmtRef> order = new ArrayList<>();
        while (order.size() < nodes.size()) {
            List<StmtRef> zero = new ArrayList<>();
            for (StmtRef n : nodes) {
                if (in.get(n) == 0) {
                    zero.add(n);
                }
            }
            StmtRef pick = zero.get(random.nextInt(zero.size()));
            remove(g, pick, in);
            order.add(pick);
        }
        return order;
    }

    private static void enumerate(StatementDependencyGraph g, Set<StmtRef> nodes, Map<StmtRef, Integer> in, List<StmtRef> prefix,
                                  Set<List<StmtRef>> found, int max) {
        if (found.size() >= max) {
            return;
        }
        if (prefix.size() == nodes.size()) {
            found.add(List.copyOf(prefix));
            return;
        }
        for (StmtRef n : nodes) {
            if (in.get(n) == 0) {
                Map<StmtRef, Integer> next = new HashMap<>(in);
                remove(g, n, next);
                prefix.add(n);
                enumerate(g, nodes, next, prefix, found, max);
                prefix.remove(prefix.size() - 1);
                if (found.size() >= max) {
                    return;
                }
            }
        }
    }

    private static Map<StmtRef, Integer> indegrees(StatementDependencyGraph g, Set<StmtRef> nodes) {
        Map<StmtRef, Integer> in = new HashMap<>();
        for (StmtRef n : nodes) {
            in.put(n, g.graph().inDegreeOf(n));
        }
        return in;
    }

    /** Takes {@code n} out: marked done (-1), its successors lose one in-degree. */
    private static void remove(StatementDependencyGraph g, StmtRef n, Map<StmtRef, Integer> in) {
        in.put(n, -1);
        for (StatementDependencyGraph.Link l : g.graph().outgoingEdgesOf(n)) {
            in.merge(l.to(), -1, Integer::sum);
        }
    }

    /** The statements of an order, to replay in autocommit. */
    public static List<StmtExec> statements(StatementDependencyGraph g, List<StmtRef> order) {
        Map<StmtRef, StmtExec> byRef = new HashMap<>();
        g.nodes().forEach(s -> byRef.put(s.ref(), s));
        return order.stream().map(byRef::get).toList();
    }
}
