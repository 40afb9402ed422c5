package txfuzz.model;

/** What a statement does; decides how the executor runs it and how oracles treat it. */
public enum StmtKind {
    BEGIN, COMMIT, ROLLBACK,
    SELECT, INSERT, UPDATE, DELETE, UPSERT,
    /** Anything else (DDL, SET, SAVEPOINT ...): run as-is, never generated yet. */
    OTHER;

    public boolean isControl() {
        return this == BEGIN || this == COMMIT || this == ROLLBACK;
    }

    public boolean isWrite() {
        return this == INSERT || this == UPDATE || this == DELETE || this == UPSERT;
    }

    public boolean isRead() {
        return this == SELECT;
    }
}
