package txfuzz.oracle.equiv;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import txfuzz.exec.TrackedCases;
import txfuzz.model.TestCase;

/** Which cases have a program read that skips locked rows, which the equiv oracle cannot replay. */
@Tag("unit")
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class SkipLockedReadsTest {
    private static TestCase reading(String sql) {
        return TrackedCases.on("postgres").table("t").setup("CREATE TABLE t (id INT PRIMARY KEY, rid VARCHAR(100), wl VARCHAR(100))")
                .begin().read(sql, "true", true, "t").commit().serial();
    }

    @Test
    void aProgramReadThatSkipsLockedRowsIsSeenHoweverItIsWritten() {
        assertTrue(SkipLockedReads.present(reading("SELECT x.rid, x.wl FROM t x FOR UPDATE SKIP LOCKED")));
        assertTrue(SkipLockedReads.present(reading("select x.rid, x.wl from t x for share skip locked")));
        // a form the parser does not read: its words say it
        assertTrue(SkipLockedReads.present(reading("SELECT x.rid, x.wl FROM t x LOCK IN SHARE MODE SKIP LOCKED")));
    }

    @Test
    void otherReadsAndTheTrackingsOwnAreNot() {
        assertFalse(SkipLockedReads.present(reading("SELECT x.rid, x.wl FROM t x FOR UPDATE")));
        assertFalse(SkipLockedReads.present(reading("SELECT x.rid, x.wl FROM t x WHERE x.wl <> 'skip locked'")));
        TestCase matchRead = TrackedCases.on("mariadb").table("t").setup("CREATE TABLE t (id INT PRIMARY KEY, rid VARCHAR(100), wl VARCHAR(100))")
                .begin().write("UPDATE t SET wl = CONCAT(wl, ',1.1') WHERE id = 1", "t", "1.1", java.util.List.of(), false)
                .matchRead("t", "1.1", " WHERE id = 1", "id = 1").commit().serial();
        assertFalse(SkipLockedReads.present(matchRead));
    }
}
