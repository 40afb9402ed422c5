package txfuzz.gen;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import txfuzz.dbms.Dialect;
import txfuzz.dbms.Targets;
import txfuzz.gen.pattern.AnomalyPattern;
import txfuzz.gen.pattern.PatternOp;
import txfuzz.model.ExecutionMode;
import txfuzz.model.IsolationLevel;
import txfuzz.model.PatternOrigin;
import txfuzz.model.Stmt;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Tracking;
import txfuzz.model.Txn;

/**
 * Generates a test case from an anomaly pattern (APTrans, Algorithm 1): the schema and initial rows
 * as {@link CaseGenerator} makes them; each pattern item a row (an initial one, or for an item the
 * pattern inserts a new one); per operation a statement of its type from the random generator's
 * repertoire (statement selection) whose WHERE aims at the item's row — by key, by a wider
 * predicate that covers it, or now and then by none (condition alignment); and the transactions in
 * the pattern's schedule, each BEGIN (or one of the engine's variants) submitted right before its
 * first operation (transaction composition). The case records its {@link PatternOrigin}.
 *
 * <p>Lives beside {@link CaseGenerator} because it uses the same package-private machinery
 * (schema, statement generator, instrumentation). Instrumented or plain as {@link GenConfig} says,
 * exactly as CaseGenerator: every random draw is made before instrumentation, so the same (seed,
 * iteration, pattern) gives the same data statements both ways, and each plain data statement is
 * one group of the instrumented case. {@link GenConfig#maxTxns()} and {@link GenConfig#maxStmtsPerTxn()}
 * do not apply: the pattern fixes both.
 *
 * <p>Every pattern is expressible on every dialect, so generation never refuses: what a dialect or
 * schema lacks falls back to simpler statements — no key to conflict on or no MERGE source: an
 * UPDATE; no LEFT JOIN: the dialect's joins; no BETWEEN: no range; a table with too few rows: rows
 * added to the setup; every column kept (the condition uses them all): a write of a column's own
 * value. The cost is in how often a statement touches its item, which the tests measure.
 */
public final class PatternCaseGenerator {
    private final GenConfig config;

    public PatternCaseGenerator(GenConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    public GenConfig config() {
        return config;
    }

    /** A case of {@code pattern} for {@code dbms}, whose BEGIN variants (if it is a known engine) it draws from. */
    public TestCase generate(AnomalyPattern pattern, String dbms, Dialect dialect, IsolationLevel level, String mode, long seed, long iteration) {
        List<String> variants = Targets.exists(dbms) ? Targets.engine(dbms).beginVariants() : List.of();
        return generate(pattern, dbms, dialect, variants, level, mode, seed, iteration);
    }

    /** As above, with the BEGIN variants given ({@link txfuzz.dbms.Engine#beginVariants()}; empty: plain BEGIN only). */
    public TestCase generate(AnomalyPattern pattern, String dbms, Dialect dialect, List<String> beginVariants, IsolationLevel level, String mode,
                             long seed, long iteration) {
        Rng rng = new Rng(seed, iteration);
        ValuePool pool = new ValuePool(rng, CaseGenerator.varcharLength(dialect.varcharType()));
        List<String> setup = new ArrayList<>();
        Schema schema = new SchemaGenerator(rng, dialect, config, pool).generate(setup);
        StatementGenerator stmts = new StatementGenerator(rng, dialect, schema, pool);
        PatternRows rows = new PatternRows(rng, pool, schema, config.instrumented(), setup);
        Map<String, PatternRows.ItemRow> items = rows.place(pattern);
        PatternAims aims = new PatternAims(rng, dialect);

        // statement selection and condition alignment, in pattern order (every draw made here)
        List<StatementGenerator.Gen> gens = new ArrayList<>();
        Map<List<String>, StatementGenerator.Aim> predicates = new java.util.HashMap<>();
        for (PatternOp op : pattern.ops()) {
            gens.add(switch (op.type()) {
                case READ -> stmts.aimedRead(aims.single(items.get(op.single().item()), false));
                case WRITE -> stmts.aimedWrite(aims.single(items.get(op.single().item()), true));
                case DELETE -> stmts.aimedDelete(aims.single(items.get(op.single().item()), true));
                case INSERT -> {
                    PatternRows.ItemRow row = items.get(op.single().item());
                    yield stmts.insertRow(row.table(), row.values());
                }
                // the pattern's P over the same items is one predicate: the checker links reads of a predicate by its text, and
                // learns that a row matches it only from a read that returned it (a phantom's second read, a write skew's observer)
                case PREDICATE_READ -> stmts.aimedRead(predicates.computeIfAbsent(op.reads().stream().map(PatternOp.Version::item).sorted().toList(),
                        k -> aims.covering(op.reads().stream().map(v -> items.get(v.item())).toList())));
                case COMMIT, ABORT -> null;
            });
        }
        int txnCount = pattern.transactions().size();
        List<Stmt> begins = new ArrayList<>();
        for (int i = 0; i < txnCount; i++) {
            begins.add(!beginVariants.isEmpty() && rng.chance(0.5) ? Stmt.begin(rng.pick(beginVariants)) : Stmt.begin());
        }

        // transaction composition: each transaction BEGIN, its operations' statements, COMMIT or ROLLBACK
        List<List<Stmt>> bodies = new ArrayList<>();
        for (int i = 0; i < txnCount; i++) {
            bodies.add(new ArrayList<>(List.of(begins.get(i))));
        }
        List<Integer> order = new ArrayList<>();
        List<StmtRef> steps = new ArrayList<>();
        Map<String, String> insertedRids = new HashMap<>();
        for (int k = 0; k < pattern.ops().size(); k++) {
            PatternOp op = pattern.ops().get(k);
            List<Stmt> body = bodies.get(op.txn() - 1);
            if (body.size() == 1) {
                order.add(op.txn()); // BEGIN, right before the transaction's first operation
            }
            List<Stmt> group;
            int main = 0;
            if (op.type().ends()) {
                group = List.of(op.type() == PatternOp.Type.COMMIT ? Stmt.commit() : Stmt.rollback());
            } else if (config.instrumented()) {
                group = gens.get(k).expand(new Instrumentation.Ctx(op.txn(), body.size(), dialect));
                main = mainStatement(group);
                if (op.type() == PatternOp.Type.INSERT) {
                    insertedRids.put(op.single().item(), Instrumentation.ridLiteral(group.get(main).tracking().tag(), 0));
                }
            } else {
                group = List.of(gens.get(k).stmt());
            }
            steps.add(new StmtRef(op.txn(), body.size() + main));
            body.addAll(group);
            for (int n = 0; n < group.size(); n++) {
                order.add(op.txn());
            }
        }
        List<Txn> txns = new ArrayList<>();
        for (int i = 0; i < txnCount; i++) {
            txns.add(new Txn(i + 1, bodies.get(i)));
        }
        List<String> tables = schema.tables.stream().map(t -> t.name).toList();
        Map<String, PatternOrigin.Item> originItems = new LinkedHashMap<>();
        items.forEach((name, row) -> originItems.put(name, new PatternOrigin.Item(row.table().name, row.condition(),
                !config.instrumented() ? null : row.rid() != null ? row.rid() : insertedRids.get(name))));
        PatternOrigin origin = new PatternOrigin(pattern.name(), pattern.text(), originItems, steps);
        return new TestCase(TestCase.FORMAT_VERSION, dbms, seed, iteration, level, mode, ExecutionMode.PLAIN, tables, setup, txns, order, origin);
    }

    /** The statement of an instrumented group that does the plain work: the READ or WRITE one. */
    private static int mainStatement(List<Stmt> group) {
        for (int i = 0; i < group.size(); i++) {
            Tracking t = group.get(i).tracking();
            if (t != null && (t.role() == Tracking.Role.READ || t.role() == Tracking.Role.WRITE)) {
                return i;
            }
        }
        return 0;
    }
}
