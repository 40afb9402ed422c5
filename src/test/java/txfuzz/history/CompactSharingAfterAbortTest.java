package txfuzz.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An aborted write extends the order a reader follows for a row, and the committed writes after it contradict that
 * order: either file form's reader must still give every committed version of the row a view of one array, and the
 * history and its verdicts must be those of the history as written.
 */
@Tag("unit")
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class CompactSharingAfterAbortTest {
    @TempDir
    Path dir;

    private static History history() {
        return History.builder()
                .txn(1).session(1).lockingRead("r1", 0).update("r1", 0).commit()
                .txn(2).session(2).lockingRead("r1", 0, 1).update("r1", 0, 1).abort() // writes [0, 1, 2], then aborts
                .txn(3).session(3).lockingRead("r1", 0, 1).update("r1", 0, 1).commit() // [0, 1, 3]: not the format's order
                .txn(4).session(4).read("r1", 0, 1, 3).read("r1", 0, 1).read("r2", 0).commit()
                .txn(5).session(5).read("r2", 0).update("r2", 0).read("r1", 0, 1).commit() // a stale read: T5 → T3 (rw)
                .build();
    }

    private static WList wList(History h, int txn, int op) {
        Op o = h.transactions().get(txn).ops().get(op);
        return o instanceof Read r ? r.wList() : ((Write) o).wList();
    }

    @Test
    void committedVersionsAfterAnAbortedWriteShareOneArray() throws Exception {
        History h = history();
        Path f = dir.resolve("h.txh");
        CompactHistory.write(h, f);
        assertSharedAfterAbort(h, f);
    }

    @Test
    void soTheyDoInJsonLines() throws Exception {
        History h = history();
        Path f = dir.resolve("h.jsonl");
        HistoryJson.write(h, f);
        assertSharedAfterAbort(h, f);
    }

    private static void assertSharedAfterAbort(History h, Path f) throws Exception {
        History back = HistoryFiles.read(f);
        assertEquals(h, back);
        long[] shared = wList(back, 0, 0).raw();
        for (int[] at : new int[][] {{0, 1}, {2, 0}, {2, 1}, {3, 0}, {3, 1}, {4, 2}}) {
            assertSame(shared, wList(back, at[0], at[1]).raw(), "a committed version of r1 is a view of the row's array: " + wList(back, at[0], at[1]));
        }
        assertNotSame(shared, wList(back, 1, 1).raw(), "the aborted write's version is not on the committed row's array");
        assertEquals(IsolationChecker.analyze(h).observed(), IsolationChecker.analyze(back).observed());
        assertEquals(summaries(h), summaries(back));
    }

    private static List<String> summaries(History h) {
        return IsolationChecker.analyze(h).findings().stream().map(AnomalyFinding::summary).toList();
    }
}
