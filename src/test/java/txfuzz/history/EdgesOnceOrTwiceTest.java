package txfuzz.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dependencies found once (kept in found order, in memory or in a file, then grouped by vertex) and found twice
 * (counted, then placed), as histories too big for the heap are where no file can be written, give the same graph, the
 * same findings and the same witnesses.
 */
@Tag("unit")
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class EdgesOnceOrTwiceTest {
    private static final DependencyGraph.Limits ONCE = DependencyGraph.Limits.DEFAULT;
    private static final DependencyGraph.Limits TWICE = ONCE.withFoundOrder(0, null);

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
    void aFoundOrderInAFileSpanningBlocksGivesTheSameGraphAndFindingsOnOneThreadAndTwoAndLeavesNoFile(@TempDir Path dir) throws IOException {
        History h = SyntheticHistory.stale(24_000, 4, 5).generate();
        DependencyGraph inMemory = DependencyGraph.infer(h, ONCE);
        assertTrue(inMemory.edgeCount() > 2 * FoundOrder.BLOCK, "more than two blocks: " + inMemory.edgeCount());
        List<String> expected = edges(inMemory);
        List<String> findings = findings(IsolationChecker.analyze(h, ONCE));
        for (long twoThreadOps : new long[] {Long.MAX_VALUE, 0}) {
            DependencyGraph.Limits inFile = ONCE.withTwoThreadOps(twoThreadOps).withFoundOrder(0, dir);
            DependencyGraph g = DependencyGraph.infer(h, inFile);
            assertEquals(twoThreadOps == 0 ? 3 : 0, g.passesOnTwoThreads);
            assertEquals(expected, edges(g));
            assertEquals(findings, findings(IsolationChecker.analyze(h, inFile)));
            try (var left = Files.list(dir)) {
                assertEquals(List.of(), left.toList(), "the found order's file is deleted as soon as it is made");
            }
        }
    }

    @Test
    void aFoundOrderFileThatCannotBeMadeGivesTheSameGraphFoundTwice(@TempDir Path dir) throws IOException {
        History h = SyntheticHistory.stale(2_000, 4, 3).generate();
        Path notADirectory = Files.writeString(dir.resolve("a-file"), "x"); // its disk has room, but no file can be made in it
        assertEquals(edges(DependencyGraph.infer(h, ONCE)), edges(DependencyGraph.infer(h, ONCE.withFoundOrder(0, notADirectory))));
        assertEquals(edges(DependencyGraph.infer(h, ONCE)), edges(DependencyGraph.infer(h, ONCE.withFoundOrder(0, dir.resolve("missing")))));
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
