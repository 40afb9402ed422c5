package txfuzz.gen;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import txfuzz.model.ExecutionMode;
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;
import txfuzz.dbms.Dialect;

/**
 * Generates test cases the WriteCheck way (§5.1, §5.2): a small schema with constraints and
 * initial rows, then 1..maxTxns transactions, each explicit (BEGIN, statements, COMMIT or
 * ROLLBACK) or a single autocommit statement, and a random submitted order. At least one
 * transaction is explicit and at least one writes.
 *
 * <p>The result depends only on the arguments: the same (seed, iteration) always gives the same
 * case.
 *
 * <p>Instrumented ({@link GenConfig#instrumented()}, for the isolation checker, IsoRel §3.2): every
 * table gets {@code rid} and {@code wl} (last, never referenced by the generated expressions),
 * initial rows rids '1', '2', … and wl ',0'; every transaction is explicit; every write appends
 * its tag ",T.s" (T the transaction, s the statement's index in it) and is followed by a post-read
 * of the rows carrying the tag; DELETE (and REPLACE, MERGE … THEN DELETE) become tag-UPDATE,
 * post-read, delete by tag. Reads lead with each table's (rid, wl); an aggregate reads its rows
 * instead, a UNION becomes a UNION ALL of both sides' rows. Each statement carries a
 * {@link txfuzz.model.Tracking} for the history recorder. The same (seed, iteration) gives the
 * same data statements as without instrumentation. The generator stays inside the dialect's features, so it works for an intersection of
 * dialects too.
 */
public final class CaseGenerator {
    private static final double EXPLICIT = 0.65;
    private static final double COMMIT = 0.8;

    private final GenConfig config;

    public CaseGenerator(GenConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    public GenConfig config() {
        return config;
    }

    public TestCase generate(String dbms, Dialect dialect, IsolationLevel level, String mode, long seed, long iteration) {
        Rng rng = new Rng(seed, iteration);
        ValuePool pool = new ValuePool(rng, varcharLength(dialect.varcharType()));
        List<String> setup = new ArrayList<>();
        Schema schema = new SchemaGenerator(rng, dialect, config, pool).generate(setup);
        StatementGenerator stmts = new StatementGenerator(rng, dialect, schema, pool);

        int count = rng.between(1, config.maxTxns());
        List<List<StatementGenerator.Gen>> bodies = new ArrayList<>();
        List<Boolean> explicit = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            boolean ex = count == 1 || rng.chance(EXPLICIT);
            int n = ex ? rng.between(1, config.maxStmtsPerTxn()) : 1;
            List<StatementGenerator.Gen> body = new ArrayList<>();
            for (int k = 0; k < n; k++) {
                body.add(stmts.any());
            }
            bodies.add(body);
            explicit.add(ex);
        }
        if (!explicit.contains(true)) {
            // WriteCheck §5.2: at least one explicit transaction
            explicit.set(rng.nextInt(count), true);
        }
        boolean writes = bodies.stream().flatMap(List::stream).anyMatch(s -> s.stmt().kind().isWrite());
        if (!writes) {
            // ... and at least one that writes
            int t = rng.nextInt(count);
            List<StatementGenerator.Gen> body = bodies.get(t);
            body.set(rng.nextInt(body.size()), stmts.write());
        }

        List<Txn> txns = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            List<Stmt> all = new ArrayList<>();
            if (explicit.get(i)) {
                all.add(Stmt.begin());
                bodies.get(i).forEach(g -> all.add(g.stmt()));
                all.add(rng.chance(COMMIT) ? Stmt.commit() : Stmt.rollback());
            } else {
                all.add(bodies.get(i).get(0).stmt());
            }
            txns.add(new Txn(i + 1, all));
        }

        List<String> tables = new ArrayList<>();
        for (Schema.Table t : schema.tables) {
            tables.add(t.name);
        }
        List<Integer> order = interleave(rng, txns);
        if (config.instrumented()) {
            return instrument(dbms, dialect, level, mode, seed, iteration, tables, setup, txns, bodies, order);
        }
        return new TestCase(TestCase.FORMAT_VERSION, dbms, seed, iteration, level, mode, ExecutionMode.PLAIN, tables, setup, txns, order);
    }

    /**
     * The instrumented case: the same data statements (the random draws were all made above), each
     * replaced by its instrumented form and companions, every transaction explicit (an autocommit
     * one becomes BEGIN, its statement, COMMIT), and the plain submitted order with each statement
     * expanded in place into its group.
     */
    private static TestCase instrument(String dbms, Dialect dialect, IsolationLevel level, String mode, long seed, long iteration,
                                       List<String> tables, List<String> setup, List<Txn> plain, List<List<StatementGenerator.Gen>> bodies,
                                       List<Integer> plainOrder) {
        List<Txn> txns = new ArrayList<>();
        // per transaction, per plain statement: how many instrumented statements it became
        List<List<Integer>> groupSizes = new ArrayList<>();
        for (int i = 0; i < plain.size(); i++) {
            Txn p = plain.get(i);
            int id = p.id();
            List<Stmt> all = new ArrayList<>();
            List<Integer> sizes = new ArrayList<>();
            all.add(Stmt.begin());
            int before = 0;
            if (p.explicit()) {
                sizes.add(1);
                before = 1;
            }
            for (StatementGenerator.Gen g : bodies.get(i)) {
                all.addAll(g.expand(new Instrumentation.Ctx(id, all.size(), dialect)));
                sizes.add(all.size() - before);
                before = all.size();
            }
            if (p.explicit()) {
                all.add(p.statements().get(p.statements().size() - 1));
                sizes.add(1);
            } else {
                all.add(Stmt.commit());
                sizes.set(0, all.size()); // the autocommit statement is BEGIN, its group and COMMIT
            }
            txns.add(new Txn(id, all));
            groupSizes.add(sizes);
        }
        List<Integer> order = new ArrayList<>();
        int[] next = new int[plain.size()];
        for (int id : plainOrder) {
            int n = groupSizes.get(id - 1).get(next[id - 1]++);
            for (int k = 0; k < n; k++) {
                order.add(id);
            }
        }
        return new TestCase(TestCase.FORMAT_VERSION, dbms, seed, iteration, level, mode, ExecutionMode.PLAIN, tables, setup, txns, order);
    }

    /** A random submitted order: each step appends the next statement of a random unfinished transaction. */
    static List<Integer> interleave(Rng rng, List<Txn> txns) {
        int[] left = new int[txns.size()];
        List<Integer> open = new ArrayList<>();
        for (int i = 0; i < txns.size(); i++) {
            left[i] = txns.get(i).statements().size();
            open.add(i);
        }
        List<Integer> order = new ArrayList<>();
        while (!open.isEmpty()) {
            int pos = rng.nextInt(open.size());
            int i = open.get(pos);
            order.add(i + 1);
            if (--left[i] == 0) {
                open.remove(pos);
            }
        }
        return order;
    }

    /** The length in "VARCHAR(10)"; 10 when the type names none. */
    static int varcharLength(String type) {
        int open = type.indexOf('(');
        int close = type.indexOf(')', open + 1);
        if (open >= 0 && close > open) {
            try {
                return Integer.parseInt(type.substring(open + 1, close).trim());
            } catch (NumberFormatException e) {
                return 10;
            }
        }
        return 10;
    }
}
