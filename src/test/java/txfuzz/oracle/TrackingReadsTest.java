package txfuzz.oracle;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.Tracking;

/** Which statements a replay that compares only the program's outcomes and the final state may leave out. */
@Tag("unit")
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class TrackingReadsTest {
    @Test
    void theTrackingsOwnReadsAreLeftOut() {
        assertTrue(TrackingReads.isTrackingRead(Stmt.of(StmtKind.SELECT, "SELECT rid, wl FROM t0", Tracking.versionSetRead(List.of("t0")))));
        assertTrue(TrackingReads.isTrackingRead(Stmt.of(StmtKind.SELECT, "SELECT rid, wl FROM t0 WHERE wl LIKE '%,1.1'",
                Tracking.postRead("t0", "1.1"))));
        assertTrue(TrackingReads.isTrackingRead(Stmt.of(StmtKind.SELECT, "SELECT rid, wl FROM t0 WHERE c0 > 1",
                Tracking.companionRead("t0", "c0 > 1"))));
        assertTrue(TrackingReads.isTrackingRead(Stmt.of(StmtKind.SELECT, "SELECT rid, wl FROM t0 WHERE c0 > 1 LOCK IN SHARE MODE SKIP LOCKED",
                Tracking.matchRead("t0", "1.1", "c0 > 1"))));
    }

    @Test
    void theProgramsStatementsAndTagUpdatesStay() {
        assertFalse(TrackingReads.isTrackingRead(Stmt.of(StmtKind.SELECT, "SELECT x0.rid, x0.wl FROM t0 x0",
                Tracking.read(List.of("t0"), false, "true"))));
        assertFalse(TrackingReads.isTrackingRead(Stmt.of(StmtKind.UPDATE, "UPDATE t0 SET c0 = 1, wl = wl || ',1.1'",
                Tracking.write("t0", "1.1", List.of(), false))));
        // a tag-update writes the tag its delete then matches: it changes rows
        assertFalse(TrackingReads.isTrackingRead(Stmt.of(StmtKind.UPDATE, "UPDATE t0 SET wl = wl || ',1.1' WHERE c0 = 1",
                Tracking.tag("t0", "1.1"))));
        assertFalse(TrackingReads.isTrackingRead(Stmt.of(StmtKind.SELECT, "SELECT c0 FROM t0")));
        assertFalse(TrackingReads.isTrackingRead(Stmt.of(StmtKind.COMMIT, "COMMIT")));
    }
}
