package txfuzz.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import txfuzz.dbms.DatabaseCountingTarget;
import txfuzz.dbms.h2.H2Target;
import txfuzz.model.TestCase;

/** A serial replay asked for again is the engine's first answer; a concurrent case runs every time. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SerialRunsTest {
    private static Cases twoWriters() {
        return Cases.on("h2").table("t").setup("CREATE TABLE t (k INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)")
                .txn("UPDATE t SET v = v + 1 WHERE k = 1").txn("UPDATE t SET v = v * 10 WHERE k = 1");
    }

    @Test
    void aSerialCaseAskedForAgainIsNotRunAgain() throws Exception {
        DatabaseCountingTarget h2 = new DatabaseCountingTarget(new H2Target());
        try (h2; Executor ex = new Executor(h2, ExecutorConfig.defaults())) {
            TestCase serial = twoWriters().order(1, 1, 1, 2, 2, 2);
            Trace first = ex.runSerial(serial);
            assertSame(first, ex.runSerial(twoWriters().order(1, 1, 1, 2, 2, 2)), "an equal case is the same replay");
            assertEquals(1, h2.databases());
            assertEquals(List.of(List.of("1", "10")), first.finalState().tables().get("t"));

            ex.forgetSerialRuns();
            Trace afresh = ex.runSerial(serial);
            assertNotSame(first, afresh);
            assertEquals(first, afresh);
            assertEquals(2, h2.databases());
        }
    }

    @Test
    void aConcurrentCaseIsNeverTakenForASerialOne() throws Exception {
        try (H2Target h2 = new H2Target(); Executor ex = new Executor(h2, ExecutorConfig.defaults())) {
            TestCase interleaved = twoWriters().order(1, 2, 1, 2, 1, 2);
            assertThrows(IllegalArgumentException.class, () -> ex.runSerial(interleaved));
        }
    }

    @Test
    void serialMeansEachTransactionsStatementsTogether() {
        assertTrue(Executor.isSerial(List.of(1, 1, 2, 2, 3)));
        assertTrue(Executor.isSerial(List.of(3, 1, 1, 2)));
        assertTrue(Executor.isSerial(List.of()));
        assertFalse(Executor.isSerial(List.of(1, 2, 1)));
        assertFalse(Executor.isSerial(List.of(1, 1, 2, 3, 2)));
    }
}
