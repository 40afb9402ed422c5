package txfuzz.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static txfuzz.history.History.row;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The rows a predicate's reads returned are visited in the order they were first returned (not by row number), and a row
 * counts as matching in a version only if some read returned it in that version: the predicate dependencies and findings,
 * and with the cap per kind which of them are reported, follow from both.
 */
@Tag("unit")
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class PredicateRowsOrderTest {
    private static final int ROWS = 30;

    @Test
    void missedRowsAreReportedInTheOrderTheyWereFirstReturned() {
        History.TxnBuilder t1 = History.builder().txn(1).session(1);
        for (int i = 0; i < ROWS; i++) {
            t1.read("r" + i, 0); // numbers the rows r0, r1, ...
        }
        RowVersion[] returned = new RowVersion[ROWS];
        for (int i = 0; i < ROWS; i++) {
            returned[i] = row("r" + (ROWS - 1 - i), 0); // first returned: the last row first
        }
        History h = t1.commit()
                .txn(2).session(2).predicateRead("t", "p", false, returned).predicateRead("t", "p", false, returned).commit()
                .txn(3).session(3).predicateRead("t", "p", false).commit() // misses every row, which matched from the start
                .build();
        List<String> missed = new ArrayList<>();
        for (AnomalyFinding f : IsolationChecker.analyze(h).findings()) {
            if (f.anomaly() == Anomaly.PREDICATE_READ_MISS) {
                missed.add(f.summary().replaceAll(".* missed t\\.(r\\d+)$", "$1"));
            }
        }
        List<String> expected = new ArrayList<>();
        for (int i = ROWS - 1; i >= ROWS - 20; i--) { // capped at 20 a kind
            expected.add("r" + i);
        }
        assertEquals(expected, missed);
    }

    @Test
    void aRowMatchesOnlyInTheVersionsItWasReturnedIn() {
        History h = History.builder()
                .txn(1).session(1).read("r1", 0).read("r2", 0).commit()
                .txn(2).session(2).predicateRead("t", "p", false, row("r2", 0), row("r1", 0)).commit()
                .txn(3).session(3).update("r1", 0).commit() // r1's version [0, 3] is never returned: it stops matching
                .txn(4).session(4).predicateRead("t", "p", false, row("r2", 0)).commit()
                .build();
        List<String> missed = new ArrayList<>();
        for (AnomalyFinding f : IsolationChecker.analyze(h).findings()) {
            if (f.anomaly() == Anomaly.PREDICATE_READ_MISS) {
                missed.add(f.summary());
            }
        }
        assertEquals(List.of(), missed, "r1 changed and was not returned in its new version: no miss");
        History always = History.builder()
                .txn(1).session(1).read("r1", 0).read("r2", 0).commit()
                .txn(2).session(2).predicateRead("t", "p", false, row("r2", 0), row("r1", 0)).commit()
                .txn(3).session(3).update("r1", 0).commit()
                .txn(4).session(4).predicateRead("t", "p", false, row("r2", 0), row("r1", 0, 3)).commit()
                .txn(5).session(5).predicateRead("t", "p", false, row("r2", 0)).commit()
                .build();
        List<String> missedAlways = new ArrayList<>();
        for (AnomalyFinding f : IsolationChecker.analyze(always).findings()) {
            if (f.anomaly() == Anomaly.PREDICATE_READ_MISS) {
                missedAlways.add(f.summary().replaceAll(".* missed t\\.(r\\d+)$", "$1"));
            }
        }
        assertEquals(List.of("r1"), missedAlways, "r1 was returned in every version: T5 missed it");
    }
}
