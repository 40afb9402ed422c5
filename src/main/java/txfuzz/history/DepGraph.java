package txfuzz.history;

import org.jgrapht.graph.AbstractBaseGraph;
import org.jgrapht.graph.DefaultGraphSpecificsStrategy;
import org.jgrapht.graph.DefaultGraphType;

/**
 * A JGraphT directed multigraph of transactions and {@link Dep}s, without JGraphT's fast-lookup
 * index: that index keys every (source, target) pair by a {@code Pair<Long, Long>} whose hashes
 * collide for nearby transaction ids, which made building a 100,000-transaction graph take
 * seconds. {@code getEdge(u, v)} is linear in u's degree instead, which is small here.
 */
final class DepGraph extends AbstractBaseGraph<Long, Dep> {
    private static final long serialVersionUID = 1L;

    DepGraph() {
        super(null, null, DefaultGraphType.directedMultigraph(), new DefaultGraphSpecificsStrategy<>());
    }
}
