package txfuzz.history;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compact reader numbers every new string it meets, growing its table as it goes; a predicate's text that is the
 * string which grows the table is read like any other (it once indexed the table from before the growth: a ten
 * million transaction history failed that way).
 */
@Tag("unit")
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class CompactStringTableGrowthTest {
    @TempDir
    Path dir;

    @Test
    void aPredicateWhoseTextGrowsTheStringTableReadsBack() throws Exception {
        for (int rows = 60; rows <= 70; rows++) { // the table's first growth is at 64 strings: one of these lands on it
            History.TxnBuilder t = History.builder().txn(1).session(1);
            for (int i = 0; i < rows; i++) {
                t.read("r" + i, 0);
            }
            History h = t.predicateRead("t", "c1 > " + rows, false, History.row("r0", 0)).commit().build();
            Path f = dir.resolve("h" + rows + ".txh");
            CompactHistory.write(h, f);
            History back = HistoryFiles.read(f);
            assertEquals(h, back);
            assertEquals(IsolationChecker.analyze(h).observed(), IsolationChecker.analyze(back).observed());
        }
    }
}
