package txfuzz.report;

import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;

/**
 * A case as a plain schedule (the format {@code txfuzz import} reads; docs/commands.md): header lines naming the
 * DBMS, its mode (when not the default) and the level, the setup one statement per line, then one {@code T<n>: SQL} line per statement in the submitted order.
 */
public final class ScheduleText {
    private ScheduleText() {
    }

    public static String render(TestCase c, String about) {
        StringBuilder sb = new StringBuilder();
        for (String line : about.strip().split("\n")) {
            sb.append("# ").append(line.strip()).append('\n');
        }
        sb.append("-- dbms: ").append(c.dbms()).append('\n');
        if (!c.mode().equals("default")) { // a mode is the DBMS's own; without this line the DBMS's default mode
            sb.append("-- mode: ").append(c.mode()).append('\n');
        }
        sb.append("-- isolation: ").append(c.isolation().sql()).append('\n');
        for (String s : c.setup()) {
            sb.append(ReproduceScript.terminated(ReproduceScript.oneLine(s))).append('\n');
        }
        for (StmtRef ref : c.submittedOrder()) {
            sb.append('T').append(ref.txn()).append(": ").append(ReproduceScript.terminated(ReproduceScript.oneLine(c.stmt(ref).sql()))).append('\n');
        }
        return sb.toString();
    }
}
