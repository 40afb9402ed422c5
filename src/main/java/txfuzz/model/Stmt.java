package txfuzz.model;

import java.util.Objects;

/**
 * One SQL statement of a transaction. The SQL text is the source of truth: it is what the user
 * reads, edits and replays. {@code needsTransaction} marks statements that cannot run as an
 * autocommit statement (SAVEPOINT and the like), which rules out the statement-level replay.
 */
public record Stmt(StmtKind kind, String sql, boolean needsTransaction) {
    public Stmt {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(sql, "sql");
    }

    public static Stmt of(StmtKind kind, String sql) {
        return new Stmt(kind, sql, false);
    }

    public static Stmt begin() {
        return new Stmt(StmtKind.BEGIN, "BEGIN", false);
    }

    public static Stmt commit() {
        return new Stmt(StmtKind.COMMIT, "COMMIT", false);
    }

    public static Stmt rollback() {
        return new Stmt(StmtKind.ROLLBACK, "ROLLBACK", false);
    }
}
