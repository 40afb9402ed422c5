package txfuzz.report;

import java.util.ArrayList;
import java.util.List;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Trace;
import txfuzz.exec.TxnOutcome;
import txfuzz.model.DbState;
import txfuzz.model.TestCase;

/** A trace as text for trace.txt and the console. */
public final class TraceText {
    private TraceText() {
    }

    public static String render(TestCase c, Trace trace) {
        StringBuilder sb = new StringBuilder();
        for (txfuzz.model.Txn t : c.transactions()) { // what a session took before its transaction, and what the engine refused
            if (t.isolation() != null && t.isolation() != c.isolation()) {
                sb.append("T").append(t.id()).append("'s session runs at ").append(t.isolation().sql()).append('\n');
            }
            for (String setting : t.settings()) {
                String refused = trace.refusedSettings().stream().filter(r -> r.txn() == t.id() && r.setting().equals(setting))
                        .map(r -> " -> refused by the engine (" + r.error().replaceAll("\\s+", " ") + "): the session ran without it").findFirst().orElse(" -> ok");
                sb.append("T").append(t.id()).append("'s session: ").append(setting).append(refused).append('\n');
            }
        }
        if (sb.length() > 0) {
            sb.append('\n');
        }
        sb.append("Actual schedule (order of completion; * = blocked, then resumed):\n");
        int n = 1;
        for (ExecutedStmt e : trace.schedule()) {
            String sql = c.stmt(e.ref()).sql().replaceAll("\\s+", " ");
            sb.append(String.format("%3d. %-6s%s %s%n        -> %s%n", n++, e.ref(), e.blocked() ? "*" : " ", sql, e.result().summary()));
            if (e.result().rows() != null && !e.result().rows().isEmpty()) {
                List<String> rows = new ArrayList<>();
                e.result().rows().forEach(r -> rows.add(DbState.formatRow(r)));
                sb.append("           ").append(String.join(" ", rows)).append('\n');
            }
        }
        sb.append("\nTransactions (in the order they ended):\n");
        for (int id : trace.endOrder()) {
            TxnOutcome o = trace.outcome(id);
            sb.append("  T").append(id).append(' ').append(o.status()).append(" — ").append(o.reason()).append('\n');
        }
        if (trace.stalls() > 0) {
            sb.append("  (txfuzz broke ").append(trace.stalls()).append(" stall(s) the engine did not resolve)\n");
        }
        sb.append("\nFinal state:\n");
        trace.finalState().tables().forEach((t, rows) -> sb.append("  ").append(t).append(": ")
                .append(rows.isEmpty() ? "(empty)" : String.join(" ", rows.stream().map(DbState::formatRow).toList())).append('\n'));
        return sb.toString();
    }
}
