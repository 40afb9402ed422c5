package txfuzz.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Synthetic histories keep the checker honest on volume: a serial history must be clean however
 * large, a stale-snapshot one must show the anomalies stale snapshots cause, and checking must
 * stay near-linear. The 100,000-transaction benchmark is {@code txfuzz bench --checker}.
 */
@Tag("unit")
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
}
