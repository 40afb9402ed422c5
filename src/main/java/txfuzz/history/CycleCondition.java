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
     * them to the end (InnoDB's consistent read beside its locking reads and DML). Each edge orders two moments, a
     * transaction's read view V (at or before its first plain read) and its commit C, with V before C: a wr edge into a
     * plain read, or session order, says C(from) &lt; V(to); an anti-dependency from a plain read says V(from) &lt; C(to) (the
     * writer committed after the reader's read view); a ww edge, a wr edge into a locking read and an anti-dependency from
     * a locking read or DML each say C(from) &lt; C(to) (the second writer waited for the first's lock, the locking reader
     * read a committed version, the reader's lock kept the writer waiting until the reader had ended). Along the cycle
     * these chain into "a moment before itself" unless some transaction is entered at its commit (a ww edge, a wr edge into
     * a locking read, or any anti-dependency) and left by an anti-dependency from a plain read, whose read view came
     * before that commit: a lost update or read-write skew (ww, then the plain read that missed the other's write), write
     * skew (two adjacent anti-dependencies, the first from a plain or a locking read), read skew closed by a locking re-read.
     * A cycle with no such transaction is one InnoDB's rules cannot make (a non-repeatable read between two plain reads,
     * a lost update after SELECT ... FOR UPDATE): a bug candidate.
     */
    CLOSED_BY_LOCKING_READ_OR_DML("a cycle with a transaction entered at its commit (a ww edge, a wr edge into a locking read, or an"
            + " anti-dependency) and left by an anti-dependency from a plain read, whose read view came before that commit"),
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
                for (int i = 0; i < n; i++) {
                    Dep into = cycle.get(i);
                    Dep out = cycle.get((i + 1) % n);
                    boolean enteredAtCommit = into.type() == DepType.WW || into.type() == DepType.RW
                            || into.type() == DepType.WR && into.locking();
                    if (enteredAtCommit && out.type() == DepType.RW && !out.locking()) {
                        yield true;
                    }
                }
                yield false;
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
