package txfuzz.gen.pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.gen.Generation;
import txfuzz.model.IsolationLevel;

@Tag("unit")
class PatternRotationTest {
    private final List<AnomalyPattern> all = PatternCatalogue.bundled().all();

    @Test
    void aLevelGetsEveryPatternItProscribesAndEveryFifthCaseIsAControl() {
        PatternRotation r = new PatternRotation(all);
        IsolationLevel rr = IsolationLevel.REPEATABLE_READ;
        List<AnomalyPattern> targets = PatternCatalogue.proscribedAt(all, rr);
        List<AnomalyPattern> controls = PatternCatalogue.permittedAt(all, rr);
        assertFalse(controls.isEmpty(), "the catalogue has patterns RR permits (phantom-insert, aptrans-36 …)");
        Set<String> seen = new HashSet<>();
        List<AnomalyPattern> picks = new ArrayList<>();
        for (int k = 0; k < 5 * targets.size(); k++) {
            AnomalyPattern p = r.pick(rr, k);
            picks.add(p);
            seen.add(p.name());
            assertEquals(k % PatternRotation.CONTROL_EVERY == PatternRotation.CONTROL_EVERY - 1, !p.proscribedAt(rr), "case " + k + ": " + p);
        }
        targets.forEach(t -> assertTrue(seen.contains(t.name()), t.name()));
        assertEquals(picks, rotate(r, rr, picks.size()), "the same k gives the same pattern");
    }

    @Test
    void onlyControlsOrOnlyTargetsAreRotatedAlone() {
        AnomalyPattern control = PatternCatalogue.bundled().byName("aptrans-2").orElseThrow();
        AnomalyPattern lost = PatternCatalogue.bundled().byName("lost-update").orElseThrow();
        assertEquals(control, new PatternRotation(List.of(control)).pick(IsolationLevel.SERIALIZABLE, 3));
        assertEquals(lost, new PatternRotation(List.of(lost)).pick(IsolationLevel.SERIALIZABLE, 4));
        assertEquals(lost, new PatternRotation(List.of(lost)).pick(IsolationLevel.READ_COMMITTED, 0), "a control where the level permits it");
    }

    @Test
    void mixedGenerationAlternatesRandomAndPatternCases() {
        Generation mixed = Generation.parse("mixed", "lost-update,write-skew");
        assertTrue(mixed.patternFor(IsolationLevel.SERIALIZABLE, 0).isEmpty());
        assertTrue(mixed.patternFor(IsolationLevel.SERIALIZABLE, 1).isPresent());
        assertTrue(Generation.parse("random", null).patternFor(IsolationLevel.SERIALIZABLE, 1).isEmpty());
        assertEquals("unknown generator 'smart': random, pattern or mixed",
                org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> Generation.parse("smart", null)).getMessage());
    }

    private static List<AnomalyPattern> rotate(PatternRotation r, IsolationLevel level, int n) {
        List<AnomalyPattern> out = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            out.add(r.pick(level, k));
        }
        return out;
    }
}
