package txfuzz.history;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The cycle search takes the components of a set of edge types that is a subset of an acyclic one as all singletons,
 * without Tarjan's walk, and walks a subset of a cyclic one only inside that one's components: for every set, after a
 * whole search (whose first computations decide which sets are taken so), they are the components Tarjan's walk over
 * the whole graph finds (the same vertices together; their numbers may differ, and nothing reads them but to compare).
 */
@Tag("unit")
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class AcyclicEdgeTypesTest {
    /** Each vertex's component named by its first vertex (-1: a singleton), so that two numberings compare. */
    private static int[] byFirstVertex(int[] comp) {
        java.util.Map<Integer, Integer> first = new java.util.HashMap<>();
        int[] named = new int[comp.length];
        for (int v = 0; v < comp.length; v++) {
            named[v] = comp[v] < 0 ? -1 : first.computeIfAbsent(comp[v], c -> first.size());
        }
        return named;
    }

    /** Returns how many sets of edge types the search took as acyclic without a walk. */
    private static int sameAsTarjan(History h) {
        DependencyGraph g = DependencyGraph.infer(h);
        CycleSearch search = new CycleSearch(g, DependencyGraph.Limits.DEFAULT);
        search.searchAll(new EnumMap<>(Anomaly.class));
        int unwalked = search.setsKnown() - search.walks;
        CycleSearch walked = new CycleSearch(g, DependencyGraph.Limits.DEFAULT);
        boolean someCyclic = false;
        boolean someAcyclic = false;
        for (int mask = 1; mask < 32; mask++) {
            int[] comp = walked.components(mask);
            assertArrayEquals(byFirstVertex(comp), byFirstVertex(search.componentsOf(mask)), "edge types " + Integer.toBinaryString(mask));
            boolean cyclic = false;
            for (int c : comp) {
                cyclic |= c >= 0;
            }
            someCyclic |= cyclic;
            someAcyclic |= !cyclic;
        }
        assertTrue(someCyclic);
        assertTrue(someAcyclic);
        assertEquals(1, search.walks - search.walksWithinKnown, "only the first set, every edge type, walks the whole graph");
        return unwalked;
    }

    @Test
    void aStaleHistoryWithoutG1cOrPhantomCycles() {
        History h = SyntheticHistory.stale(4_000, 4, 11).generate();
        assertFalse(IsolationChecker.analyze(h).observed().contains(Anomaly.G1C));
        // ww+wr+predicate rw+so is acyclic: the G0, G1c and phantom searches' sets (ww; ww+wr; ww+wr+predicate rw; each with
        // session order too) follow from it
        assertEquals(5, sameAsTarjan(h));
    }

    @Test
    void aG1cCycleBesideAPhantom() {
        History h = History.builder()
                .txn(1).update("x", 0).read("y", 0, 2).commit()
                .txn(2).update("y", 0).read("x", 0, 1).commit()
                .txn(3).predicateRead("t", "c1 < 5", false, new RowVersion("r1", WList.of(0))).predicateRead("t", "c1 < 5", false,
                        new RowVersion("r1", WList.of(0)), new RowVersion("r2", WList.of(4))).commit()
                .txn(4).insert("r2").commit()
                .build();
        assertTrue(IsolationChecker.analyze(h).observed().containsAll(java.util.List.of(Anomaly.G1C, Anomaly.PHANTOM)));
        sameAsTarjan(h);
    }
}
