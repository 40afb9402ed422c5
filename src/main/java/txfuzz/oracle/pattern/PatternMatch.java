package txfuzz.oracle.pattern;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import txfuzz.gen.pattern.AnomalyPattern;
import txfuzz.gen.pattern.PatternCatalogue;
import txfuzz.history.AnomalyFinding;
import txfuzz.history.Dep;

/**
 * Names the catalogue patterns an anomaly's cycle is an instance of: those whose witness cycle
 * ({@link PatternSemantics#witness()}) has the same dependency structure — the edge types in cycle
 * order up to rotation, which edges are about the same row, which rows share a table, and which
 * edges go through a predicate — whatever the rows, tables and transactions are called. A lost
 * update is "rw on a row, then ww on that row"; a read skew "rw on a row, then wr on another".
 * Each pattern is matched with its items in one table and in a table each, so a read skew across
 * two tables is still the read-skew pattern. Locking reads are left out: a run's writes read
 * the version they replace, which the pattern does not spell out.
 */
public final class PatternMatch {
    private final Map<String, List<AnomalyPattern>> byStructure;

    private PatternMatch(Map<String, List<AnomalyPattern>> byStructure) {
        this.byStructure = byStructure;
    }

    private static final class Bundled {
        static final PatternMatch INSTANCE = of(PatternCatalogue.bundled().all());
    }

    /** Matching against the catalogue that ships with txfuzz (its semantics derived once). */
    public static PatternMatch bundled() {
        return Bundled.INSTANCE;
    }

    public static PatternMatch of(List<AnomalyPattern> patterns) {
        Map<String, List<AnomalyPattern>> out = new HashMap<>();
        for (AnomalyPattern p : patterns) {
            Set<String> keys = new LinkedHashSet<>();
            for (PatternSemantics.Layout layout : PatternSemantics.Layout.values()) {
                PatternSemantics.of(p, layout).witness().ifPresent(w -> keys.add(structure(w.cycle())));
            }
            for (String k : keys) {
                out.computeIfAbsent(k, x -> new ArrayList<>()).add(p);
            }
        }
        return new PatternMatch(out);
    }

    /** The patterns whose witness cycle has the finding's structure, in catalogue order; empty when it is no cycle or none does. */
    public List<AnomalyPattern> matches(AnomalyFinding f) {
        if (f.cycle().isEmpty()) {
            return List.of();
        }
        return byStructure.getOrDefault(structure(f.cycle()), List.of());
    }

    /**
     * A cycle's structure as text, the same for every rotation and every renaming: per edge its type,
     * the row it is about and that row's table as numbers in order of first appearance, and "P" for a
     * predicate dependency ("rw x0@t0 · ww x0@t0"); the smallest over the rotations.
     */
    public static String structure(List<Dep> cycle) {
        String smallest = null;
        for (int start = 0; start < cycle.size(); start++) {
            Map<String, Integer> rows = new LinkedHashMap<>();
            Map<String, Integer> tables = new LinkedHashMap<>();
            List<String> edges = new ArrayList<>();
            for (int i = 0; i < cycle.size(); i++) {
                Dep d = cycle.get((start + i) % cycle.size());
                StringBuilder e = new StringBuilder(d.type().label());
                if (d.row() != null) {
                    int row = rows.computeIfAbsent(d.row().name(), k -> rows.size());
                    int table = tables.computeIfAbsent(d.row().table(), k -> tables.size());
                    e.append(" x").append(row).append("@t").append(table).append(d.predicate() ? " P" : "");
                }
                edges.add(e.toString());
            }
            String text = String.join(" · ", edges);
            if (smallest == null || text.compareTo(smallest) < 0) {
                smallest = text;
            }
        }
        return smallest == null ? "" : smallest;
    }

    /** "the catalogue's lost-update pattern R1[x0] W2[x1] C2 W1[x2] C1" (and how many others match), or empty. */
    public static String describe(List<AnomalyPattern> matched) {
        if (matched.isEmpty()) {
            return "";
        }
        AnomalyPattern first = matched.get(0);
        // a summary is one line: name a few of the patterns that share the structure, count the rest
        List<String> rest = matched.subList(1, matched.size()).stream().map(AnomalyPattern::name).toList();
        String others = rest.isEmpty() ? "" : " (and " + rest.size() + " more: " + String.join(", ", rest.subList(0, Math.min(3, rest.size())))
                + (rest.size() > 3 ? ", …" : "") + ")";
        return "the catalogue's " + first.name() + " pattern " + first.text() + others;
    }
}
