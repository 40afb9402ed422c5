package txfuzz.oracle.diff;

import java.util.List;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Trace;
import txfuzz.model.TestCase;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;

/**
 * Both traces of a divergence side by side, in Markdown: each side's statements in the order they completed,
 * the first divergence marked, the final states' differing rows, and each side's own verdicts.
 */
public final class SideBySide {
    static final String MARK = "◀ first divergence";

    private SideBySide() {
    }

    public static String render(TestCase c, Divergence d, Side left, Trace lt, Side right, Trace rt) {
        StringBuilder out = new StringBuilder();
        out.append("| # | ").append(left.label()).append(" (").append(left.level()).append(") | ")
                .append(right.label()).append(" (").append(right.level()).append(") |\n|---|---|---|\n");
        int n = Math.max(lt.schedule().size(), rt.schedule().size());
        for (int i = 0; i < n; i++) {
            out.append("| ").append(i + 1).append(" | ").append(cell(c, d, lt.schedule(), i)).append(" | ").append(cell(c, d, rt.schedule(), i)).append(" |\n");
        }
        out.append("\nFirst divergence: ").append(d).append('\n');
        if (!d.onlyLeft().isEmpty() || !d.onlyRight().isEmpty()) {
            out.append("\n- only on ").append(left.label()).append(": ").append(listed(d.onlyLeft()))
                    .append("\n- only on ").append(right.label()).append(": ").append(listed(d.onlyRight())).append('\n');
        }
        TraceComparison.stateDivergence(lt.finalState(), rt.finalState()).ifPresentOrElse(s -> out.append("\nFinal state differs.\n- only on ")
                        .append(left.label()).append(": ").append(listed(s.onlyLeft())).append("\n- only on ").append(right.label())
                        .append(": ").append(listed(s.onlyRight())).append('\n'),
                () -> out.append("\nFinal states are equal.\n"));
        for (Side s : List.of(left, right)) {
            out.append("\nVerdicts of ").append(s.label()).append("'s own oracles:\n");
            if (s.own().isEmpty()) {
                out.append("- none ran\n");
            }
            for (Verdict v : s.own()) {
                out.append("- ").append(v.oracle()).append(": ").append(v.isClean() ? "clean" : "");
                for (Violation x : v.violations()) {
                    out.append("\n  - ").append(x.classification().label()).append(" ").append(x.summary());
                }
                out.append('\n');
            }
        }
        return out.toString();
    }

    private static String listed(List<String> rows) {
        return rows.isEmpty() ? "(none)" : String.join(", ", rows);
    }

    private static String cell(TestCase c, Divergence d, List<ExecutedStmt> schedule, int i) {
        if (i >= schedule.size()) {
            return "";
        }
        ExecutedStmt e = schedule.get(i);
        String text = e.ref() + " `" + c.stmt(e.ref()).sql().replace("|", "\\|") + "` → " + TraceComparison.describe(e).replace("|", "\\|");
        return e.ref().equals(d.at()) ? "**" + text + "** " + MARK : text;
    }
}
