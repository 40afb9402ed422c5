package txfuzz.history;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A cycle's shape, which signs isolation findings: edge types from the smallest rotation, one table or several. */
@Tag("unit")
class CycleShapeTest {
    private static Dep dep(DepType type, long from, long to, RowVersions row) {
        return new Dep(type, from, to, row, false, false, 1, 2, 1, 1, null);
    }

    private static AnomalyFinding finding(Anomaly a, List<Dep> cycle) {
        return new AnomalyFinding(a, List.of(1L, 2L), cycle, false, "", "", "", "", null, false, false);
    }

    @Test
    void aCycleHasNoFirstEdgeSoEveryRotationHasOneShape() {
        RowVersions a = new RowVersions("a", "1");
        RowVersions b = new RowVersions("b", "2");
        AnomalyFinding fromReader = finding(Anomaly.READ_SKEW, List.of(dep(DepType.RW, 1, 2, a), dep(DepType.WR, 2, 1, b)));
        AnomalyFinding fromWriter = finding(Anomaly.READ_SKEW, List.of(dep(DepType.WR, 2, 1, b), dep(DepType.RW, 1, 2, a)));
        assertEquals("rw wr · several tables", fromReader.shape());
        assertEquals(fromReader.shape(), fromWriter.shape());
        RowVersions a2 = new RowVersions("a", "3");
        assertEquals("rw wr · one table", finding(Anomaly.READ_SKEW, List.of(dep(DepType.WR, 2, 1, a2), dep(DepType.RW, 1, 2, a))).shape());
        assertEquals("T1 --rw(a.1)--> T2 --wr(b.2)--> T1", fromReader.plainCycle());
        assertEquals("no cycle", finding(Anomaly.INTERNAL, List.of()).shape());
    }
}
