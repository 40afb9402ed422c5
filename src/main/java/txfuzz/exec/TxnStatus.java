package txfuzz.exec;

/** How a transaction ended. */
public enum TxnStatus {
    /** COMMIT succeeded, or the autocommit statement ran (successfully or with a statement-level error). */
    COMMITTED,
    /** The test case's own ROLLBACK. */
    ROLLED_BACK,
    /** The engine aborted it (deadlock, conflict, failure), or the executor had to break a stall. */
    ABORTED;

    public boolean committed() {
        return this == COMMITTED;
    }
}
