package txfuzz.history;

import java.util.List;

/**
 * The shape of cycle an engine's mechanism makes, for an engine that documents a cycle anomaly only in that shape: a
 * documented kind covers a finding only when its witness cycle has the shape ({@link Documented}), so the same kind in a
 * shape the mechanism cannot make stays a bug candidate. Each shape is the model of one mechanism, derived from what the
 * mechanism lets each transaction see, never from the runs it was meant to explain.
 */
public enum CycleCondition {
    /** Every cycle of the kind: the manual's sentence describes the kind itself (H2: "doesn't ensure equivalence … for writers"). */
    ANY("any cycle of the kind"),
    /**
     * Plain reads see the transaction's one read view, locking reads and writes see the newest committed rows and lock
     * them to the end (InnoDB's consistent read beside its locking reads and DML). A cycle of plain reads alone cannot close:
     * a wr edge into a plain read, or session order, means the writer committed before the reader's read view, an rw edge
     * from a plain read that the writer committed after it, so along rw, plain wr and so edges the read views and commits
     * only grow, and the cycle would end before it began — unless two rw edges are adjacent (write skew: plain reads lock
     * nothing, and the middle transaction's read view comes before its own commit). So the cycle has two adjacent rw edges,
     * or it is closed by a statement that read the newest rows: a ww edge (DML) or a wr edge into a locking read. And no rw
     * edge comes from a locking read or DML: its lock keeps the next writer waiting until the reader has ended, after which
     * nothing can lead back to the reader.
     */
    CLOSED_BY_LOCKING_READ_OR_DML("a cycle closed by a locking read or DML (a ww edge, or a wr edge into a locking read), or with two"
            + " adjacent anti-dependencies from plain reads; no anti-dependency from a locking read or DML"),
    /**
     * Each table read from its own snapshot, taken when the transaction first reads the table: a transaction can see a
     * commit in one table and miss it in another, never both in one table. So every anti-dependency's reader is reached,
     * in the cycle, by a wr or ww edge on another table than the anti-dependency's row: the reader read (or wrote, under
     * first-committer-wins) that table after the writer of the missed version had committed. An edge of the same table,
     * or session order, closing it means the reader's snapshot of that table came after a commit it did not see.
     */
    ACROSS_TABLE_SNAPSHOTS("a cycle whose anti-dependency's reader is reached by a wr or ww edge on another table than the"
            + " anti-dependency's row (per-table snapshots)");

    private final String description;

    CycleCondition(String description) {
        this.description = description;
    }

    public String description() {
        return description;
    }

    /** Whether {@code cycle} (in order, each edge's {@code to} the next one's {@code from}) has this shape; false for no cycle. */
    public boolean holds(List<Dep> cycle) {
        if (this == ANY) {
            return true;
        }
        if (cycle.isEmpty()) {
            return false;
        }
        int n = cycle.size();
        return switch (this) {
            case CLOSED_BY_LOCKING_READ_OR_DML -> {
                boolean closed = false;
                for (int i = 0; i < n; i++) {
                    Dep d = cycle.get(i);
                    if (d.type() == DepType.RW && d.locking()) {
                        yield false;
                    }
                    boolean adjacentRw = d.type() == DepType.RW && cycle.get((i + 1) % n).type() == DepType.RW;
                    closed |= d.type() == DepType.WW || (d.type() == DepType.WR && d.locking()) || adjacentRw;
                }
                yield closed;
            }
            case ACROSS_TABLE_SNAPSHOTS -> {
                boolean anyRw = false;
                for (int i = 0; i < n; i++) {
                    Dep rw = cycle.get(i);
                    if (rw.type() != DepType.RW) {
                        continue;
                    }
                    anyRw = true;
                    Dep into = cycle.get((i + n - 1) % n); // the edge that reaches the reader
                    boolean otherTable = (into.type() == DepType.WR || into.type() == DepType.WW) && into.row() != null && rw.row() != null
                            && !into.row().table().equals(rw.row().table());
                    if (!otherTable) {
                        yield false;
                    }
                }
                yield anyRw;
            }
            default -> throw new IllegalStateException(name());
        };
    }
}
