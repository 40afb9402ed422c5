package txfuzz.gen.pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.model.IsolationLevel;

@Tag("unit")
class PatternCatalogueTest {
    @Test
    void theBundledCatalogueHoldsApTransTablesAndTheAdditions() {
        PatternCatalogue c = PatternCatalogue.bundled();
        for (int i = 1; i <= 40; i++) {
            assertTrue(c.byName("aptrans-" + i).isPresent(), "Table 3 #" + i);
        }
        for (String n : List.of("dirty-write", "dirty-read", "lost-update", "non-repeatable-read", "read-skew", "write-skew",
                "dirty-write-abort", "phantom-insert", "predicate-write-skew", "read-skew-3", "write-skew-3")) {
            assertTrue(c.byName(n).isPresent(), n);
        }
        AnomalyPattern lost = c.byName("lost-update").orElseThrow();
        assertEquals("R1[x0] W2[x1] C2 W1[x2] C1", lost.text());
        assertEquals(List.of(1, 2, 2, 1, 1), lost.schedule());
        assertEquals(Set.of(IsolationLevel.REPEATABLE_READ, IsolationLevel.SNAPSHOT, IsolationLevel.SERIALIZABLE), lost.proscribedAt());
        assertEquals(List.of("x"), lost.items());
        AnomalyPattern phantom = c.byName("phantom-insert").orElseThrow();
        assertEquals(Set.of("x"), phantom.insertedItems());
        assertEquals(PatternOp.Type.PREDICATE_READ, phantom.ops().get(0).type());
        assertEquals(3, c.byName("write-skew-3").orElseThrow().transactions().size());
    }

    @Test
    void aListOfNamesSelectsThemAndAnUnknownNameIsNamed() {
        PatternCatalogue c = PatternCatalogue.bundled();
        assertEquals(2, c.select("lost-update, write-skew").size());
        assertEquals(c.all().size(), c.select("all").size());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.select("lost-update,lost-updat"));
        assertTrue(e.getMessage().contains("unknown pattern lost-updat"), e.getMessage());
    }

    @Test
    void malformedPatternsAreRefusedWithTheReason() {
        assertRefused("x | R1[x0] W2[x2] C2 C1 | RR |", "should install x1");
        assertRefused("x | R1[x0] W2[x1] C2 | RR |", "T1 neither commits");
        assertRefused("x | R1[x0] W1[x1] C1 | RR |", "two transactions");
        assertRefused("x | R1[x0] W2[x1] C2 W2[x2] C1 | RR |", "after T2 ended");
        assertRefused("x | R1[x1] W2[x1] C2 C1 | RR |", "before it is written");
        assertRefused("x | R1[x0] W2[x1] C2 C1 | XX |", "not an isolation level");
        assertRefused("x | R1[x0] Q2[x1] C2 C1 | RR |", "not an operation");
        assertRefused("x | R1[y0] I2[y1] C2 C1 | RR |", "read it by predicate");
        assertRefused("x | R1[x0] C1 R2[x0] C2 | RR |", "needs a write");
        assertRefused("a | R1[x0] W2[x1] C2 C1 | RR |\na | R1[x0] W2[x1] C2 C1 | RR |", "a second pattern named a");
        assertRefused("x | W1[x1] |", "line 1");
    }

    private static void assertRefused(String catalogue, String reason) {
        PatternFormatException e = assertThrows(PatternFormatException.class, () -> PatternCatalogue.parse(catalogue));
        assertTrue(e.getMessage().contains(reason), e.getMessage());
    }
}
