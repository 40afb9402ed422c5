package txfuzz.oracle.isolation;

import java.util.ArrayList;
import java.util.List;
import txfuzz.history.Analysis;
import txfuzz.history.Anomaly;
import txfuzz.history.AnomalyFinding;
import txfuzz.history.Documented;
import txfuzz.history.History;
import txfuzz.model.IsolationLevel;
import txfuzz.oracle.HistoryJudge;
import txfuzz.oracle.Violation;

/** The isolation oracle's judgement of a row-level history on its own: what txfuzz check and isolation-table ask of it. */
final class AnomalyJudge implements HistoryJudge {
    @Override
    public List<Violation> observe(History h, IsolationLevel level, Documented documented, String reference) {
        return IsolationOracle.observe(h, level, documented, reference);
    }

    @Override
    public List<Violation> everyWitness(Analysis analysis, History h, IsolationLevel level, Documented documented, String reference,
                                        String historyFile) {
        return IsolationOracle.everyWitness(analysis, h, level, documented, reference, historyFile);
    }

    @Override
    public boolean proscribed(Violation v) {
        return IsolationOracle.proscribed(v);
    }

    @Override
    public String kind(Anomaly a) {
        return IsolationOracle.kind(a);
    }

    /** The cycle as plain text, the finding's explanation, and where the engine documents it. */
    @Override
    public List<String> explanation(Violation v) {
        if (!(v.evidence() instanceof IsolationOracle.Witnessed w)) {
            return List.of();
        }
        AnomalyFinding f = w.finding();
        List<String> lines = new ArrayList<>();
        if (!f.plainCycle().isEmpty()) {
            lines.add("cycle: " + f.plainCycle());
        }
        f.explanation().lines().forEach(lines::add);
        if (v.reference() != null) {
            lines.add((v.classification() == txfuzz.oracle.Classification.NOT_PROMISED ? "why no promise is broken: " : "documented: ")
                    + v.reference());
        }
        return lines;
    }
}
