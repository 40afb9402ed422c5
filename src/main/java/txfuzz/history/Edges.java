package txfuzz.history;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The dependencies of a graph as columns, one entry per distinct {@link Dep}, in the order they were
 * found. A history of a million transactions has about 13 million dependencies: as objects they were a
 * gigabyte and most of the collector's work, and the cycle search read them back one object at a time.
 * A {@link Dep} is made only when asked for: for a witness cycle's edges, or for callers of the list view.
 */
final class Edges {
    private static final int PREDICATE = 4, LOCKING = 8;
    /** values() copies its array on every call, which was a sixth of the cycle search's set-up. */
    private static final DepType[] TYPES = DepType.values();

    private int size;
    private byte[] kind = new byte[1024];
    private long[] from = new long[1024];
    private long[] to = new long[1024];
    private int[] row = new int[1024];
    private int[] version = new int[1024];
    private int[] nextVersion = new int[1024];
    private int[] readerStmt = new int[1024];
    private int[] writerStmt = new int[1024];
    /** The edges' rows, numbered as they first appear here ({@link RowVersions#edgeIndex}). */
    private final List<RowVersions> rows = new ArrayList<>();
    /** Predicate reads of predicate dependencies, few: by edge index, only for those edges. */
    private final java.util.Map<Integer, PredicateRead> preds = new java.util.HashMap<>();

    void add(DepType type, long from, long to, RowVersions r, boolean predicate, boolean locking, int version, int nextVersion,
             int readerStmt, int writerStmt, PredicateRead pred) {
        if (size == kind.length) {
            int n = size * 2;
            kind = Arrays.copyOf(kind, n);
            this.from = Arrays.copyOf(this.from, n);
            this.to = Arrays.copyOf(this.to, n);
            row = Arrays.copyOf(row, n);
            this.version = Arrays.copyOf(this.version, n);
            this.nextVersion = Arrays.copyOf(this.nextVersion, n);
            this.readerStmt = Arrays.copyOf(this.readerStmt, n);
            this.writerStmt = Arrays.copyOf(this.writerStmt, n);
        }
        int e = size++;
        kind[e] = (byte) (type.ordinal() | (predicate ? PREDICATE : 0) | (locking ? LOCKING : 0));
        this.from[e] = from;
        this.to[e] = to;
        if (r == null) {
            row[e] = -1;
        } else {
            if (r.edgeIndex < 0) {
                r.edgeIndex = rows.size();
                rows.add(r);
            }
            row[e] = r.edgeIndex;
        }
        this.version[e] = version;
        this.nextVersion[e] = nextVersion;
        this.readerStmt[e] = readerStmt;
        this.writerStmt[e] = writerStmt;
        if (pred != null) {
            preds.put(e, pred);
        }
    }

    int size() {
        return size;
    }

    long from(int e) {
        return from[e];
    }

    long to(int e) {
        return to[e];
    }

    DepType type(int e) {
        return TYPES[kind[e] & 3];
    }

    boolean predicate(int e) {
        return (kind[e] & PREDICATE) != 0;
    }

    boolean locking(int e) {
        return (kind[e] & LOCKING) != 0;
    }

    /** The edge's row, or null for session order. */
    RowVersions row(int e) {
        return row[e] < 0 ? null : rows.get(row[e]);
    }

    /** Whether edge {@code e} is a ww edge {@code from → to} on row {@code r}. */
    boolean isWw(int e, RowVersions r, long from, long to) {
        return row[e] == r.edgeIndex && (kind[e] & 3) == DepType.WW.ordinal() && this.from[e] == from && this.to[e] == to;
    }

    boolean onRow(int e, RowVersions r) {
        return r.edgeIndex >= 0 && row[e] == r.edgeIndex;
    }

    /** Edge {@code e} as a {@link Dep} (a new object each time; equal to any other for the same edge). */
    Dep dep(int e) {
        return new Dep(type(e), from[e], to[e], row(e), predicate(e), locking(e), version[e], nextVersion[e], readerStmt[e], writerStmt[e],
                preds.get(e));
    }

    /** The edges as {@link Dep}s, made as they are read. */
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
