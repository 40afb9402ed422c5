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
     * The observations, as the history's operations ({@link HistoryColumns}): their transaction, version length,
     * statement and flags are the operation's columns. An int each rather than four (or an object each, before):
     * at ten million transactions they are 80 million.
     */
    private final HistoryColumns columns;
    private int observations;
    /**
     * Observation k's operation is {@code obs[obsStart + k]}, for k below {@code capacity}: the inference records a row's
     * observations in its stretch of the array that groups all operations by row (see DependencyGraph's observation pass);
     * a row made by hand has an array of its own.
     */
    private int[] obs;
    private int obsStart;
    private int capacity;
    /** The transactions with a recorded write of the row, each once, and the statement of its first; filled in once the observations are complete. */
    private long[] writerIds;
    private int[] writerStmts;
        /** run[i] = index of the first entry after i with a different writer (or length). */
    int[] nextDiff;
    /** The first {@code checkedLength} entries of {@code checkedIds} name committed transactions (T0 only first): the inference's cache. */
    long[] checkedIds;
    int checkedLength;
    /** This row's number among the history's columns' rows ({@link HistoryColumns}), -1 for a row made by hand. */
    int column = -1;
    /** Where this row's versions begin among all rows' ({@link Edges} names a ww dependency by its version's place there), -1 before. */
    int base = -1;

    RowVersions(String table, String rowId) {
        this(table, rowId, null);
    }

    RowVersions(String table, String rowId, HistoryColumns columns) {
        this(table, rowId, columns, 2);
    }

    /** {@code capacity}: how many observations the row may get (its operations), so that its array is made once. */
    RowVersions(String table, String rowId, HistoryColumns columns, int capacity) {
        this.table = table;
        this.rowId = rowId;
        this.columns = columns;
        this.obs = new int[Math.max(2, capacity)];
        this.capacity = obs.length;
    }

    /** A row whose observations go to {@code store} from {@code start} on, {@code capacity} of them at most (its operations). */
    RowVersions(String table, String rowId, HistoryColumns columns, int[] store, int start, int capacity) {
        this.table = table;
        this.rowId = rowId;
        this.columns = columns;
        this.obs = store;
        this.obsStart = start;
        this.capacity = capacity;
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
     * third of the check. References are stored only when they change: the rows outlive young collections, and every
     * reference store into an old object dirties a card the collector's refinement threads then scan (storing the order
     * and the committed prefix again on every write, they took 12% of the CPU of reading and checking 1M transactions; 8% after).
     */
    void observe(int op, long[] ids, int n) {
        int o = addObservation(op);
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
                order = ids;
            }
            length = n;
            longestObs = o;
        }
    }

    private int addObservation(int op) {
        if (observations == capacity) {
            // a row made by hand grows (an array of its own); one of the inference's never does, its stretch is its operations
            capacity = observations + Math.max(2, observations >> 1);
            obs = Arrays.copyOfRange(obs, obsStart, obsStart + capacity);
            obsStart = 0;
        }
        obs[obsStart + observations] = op;
        return observations++;
    }

    int observations() {
        return observations;
    }

    /** Observation k's operation. */
    int obsOp(int k) {
        return obs[obsStart + k];
    }

    int obsTxn(int k) {
        return columns.txn(obsOp(k));
    }

    int obsLen(int k) {
        return columns.listLength(obsOp(k));
    }

    int obsStmt(int k) {
        return columns.stmt(obsOp(k));
    }

    boolean obsIs(int k, int flag) {
        return (columns.flags(obsOp(k)) & flag) != 0;
    }

    /**
     * The statement of {@code writer}'s first recorded write of the row, or -1 ({@code ids}: transaction ids by index).
     * Asked for every dependency of the row: its writers are collected once (in observation order, first write each)
     * rather than all its observations scanned per dependency, which was quadratic in a row's observations.
     */
    int writerStmt(long writer, long[] ids) {
        if (writerIds == null) {
            long[] writers = new long[4];
            int[] stmts = new int[4];
            int count = 0;
            for (int o = 0; o < observations; o++) {
                if (!obsIs(o, WRITE)) {
                    continue;
                }
                long id = ids[obsTxn(o)];
                boolean known = false;
                for (int i = 0; i < count && !known; i++) {
                    known = writers[i] == id;
                }
                if (known) {
                    continue;
                }
                if (count == writers.length) {
                    writers = Arrays.copyOf(writers, count * 2);
                    stmts = Arrays.copyOf(stmts, count * 2);
                }
                writers[count] = id;
                stmts[count++] = obsStmt(o);
            }
            writerIds = Arrays.copyOf(writers, count);
            writerStmts = Arrays.copyOf(stmts, count);
        }
        for (int i = 0; i < writerIds.length; i++) {
            if (writerIds[i] == writer) {
                return writerStmts[i];
            }
        }
        return -1;
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
