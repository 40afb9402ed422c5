package txfuzz.history;

import java.util.Arrays;

/**
 * What the history reveals about one row: its version order (the longest observed wList; every
 * other observation must be a prefix of it — IsoRel §3.3.1's prefix rule) and the observations.
 * A version is named by the length of its wList: version {@code k} is the first {@code k} entries
 * of the order and was written by entry {@code k-1}.
 */
public final class RowVersions {
    static final int READ = 1, WRITE = 2, LOCKING = 4, DELETE = 8, PRED = 16;

    private final String table;
    private final String rowId;
    long[] order = new long[0];
    int length;
    /** An array other than {@code order} whose first {@code knownPrefixLength} entries are known to be the order's. */
    private long[] knownPrefix;
    private int knownPrefixLength;
    /** The observation of the order's longest version (the one that set it), or -1. */
    int longestObs = -1;
    /** Length of the committed tombstone (the delete's version), or -1 when the row was not deleted. */
    int tombstone = -1;
    /** Set when two observations contradict each other; the row then yields no dependencies. */
    long[] conflictOther;
    int conflictObs = -1;
    /**
     * The observations, four ints each, side by side: the transaction's index in the inference's table, the
     * version's length, the statement and the flags above. An object each was most of the check's garbage, and
     * one array rather than a column each keeps an observation in one cache line (the inference waits on memory).
     */
    private static final int TXN = 0, LEN = 1, STMT = 2, FLAGS = 3, FIELDS = 4;
    private int observations;
    private int[] obs = new int[2 * FIELDS];
    /** The transactions with a recorded write of the row, each once, and the statement of its first; filled in once the observations are complete. */
    long[] writerIds;
    int[] writerStmts;
        /** run[i] = index of the first entry after i with a different writer (or length). */
    int[] nextDiff;
    /** The first {@code checkedLength} entries of {@code checkedIds} name committed transactions (T0 only first): the inference's cache. */
    long[] checkedIds;
    int checkedLength;
    /** This row's number among the history's columns' rows ({@link HistoryColumns}), -1 for a row made by hand. */
    int column = -1;
    /** This row's number among the rows of the graph's dependencies ({@link Edges}), -1 before its first. */
    int edgeIndex = -1;

    RowVersions(String table, String rowId) {
        this.table = table;
        this.rowId = rowId;
    }

    public String table() {
        return table;
    }

    public String rowId() {
        return rowId;
    }

    /** "t.r7". */
    public String name() {
        return table + "." + rowId;
    }

    /** The inferred version order (the longest observed wList). */
    public WList versionOrder() {
        return WList.of(java.util.Arrays.copyOf(order, length));
    }

    /** Version {@code len} (the first {@code len} entries of the order). */
    public WList version(int len) {
        return WList.of(java.util.Arrays.copyOf(order, len));
    }

    /** The writer of version {@code len}. */
    public long writer(int len) {
        return order[len - 1];
    }

    /** The last version is a delete's tombstone. */
    public boolean deleted() {
        return tombstone > 0;
    }

    /** Observations contradicted each other (incompatible order): no dependencies were inferred from this row. */
    public boolean inconsistent() {
        return conflictOther != null;
    }

    String versionText(int len) {
        return WList.text(order, len);
    }

    /**
     * {@code ids}: the observed wList is its first {@code n} entries (the array may be a longer, shared order).
     * A reader shares one array per row until the order outgrows it, so most observations are the order's own
     * array, or the one it had before it grew: both are known prefixes, and comparing their entries again was a
     * third of the check.
     */
    void observe(int txn, int stmt, int flags, long[] ids, int n) {
        int o = addObservation(txn, n, stmt, flags);
        if (conflictOther != null) {
            return;
        }
        if (n <= length) {
            if (ids != order && !(ids == knownPrefix && n <= knownPrefixLength) && !prefixOf(ids, n, order)) {
                conflictOther = Arrays.copyOf(ids, n);
                conflictObs = o;
            } else if (ids != order && (ids != knownPrefix || n > knownPrefixLength)) {
                knownPrefix = ids;
                knownPrefixLength = n;
            }
        } else {
            if (ids != order && !prefixOf(order, length, ids)) {
                conflictOther = Arrays.copyOf(ids, n);
                conflictObs = o;
                return;
            }
            if (ids != order) {
                knownPrefix = order; // the order it had is a prefix of the new one
                knownPrefixLength = length;
            }
            order = ids;
            length = n;
            longestObs = o;
        }
    }

    private int addObservation(int txn, int len, int stmt, int flags) {
        int at = observations * FIELDS;
        if (at == obs.length) {
            obs = Arrays.copyOf(obs, at * 2);
        }
        obs[at + TXN] = txn;
        obs[at + LEN] = len;
        obs[at + STMT] = stmt;
        obs[at + FLAGS] = flags;
        return observations++;
    }

    int observations() {
        return observations;
    }

    int obsTxn(int k) {
        return obs[k * FIELDS + TXN];
    }

    int obsLen(int k) {
        return obs[k * FIELDS + LEN];
    }

    int obsStmt(int k) {
        return obs[k * FIELDS + STMT];
    }

    boolean obsIs(int k, int flag) {
        return (obs[k * FIELDS + FLAGS] & flag) != 0;
    }

    private static boolean prefixOf(long[] p, int n, long[] of) {
        for (int i = 0; i < n; i++) {
            if (p[i] != of[i]) {
                return false;
            }
        }
        return true;
    }

    void computeRuns() {
        nextDiff = new int[length];
        for (int i = length - 1; i >= 0; i--) {
            nextDiff[i] = i + 1 < length && order[i + 1] == order[i] ? nextDiff[i + 1] : i + 1;
        }
    }

    @Override
    public String toString() {
        return name() + " " + versionText(length);
    }
}
