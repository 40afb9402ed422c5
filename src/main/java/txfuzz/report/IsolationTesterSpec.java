package txfuzz.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import txfuzz.dbms.Target;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;

/**
 * A PostgreSQL finding as an isolation-tester spec ({@code reproduce.spec}), the form PostgreSQL's own
 * concurrency regression tests take (src/test/isolation/specs): the setup, one session per
 * transaction with one step per statement, and one permutation in the case's submitted order. The
 * tester itself notices a step that waits and goes on with the next session, so unlike the other
 * scripts this one needs nothing from the recorded run.
 *
 * <p>Written in the part of the grammar every isolation tester since 9.1 reads (quoted names, one SQL
 * block per setup statement): the scanner ends a block at its first {@code }}, so a case whose SQL
 * contains one has no spec.
 */
public final class IsolationTesterSpec {
    private IsolationTesterSpec() {
    }

    /** The spec of {@code c}, if its engine's tests are isolation-tester specs and the case fits the format. */
    public static Optional<String> render(TestCase c, Target target, String about) {
        if (target.engine().regressionTestFormat().orElse(null) != txfuzz.dbms.RegressionTestFormat.ISOLATION_TESTER_SPEC || !fits(c)) {
            return Optional.empty();
        }
        StringBuilder sb = new StringBuilder();
        sb.append("# txfuzz: ").append(target.version()).append(", isolation ").append(c.isolation().sql()).append('\n');
        for (String line : about.strip().split("\n")) {
            sb.append("# ").append(line.strip()).append('\n');
        }
        sb.append("# A PostgreSQL isolation test: put it in src/test/isolation/specs/ and add it to isolation_schedule;\n")
                .append("# the first run writes the expected output. Steps are named <transaction>_<step of reproduce.sql>.\n\n");
        for (String s : c.setup()) {
            sb.append("setup { ").append(body(s)).append(" }\n");
        }
        List<String> drops = new ArrayList<>();
        for (String t : c.tables()) {
            drops.add(target.quote(t));
        }
        sb.append("teardown { DROP TABLE IF EXISTS ").append(String.join(", ", drops)).append(" CASCADE; }\n");
        List<StmtRef> order = c.submittedOrder();
        for (Txn t : c.transactions()) {
            sb.append("\nsession \"").append(session(t.id())).append("\"\n");
            sb.append("setup { ");
            for (String s : ReproduceScript.sessionSql(target, c, t)) {
                sb.append(body(s)).append(' ');
            }
            sb.append("}\n");
            for (int i = 0; i < t.statements().size(); i++) {
                StmtRef ref = new StmtRef(t.id(), i);
                sb.append("step \"").append(step(ref, order)).append("\" { ").append(body(sql(t.statements().get(i), c))).append(" }\n");
            }
        }
        sb.append("\npermutation");
        for (StmtRef ref : order) {
            sb.append(" \"").append(step(ref, order)).append('"');
        }
        return Optional.of(sb.append('\n').toString());
    }

    private static boolean fits(TestCase c) {
        List<String> all = new ArrayList<>(c.setup());
        c.transactions().forEach(t -> t.statements().forEach(s -> all.add(s.sql())));
        return all.stream().noneMatch(s -> s.contains("}"));
    }

    /** BEGIN names the level, so the step says what the session runs at. */
    private static String sql(Stmt s, TestCase c) {
        return s.kind() == StmtKind.BEGIN ? s.beginVariant().orElse("BEGIN") + " ISOLATION LEVEL " + c.isolation().sql() : s.sql();
    }

    private static String body(String sql) {
        return ReproduceScript.terminated(sql);
    }

    static String session(int txn) {
        return "t" + txn;
    }

    static String step(StmtRef ref, List<StmtRef> order) {
        return session(ref.txn()) + "_" + (order.indexOf(ref) + 1);
    }
}
