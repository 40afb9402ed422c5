package txfuzz.report;

import java.util.ArrayList;
import java.util.List;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;
import txfuzz.dbms.Target;

/**
 * Renders a test case as SQL to run by hand in the engine's own client: the setup, then one block
 * per session with each statement's step number, then the submitted order step by step.
 */
public final class ReproduceScript {
    private ReproduceScript() {
    }

    public static String render(TestCase c, Target target) {
        StringBuilder sb = new StringBuilder();
        sb.append("-- txfuzz test case: ").append(target.version()).append(", isolation ").append(c.isolation().sql());
        if (!"default".equals(c.mode())) {
            sb.append(", mode ").append(c.mode());
        }
        sb.append("\n-- Run the setup once, open one client session per transaction (T1, T2, ...), configure each\n")
                .append("-- session, then submit the statements in step order. A statement that blocks holds back\n")
                .append("-- the rest of its session until it returns.\n\n");
        sb.append("-- ===== Setup =====\n");
        for (String s : c.setup()) {
            sb.append(terminated(s)).append('\n');
        }
        List<StmtRef> order = c.submittedOrder();
        for (Txn t : c.transactions()) {
            sb.append("\n-- ===== Session T").append(t.id()).append(t.explicit() ? "" : " (autocommit)").append(" =====\n");
            for (String s : sessionSql(target, c, t)) {
                sb.append(terminated(s)).append('\n');
            }
            for (int i = 0; i < t.statements().size(); i++) {
                int step = order.indexOf(new StmtRef(t.id(), i)) + 1;
                sb.append(pad(terminated(sqlOf(t.statements().get(i), target, c.mode())), 60)).append(" -- step ").append(step).append('\n');
            }
        }
        sb.append("\n-- ===== Submitted order =====\n");
        for (int i = 0; i < order.size(); i++) {
            StmtRef ref = order.get(i);
            sb.append("-- step ").append(i + 1).append(": T").append(ref.txn()).append(": ")
                    .append(oneLine(sqlOf(c.stmt(ref), target, c.mode()))).append('\n');
        }
        return sb.toString();
    }

    /**
     * The plain program to run, then the tracked case the oracle judged, each line commented out so
     * that running the file runs the plain program alone.
     */
    public static String renderPlainFirst(TestCase plain, TestCase tracked, Target target) {
        StringBuilder sb = new StringBuilder("-- The reduced case without txfuzz's row tracking (plain.case.json). Run in the same order, it\n"
                + "-- behaved as the tracked case txfuzz judged (case.json, at the end of this file) did: every statement's\n"
                + "-- error, affected rows, the plain columns of the rows it read, and whether it waited; every\n"
                + "-- transaction's end; and the final contents.\n\n");
        sb.append(render(plain, target));
        sb.append("\n-- ===== The same case with txfuzz's row tracking, as judged (case.json) =====\n");
        for (String line : render(tracked, target).split("\n")) {
            sb.append(line.isEmpty() ? "--" : "-- " + line).append('\n');
        }
        return sb.toString();
    }

    static String sqlOf(Stmt s, Target target, String mode) {
        return s.kind() == StmtKind.BEGIN ? s.beginVariant().orElse(target.beginSql(mode)) : s.sql();
    }

    static String terminated(String sql) {
        String t = sql.strip();
        return t.endsWith(";") ? t : t + ";";
    }

    static String oneLine(String sql) {
        return sql.replaceAll("\\s+", " ").strip();
    }

    static String pad(String s, int width) {
        if (s.length() >= width) {
            return s;
        }
        return s + " ".repeat(width - s.length());
    }

    /** The setup and the transactions as plain statements, for listings. */
    public static List<String> lines(TestCase c) {
        List<String> out = new ArrayList<>(c.setup());
        for (StmtRef ref : c.submittedOrder()) {
            out.add("T" + ref.txn() + ": " + c.stmt(ref).sql());
        }
        return out;
    }

    /** What configures {@code t}'s session: the target's session setup at the transaction's level, then its own settings. */
    static List<String> sessionSql(Target target, TestCase c, Txn t) {
        List<String> out = new java.util.ArrayList<>(target.sessionSetupSql(t.levelIn(c), c.mode()));
        out.addAll(t.settings());
        return out;
    }

    /** What {@code t}'s session takes beyond what every session of {@code c} takes: its own level, its own settings. */
    static List<String> ownSessionSql(Target target, TestCase c, Txn t) {
        List<String> common = target.sessionSetupSql(c.isolation(), c.mode());
        return sessionSql(target, c, t).stream().filter(q -> !common.contains(q)).toList();
    }
}
