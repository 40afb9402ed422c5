package txfuzz.oracle.equiv;

/** How a transaction ended. Statement-dependency graphs keep only committed ones (OSDI 2023 §3.1). */
public enum TxnEnd {
    COMMITTED,
    ABORTED
}
