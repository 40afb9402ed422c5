package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.Promise;

/** Every name a profile may use is bound to one mechanism class that answers to it (issue 33 item 6). */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MechanismsTest {
    @Test
    void everyDeviationHasItsOwnMechanismWithItsWordsPromiseAndControl() {
        for (Deviation d : Deviation.values()) {
            Mechanism m = Mechanisms.of(d);
            assertEquals(d, m.name(), m.getClass().getSimpleName());
            assertFalse(m.negativeControl().isBlank(), d.toString());
            for (String control : m.negativeControl().split(",\\s*")) {
                assertTrue(testClassExists(control), d + " names its negative control " + control + ", which is no test class");
            }
            assertTrue(m.readPoints().contains(Deviation.ReadPoint.SUBMITTED), d.toString());
        }
        assertEquals(Deviation.values().length, java.util.Arrays.stream(Deviation.values()).map(d -> Mechanisms.of(d).getClass()).distinct().count());
    }

    private static boolean testClassExists(String simpleName) {
        try (var files = java.nio.file.Files.walk(java.nio.file.Path.of("src", "test", "java"))) {
            return files.anyMatch(f -> f.getFileName().toString().equals(simpleName + ".java"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void onlyStatementAndDirtyVisibilityTellReadPointsApart() {
        for (Deviation d : Deviation.values()) {
            boolean many = Mechanisms.of(d).readPoints().size() > 1;
            assertEquals(d == Deviation.STATEMENT_VISIBILITY || d == Deviation.DIRTY_VISIBILITY, many, d.toString());
        }
        assertEquals(List.of(Deviation.ReadPoint.values()), Mechanisms.of(Deviation.DIRTY_VISIBILITY).readPoints());
    }

    @Test
    void theStandardPromiseEachKeeps() {
        assertEquals(Promise.READ_UNCOMMITTED, Mechanisms.of(Deviation.DIRTY_VISIBILITY).keeps());
        assertEquals(Promise.READ_COMMITTED, Mechanisms.of(Deviation.LOCKING_SCAN_IN_KEY_ORDER).keeps());
        assertEquals(Promise.SNAPSHOT_ISOLATION, Mechanisms.of(Deviation.TRANSACTION_SNAPSHOT).keeps());
        assertEquals(Promise.SERIALIZABLE, Mechanisms.of(Deviation.SOME_SERIAL_ORDER).keeps());
    }
}
