package txfuzz.model;

/** Statement {@code index} (0-based, BEGIN included) of transaction {@code txn}; prints as "T1.2". */
public record StmtRef(int txn, int index) implements Comparable<StmtRef> {
    @Override
    public String toString() {
        return "T" + txn + "." + index;
    }

    @Override
    public int compareTo(StmtRef o) {
        return txn != o.txn ? Integer.compare(txn, o.txn) : Integer.compare(index, o.index);
    }
}
