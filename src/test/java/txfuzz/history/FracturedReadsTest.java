package txfuzz.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.model.IsolationLevel;

/** The per-statement view check on hand-built histories, both ways. T1 writes x and y and commits. */
@Tag("unit")
class FracturedReadsTest {
    private static final java.util.function.BiPredicate<Long, Integer> ALL_ALONE = (t, s) -> true;

    private static History reading(long[] x, long[] y) {
        return History.builder()
                .txn(1).stmt(1).update("x", 0).update("y", 0).commit()
                .txn(2).stmt(1).read("x", x).read("y", y).commit()
                .build();
    }

    @Test
    void aStatementThatSawOneOfACommittedTransactionsWritesAndNotTheOtherIsFractured() {
        List<AnomalyFinding> fs = FracturedReads.find(reading(new long[] {0, 1}, new long[] {0}), ALL_ALONE);
        assertEquals(1, fs.size(), fs.toString());
        AnomalyFinding f = fs.get(0);
        assertEquals(Anomaly.FRACTURED_READ, f.anomaly());
        assertEquals(List.of(2L, 1L), f.transactions());
        assertTrue(f.summary().contains("t.x") && f.summary().contains("t.y"), f.summary());
        AnomalyFinding judged = f.judged(IsolationLevel.READ_COMMITTED, Set.of());
        assertTrue(judged.bugCandidate(), "proscribed from READ COMMITTED up");
        assertTrue(!f.judged(IsolationLevel.READ_UNCOMMITTED, Set.of()).proscribed());
    }

    @Test
    void allOrNoneOfTheWritesIsOneState() {
        assertEquals(List.of(), FracturedReads.find(reading(new long[] {0, 1}, new long[] {0, 1}), ALL_ALONE));
        assertEquals(List.of(), FracturedReads.find(reading(new long[] {0}, new long[] {0}), ALL_ALONE));
    }

    @Test
    void aStatementThatWaitedOrRanBesideOthersIsNotJudged() {
        assertEquals(List.of(), FracturedReads.find(reading(new long[] {0, 1}, new long[] {0}), (t, s) -> false));
    }

    @Test
    void rowsTheReaderWroteItselfAndOtherTablesDoNotCount() {
        // T2 wrote y itself (InnoDB: its own version, beside its snapshot of x)
        History own = History.builder()
                .txn(1).stmt(1).update("x", 0).update("y", 0).commit()
                .txn(2).stmt(1).update("y", 0).stmt(2).read("x", 0, 1).read("y", 0, 2).commit()
                .build();
        assertEquals(List.of(), FracturedReads.find(own, ALL_ALONE));
        // y in another table (H2 takes REPEATABLE READ snapshots per table)
        History tables = History.builder()
                .txn(1).stmt(1).update("t", "x", 0).update("u", "y", 0).commit()
                .txn(2).stmt(1).read("t", "x", 0, 1).read("u", "y", 0).commit()
                .build();
        assertEquals(List.of(), FracturedReads.find(tables, ALL_ALONE));
    }

    @Test
    void anAbortedWriterCannotBeHalfSeen() {
        History h = History.builder()
                .txn(1).stmt(1).update("x", 0).update("y", 0).abort()
                .txn(2).stmt(1).read("x", 0, 1).read("y", 0).commit()
                .build();
        assertEquals(List.of(), FracturedReads.find(h, ALL_ALONE), "G1a is reported elsewhere");
    }
}
