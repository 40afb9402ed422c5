package txfuzz.gen;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import txfuzz.model.ExecutionMode;
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;
import txfuzz.target.Dialect;

/**
 * Generates test cases the WriteCheck way (§5.1, §5.2): a small schema with constraints and
 * initial rows, then 1..maxTxns transactions, each explicit (BEGIN, statements, COMMIT or
 * ROLLBACK) or a single autocommit statement, and a random submitted order. At least one
 * transaction is explicit and at least one writes.
 *
 * <p>The result depends only on the arguments: the same (seed, iteration) always gives the same
 * case. The generator stays inside the dialect's features, so it works for an intersection of
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
        List<List<Stmt>> bodies = new ArrayList<>();
        List<Boolean> explicit = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            boolean ex = count == 1 || rng.chance(EXPLICIT);
            int n = ex ? rng.between(1, config.maxStmtsPerTxn()) : 1;
            List<Stmt> body = new ArrayList<>();
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
        boolean writes = bodies.stream().flatMap(List::stream).anyMatch(s -> s.kind().isWrite());
        if (!writes) {
            // ... and at least one that writes
            int t = rng.nextInt(count);
            List<Stmt> body = bodies.get(t);
            body.set(rng.nextInt(body.size()), stmts.write());
        }

        List<Txn> txns = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            List<Stmt> all = new ArrayList<>();
            if (explicit.get(i)) {
                all.add(Stmt.begin());
                all.addAll(bodies.get(i));
                all.add(rng.chance(COMMIT) ? Stmt.commit() : Stmt.rollback());
            } else {
                all.addAll(bodies.get(i));
            }
            txns.add(new Txn(i + 1, all));
        }

        List<String> tables = new ArrayList<>();
        for (Schema.Table t : schema.tables) {
            tables.add(t.name);
        }
        return new TestCase(TestCase.FORMAT_VERSION, dbms, seed, iteration, level, mode, ExecutionMode.PLAIN, tables, setup, txns,
                interleave(rng, txns));
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
