package txfuzz.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * A transaction: either explicit (BEGIN, statements, COMMIT or ROLLBACK) or a single autocommit
 * statement (ACS). {@code id} is 1-based and unique within a test case. Every transaction runs on a
 * session (connection) of its own.
 *
 * @param settings  setting statements run once on the transaction's session before it starts (an imported
 *                  test's {@code SET innodb_snapshot_isolation=ON}); empty for nearly every case
 * @param isolation the level this transaction runs at when it is not the case's; null: the case's level
 */
public record Txn(int id, List<Stmt> statements,
                  @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> settings,
                  @JsonInclude(JsonInclude.Include.NON_NULL) IsolationLevel isolation) {
    @JsonCreator
    public Txn {
        require(statements, "statements");
        statements = List.copyOf(statements);
        settings = settings == null ? List.of() : List.copyOf(settings);
        if (statements.isEmpty()) {
            throw new IllegalArgumentException("T" + id + " has no statements");
        }
        boolean explicit = statements.get(0).kind() == StmtKind.BEGIN;
        if (explicit) {
            StmtKind last = statements.get(statements.size() - 1).kind();
            if (statements.size() < 2 || (last != StmtKind.COMMIT && last != StmtKind.ROLLBACK)) {
                throw new IllegalArgumentException("T" + id + " starts with BEGIN but does not end with COMMIT or ROLLBACK");
            }
            for (int i = 1; i < statements.size() - 1; i++) {
                if (statements.get(i).kind().isControl()) {
                    throw new IllegalArgumentException("T" + id + " has " + statements.get(i).kind() + " in its middle");
                }
            }
        } else if (statements.size() != 1 || statements.get(0).kind().isControl()) {
            throw new IllegalArgumentException("T" + id + " must be BEGIN ... COMMIT/ROLLBACK or a single autocommit statement");
        }
    }

    /** A transaction with no session settings, at the case's level. */
    public Txn(int id, List<Stmt> statements) {
        this(id, statements, List.of(), null);
    }

    private static void require(Object value, String field) {
        if (value == null) {
            throw new IllegalArgumentException("a transaction has no '" + field + "'");
        }
    }

    /** The same session (settings, level) running {@code newStatements}, as T{@code newId}. */
    public Txn with(int newId, List<Stmt> newStatements) {
        return new Txn(newId, newStatements, settings, isolation);
    }

    /** The level it runs at in {@code c}. */
    public IsolationLevel levelIn(TestCase c) {
        return isolation != null ? isolation : c.isolation();
    }

    public boolean explicit() {
        return statements.get(0).kind() == StmtKind.BEGIN;
    }

    public boolean endsWithRollback() {
        return statements.get(statements.size() - 1).kind() == StmtKind.ROLLBACK;
    }

    /** The data statements, without BEGIN/COMMIT/ROLLBACK. */
    public List<Stmt> body() {
        return explicit() ? statements.subList(1, statements.size() - 1) : statements;
    }

    public boolean writes() {
        return statements.stream().anyMatch(s -> s.kind().isWrite());
    }

    public boolean canRunStatementLevel() {
        return statements.stream().noneMatch(Stmt::needsTransaction);
    }
}
