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
