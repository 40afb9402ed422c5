package txfuzz.history;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A G-single whose ww edge is not the one that closes it: T1 writes x and y, T2 overwrites x, T3 reads T2's x and the y
 * before T1's. The search's state "last edge ww" (8) once spilled into the next vertex's keys (8 states a vertex), so the
 * cycle was not found, or the search ran past its arrays when T3 was the graph's last vertex.
 */
@Tag("unit")
class CycleSearchStatesTest {
    private static List<Anomaly> kinds(History h) {
        return IsolationChecker.analyze(h).findings().stream().map(AnomalyFinding::anomaly).toList();
    }

    @Test
    void aSingleAntiDependencyCyclePastAWwEdgeIsFoundWhateverTheVertexOrder() {
        History readerLast = History.builder()
                .txn(1).update("t", "x", 0).update("t", "y", 0).commit()
                .txn(2).update("t", "x", 0, 1).commit()
                .txn(3).read("t", "x", 0, 1, 2).read("t", "y", 0).commit()
                .build();
        assertEquals(List.of(Anomaly.READ_SKEW), kinds(readerLast));
        History readerFirst = History.builder()
                .txn(3).read("t", "x", 0, 1, 2).read("t", "y", 0).commit()
                .txn(1).update("t", "x", 0).update("t", "y", 0).commit()
                .txn(2).update("t", "x", 0, 1).commit()
                .build();
        assertEquals(List.of(Anomaly.READ_SKEW), kinds(readerFirst));
    }
}
