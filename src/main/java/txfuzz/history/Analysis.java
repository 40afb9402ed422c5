package txfuzz.history;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import txfuzz.model.IsolationLevel;

/**
 * Everything the checker found in one history, independent of any isolation level: the
 * dependency graph, the anomalies (with witnesses and explanations), and what was observed at
 * all. {@link #judge} applies a level and a profile.
 */
public final class Analysis {
    private final DependencyGraph graph;
    private final List<AnomalyFinding> findings;
    private final Map<Anomaly, Integer> counts;
    private final List<String> warnings;
    private final int exemptedCycles;

    Analysis(DependencyGraph graph, List<AnomalyFinding> findings, Map<Anomaly, Integer> counts, List<String> warnings, int exemptedCycles) {
        this.graph = graph;
        List<AnomalyFinding> sorted = new ArrayList<>(findings);
        sorted.sort(Comparator.comparingInt(f -> f.anomaly().ordinal()));
        this.findings = List.copyOf(sorted);
        this.counts = Collections.unmodifiableMap(new EnumMap<>(counts.isEmpty() ? new EnumMap<>(Anomaly.class) : counts));
        this.warnings = List.copyOf(warnings);
        this.exemptedCycles = exemptedCycles;
    }

    /** This analysis with more findings (checks that need more than the history, e.g. {@link FracturedReads}). */
    public Analysis with(List<AnomalyFinding> more) {
        if (more.isEmpty()) {
            return this;
        }
        List<AnomalyFinding> all = new ArrayList<>(findings);
        all.addAll(more);
        Map<Anomaly, Integer> c = new EnumMap<>(Anomaly.class);
        c.putAll(counts);
        more.forEach(f -> c.merge(f.anomaly(), 1, Integer::sum));
        return new Analysis(graph, all, c, warnings, exemptedCycles);
    }

    public DependencyGraph graph() {
        return graph;
    }

    /** The anomalies found, most severe kinds first; at most a few per kind (see {@link #count}). */
    public List<AnomalyFinding> findings() {
        return findings;
    }

    /**
     * How many times a kind was found: for direct anomalies every occurrence, for cycles the
     * number of witnesses reported (one per strongly connected component at most, capped).
     */
    public int count(Anomaly a) {
        return counts.getOrDefault(a, 0);
    }

    /** The kinds observed at all, with the general kinds their named forms imply (lost update ⇒ G-single). */
    public Set<Anomaly> observed() {
        EnumSet<Anomaly> s = EnumSet.noneOf(Anomaly.class);
        for (AnomalyFinding f : findings) {
            for (Anomaly a = f.anomaly(); a != null; a = a.parent()) {
                s.add(a);
            }
        }
        return s;
    }

    /** Bounds that were hit (the analysis may then be incomplete). */
    public List<String> warnings() {
        return warnings;
    }

    /** Two-transaction cycles not reported because IsoRel §3.4 exempts them (closed by a locking read). */
    public int exemptedCycles() {
        return exemptedCycles;
    }

    /** Every finding, judged against {@code level} and the profile's {@code permitted} kinds. */
    public List<AnomalyFinding> judge(IsolationLevel level, Set<Anomaly> permitted) {
        return judge(level, Documented.anyShape(permitted));
    }

    /** Every finding, judged against {@code level} and what the profile documents (each kind in its shape). */
    public List<AnomalyFinding> judge(IsolationLevel level, Documented permitted) {
        List<AnomalyFinding> out = new ArrayList<>(findings.size());
        for (AnomalyFinding f : findings) {
            out.add(f.judged(level, permitted));
        }
        return out;
    }
}
