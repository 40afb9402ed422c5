package txfuzz.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.model.IsolationLevel;

/**
 * A transaction's DML makes the rows it touches visible to it (MDEV-26642 shape), on hand-built
 * histories, both ways: T2 commits a write of x; T1's UPDATE matches x in T2's version without
 * changing it (a matched read), then T1 reads x again.
 */
@Tag("unit")
class MatchedReadTest {

    private static History afterMatching(Op matchedOrLocking, long... laterRead) {
        return History.builder()
                .txn(2).stmt(1).update("x", 0).commit()
                .txn(1).stmt(1).read("x", 0).op(matchedOrLocking).stmt(3).read("x", laterRead).commit()
                .build();
    }

    private static List<AnomalyFinding> internal(History h) {
        return IsolationChecker.check(h, IsolationLevel.REPEATABLE_READ, Set.of()).stream().filter(f -> f.anomaly() == Anomaly.INTERNAL).toList();
    }

    @Test
    void readingAnOlderVersionThanTheDmlMatchedIsInternal() {
        List<AnomalyFinding> fs = internal(afterMatching(new Read(2, "t", "x", WList.of(0, 2), true, true), 0));
        assertEquals(1, fs.size(), fs.toString());
        assertTrue(fs.get(0).summary().contains("after its DML matched it"), fs.get(0).summary());
        assertTrue(fs.get(0).judged(IsolationLevel.READ_COMMITTED, Set.of()).bugCandidate());
    }

    @Test
    void theMatchedVersionOrALaterOneIsFine() {
        assertEquals(List.of(), internal(afterMatching(new Read(2, "t", "x", WList.of(0, 2), true, true), 0, 2)));
    }

    @Test
    void aPlainLockingReadDoesNotMakeTheRowVisible() {
        // InnoDB documents it: a locking read reads the newest version, the next plain read the snapshot
        assertEquals(List.of(), internal(afterMatching(new Read(2, "t", "x", WList.of(0, 2), true, false), 0)));
    }

    @Test
    void theHistoryFileKeepsWhichReadsWereMatched() throws Exception {
        History h = afterMatching(new Read(2, "t", "x", WList.of(0, 2), true, true), 0);
        String text = HistoryJson.write(h);
        assertTrue(text.contains("\"matched\":true"), text);
        assertEquals(h, HistoryJson.read(text, "test"));
    }
}
