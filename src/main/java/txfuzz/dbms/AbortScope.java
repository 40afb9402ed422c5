package txfuzz.dbms;

/** What an error did to the transaction it happened in. */
public enum AbortScope {
    /** Only the statement failed; the transaction goes on. */
    STATEMENT,
    /**
     * The engine rolled the whole transaction back, or left it in a state where ROLLBACK is the only
     * way on. Either way the executor sends ROLLBACK and skips the transaction's remaining statements.
     */
    TRANSACTION
}
