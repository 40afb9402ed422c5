package txfuzz.oracle.pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.gen.pattern.AnomalyPattern;
import txfuzz.gen.pattern.PatternCatalogue;
import txfuzz.history.Anomaly;
import txfuzz.model.IsolationLevel;

@Tag("unit")
class PatternSemanticsTest {
    private static AnomalyPattern named(String name) {
        return PatternCatalogue.bundled().byName(name).orElseThrow();
    }

    /** The catalogue's levels column is what the derivation says, for every pattern (patterns.txt's notes say where APTrans differs). */
    @Test
    void everyCataloguePatternDeclaresTheLevelsItsSemanticsDerive() {
        List<String> wrong = new ArrayList<>();
        for (AnomalyPattern p : PatternCatalogue.bundled().all()) {
            PatternSemantics s = PatternSemantics.of(p);
            if (!s.proscribedAt().equals(p.proscribedAt())) {
                wrong.add(p.name() + ": declared " + codes(p.proscribedAt()) + ", derived " + codes(s.proscribedAt()) + " from " + s.anomalies()
                        + " " + s.phenomena() + " " + s.shape());
            }
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }

    /** Spreading the items over tables changes the cycle's shape, never what is proscribed. */
    @Test
    void itemsInTablesOfTheirOwnAreProscribedAlike() {
        for (AnomalyPattern p : PatternCatalogue.bundled().all()) {
            PatternSemantics one = PatternSemantics.of(p);
            PatternSemantics many = PatternSemantics.of(p, PatternSemantics.Layout.TABLE_PER_ITEM);
            assertEquals(one.proscribedAt(), many.proscribedAt(), p.name());
        }
    }

    @Test
    void theLostUpdateIsARwWwCycleOnOneRow() {
        PatternSemantics s = PatternSemantics.of(named("lost-update"));
        assertTrue(s.anomalies().contains(Anomaly.LOST_UPDATE), s.anomalies().toString());
        assertEquals(Set.of(), s.phenomena());
        assertEquals("rw ww · one table", s.shape());
        assertEquals(Anomaly.LOST_UPDATE, s.witness().orElseThrow().anomaly());
    }

    @Test
    void orderAloneShowsDirtyWritesDirtyReadsAndReadsPastTheSnapshot() {
        assertTrue(PatternSemantics.of(named("dirty-write")).phenomena().contains(SchedulePhenomenon.DIRTY_WRITE));
        assertTrue(PatternSemantics.of(named("aptrans-1")).phenomena().contains(SchedulePhenomenon.DIRTY_READ));
        PatternSemantics late = PatternSemantics.of(named("aptrans-36"));
        assertEquals(Set.of(SchedulePhenomenon.NOT_A_SNAPSHOT), late.phenomena());
        assertEquals(Set.of(), late.anomalies());
        assertEquals(Set.of(IsolationLevel.SNAPSHOT), late.proscribedAt());
    }

    @Test
    void anAbortedWriterLeavesNothingToLose() {
        PatternSemantics s = PatternSemantics.of(named("aborted-lost-update"));
        assertEquals(Set.of(), s.anomalies());
        assertEquals(Set.of(), s.proscribedAt());
    }

    private static String codes(Set<IsolationLevel> levels) {
        return levels.isEmpty() ? "none" : String.join(" ", levels.stream().map(IsolationLevel::shortName).toList());
    }
}
