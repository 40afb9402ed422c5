package txfuzz.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A history names the first repeated id, or session and seq, in its own order (the check itself runs on sorted keys). */
@Tag("unit")
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class HistoryRepeatsTest {
    private static Transaction txn(long id, int session, int seq) {
        return new Transaction(id, session, seq, Outcome.COMMITTED, List.of(), List.of());
    }

    @Test
    void theFirstRepeatInTheHistorysOrderIsNamed() {
        assertEquals("two transactions with id 5", assertThrows(IllegalArgumentException.class,
                () -> History.of(List.of(txn(9, 1, 0), txn(5, 1, 1), txn(7, 2, 0), txn(5, 3, 0), txn(9, 4, 0)))).getMessage());
        assertEquals("T8: session 2 already has a transaction at seq 0", assertThrows(IllegalArgumentException.class,
                () -> History.of(List.of(txn(9, 1, 0), txn(7, 2, 0), txn(8, 2, 0), txn(9, 1, 0)))).getMessage());
        assertEquals(3, History.of(List.of(txn(9, 1, 0), txn(7, 2, 0), txn(8, 1, 1))).size());
    }
}
