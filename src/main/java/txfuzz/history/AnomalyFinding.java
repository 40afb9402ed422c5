package txfuzz.history;

import java.util.List;
import java.util.Set;
import txfuzz.model.IsolationLevel;

/**
 * One anomaly in a history.
 *
 * @param anomaly            its most specific kind
 * @param transactions       the transactions involved (the cycle's, in order, or the reader and
 *                           writers of a non-cycle anomaly)
 * @param cycle              the witness cycle (a shortest one found), empty for non-cycle anomalies
 * @param viaSessionOrder    the cycle needs a session-order edge (Elle's "-process" variants)
 * @param summary            one line, e.g. "lost update: T3 -rw t.r1-> T4 -ww t.r1-> T3"
 * @param explanation        step by step, in Elle's style, quoting the statements
 * @param mermaid            a Mermaid flowchart of the cycle
 * @param dot                the same as Graphviz DOT
 * @param level              the level it was judged against, or null when not judged yet
 * @param proscribed         that level proscribes this kind ({@link IsolationModel})
 * @param permittedByProfile the target's profile documents it as permitted at that level
 */
public record AnomalyFinding(Anomaly anomaly, List<Long> transactions, List<Dep> cycle, boolean viaSessionOrder, String summary,
                             String explanation, String mermaid, String dot, IsolationLevel level, boolean proscribed,
                             boolean permittedByProfile) {
    public AnomalyFinding {
        transactions = List.copyOf(transactions);
        cycle = List.copyOf(cycle);
    }

    /** Proscribed by the level and not documented by the engine: worth a developer's time. */
    public boolean bugCandidate() {
        return proscribed && !permittedByProfile;
    }

    /** Judged against {@code l} and kinds the profile documents in any shape. */
    public AnomalyFinding judged(IsolationLevel l, Set<Anomaly> permitted) {
        return judged(l, Documented.anyShape(permitted));
    }

    /** Judged against {@code l} and what the profile documents: a documented kind covers this finding only in its documented shape. */
    public AnomalyFinding judged(IsolationLevel l, Documented documented) {
        return new AnomalyFinding(anomaly, transactions, cycle, viaSessionOrder, summary, explanation, mermaid, dot, l,
                IsolationModel.proscribes(l, anomaly), documented.covers(anomaly, cycle));
    }

    /**
     * What the cycle is, whatever rows and statements made it: its dependency types in cycle order,
     * rotated to start where the sequence is smallest (a cycle has no first edge), and whether its
     * rows are of one table or several — e.g. "rw wr · several tables" for a read skew across tables.
     * "no cycle" for the anomalies that are not cycles (their kind says it all).
     */
    public String shape() {
        if (cycle.isEmpty()) {
            return "no cycle";
        }
        List<String> types = cycle.stream().map(d -> d.type().label()).toList();
        String smallest = null;
        for (int i = 0; i < types.size(); i++) {
            java.util.ArrayList<String> rotated = new java.util.ArrayList<>(types.subList(i, types.size()));
            rotated.addAll(types.subList(0, i));
            String text = String.join(" ", rotated);
            if (smallest == null || text.compareTo(smallest) < 0) {
                smallest = text;
            }
        }
        long tables = cycle.stream().filter(d -> d.row() != null).map(d -> d.row().table()).distinct().count();
        return smallest + " · " + (tables == 0 ? "session order only" : tables == 1 ? "one table" : "several tables");
    }

    /**
     * The cycle as plain text, for trackers that draw neither Mermaid nor Graphviz:
     * {@code T1 --rw(t0.3)--> T2 --wr(t1.9, locking read)--> T1}. Empty for anomalies that are not cycles.
     */
    public String plainCycle() {
        if (cycle.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder("T").append(cycle.get(0).from());
        for (Dep d : cycle) {
            sb.append(" --").append(d.type().label());
            if (d.row() != null) {
                sb.append('(').append(d.row().name()).append(d.predicate() ? ", predicate" : "").append(d.locking() ? ", locking read" : "")
                        .append(')');
            }
            sb.append("--> T").append(d.to());
        }
        return sb.toString();
    }

    /** Explanation and drawing as Markdown, for finding reports. */
    public String markdown() {
        return markdown(true);
    }

    /** Explanation as Markdown; the Mermaid drawing only when asked (reports that draw the cycle elsewhere leave it out). */
    public String markdown(boolean withDrawing) {
        StringBuilder sb = new StringBuilder();
        sb.append("### ").append(anomaly.label()).append(viaSessionOrder ? " (via session order)" : "").append("\n\n");
        sb.append(summary).append("\n\n");
        if (level != null) {
            sb.append(proscribed ? "Proscribed" : "Permitted").append(" at ").append(level.sql()).append(" (")
                    .append(IsolationModel.reference(level)).append(")").append(permittedByProfile ? "; documented by the engine" : "")
                    .append(".\n\n");
        }
        sb.append("```\n").append(explanation).append("```\n");
        if (withDrawing) {
            sb.append("\n```mermaid\n").append(mermaid).append("```\n");
        }
        return sb.toString();
    }
}
