package txfuzz.oracle.pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.gen.pattern.AnomalyPattern;
import txfuzz.gen.pattern.PatternCatalogue;
import txfuzz.history.Anomaly;
import txfuzz.history.AnomalyFinding;
import txfuzz.history.History;
import txfuzz.history.IsolationChecker;

@Tag("unit")
class PatternMatchTest {
    private static AnomalyFinding first(History h, Anomaly kind) {
        return IsolationChecker.analyze(h).findings().stream().filter(f -> f.anomaly() == kind).findFirst().orElseThrow();
    }

    private static List<String> names(List<AnomalyPattern> ps) {
        return ps.stream().map(AnomalyPattern::name).toList();
    }

    @Test
    void aLostUpdateOnAnyRowOfAnyTableIsTheLostUpdatePattern() {
        History h = History.builder()
                .txn(5).read("acct", "r7", 0).update("acct", "r7", 0, 6).commit()
                .txn(6).update("acct", "r7", 0).commit()
                .build();
        AnomalyFinding f = first(h, Anomaly.LOST_UPDATE);
        assertEquals("rw x0@t0 · ww x0@t0", PatternMatch.structure(f.cycle()));
        List<AnomalyPattern> m = PatternMatch.bundled().matches(f);
        assertEquals("lost-update", m.get(0).name(), names(m).toString());
        assertTrue(PatternMatch.describe(m).startsWith("the catalogue's lost-update pattern R1[x0] W2[x1] C2 W1[x2] C1"), PatternMatch.describe(m));
    }

    @Test
    void aReadSkewAcrossTwoTablesIsTheReadSkewPatternButNotANonRepeatableRead() {
        History h = History.builder()
                .txn(1).read("a", "r1", 0).read("b", "r2", 0, 2).commit()
                .txn(2).update("a", "r1", 0).update("b", "r2", 0).commit()
                .build();
        AnomalyFinding f = first(h, Anomaly.READ_SKEW);
        List<String> m = names(PatternMatch.bundled().matches(f));
        assertTrue(m.contains("read-skew"), m.toString());
        assertTrue(!m.contains("non-repeatable-read"), m.toString());
    }

    @Test
    void everyPatternWithACycleMatchesItselfInBothLayouts() {
        for (AnomalyPattern p : PatternCatalogue.bundled().all()) {
            for (PatternSemantics.Layout layout : PatternSemantics.Layout.values()) {
                PatternSemantics s = PatternSemantics.of(p, layout);
                s.witness().ifPresent(w -> assertTrue(PatternMatch.bundled().matches(w).contains(p), p.name() + " " + layout));
            }
        }
    }

    @Test
    void anAnomalyThatIsNoCycleMatchesNothing() {
        History h = History.builder()
                .txn(1).update("r1", 0).abort()
                .txn(2).read("r1", 0, 1).commit()
                .build();
        assertEquals(List.of(), PatternMatch.bundled().matches(first(h, Anomaly.G1A)));
    }
}
