package txfuzz.dbms;

/**
 * Ways an engine documents that its writes may depart from the First-Commit/Rollback-First-Scheduled
 * serial order (WriteCheck §6.4). The wss oracle tests each permitted one as an explanation of a
 * violation before calling it a bug candidate.
 */
public enum Deviation {
    /**
     * Each statement sees the data committed before it began (plus its own transaction's writes) and
     * locks only the rows it changes: no predicate or gap locks, semi-consistent reads. Typical of
     * READ COMMITTED and below.
     */
    STATEMENT_VISIBILITY,
    /**
     * Like {@link #STATEMENT_VISIBILITY}, but a statement also sees writes of transactions that had
     * not committed yet (READ UNCOMMITTED's dirty reads).
     */
    DIRTY_VISIBILITY,
    /**
     * Every statement of a transaction sees one snapshot taken at its first statement; concurrent
     * transactions may commit writes computed from stale reads as long as they change different
     * rows (snapshot isolation: write skew, phantom writes).
     */
    TRANSACTION_SNAPSHOT,
    /**
     * The run is serializable, but not necessarily in commit order (PostgreSQL's SSI may order a
     * reader before a writer that committed first): some serial order of the committed transactions
     * reproduces the final state.
     */
    SOME_SERIAL_ORDER
}
