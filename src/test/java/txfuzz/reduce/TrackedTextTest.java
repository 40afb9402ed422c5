package txfuzz.reduce;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.Tracking;

/** Expression simplification keeps what the isolation oracle's history recorder reads. */
@Tag("unit")
class TrackedTextTest {
    @Test
    void aTrackedReadKeepsItsRowIdentityAndWriteListItems() {
        Stmt read = Stmt.of(StmtKind.SELECT, "SELECT x0.rid, x0.wl, x0.c1 FROM t0 x0 WHERE x0.c1 > (SELECT MAX(c0) FROM t1)",
                Tracking.read(List.of("t0"), false, null));
        assertFalse(TrackedText.keeps(read, "SELECT x0.rid, x0.c1 FROM t0 x0 WHERE x0.c1 > (SELECT MAX(c0) FROM t1)"));
        assertTrue(TrackedText.keeps(read, "SELECT x0.rid, x0.wl, x0.c1 FROM t0 x0 WHERE x0.c1 > 0"));
        assertFalse(TrackedText.keeps(read, "SELECT x0.rid, x0.wl FROM t0 x0 WHERE x0.c1 > 0"),
                "a read of nothing but its tracking has no plain form for the finding's report");
        Stmt pred = Stmt.of(StmtKind.SELECT, "SELECT x0.rid, x0.wl FROM t0 x0 WHERE x0.c1 > 3", Tracking.read(List.of("t0"), false, "c1 > 3"));
        assertFalse(TrackedText.keeps(pred, "SELECT x0.rid, x0.wl FROM t0 x0"), "the predicate read's WHERE is named by its tracking");
    }

    @Test
    void aWriteKeepsItsTagAndTheRowIdsItInserts() {
        Stmt insert = Stmt.of(StmtKind.INSERT, "INSERT INTO t0 (c0, rid, wl) VALUES (5, '2.1.0', ',2.1')", Tracking.write("t0", "2.1", List.of("2.1.0"), false));
        assertTrue(TrackedText.keeps(insert, "INSERT INTO t0 (c0, rid, wl) VALUES (0, '2.1.0', ',2.1')"));
        assertFalse(TrackedText.keeps(insert, "INSERT INTO t0 (c0, rid, wl) VALUES (5, '', ',2.1')"));
        assertFalse(TrackedText.keeps(insert, "INSERT INTO t0 (c0, rid, wl) VALUES (5, '2.1.0', '')"));
        assertTrue(TrackedText.keeps(Stmt.of(StmtKind.SELECT, "SELECT c0 FROM t0 WHERE c0 > 3"), "SELECT c0 FROM t0"), "untracked: anything goes");
        Stmt update = Stmt.of(StmtKind.UPDATE, "UPDATE t0 SET c0 = 1, wl = wl || ',2.1' WHERE c0 > 3", Tracking.write("t0", "2.1", List.of(), false));
        assertTrue(TrackedText.keeps(update, "UPDATE t0 SET c0 = 0, wl = wl || ',2.1' WHERE c0 > 3"));
        assertFalse(TrackedText.keeps(update, "UPDATE t0 SET wl = wl || ',2.1' WHERE c0 > 3"), "an UPDATE that only appends its tag has no plain form");
    }

    @Test
    void setupRowsKeepTheirTrackingValues() {
        String row = "INSERT INTO t0 (c0, c1, rid, wl) VALUES (1, 'a', '1', ',0')";
        assertTrue(TrackedText.keepsSetup(row, "INSERT INTO t0 (c0, c1, rid, wl) VALUES (0, '', '1', ',0')"));
        assertFalse(TrackedText.keepsSetup(row, "INSERT INTO t0 (c0, c1, rid, wl) VALUES (1, 'a', '1', '')"));
        assertFalse(TrackedText.keepsSetup(row, "INSERT INTO t0 (c0, c1, rid, wl) VALUES (1, 'a', '', ',0')"));
    }
}
