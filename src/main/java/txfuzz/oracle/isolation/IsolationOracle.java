package txfuzz.oracle.isolation;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import txfuzz.exec.Executor;
import txfuzz.exec.SetupFailedException;
import txfuzz.exec.Trace;
import txfuzz.history.Analysis;
import txfuzz.history.Anomaly;
import txfuzz.history.AnomalyFinding;
import txfuzz.history.History;
import txfuzz.history.HistoryJson;
import txfuzz.history.IsolationChecker;
import txfuzz.history.IsolationModel;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Oracle;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;
import txfuzz.dbms.LevelSemantics;
import txfuzz.dbms.Profile;

/**
 * IsoRel's oracle (ISSTA 2025): the run of an instrumented case becomes a row-level history
 * (rowId/wList), whose dependency graph must have no cycle the isolation level proscribes.
 * A proscribed anomaly the engine documents at that level (its profile) is documented
 * behaviour; any other is a bug candidate. Anomalies the level itself permits are not reported.
 */
public final class IsolationOracle implements Oracle {
    public static final String NAME = "isolation";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Verdict judge(TestCase c, Trace trace, Executor executor) throws SQLException, SetupFailedException {
        if (!instrumented(c)) {
            return Verdict.clean(NAME); // nothing to observe: the case has no rowId/wList columns
        }
        History h = HistoryRecorder.record(c, trace);
        Profile profile = executor.target().profile(c.mode());
        return new Verdict(NAME, violations(h, c.isolation(), semantics(profile, c.isolation())));
    }

    /** Generated in gen's instrumented mode: some statement says how its result reveals row versions. */
    static boolean instrumented(TestCase c) {
        return c.transactions().stream().flatMap(t -> t.statements().stream()).anyMatch(s -> s.tracking() != null);
    }

    public static LevelSemantics semantics(Profile profile, IsolationLevel level) {
        return profile.levels().containsKey(level) ? profile.at(level) : new LevelSemantics(Set.of(), false, null);
    }

    /** One violation per anomaly kind the level proscribes (its first witness), judged against the profile. */
    public static List<Violation> violations(History h, IsolationLevel level, LevelSemantics semantics) {
        return judged(h, level, semantics).violations();
    }

    /** The proscribed anomalies of a history, first witness per kind, with their violations (same order). */
    public record Judged(List<AnomalyFinding> findings, List<Violation> violations) {
    }

    public static Judged judged(History h, IsolationLevel level, LevelSemantics semantics) {
        Analysis analysis = IsolationChecker.analyze(h);
        Map<Anomaly, AnomalyFinding> firstPerKind = new LinkedHashMap<>();
        for (AnomalyFinding f : analysis.judge(level, semantics.documentedAnomalies())) {
            if (f.proscribed()) {
                firstPerKind.putIfAbsent(f.anomaly(), f);
            }
        }
        List<Violation> out = new ArrayList<>();
        for (AnomalyFinding f : firstPerKind.values()) {
            out.add(violation(f, analysis.count(f.anomaly()), h, semantics));
        }
        return new Judged(List.copyOf(firstPerKind.values()), out);
    }

    /** "lost update" → "lost-update": violation kinds are single words. */
    public static String kind(Anomaly a) {
        return a.label().replace(' ', '-');
    }

    /**
     * A finding judged at its level as a violation: documented when the profile permits it, a bug
     * candidate otherwise; the history and the cycle's drawings come along as files.
     */
    public static Violation violation(AnomalyFinding f, int count, History h, LevelSemantics semantics) {
        boolean documented = f.permittedByProfile();
        String kind = kind(f.anomaly());
        StringBuilder details = new StringBuilder();
        details.append("The dependency graph of the run's row-level history (IsoRel: rowId/wList instrumentation) has a cycle that ")
                .append(f.level().sql()).append(f.proscribed() ? " proscribes (" : " permits (").append(IsolationModel.reference(f.level()))
                .append(").");
        if (count > 1) {
            details.append(" Witnesses of this kind: ").append(count).append("; the shortest found is shown.");
        }
        details.append("\n\n").append(f.markdown(false)).append('\n');
        details.append("The row-level history is in `history.jsonl` (check it offline with `txfuzz check history.jsonl --level ")
                .append(f.level().name()).append("`); the cycle is drawn in `").append(kind).append(".dot`.\n");
        Map<String, String> files = new LinkedHashMap<>();
        files.put("history.jsonl", HistoryJson.write(h));
        files.put(kind + ".mmd", f.mermaid());
        files.put(kind + ".dot", f.dot());
        return new Violation(NAME, kind, documented ? Classification.DOCUMENTED : Classification.BUG_CANDIDATE,
                f.anomaly().label() + " at " + f.level().sql() + ": " + f.summary(), details.toString(),
                documented ? semantics.anomalyReference() : null, files);
    }
}
