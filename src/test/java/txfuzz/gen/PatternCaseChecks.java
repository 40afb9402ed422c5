package txfuzz.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import txfuzz.dbms.Database;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Target;
import txfuzz.gen.pattern.AnomalyPattern;
import txfuzz.gen.pattern.PatternCatalogue;
import txfuzz.gen.pattern.PatternOp;
import txfuzz.model.CaseJson;
import txfuzz.model.IsolationLevel;
import txfuzz.model.PatternOrigin;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Tracking;
import txfuzz.model.Txn;

/**
 * What every pattern case must be (its shape: the pattern's schedule, its origin, JSON round trip,
 * plain and instrumented twins lining up) and how often its statements are invalid SQL on an engine,
 * shared by the in-process and the server tests.
 */
final class PatternCaseChecks {
    static final GenConfig PLAIN = GenConfig.defaults();
    static final GenConfig INSTRUMENTED = GenConfig.defaults().withInstrumentation(true);

    private PatternCaseChecks() {
    }

    static List<AnomalyPattern> patterns() {
        return PatternCatalogue.bundled().all();
    }

    /** The case performs {@code p}: its steps are in the pattern's schedule, each of the op's kind, and the case round-trips through JSON. */
    static void checkShape(AnomalyPattern p, TestCase c) throws Exception {
        String where = c.dbms() + " " + p.name() + " seed " + c.seed() + "/" + c.iteration();
        PatternOrigin o = c.origin();
        assertNotNull(o, where);
        assertEquals(p.name(), o.pattern(), where);
        assertEquals(p.text(), o.ops(), where);
        assertEquals(p.items().size(), o.items().size(), where);
        assertEquals(p.ops().size(), o.steps().size(), where);
        List<StmtRef> submitted = c.submittedOrder();
        int last = -1;
        for (int k = 0; k < p.ops().size(); k++) {
            PatternOp op = p.ops().get(k);
            StmtRef step = o.steps().get(k);
            assertEquals(op.txn(), step.txn(), where + ": step " + k);
            int at = submitted.indexOf(step);
            assertTrue(at > last, where + ": step " + k + " out of the pattern's order");
            last = at;
            StmtKind kind = c.stmt(step).kind();
            assertTrue(switch (op.type()) {
                case READ, PREDICATE_READ -> kind == StmtKind.SELECT;
                case WRITE -> kind == StmtKind.UPDATE || kind == StmtKind.UPSERT;
                case INSERT -> kind == StmtKind.INSERT || kind == StmtKind.UPSERT;
                case DELETE -> kind == StmtKind.DELETE;
                case COMMIT -> kind == StmtKind.COMMIT;
                case ABORT -> kind == StmtKind.ROLLBACK;
            }, where + ": " + op + " performed by " + c.stmt(step));
            if (!op.type().ends() && c.stmt(step).tracking() != null) {
                assertTrue(!c.stmt(step).tracking().role().companion(), where + ": " + op + " is a companion");
                if (op.type() == PatternOp.Type.PREDICATE_READ) {
                    assertNotNull(c.stmt(step).tracking().predicate(), where + ": " + op + " is recorded as a predicate read: " + c.stmt(step));
                }
            }
        }
        // each BEGIN is submitted right before its transaction's first statement
        for (int i = 0; i + 1 < submitted.size(); i++) {
            if (c.stmt(submitted.get(i)).kind() == StmtKind.BEGIN) {
                assertEquals(submitted.get(i).txn(), submitted.get(i + 1).txn(), where + ": BEGIN at step " + i);
            }
        }
        assertEquals(c, CaseJson.read(CaseJson.write(c), where), where + ": JSON round trip");
    }

    /** The plain case has, per transaction, one statement per group of the instrumented one, in the same order. */
    static void checkTwins(TestCase plain, TestCase instrumented) {
        assertEquals(plain.transactions().size(), instrumented.transactions().size());
        assertEquals(plain.origin().steps().size(), instrumented.origin().steps().size());
        for (Txn p : plain.transactions()) {
            Txn i = instrumented.txn(p.id());
            List<Stmt> mains = i.statements().stream().filter(s -> s.tracking() == null || !s.tracking().role().companion()).toList();
            assertEquals(p.statements().size(), mains.size(), "T" + p.id() + " of " + plain.origin().pattern());
            for (int k = 0; k < mains.size(); k++) {
                assertEquals(p.statements().get(k).kind(), mains.get(k).kind(), "T" + p.id() + " statement " + k);
            }
            assertEquals(p.statements().get(0).sql(), i.statements().get(0).sql(), "the same BEGIN");
        }
        for (int k = 0; k < plain.origin().steps().size(); k++) {
            StmtRef ps = plain.origin().steps().get(k);
            StmtRef is = instrumented.origin().steps().get(k);
            assertEquals(plain.stmt(ps).kind(), instrumented.stmt(is).kind());
        }
    }

    /** Invalid-statement counts of one engine. */
    static final class Validity {
        final String name;
        int cases;
        int statements;
        int invalid;
        int setupFailed;
        final Map<ErrorClass, Integer> byClass = new EnumMap<>(ErrorClass.class);
        final Map<String, String> invalidExamples = new LinkedHashMap<>();

        Validity(String name) {
            this.name = name;
        }

        double share() {
            return statements == 0 ? 0 : (double) invalid / statements;
        }

        String summary() {
            StringBuilder sb = new StringBuilder(String.format("pattern cases on %s: invalid statements %.1f%% (%d/%d) in %d cases; setup failures %d; errors %s%n",
                    name, 100 * share(), invalid, statements, cases, setupFailed, byClass));
            invalidExamples.entrySet().stream().limit(10).forEach(e -> sb.append("  ").append(e.getKey()).append("\n      e.g. ").append(e.getValue()).append('\n'));
            return sb.toString();
        }
    }

    /**
     * Generates {@code seeds} cases of every catalogue pattern (plain and instrumented alternately),
     * checks each one's shape, and runs its data statements one after another in autocommit in the
     * submitted order on a fresh database (validity does not depend on concurrency), counting those
     * the engine calls invalid. Stops early, but not before every pattern ran once, when
     * {@code budgetMillis} runs out.
     */
    static Validity run(Target target, IsolationLevel level, int seeds, long budgetMillis) throws Exception {
        return run(target, level, 7, seeds, budgetMillis);
    }

    /** As above, with iterations 0 … seeds-1 of campaign seed {@code seed}. */
    static Validity run(Target target, IsolationLevel level, long seed, int seeds, long budgetMillis) throws Exception {
        Validity v = new Validity(target.name());
        String mode = target.modes().get(0);
        long deadline = System.nanoTime() + budgetMillis * 1_000_000L;
        List<AnomalyPattern> all = patterns();
        for (int iteration = 0; iteration < seeds && (iteration == 0 || System.nanoTime() < deadline); iteration++) {
            for (AnomalyPattern p : all) {
                boolean instrumented = (iteration + p.name().length()) % 2 == 0;
                TestCase c = new PatternCaseGenerator(instrumented ? INSTRUMENTED : PLAIN).generate(p, target.name(), target.dialect(), level, mode, seed,
                        iteration);
                checkShape(p, c);
                v.cases++;
                try (Database db = target.freshDatabase(); Connection conn = db.connect(level, mode)) {
                    for (String sql : c.setup()) {
                        try {
                            execute(conn, sql);
                        } catch (SQLException e) {
                            v.setupFailed++;
                            v.invalidExamples.putIfAbsent("setup: " + e.getMessage().lines().findFirst().orElse(""), sql);
                        }
                    }
                    for (StmtRef ref : c.submittedOrder()) {
                        Stmt s = c.stmt(ref);
                        if (s.kind().isControl()) {
                            continue;
                        }
                        v.statements++;
                        try {
                            execute(conn, s.sql());
                        } catch (SQLException e) {
                            ErrorClass ec = target.classify(e);
                            v.byClass.merge(ec, 1, Integer::sum);
                            if (ec == ErrorClass.INVALID_STATEMENT) {
                                v.invalid++;
                                String m = e.getMessage().lines().findFirst().orElse("");
                                v.invalidExamples.putIfAbsent(m.length() > 150 ? m.substring(0, 150) : m, s.sql());
                            }
                        }
                    }
                }
            }
        }
        return v;
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            if (s.execute(sql)) {
                try (ResultSet rs = s.getResultSet()) {
                    while (rs.next()) {
                        rs.getObject(1);
                    }
                }
            }
        }
    }

    /**
     * The rids a statement of an instrumented case saw: a read's (rid, wl) pairs (or (table, rid, wl)
     * triples), a write's post-read rows.
     */
    static List<String> ridsOf(Tracking t, List<List<String>> rows) {
        List<String> out = new ArrayList<>();
        if (rows == null) {
            return out;
        }
        for (List<String> row : rows) {
            if (t.role() == Tracking.Role.READ && t.tables().equals(List.of(Tracking.TABLE_COLUMN))) {
                out.add(row.get(1));
            } else if (t.role() == Tracking.Role.READ) {
                for (int k = 0; k < t.tables().size(); k++) {
                    out.add(row.get(2 * k));
                }
            } else {
                out.add(row.get(0));
            }
        }
        return out;
    }
}
