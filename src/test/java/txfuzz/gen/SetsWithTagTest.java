package txfuzz.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Dialect;
import txfuzz.dbms.Targets;

/** Where the engine does not write unchanged rows (InnoDB), the tag goes only to rows whose values change. */
class SetsWithTagTest {
    private static final Dialect MARIADB = Targets.engine("mariadb").dialect();
    private static final Dialect H2 = Targets.engine("h2").dialect();

    @Test
    void mariadbTagsOnlyChangedRowsComparingOldValuesFirst() {
        List<String> sets = List.of("c1 = (t0.c1 + 1)", "c2 = 'a'");
        assertEquals("wl = IF(c1 <=> ((t0.c1 + 1)) AND c2 <=> ('a'), wl, CONCAT(wl, ',1.2')), c1 = (t0.c1 + 1), c2 = 'a'",
                Instrumentation.setsWithTag(MARIADB, sets, "1.2"));
        assertTrue(Instrumentation.tagsOnlyChangedRows(MARIADB, sets));
    }

    @Test
    void anExpressionReadingAColumnAssignedBeforeItTagsEveryRow() {
        // MySQL's SET is left to right: c2's expression sees the new c1, the comparison would see the old one
        List<String> sets = List.of("c1 = 5", "c2 = (t0.c1 * 2)");
        assertFalse(Instrumentation.tagsOnlyChangedRows(MARIADB, sets));
        assertEquals("c1 = 5, c2 = (t0.c1 * 2), wl = CONCAT(wl, ',1.2')", Instrumentation.setsWithTag(MARIADB, sets, "1.2"));
    }

    @Test
    void enginesThatWriteUnchangedRowsTagEveryRow() {
        List<String> sets = List.of("c1 = 5");
        assertFalse(Instrumentation.tagsOnlyChangedRows(H2, sets));
        assertEquals("c1 = 5, wl = wl || ',1.2'", Instrumentation.setsWithTag(H2, sets, "1.2"));
    }
}
