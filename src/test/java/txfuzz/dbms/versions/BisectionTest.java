package txfuzz.dbms.versions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The search bisect and the behaviour-change boundary share, over made-up verdicts (no engine: what it searches is the caller's). */
@Tag("unit")
class BisectionTest {
    private static final List<String> VERSIONS = List.of("1", "2", "3", "4", "5", "6", "7", "8", "9");

    @Test
    void halvingFindsTheOneChangeBetweenNeighbours() {
        Function<String, String> replay = v -> Integer.parseInt(v) >= 6 ? "new" : "old";
        Map<String, String> seen = Bisection.halve(VERSIONS, new LinkedHashMap<>(), replay, s -> s);
        assertTrue(seen.size() < VERSIONS.size(), "not every version replayed: " + seen);
        List<Bisection.Change> changes = Bisection.changes(VERSIONS, seen, s -> s);
        assertEquals(List.of(new Bisection.Change("5", "6", List.of(), true)), changes, seen.toString());
    }

    @Test
    void endsGivenAreNotReplayedAndAnUndecidedVersionStopsTheSearch() {
        Map<String, String> seen = new LinkedHashMap<>();
        seen.put("1", "old");
        seen.put("9", "new");
        Function<String, String> replay = v -> {
            assertFalse(v.equals("1") || v.equals("9"), "an end was given");
            return v.equals("5") ? "flaky" : "old";
        };
        Bisection.halve(VERSIONS, seen, replay, s -> s.equals("flaky") ? null : s);
        assertEquals(List.of("1", "9", "5"), List.copyOf(seen.keySet()), "stopped at the undecided middle");
        List<Bisection.Change> changes = Bisection.changes(VERSIONS, seen, s -> s.equals("flaky") ? null : s);
        assertEquals(1, changes.size());
        assertEquals(List.of("2", "3", "4", "5", "6", "7", "8"), changes.get(0).between());
        assertFalse(changes.get(0).betweenTried(), "most were not replayed");
    }
}
