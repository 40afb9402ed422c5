package txfuzz.history;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import txfuzz.model.IsolationLevel;

/**
 * The isolation checker (IsoRel, ISSTA 2025): history → dependency graph (Algorithm 1 with the
 * prefix rule) → anomalies (Adya/Elle taxonomy, §3.4's locking-read exception) → judged against
 * an isolation level ({@link IsolationModel}) and a target's documented behaviour.
 *
 * <pre>{@code
 * List<AnomalyFinding> fs = IsolationChecker.check(history, IsolationLevel.REPEATABLE_READ, profilePermits);
 * fs.stream().filter(AnomalyFinding::bugCandidate) ...
 * }</pre>
 */
public final class IsolationChecker {
    private IsolationChecker() {
    }

    /** Level-independent analysis; judge it against several levels without recomputing. */
    public static Analysis analyze(History h) {
        return analyze(h, DependencyGraph.Limits.DEFAULT);
    }

    static Analysis analyze(History h, DependencyGraph.Limits limits) {
        DependencyGraph g = DependencyGraph.infer(h, limits);
        List<AnomalyFinding> findings = new ArrayList<>(g.directFindings());
        Map<Anomaly, Integer> counts = new EnumMap<>(Anomaly.class);
        counts.putAll(g.counts());
        List<String> warnings = new ArrayList<>(g.warnings());
        CycleSearch search = new CycleSearch(g, limits);
        Map<Anomaly, Integer> found = new EnumMap<>(Anomaly.class);
        Explainer ex = g.explainer();
        for (CycleSearch.Witness w : search.searchAll(found)) {
            List<Long> txns = new ArrayList<>();
            for (Dep d : w.cycle()) {
                txns.add(d.from());
            }
            String line = Explainer.cycleLine(w.cycle());
            List<Explainer.Arrow> arrows = Explainer.arrows(w.cycle());
            findings.add(new AnomalyFinding(w.anomaly(), txns, w.cycle(), w.viaSession(),
                    w.anomaly().label() + (w.viaSession() ? " (via session order)" : "") + ": " + line,
                    ex.explainCycle(w.anomaly(), w.cycle()), Explainer.mermaid(arrows, Set.of()), Explainer.dot(w.anomaly().label(), arrows, Set.of()),
                    null, false, false));
        }
        found.forEach((a, c) -> counts.merge(a, c, Integer::sum));
        warnings.addAll(new java.util.LinkedHashSet<>(search.warnings));
        return new Analysis(g, findings, counts, warnings, search.exempted.size());
    }

    /** All findings in {@code h}, judged against {@code level} and the kinds the target's profile permits there. */
    public static List<AnomalyFinding> check(History h, IsolationLevel level, Set<Anomaly> permittedByProfile) {
        return analyze(h).judge(level, permittedByProfile);
    }

    /** All findings in {@code h}, judged against {@code level} and what the target's profile documents there, each kind in its shape. */
    public static List<AnomalyFinding> check(History h, IsolationLevel level, Documented documented) {
        return analyze(h).judge(level, documented);
    }

    /** The anomaly kinds present in {@code h} at all (for the isolation table). */
    public static Set<Anomaly> observed(History h) {
        return analyze(h).observed();
    }
}
