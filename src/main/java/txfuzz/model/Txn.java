package txfuzz.model;

import java.util.List;

/**
 * A transaction: either explicit (BEGIN, statements, COMMIT or ROLLBACK) or a single autocommit
 * statement (ACS). {@code id} is 1-based and unique within a test case.
 */
public record Txn(int id, List<Stmt> statements) {
    public Txn {
        statements = List.copyOf(statements);
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
