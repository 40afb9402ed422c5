package txfuzz.dbms;

/**
 * The standard promise an isolation level keeps (Berenson et al.'s and Adya's levels, plus snapshot
 * isolation): what pairs levels across subjects, since engines give the same promise different names
 * (H2 SNAPSHOT and PostgreSQL REPEATABLE READ are both snapshot isolation) and the same name to
 * different promises (MariaDB's REPEATABLE READ is not snapshot isolation: it loses updates).
 */
public enum Promise {
    /** No dirty writes (Adya PL-1). */
    READ_UNCOMMITTED,
    /** No dirty reads (PL-2). */
    READ_COMMITTED,
    /** Item reads repeat, updates are not lost (PL-2.99); phantoms allowed. */
    REPEATABLE_READ,
    /** Reads from one snapshot, first committer wins (PL-SI): write skew allowed. */
    SNAPSHOT_ISOLATION,
    /** Equivalent to some serial order (PL-3). */
    SERIALIZABLE;

    /**
     * Whether every run that keeps this promise keeps {@code other} too. Snapshot isolation and repeatable read are
     * incomparable: snapshot isolation permits write skew (G2-item), which PL-2.99 proscribes; PL-2.99 permits phantoms,
     * which one snapshot rules out.
     */
    public boolean implies(Promise other) {
        return switch (this) {
            case SERIALIZABLE -> true;
            case SNAPSHOT_ISOLATION -> other != REPEATABLE_READ;
            case REPEATABLE_READ -> other != SNAPSHOT_ISOLATION && other != SERIALIZABLE;
            case READ_COMMITTED -> other == READ_COMMITTED || other == READ_UNCOMMITTED;
            case READ_UNCOMMITTED -> other == READ_UNCOMMITTED;
        };
    }

    /** The promise in Adya's terms: the level and the phenomena it proscribes (Adya 1999 §4; Berenson et al. for snapshot isolation). */
    public String definition() {
        return switch (this) {
            case READ_UNCOMMITTED -> "Adya's PL-1, which proscribes only dirty writes (G0)";
            case READ_COMMITTED -> "Adya's PL-2, which proscribes dirty writes and dirty reads (G0, G1a, G1b, G1c), not lost updates,"
                    + " read skew or any other anti-dependency cycle (G-single, G2)";
            case REPEATABLE_READ -> "Adya's PL-2.99, which proscribes G0, G1 and item anti-dependency cycles (G2-item), not phantoms";
            case SNAPSHOT_ISOLATION -> "snapshot isolation (Adya's PL-SI), which proscribes G0, G1, G-single and lost updates, not write skew";
            case SERIALIZABLE -> "Adya's PL-3: equivalent to some serial order, not necessarily the commit order";
        };
    }

    /** The promise a level's standard name makes. */
    public static Promise named(txfuzz.model.IsolationLevel level) {
        return switch (level) {
            case READ_UNCOMMITTED -> READ_UNCOMMITTED;
            case READ_COMMITTED -> READ_COMMITTED;
            case REPEATABLE_READ -> REPEATABLE_READ;
            case SNAPSHOT -> SNAPSHOT_ISOLATION;
            case SERIALIZABLE -> SERIALIZABLE;
        };
    }
}
