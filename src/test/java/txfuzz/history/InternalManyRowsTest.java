package txfuzz.history;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Internal consistency judged the same whether a transaction touched a few rows (kept in a short list) or many (indexed
 * by a map once the list grows): a read that misses the transaction's own write is internal either way, a read of it
 * is not.
 */
@Tag("unit")
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class InternalManyRowsTest {
    private static List<String> internal(int rows) {
        History.TxnBuilder t = History.builder().txn(1).session(1);
        for (int i = 0; i < rows; i++) {
            t.update("r" + i, 0);
        }
        t.read("r1", 0, 1); // its own write: fine
        t.read("r" + (rows - 2), 0); // misses its own write
        History h = t.commit().build();
        return IsolationChecker.analyze(h).findings().stream().map(f -> f.anomaly() + " " + f.summary()).toList();
    }

    @Test
    void aReadThatMissesItsOwnWriteIsInternalHoweverManyRowsTheTransactionWrote() {
        assertEquals(List.of("INTERNAL internal: T1 read t.r1 as T0 after writing T0,T1"), internal(3));
        assertEquals(List.of("INTERNAL internal: T1 read t.r18 as T0 after writing T0,T1"), internal(20));
    }
}
