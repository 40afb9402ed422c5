package txfuzz.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The dependencies found once (kept in found order, then grouped by vertex) and found twice (counted, then placed), as
 * histories too big for the heap are, give the same graph, the same findings and the same witnesses.
 */
@Tag("unit")
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class EdgesOnceOrTwiceTest {
    private static final DependencyGraph.Limits ONCE = DependencyGraph.Limits.DEFAULT;
    private static final DependencyGraph.Limits TWICE = new DependencyGraph.Limits(ONCE.findingsPerKind(), ONCE.predicateEdges(),
            ONCE.anchorsPerComponent(), ONCE.bfsStepsPerSpec(), 0, ONCE.twoThreadOps());

    private static List<String> edges(DependencyGraph g) {
        return g.edges.asList().stream().map(d -> d + " " + d.version() + "/" + d.nextVersion() + " " + d.readerStmt() + "/" + d.writerStmt()
                + " " + d.pred()).toList();
    }

    private static List<String> findings(Analysis a) {
        return a.findings().stream().map(f -> f.summary() + "\n" + f.explanation()).toList();
    }

    @Test
    void aStaleHistoryWithPredicatesAbortsAndDeletesGivesTheSameGraphAndFindingsEitherWay() {
        History h = SyntheticHistory.stale(4_000, 4, 11).generate();
        assertEquals(edges(DependencyGraph.infer(h, ONCE)), edges(DependencyGraph.infer(h, TWICE)));
        List<String> once = findings(IsolationChecker.analyze(h, ONCE));
        assertFalse(once.isEmpty());
        assertEquals(once, findings(IsolationChecker.analyze(h, TWICE)));
    }

    @Test
    void anIncompatibleOrderAndADeletedRowReadAgainAreReportedOnceEitherWay() {
        History h = History.builder()
                .txn(1).session(1).update("r1", 0).commit()
                .txn(2).session(2).update("r1", 0).commit() // T1 and T2 both overwrote T0's version: incompatible order
                .txn(3).session(3).delete("r2", 0).commit()
                .txn(4).session(4).read("r2", 0, 3).read("r1", 0).commit() // read the tombstone
                .build();
        assertEquals(findings(IsolationChecker.analyze(h, ONCE)), findings(IsolationChecker.analyze(h, TWICE)));
        assertEquals(edges(DependencyGraph.infer(h, ONCE)), edges(DependencyGraph.infer(h, TWICE)));
    }
}
