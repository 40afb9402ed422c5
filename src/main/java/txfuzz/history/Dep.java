package txfuzz.history;

/**
 * An edge of the dependency graph: {@code from} must precede {@code to}. Equality is by
 * (type, from, to, row, predicate, locking), so the graph holds one edge per such combination
 * however many statements gave rise to it; the remaining fields are the evidence of the first one,
 * for explanations.
 *
 * @param row         the row the dependency is about (null for session order)
 * @param predicate   inferred from a predicate read that did not return {@code row} (an rw: the
 *                    reader saw a version before the matching ones; a wr: the reader saw the row
 *                    deleted)
 * @param locking     the reading statement was a locking (current) read (wr, rw)
 * @param version     length of the wList of the version read (wr, rw) or overwritten (ww); 0 when
 *                    not applicable
 * @param nextVersion length of the wList of the version {@code to} installed (ww, rw); 0 when not
 *                    applicable
 * @param readerStmt  statement of the reading transaction that did the read, or -1
 * @param writerStmt  statement of the writing transaction that did the write, or -1 when the write
 *                    was not recorded (only seen through later wLists)
 * @param pred        the predicate read behind a predicate dependency, else null
 */
public record Dep(DepType type, long from, long to, RowVersions row, boolean predicate, boolean locking,
                  int version, int nextVersion, int readerStmt, int writerStmt, PredicateRead pred) {

    static Dep so(long from, long to) {
        return new Dep(DepType.SO, from, to, null, false, false, 0, 0, -1, -1, null);
    }

    public boolean isAntiDependency() {
        return type == DepType.RW;
    }

    /** "rw t.r7", "ww t.r5", "rw t.r9 (predicate)", "so". */
    public String label() {
        if (row == null) {
            return type.label();
        }
        return type.label() + " " + row.name() + (predicate ? " (predicate)" : "") + (locking ? " (locking read)" : "");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Dep d && type == d.type && from == d.from && to == d.to && row == d.row && predicate == d.predicate
                && locking == d.locking;
    }

    @Override
    public int hashCode() {
        long x = (from * 0x9E3779B97F4A7C15L) ^ ((to + 0x632BE59BD9B4E019L) * 0xC2B2AE3D27D4EB4FL);
        int h = (int) (x ^ (x >>> 32));
        h = 31 * h + type.ordinal();
        h = 31 * h + (row == null ? 0 : System.identityHashCode(row));
        return 4 * h + (predicate ? 2 : 0) + (locking ? 1 : 0);
    }

    @Override
    public String toString() {
        return "T" + from + " -" + label() + "-> T" + to;
    }
}
