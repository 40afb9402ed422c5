package txfuzz.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything needed to reproduce one test: the setup SQL (schema and initial rows), the
 * transactions, the submitted order and the settings it runs under.
 *
 * <p>{@code order} lists transaction ids: the k-th occurrence of id n submits the k-th statement of
 * Tn. That form is always a valid interleaving of the transactions' own statement orders.
 *
 * @param dbms       the target the case was generated for (the dialect its SQL is written in)
 * @param seed       campaign seed the case was derived from (with {@code iteration})
 * @param isolation  isolation level every session runs at
 * @param mode       concurrency mode of the target ("default" where the target has only one)
 * @param tables     tables the case owns; their contents are the database state
 * @param origin     the anomaly pattern the case was generated from, or null (a random case, or one
 *                   reduced since: its statements no longer perform the pattern's operations)
 * @param engine     the engine build the case was found or reduced on; null in case files older than this
 *                   field and in cases not yet run
 * @param source     the file and schedule an imported case was read from ({@code txfuzz import}); null for a generated case
 */
public record TestCase(
        int formatVersion,
        String dbms,
        long seed,
        long iteration,
        IsolationLevel isolation,
        String mode,
        ExecutionMode execution,
        List<String> tables,
        List<String> setup,
        List<Txn> transactions,
        List<Integer> order,
        @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL) PatternOrigin origin,
        @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL) EngineVersion engine,
        @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL) CaseSource source) {

    public static final int FORMAT_VERSION = 1;

    /** A case not generated from a pattern. */
    public TestCase(int formatVersion, String dbms, long seed, long iteration, IsolationLevel isolation, String mode, ExecutionMode execution,
                    List<String> tables, List<String> setup, List<Txn> transactions, List<Integer> order) {
        this(formatVersion, dbms, seed, iteration, isolation, mode, execution, tables, setup, transactions, order, null, null);
    }

    /** A case not yet run on any engine. */
    public TestCase(int formatVersion, String dbms, long seed, long iteration, IsolationLevel isolation, String mode, ExecutionMode execution,
                    List<String> tables, List<String> setup, List<Txn> transactions, List<Integer> order, PatternOrigin origin) {
        this(formatVersion, dbms, seed, iteration, isolation, mode, execution, tables, setup, transactions, order, origin, null);
    }

    /** A case that was not imported. */
    public TestCase(int formatVersion, String dbms, long seed, long iteration, IsolationLevel isolation, String mode, ExecutionMode execution,
                    List<String> tables, List<String> setup, List<Txn> transactions, List<Integer> order, PatternOrigin origin,
                    EngineVersion engine) {
        this(formatVersion, dbms, seed, iteration, isolation, mode, execution, tables, setup, transactions, order, origin, engine, null);
    }

    @com.fasterxml.jackson.annotation.JsonCreator
    public TestCase {
        require(dbms, "dbms");
        require(isolation, "isolation");
        require(tables, "tables");
        require(setup, "setup");
        require(transactions, "transactions");
        require(order, "order");
        mode = mode == null ? "default" : mode;
        execution = execution == null ? ExecutionMode.PLAIN : execution;
        tables = List.copyOf(tables);
        setup = List.copyOf(setup);
        transactions = List.copyOf(transactions);
        order = List.copyOf(order);
        validate(transactions, order);
    }

    private static void require(Object value, String field) {
        if (value == null) {
            throw new IllegalArgumentException("the case has no '" + field + "'");
        }
    }

    private static void validate(List<Txn> transactions, List<Integer> order) {
        Map<Integer, Integer> expected = new HashMap<>();
        for (int i = 0; i < transactions.size(); i++) {
            Txn t = transactions.get(i);
            if (t.id() != i + 1) {
                throw new IllegalArgumentException("transaction ids must be 1, 2, 3 ... in order; found T" + t.id() + " at position " + (i + 1));
            }
            expected.put(t.id(), t.statements().size());
        }
        Map<Integer, Integer> seen = new HashMap<>();
        for (int id : order) {
            if (!expected.containsKey(id)) {
                throw new IllegalArgumentException("order names T" + id + ", which does not exist");
            }
            seen.merge(id, 1, Integer::sum);
        }
        for (var e : expected.entrySet()) {
            int got = seen.getOrDefault(e.getKey(), 0);
            if (got != e.getValue()) {
                throw new IllegalArgumentException("order names T" + e.getKey() + " " + got + " times, but it has " + e.getValue() + " statements");
            }
        }
    }

    public Txn txn(int id) {
        return transactions.get(id - 1);
    }

    public Stmt stmt(StmtRef ref) {
        return txn(ref.txn()).statements().get(ref.index());
    }

    /** The submitted order as statement references. */
    public List<StmtRef> submittedOrder() {
        Map<Integer, Integer> next = new HashMap<>();
        List<StmtRef> refs = new ArrayList<>(order.size());
        for (int id : order) {
            int idx = next.merge(id, 1, Integer::sum) - 1;
            refs.add(new StmtRef(id, idx));
        }
        return refs;
    }

    /** Whether some transaction runs at a level other than the case's ({@link Txn#isolation}). */
    public boolean mixedLevels() {
        return transactions.stream().anyMatch(t -> t.levelIn(this) != isolation);
    }

    /** Whether some transaction's session takes settings of its own ({@link Txn#settings}). */
    public boolean sessionSettings() {
        return transactions.stream().anyMatch(t -> !t.settings().isEmpty());
    }

    public int statementCount() {
        return order.size();
    }

    public TestCase withIsolation(IsolationLevel level) {
        return new TestCase(formatVersion, dbms, seed, iteration, level, mode, execution, tables, setup, transactions, order, origin, engine, source);
    }

    public TestCase withTransactions(List<Txn> txns, List<Integer> newOrder) {
        return new TestCase(formatVersion, dbms, seed, iteration, isolation, mode, execution, tables, setup, txns, newOrder, null, engine, source);
    }

    public TestCase withSetup(List<String> newTables, List<String> newSetup) {
        return new TestCase(formatVersion, dbms, seed, iteration, isolation, mode, execution, newTables, newSetup, transactions, order, null, engine, source);
    }

    public TestCase withExecution(ExecutionMode mode2) {
        return new TestCase(formatVersion, dbms, seed, iteration, isolation, mode, mode2, tables, setup, transactions, order, origin, engine, source);
    }

    /** The same case, marked as generated from {@code o}. */
    public TestCase withOrigin(PatternOrigin o) {
        return new TestCase(formatVersion, dbms, seed, iteration, isolation, mode, execution, tables, setup, transactions, order, o, engine, source);
    }

    /** The same case, recorded as read from {@code s}. */
    public TestCase withSource(CaseSource s) {
        return new TestCase(formatVersion, dbms, seed, iteration, isolation, mode, execution, tables, setup, transactions, order, origin, engine, s);
    }

    /** The same case, recorded as found (or reduced) on {@code e}. */
    public TestCase withEngine(EngineVersion e) {
        return new TestCase(formatVersion, dbms, seed, iteration, isolation, mode, execution, tables, setup, transactions, order, origin, e, source);
    }
}
