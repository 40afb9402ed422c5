package txfuzz.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The inference records observations a row at a time (rows are numbered by their first operation), yet what the
 * observations report comes in history order, and rows are keyed in the order of their first observation, as when the
 * operations were recorded in history order: the cap of findings per kind keeps the first ones, and the rows' map order is
 * the dependencies' found order (hence the witnesses').
 */
@Tag("unit")
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class RowByRowObservationTest {
    private static final int ROWS = 25;

    @Test
    void reportsComeInHistoryOrderAcrossRowsAndTheCapKeepsTheFirst() {
        History.TxnBuilder t = History.builder().txn(1).session(1);
        for (int i = 0; i < ROWS; i++) {
            t.read("r" + i, 0); // numbers the rows r0, r1, ...
        }
        History.TxnBuilder t2 = t.commit().txn(2).session(2);
        for (int i = ROWS - 1; i >= 0; i--) {
            t2.read("r" + i, 0, 900 + i); // garbage reads, the last row's first
        }
        Analysis an = IsolationChecker.analyze(t2.commit().build());
        List<String> where = new ArrayList<>();
        for (AnomalyFinding f : an.findings()) {
            if (f.anomaly() == Anomaly.GARBAGE_READ) {
                where.add(f.summary().replaceAll(".* observed t\\.(r\\d+) .*", "$1"));
            }
        }
        List<String> expected = new ArrayList<>();
        for (int i = ROWS - 1; i >= ROWS - 20; i--) {
            expected.add("r" + i);
        }
        assertEquals(expected, where);
        assertEquals(ROWS, an.count(Anomaly.GARBAGE_READ));
    }

    @Test
    void rowsAreKeyedInTheOrderOfTheirFirstObservation() {
        int rows = 2_000;
        History.TxnBuilder t = History.builder().txn(1).session(1);
        for (int i = 0; i < rows; i++) {
            t.read("r" + i, 0, 77); // numbers the rows r0, r1, ...; T77 is not a transaction: no observation
        }
        History.TxnBuilder t2 = t.commit().txn(2).session(2);
        for (int i = rows - 1; i >= 0; i--) {
            t2.read("r" + i, 0); // the first observations, the last row's first
        }
        DependencyGraph g = DependencyGraph.infer(t2.commit().build());
        Map<DependencyGraph.RowKey, Integer> byFirstObservation = new HashMap<>();
        Map<DependencyGraph.RowKey, Integer> byNumber = new HashMap<>();
        for (int i = 0; i < rows; i++) {
            byFirstObservation.put(new DependencyGraph.RowKey("t", "r" + (rows - 1 - i)), i);
            byNumber.put(new DependencyGraph.RowKey("t", "r" + i), i);
        }
        List<String> keyed = new ArrayList<>();
        for (RowVersions r : g.rows()) {
            keyed.add(r.rowId());
        }
        // compared whole, reported short: the lists are 2,000 names
        assertTrue(names(byFirstObservation).equals(keyed), "rows keyed in another order, beginning " + keyed.subList(0, 10));
        assertFalse(names(byNumber).equals(keyed), "the map's order must depend on the keys' order for this test to say anything");
        // the inference keeps the rows in that order only; looking one up by name makes the map when asked
        for (RowVersions r : g.rows()) {
            assertSame(r, g.row("t", r.rowId()));
        }
        assertNull(g.row("t", "r" + rows));
        assertNull(g.row("u", "r0"));
    }

    private static List<String> names(Map<DependencyGraph.RowKey, Integer> map) {
        List<String> out = new ArrayList<>();
        for (DependencyGraph.RowKey k : map.keySet()) {
            out.add(k.rowId());
        }
        return out;
    }
}
