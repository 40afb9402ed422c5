package txfuzz.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Synthetic histories keep the checker honest on volume: a serial history must be clean however
 * large, a stale-snapshot one must show the anomalies stale snapshots cause, and checking must
 * stay near-linear. The 100,000-transaction benchmark runs with {@code -Dhistory.bench=true}.
 */
class SyntheticHistoryTest {
    @Test
    void aLargeSerialHistoryIsCleanAndQuick() {
        History h = SyntheticHistory.serial(5_000, 1).generate();
        long t0 = System.nanoTime();
        Analysis an = IsolationChecker.analyze(h);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(Set.of(), an.observed(), () -> an.findings().stream().map(AnomalyFinding::summary).limit(5).toList().toString());
        assertEquals(5_000 - h.transactions().stream().filter(t -> !t.committed()).count(), an.graph().graph().vertexSet().size());
        assertTrue(ms < 10_000, "5,000 transactions took " + ms + " ms");
    }

    @Test
    void staleSnapshotsShowTheirAnomalies() {
        History h = SyntheticHistory.stale(5_000, 4, 2).generate();
        Analysis an = IsolationChecker.analyze(h);
        Set<Anomaly> seen = an.observed();
        for (Anomaly a : new Anomaly[] {Anomaly.LOST_UPDATE, Anomaly.NON_REPEATABLE_READ, Anomaly.READ_SKEW}) {
            assertTrue(seen.contains(a), a + " missing from " + seen);
        }
        for (Anomaly a : new Anomaly[] {Anomaly.G0, Anomaly.G1A, Anomaly.G1B, Anomaly.G1C, Anomaly.INCOMPATIBLE_ORDER, Anomaly.GARBAGE_READ,
                Anomaly.INTERNAL, Anomaly.DIRTY_UPDATE, Anomaly.PREDICATE_READ_MISS}) {
            assertTrue(!seen.contains(a), a + " cannot happen with stale reads and serial writes: " + seen);
        }
    }

    @Test
    @EnabledIfSystemProperty(named = "history.bench", matches = "true")
    void benchmark100k() throws Exception {
        for (String kind : new String[] {"serial", "stale"}) {
            History h = kind.equals("serial") ? SyntheticHistory.serial(100_000, 7).generate() : SyntheticHistory.stale(100_000, 4, 7).generate();
            long ops = h.transactions().stream().mapToLong(t -> t.ops().size()).sum();
            long t0 = System.nanoTime();
            String text = HistoryJson.write(h);
            long t1 = System.nanoTime();
            History back = HistoryJson.read(text, "bench");
            long t2 = System.nanoTime();
            Analysis an = null;
            long first = 0;
            long best = Long.MAX_VALUE;
            for (int run = 0; run < 3; run++) {
                long s = System.nanoTime();
                an = IsolationChecker.analyze(back);
                long t = System.nanoTime() - s;
                first = run == 0 ? t : first;
                best = Math.min(best, t);
            }
            System.out.printf("history.bench %s: %d transactions, %d ops, %d edges, %.1f MB JSON; write %d ms, read %d ms, check %d ms first, "
                            + "%d ms best of 3; observed %s%n", kind, h.size(), ops, an.graph().edgeCount(), text.length() / 1e6,
                    (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000, first / 1_000_000, best / 1_000_000, an.observed());
            if (kind.equals("serial")) {
                assertEquals(Set.of(), an.observed());
            }
        }
    }
}
