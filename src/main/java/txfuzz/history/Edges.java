package txfuzz.history;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The dependencies of a graph as columns: while the inference finds them, appended in blocks (from and to as
 * vertex indices, a code, and a source); then {@link #finish grouped by their source vertex} (compressed
 * rows: vertex v's edges are {@code off[v]} up to {@code off[v + 1]}, in the order they were found), which is
 * the form the cycle search walks. A history of a million transactions has about 13 million dependencies: as
 * objects they were a gigabyte, as eight columns in found order plus the search's own copy about 800 MB; now
 * 9 bytes each once grouped, and never two copies of the whole.
 *
 * <p>An edge's evidence is not stored but named by its source: for a wr or rw edge the observation
 * (operation) of the reader, which has the row, the version read and the statement; for a ww edge the place
 * of the overwritten version among all rows' versions ({@link RowVersions#base}); for a predicate edge its
 * {@link Dep}, kept (they are few). A {@link Dep} is made only when asked for: for a witness's edges, or for
 * callers of the list view.
 */
final class Edges {
    /** The code: bits 0–2 the search's type ({@link CycleSearch#WW} ...), then these. */
    static final int TYPE_BITS = 7, PREDICATE = 8, LOCKING = 16;
    /** 512 KB blocks: under the collector's large-object size (half a region; 2 MB regions at the default heap), which would waste up to half of each. */
    private static final int BLOCK_BITS = 17, BLOCK = 1 << BLOCK_BITS;

    private int size;
    private int[][] fromBlocks = new int[4][];
    private int[][] toBlocks = new int[4][];
    private int[][] sourceBlocks = new int[4][];
    private byte[][] codeBlocks = new byte[4][];
    /** Predicate dependencies, by their source. */
    private final List<Dep> predicateDeps = new ArrayList<>();

    /** Grouped by source vertex, once {@link #finish}ed. */
    private int[] off;
    private int[] to;
    private byte[] code;
    private int[] source;
    /** What a {@link Dep} is made from. */
    private long[] vertexIds;
    private HistoryColumns columns;
    private RowVersions[] byRow;
    private RowVersions[] byBase;
    private int[] bases;

    static int code(DepType type, boolean predicate, boolean locking) {
        return CycleSearch.typeOf(type, predicate) | (predicate ? PREDICATE : 0) | (locking ? LOCKING : 0);
    }

    /** An edge between vertices {@code from} and {@code to}: {@code source} as the class comment says, -1 for session order. */
    void add(int from, int to, int code, int source) {
        int b = size >>> BLOCK_BITS;
        int i = size & (BLOCK - 1);
        if (i == 0) {
            if (b == fromBlocks.length) {
                int n = b * 2;
                fromBlocks = Arrays.copyOf(fromBlocks, n);
                toBlocks = Arrays.copyOf(toBlocks, n);
                sourceBlocks = Arrays.copyOf(sourceBlocks, n);
                codeBlocks = Arrays.copyOf(codeBlocks, n);
            }
            // the first block small: most graphs (a test case's) have a few dozen edges
            int length = b == 0 ? 64 : BLOCK;
            fromBlocks[b] = new int[length];
            toBlocks[b] = new int[length];
            sourceBlocks[b] = new int[length];
            codeBlocks[b] = new byte[length];
        } else if (b == 0 && i == fromBlocks[0].length) {
            int n = Math.min(BLOCK, i * 4);
            fromBlocks[0] = Arrays.copyOf(fromBlocks[0], n);
            toBlocks[0] = Arrays.copyOf(toBlocks[0], n);
            sourceBlocks[0] = Arrays.copyOf(sourceBlocks[0], n);
            codeBlocks[0] = Arrays.copyOf(codeBlocks[0], n);
        }
        fromBlocks[b][i] = from;
        toBlocks[b][i] = to;
        sourceBlocks[b][i] = source;
        codeBlocks[b][i] = (byte) code;
        size++;
    }

    /** A predicate edge, with its evidence. */
    void addPredicate(int from, int to, Dep d) {
        predicateDeps.add(d);
        add(from, to, code(d.type(), true, d.locking()), predicateDeps.size() - 1);
    }

    int size() {
        return size;
    }

    /** Whether an edge from {@code first} on (in found order, before {@link #finish}) is a ww edge {@code from → to}. */
    boolean hasWw(int first, int from, int to) {
        for (int e = first; e < size; e++) {
            int b = e >>> BLOCK_BITS;
            int i = e & (BLOCK - 1);
            if ((codeBlocks[b][i] & TYPE_BITS) == CycleSearch.WW && fromBlocks[b][i] == from && toBlocks[b][i] == to) {
                return true;
            }
        }
        return false;
    }

    /**
     * Groups the edges by source vertex, keeping their found order within each, and drops the blocks as it goes (at ten
     * million transactions the edges are more than a gigabyte: the two forms must not be held whole at once).
     */
    void finish(long[] vertexIds, HistoryColumns columns, RowVersions[] byRow, List<RowVersions> byBase) {
        this.vertexIds = vertexIds;
        this.columns = columns;
        this.byRow = byRow;
        this.byBase = byBase.toArray(new RowVersions[0]);
        this.bases = new int[this.byBase.length];
        for (int k = 0; k < bases.length; k++) {
            bases[k] = this.byBase[k].base;
        }
        int nV = vertexIds.length;
        off = new int[nV + 1];
        for (int e = 0; e < size; e++) {
            off[fromBlocks[e >>> BLOCK_BITS][e & (BLOCK - 1)] + 1]++;
        }
        for (int v = 0; v < nV; v++) {
            off[v + 1] += off[v];
        }
        // one column at a time, each block's dropped once placed: the blocks and the grouped form are each more than a
        // gigabyte at ten million transactions, and the default heap does not hold both whole
        to = new int[size];
        place(toBlocks, to);
        toBlocks = null;
        source = new int[size];
        place(sourceBlocks, source);
        sourceBlocks = null;
        code = new byte[size];
        int[] fill = Arrays.copyOf(off, nV);
        for (int b = 0; b * (long) BLOCK < size; b++) {
            int[] f = fromBlocks[b];
            byte[] c = codeBlocks[b];
            int n = Math.min(f.length, size - b * BLOCK);
            for (int i = 0; i < n; i++) {
                code[fill[f[i]]++] = c[i];
            }
            fromBlocks[b] = null;
            codeBlocks[b] = null;
        }
    }

    /** Puts a column's values at their grouped places, dropping its blocks as it goes. */
    private void place(int[][] blocks, int[] into) {
        int[] fill = Arrays.copyOf(off, off.length - 1);
        for (int b = 0; b * (long) BLOCK < size; b++) {
            int[] f = fromBlocks[b];
            int[] v = blocks[b];
            int n = Math.min(f.length, size - b * BLOCK);
            for (int i = 0; i < n; i++) {
                into[fill[f[i]]++] = v[i];
            }
            blocks[b] = null;
        }
    }

    int[] offsets() {
        return off;
    }

    int[] targets() {
        return to;
    }

    byte[] codes() {
        return code;
    }

    /** The source vertex of grouped edge {@code k}. */
    int fromVertex(int k) {
        int lo = 0;
        int hi = off.length - 2;
        while (lo < hi) { // the last v with off[v] <= k
            int mid = (lo + hi + 1) >>> 1;
            if (off[mid] <= k) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    private static final DepType[] BY_SEARCH_TYPE = {DepType.WW, DepType.WR, DepType.RW, DepType.RW, DepType.SO};

    /** Grouped edge {@code k} as a {@link Dep} (a new object each time; equal to any other for the same edge). */
    Dep dep(int k) {
        int c = code[k];
        long from = vertexIds[fromVertex(k)];
        long toId = vertexIds[to[k]];
        DepType type = BY_SEARCH_TYPE[c & TYPE_BITS];
        int s = source[k];
        if ((c & PREDICATE) != 0) {
            return predicateDeps.get(s);
        }
        boolean locking = (c & LOCKING) != 0;
        long[] ids = columns.ids;
        switch (type) {
            case SO:
                return Dep.so(from, toId);
            case WW: {
                int at = Arrays.binarySearch(bases, s);
                RowVersions r = byBase[at >= 0 ? at : -at - 2];
                int i = s - r.base;
                return new Dep(type, from, toId, r, false, false, i + 1, i + 2, -1, r.writerStmt(toId, ids), null);
            }
            case WR: {
                RowVersions r = byRow[columns.row(s)];
                return new Dep(type, from, toId, r, false, locking, columns.listLength(s), 0, columns.stmt(s), r.writerStmt(from, ids), null);
            }
            default: {
                RowVersions r = byRow[columns.row(s)];
                int p = columns.listLength(s);
                return new Dep(type, from, toId, r, false, locking, p, r.nextDiff[p - 1] + 1, columns.stmt(s), r.writerStmt(toId, ids), null);
            }
        }
    }

    /** The edges as {@link Dep}s, made as they are read, grouped by source vertex (in history order), each vertex's in found order. */
    List<Dep> asList() {
        return new AbstractList<>() {
            @Override
            public Dep get(int i) {
                return dep(java.util.Objects.checkIndex(i, size));
            }

            @Override
            public int size() {
                return size;
            }
        };
    }
}
