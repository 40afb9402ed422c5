package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.model.DbState;

/** The pure parts of {@link KeyOrderScan}: which statements it applies to, typed key order, the split view. */
@Tag("unit")
class KeyOrderScanTest {
    private static final KeyOrderScan.ClusteredKey INT_KEY = new KeyOrderScan.ClusteredKey(List.of(0), List.of(true));
    private static final KeyOrderScan.ClusteredKey TEXT_KEY = new KeyOrderScan.ClusteredKey(List.of(0), List.of(false));

    @Test
    void onlySingleTableUpdatesAndDeletesWithoutOrderOrLimitHaveAKnownScan() {
        assertEquals(Optional.of(new KeyOrderScan.Target("t", "t")), KeyOrderScan.target("DELETE FROM t"));
        assertEquals(Optional.of(new KeyOrderScan.Target("t2", "t2")), KeyOrderScan.target("DELETE FROM t2 WHERE t2.c0 IS NOT NULL RETURNING rid, wl"));
        assertEquals(Optional.of(new KeyOrderScan.Target("t0", "t0")), KeyOrderScan.target("UPDATE t0 SET c1 = 0"));
        assertEquals(Optional.of(new KeyOrderScan.Target("t0", "x")), KeyOrderScan.target("UPDATE t0 AS x SET c1 = 0 WHERE x.c0 > 1"));
        assertTrue(KeyOrderScan.target("UPDATE t0 JOIN t1 ON t0.c0 = t1.c0 SET t0.c1 = 0").isEmpty());
        assertTrue(KeyOrderScan.target("UPDATE t0, t1 SET t0.c1 = 0").isEmpty());
        assertTrue(KeyOrderScan.target("DELETE FROM t ORDER BY c0 DESC LIMIT 1").isEmpty());
        assertTrue(KeyOrderScan.target("INSERT INTO t VALUES (1)").isEmpty());
    }

    @Test
    void keysCompareByTypeAndTextWhoseOrderDependsOnTheCollationIsUnknown() {
        assertEquals(Optional.of(-1), INT_KEY.compare(List.of("2"), List.of("10"))); // as numbers, not as text
        assertEquals(Optional.of(0), INT_KEY.compare(List.of("2.50"), List.of("2.5")));
        assertEquals(Optional.of(-1), TEXT_KEY.compare(List.of("ca"), List.of("cdc")));
        assertTrue(TEXT_KEY.compare(List.of("B"), List.of("a")).isEmpty(), "binary and case-insensitive collations disagree");
        assertTrue(TEXT_KEY.compare(List.of("a "), List.of("a")).isEmpty(), "PAD SPACE collations take these as equal");
    }

    @Test
    void rowsBeforeTheWaitedKeyComeFromTheStartAndTheRestFromTheResumption() {
        // rows are (k, v, identity); at the start k = 1, 2, 5; meanwhile the row at 2 moved to 0, and row 1 changed
        DbState submitted = new DbState(Map.of("t", List.of(List.of("1", "0", "a"), List.of("2", "0", "b"), List.of("5", "0", "c"))));
        DbState resumed = new DbState(Map.of("t", List.of(List.of("0", "0", "b"), List.of("1", "1", "a"), List.of("5", "0", "c"))));
        DbState split = KeyOrderScan.splitView(submitted, resumed, "t", INT_KEY, List.of("1", "0", "a")).orElseThrow();
        assertEquals(List.of(List.of("1", "1", "a"), List.of("5", "0", "c")), split.tables().get("t"), "the moved row is behind the scan");
        // waiting at 5 instead: row 1 and row 2 (as it was) were passed before the wait; the moved row is not met twice
        split = KeyOrderScan.splitView(submitted, resumed, "t", INT_KEY, List.of("5", "0", "c")).orElseThrow();
        assertEquals(List.of(List.of("1", "0", "a"), List.of("2", "0", "b"), List.of("5", "0", "c")), split.tables().get("t"));
    }

    @Test
    void aScanThatWaitedTwiceReadsBetweenItsWaitsAsWhenTheFirstEnded() {
        // at the start k = 1, 5, 9; when the first wait (at 5) ended, row 5 had changed; by the end a row at 7 was inserted
        // (between the waits: behind the scan, which waited at 9 by then), a row at 0 too (before the first wait), and 9 changed
        DbState submitted = new DbState(Map.of("t", List.of(List.of("1", "0", "a"), List.of("5", "0", "b"), List.of("9", "0", "c"))));
        DbState between = new DbState(Map.of("t", List.of(List.of("1", "0", "a"), List.of("5", "1", "b"), List.of("9", "0", "c"))));
        DbState resumed = new DbState(Map.of("t", List.of(List.of("0", "0", "d"), List.of("1", "0", "a"), List.of("5", "1", "b"),
                List.of("7", "0", "e"), List.of("9", "2", "c"))));
        DbState twice = KeyOrderScan.splitViewTwice(submitted, between, resumed, "t", INT_KEY, List.of("5", "0", "b"), List.of("9", "0", "c"))
                .orElseThrow();
        assertEquals(List.of(List.of("1", "0", "a"), List.of("5", "1", "b"), List.of("9", "2", "c")), twice.tables().get("t"),
                "0 and 7 are behind the scan when they come; 5 as the first wait left it, 9 as the second did");
        // a row moved from before the first wait to after the second is read once, where the scan meets it last
        DbState moved = new DbState(Map.of("t", List.of(List.of("5", "1", "b"), List.of("9", "0", "c"), List.of("12", "0", "a"))));
        twice = KeyOrderScan.splitViewTwice(submitted, between, moved, "t", INT_KEY, List.of("5", "0", "b"), List.of("9", "0", "c")).orElseThrow();
        assertEquals(new DbState(Map.of("t", List.of(List.of("5", "1", "b"), List.of("9", "0", "c"), List.of("12", "0", "a")))).tables().get("t"),
                twice.tables().get("t"), "(a state keeps its rows in its own order)");
    }

    @Test
    void theWaitedForRowIsTheFirstHeldInKeyOrder() {
        assertEquals(Optional.of(List.of("1", "x")), KeyOrderScan.firstInKeyOrder(INT_KEY, List.of(List.of("7", "y"), List.of("1", "x"))));
        assertTrue(KeyOrderScan.firstInKeyOrder(TEXT_KEY, List.of(List.of("B", "y"), List.of("a", "x"))).isEmpty());
    }

    /** Only a single-table UPDATE gets the marker, first in its SET list, its alias and WHERE kept. */
    @Test
    void theMarkerOfEveryMatchGoesFirstInASingleTableUpdatesSetList() {
        assertEquals(Optional.of("UPDATE t SET rid = -1 - rid, b = 0 WHERE a"), KeyOrderScan.markingEveryMatch("UPDATE t SET b = 0 WHERE a", "rid"));
        assertEquals(Optional.of("UPDATE t AS x SET rid = -1 - rid, b = x.a"), KeyOrderScan.markingEveryMatch("UPDATE t AS x SET b = x.a", "rid"));
        assertTrue(KeyOrderScan.markingEveryMatch("DELETE FROM t WHERE a", "rid").isEmpty());
        assertTrue(KeyOrderScan.markingEveryMatch("UPDATE t SET b = 0 ORDER BY a LIMIT 1", "rid").isEmpty());
    }
    /** The marking of an UPDATE's matches alone: its SET list replaced, its WHERE found outside parentheses and quotes. */
    @Test
    void anUpdatesMatchesAreMarkedWithoutItsAssignments() {
        assertEquals(java.util.Optional.of("UPDATE t0 SET rid = -1 - rid WHERE (t0.c0 = 0 OR t0.c2 <= 'e')"), KeyOrderScan.markingOnlyWhatItMatches(
                "UPDATE t0 SET c2 = CASE WHEN t0.c3 <> 1 THEN 'e' ELSE '' END WHERE (t0.c0 = 0 OR t0.c2 <= 'e')", "rid"));
        assertEquals(java.util.Optional.of("UPDATE t0 SET rid = -1 - rid WHERE t0.c1 > 2"), KeyOrderScan.markingOnlyWhatItMatches(
                "UPDATE t0 SET c1 = (SELECT MAX(s.c1) FROM t1 s WHERE s.c0 = 1), c2 = 'a WHERE b' WHERE t0.c1 > 2", "rid"));
        assertEquals(java.util.Optional.of("UPDATE t0 SET rid = -1 - rid"), KeyOrderScan.markingOnlyWhatItMatches("UPDATE t0 SET c1 = 0", "rid"));
        assertEquals(java.util.Optional.empty(), KeyOrderScan.markingOnlyWhatItMatches("DELETE FROM t0 WHERE c1 = 0", "rid"));
    }
}
