package txfuzz.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The inference's passes split over two threads (as for a large history on a machine with a second core) find the same
 * graph, in the same order, and report the same findings in the same order as on one thread: the rows' reports are
 * capped per kind, so their order decides which are kept.
 */
@Tag("unit")
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class TwoThreadPassesTest {
    private static final DependencyGraph.Limits ONE = DependencyGraph.Limits.DEFAULT.withTwoThreadOps(Long.MAX_VALUE);
    private static final DependencyGraph.Limits TWO = DependencyGraph.Limits.DEFAULT.withTwoThreadOps(0);
    /** Found twice (as at ten million transactions): the rows' dependencies are counted, then placed, on two threads. */
    private static final DependencyGraph.Limits TWO_FOUND_TWICE = TWO.withFoundOrder(0, null);
    private static final int ROWS = 40;

    private static List<String> edges(DependencyGraph g) {
        return g.edges.asList().stream().map(d -> d + " " + d.version() + "/" + d.nextVersion() + " " + d.readerStmt() + "/" + d.writerStmt()
                + " " + d.pred()).toList();
    }

    private static List<String> findings(Analysis a) {
        return a.findings().stream().map(f -> f.summary() + "\n" + f.explanation()).toList();
    }

    private static List<String> rows(DependencyGraph g) {
        return g.rows().stream().map(RowVersions::name).toList();
    }

    private static void assertSameEitherWay(History h) {
        DependencyGraph one = DependencyGraph.infer(h, ONE);
        DependencyGraph two = DependencyGraph.infer(h, TWO);
        assertEquals(0, one.passesOnTwoThreads);
        assertEquals(3, two.passesOnTwoThreads, "the observations, the rows' dependencies and their grouping on two threads");
        DependencyGraph twice = DependencyGraph.infer(h, TWO_FOUND_TWICE);
        assertEquals(3, twice.passesOnTwoThreads, "the observations, and the rows' dependencies counted and placed, on two threads");
        assertEquals(rows(one), rows(two));
        assertEquals(edges(one), edges(two));
        assertEquals(edges(one), edges(twice));
        Analysis a = IsolationChecker.analyze(h, ONE);
        for (Analysis b : List.of(IsolationChecker.analyze(h, TWO), IsolationChecker.analyze(h, TWO_FOUND_TWICE))) {
            assertEquals(findings(a), findings(b));
            for (Anomaly k : Anomaly.values()) {
                assertEquals(a.count(k), b.count(k), k.toString());
            }
        }
    }

    @Test
    void aStaleHistoryWithPredicatesAbortsAndDeletesGivesTheSameGraphAndFindings() {
        History h = SyntheticHistory.stale(4_000, 4, 13).generate();
        assertTrue(IsolationChecker.analyze(h, TWO).findings().size() > 5);
        assertSameEitherWay(h);
    }

    @Test
    void moreReportsThanTheCapFromRowsOnBothThreadsKeepTheSameFirstOnes() {
        History.Builder b = History.builder();
        History.TxnBuilder t1 = b.txn(1).session(1);
        for (int i = 0; i < ROWS; i++) {
            t1.update("g" + i, 0).update("g" + i, 0, 1); // T1 writes each g row twice
        }
        History.TxnBuilder t2 = t1.commit().txn(2).session(2);
        for (int i = ROWS - 1; i >= 0; i--) {
            t2.read("g" + i, 0, 1); // ... and T2 reads its intermediate version: G1b, a row at a time
        }
        History.TxnBuilder t3 = t2.commit().txn(3).session(3);
        History.TxnBuilder t4 = t3.commit().txn(4).session(4);
        for (int i = 0; i < ROWS; i++) {
            t3.update("c" + i, 0);
            t4.update("c" + i, 0); // T3 and T4 both overwrote T0's version: incompatible orders
        }
        History.TxnBuilder t5 = t4.commit().txn(5).session(5);
        for (int i = 0; i < ROWS; i++) {
            t5.read("g" + (ROWS - 1 - i), 0, 1, 1, 999); // T999 is no transaction: garbage reads
            t5.delete("d" + i, 0);
        }
        History.TxnBuilder t6 = t5.commit().txn(6).session(6);
        for (int i = ROWS - 1; i >= 0; i--) {
            t6.read("d" + i, 0, 5); // the tombstone read: incompatible orders found among the reads
        }
        History h = t6.commit().build();
        Analysis a = IsolationChecker.analyze(h, ONE);
        assertEquals(ROWS, a.count(Anomaly.G1B));
        assertTrue(a.count(Anomaly.INCOMPATIBLE_ORDER) > 20 && a.count(Anomaly.GARBAGE_READ) > 20, a.observed().toString());
        assertSameEitherWay(h);
    }
}
