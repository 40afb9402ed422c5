package txfuzz.dbms.versions;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The search over an engine's versions that {@code bisect} and the diff oracle's behaviour-change boundary share:
 * the ends decided first, then the versions between two ends that disagree halved (one change assumed). What a
 * version "says" is the caller's: {@code side} maps a replay to the value compared (null when the replay cannot
 * decide, e.g. flaky or cannot run).
 */
public final class Bisection {
    private Bisection() {
    }

    /**
     * Halves {@code versions} (oldest first) between its ends: replays each end not in {@code seen} yet, then, while
     * the ends decide differently, the version halfway between. Adds every replay to {@code seen} (in the order made)
     * and returns it; stops at the first version that cannot decide.
     */
    public static <V> Map<String, V> halve(List<String> versions, Map<String, V> seen, Function<String, V> replay, Function<V, Object> side) {
        int lo = 0;
        int hi = versions.size() - 1;
        seen.computeIfAbsent(versions.get(lo), replay);
        seen.computeIfAbsent(versions.get(hi), replay);
        while (hi - lo > 1) {
            Object low = side.apply(seen.get(versions.get(lo)));
            Object high = side.apply(seen.get(versions.get(hi)));
            if (low == null || high == null || low.equals(high)) {
                break;
            }
            int mid = (lo + hi) / 2;
            V r = seen.computeIfAbsent(versions.get(mid), replay);
            Object here = side.apply(r);
            if (here == null) {
                break; // no side can be chosen: the table shows where it stopped
            }
            if (here.equals(low)) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return seen;
    }

    /** Every version replayed, in order. */
    public static <V> Map<String, V> all(List<String> versions, Function<String, V> replay) {
        Map<String, V> seen = new LinkedHashMap<>();
        versions.forEach(v -> seen.put(v, replay.apply(v)));
        return seen;
    }

    /**
     * One change between two neighbouring decided versions.
     *
     * @param before       the last version that decided the old way
     * @param after        the first version that decided the new way
     * @param between      the versions listed between them
     * @param betweenTried whether those were all replayed (and could not decide); else some were not replayed
     */
    public record Change(String before, String after, List<String> between, boolean betweenTried) {
        public Change {
            between = List.copyOf(between);
        }
    }

    /** The changes between neighbouring decided versions of {@code versions} (oldest first), as {@code side} decides them. */
    public static <V> List<Change> changes(List<String> versions, Map<String, V> seen, Function<V, Object> side) {
        List<Change> out = new ArrayList<>();
        String previous = null;
        for (String v : versions) {
            V r = seen.get(v);
            if (r == null || side.apply(r) == null) {
                continue;
            }
            if (previous != null && !Objects.equals(side.apply(seen.get(previous)), side.apply(r))) {
                List<String> between = versions.subList(versions.indexOf(previous) + 1, versions.indexOf(v));
                out.add(new Change(previous, v, between, seen.keySet().containsAll(between)));
            }
            previous = v;
        }
        return out;
    }
}
