package txfuzz.report;

import java.util.ArrayList;
import java.util.List;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;
import txfuzz.dbms.Target;
import txfuzz.exec.Trace;

/**
 * Renders a test case as SQL to run by hand in the engine's own client: the setup, then one block
 * per session with each statement's step number, then the submitted order step by step.
 */
public final class ReproduceScript {
    private ReproduceScript() {
    }

    public static String render(TestCase c, Target target) {
        return render(c, null, target);
    }

    /**
     * The script of {@code c} as {@code trace} (null: none) ran it: with the ROLLBACK txfuzz sent to a transaction the
     * engine aborted (or txfuzz cancelled) where it sent it, and the statements that never ran commented out
     * ({@link PrintedOrder}), so the script run as printed is the recorded run.
     */
    public static String render(TestCase c, Trace trace, Target target) {
        StringBuilder sb = new StringBuilder();
        sb.append("-- txfuzz test case: ").append(target.version()).append(", isolation ").append(c.isolation().sql());
        if (!"default".equals(c.mode())) {
            sb.append(", mode ").append(c.mode());
        }
        sb.append("\n-- Run the setup once, open one client session per transaction (T1, T2, ...), configure each\n")
                .append("-- session, then submit the statements in step order. A statement that blocks holds back\n")
                .append("-- the rest of its session until it returns.\n");
        List<PrintedOrder.Line> lines = PrintedOrder.of(c, trace);
        if (lines.stream().anyMatch(l -> l.kind() != PrintedOrder.Kind.STATEMENT)) {
            sb.append("-- A ROLLBACK marked 'sent by txfuzz' is one txfuzz sent in its run, after the step it names; statements\n")
                    .append("-- commented out never ran there (their transaction had ended).\n");
        }
        sb.append("\n-- ===== Setup =====\n");
        for (String s : c.setup()) {
            sb.append(terminated(s)).append('\n');
        }
        for (Txn t : c.transactions()) {
            sb.append("\n-- ===== Session T").append(t.id()).append(t.explicit() ? "" : " (autocommit)").append(" =====\n");
            for (String s : sessionSql(target, c, t)) {
                sb.append(terminated(s)).append('\n');
            }
            for (PrintedOrder.Line l : lines) {
                if (l.txn() != t.id()) {
                    continue;
                }
                String sql = terminated(sqlOf(c.stmt(l.ref()), target, c.mode()));
                switch (l.kind()) {
                    case STATEMENT -> sb.append(pad(sql, 60)).append(" -- step ").append(l.step()).append('\n');
                    case NEVER_RAN -> sb.append(pad("-- " + sql, 60)).append(" -- step ").append(l.step()).append(": never ran").append('\n');
                    case TXFUZZ_ROLLBACK -> sb.append(pad("ROLLBACK;", 60)).append(" -- ").append(sentByTxfuzz(l)).append('\n');
                }
            }
        }
        sb.append("\n-- ===== Submitted order =====\n");
        for (PrintedOrder.Line l : lines) {
            String sql = oneLine(sqlOf(c.stmt(l.ref()), target, c.mode()));
            switch (l.kind()) {
                case STATEMENT -> sb.append("-- step ").append(l.step()).append(": T").append(l.txn()).append(": ").append(sql).append('\n');
                case NEVER_RAN -> sb.append("-- step ").append(l.step()).append(": T").append(l.txn()).append(": ").append(sql)
                        .append(" (never ran)\n");
                case TXFUZZ_ROLLBACK -> sb.append("--   then T").append(l.txn()).append(": ROLLBACK (").append(sentByTxfuzz(l)).append(")\n");
            }
        }
        return sb.toString();
    }

    /** What a ROLLBACK txfuzz sent says about itself, e.g. "sent by txfuzz after step 5: T1 ended at T1.1, DEADLOCK". */
    static String sentByTxfuzz(PrintedOrder.Line l) {
        return "sent by txfuzz after step " + l.step() + (l.why() == null ? "" : ": " + oneLine(l.why()));
    }

    /**
     * The plain program to run, then the tracked case the oracle judged, each line commented out so
     * that running the file runs the plain program alone.
     */
    public static String renderPlainFirst(TestCase plain, Trace plainTrace, TestCase tracked, Trace trackedTrace, Target target) {
        StringBuilder sb = new StringBuilder("-- The reduced case without txfuzz's row tracking (plain.case.json). Run in the same order, it\n"
                + "-- behaved as the tracked case txfuzz judged (case.json, at the end of this file) did: every statement's\n"
                + "-- error, affected rows, the plain columns of the rows it read, and whether it waited; every\n"
                + "-- transaction's end; and the final contents.\n\n");
        sb.append(render(plain, plainTrace, target));
        sb.append("\n-- ===== The same case with txfuzz's row tracking, as judged (case.json) =====\n");
        for (String line : render(tracked, trackedTrace, target).split("\n")) {
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
