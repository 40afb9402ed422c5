package txfuzz.history;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The dependencies of a graph as columns grouped by their source vertex (compressed rows: vertex v's edges are
 * {@code off[v]} up to {@code off[v + 1]}, in the order they were found), which is the form the cycle search
 * walks. A history of a million transactions has about 13 million dependencies: as objects they were a gigabyte,
 * as eight columns in found order plus the search's own copy about 800 MB; now 8 bytes each. The inference
 * finds them once, held in found order ({@link FoundOrder}: in memory when the heap has room for both forms,
 * else in a file) and then grouped; twice only when no such file can be written: first each vertex's are
 * counted, then they are placed (at ten million transactions both forms do not fit the default heap, and
 * finding them again costs about a third of the check).
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
    /**
     * An edge's target vertex and code in one int (a link: the target shifted past the code's bits): placing writes one
     * scattered place instead of two, and the cycle search reads one column. It bounds a graph to 2^27 vertices; the
     * dependencies' count, an int, bounds it about as much (some 13 a transaction).
     */
    static final int CODE_BITS = 5;
    static final int MAX_VERTICES = 1 << (31 - CODE_BITS + 1);

    static int target(int link) {
        return link >>> CODE_BITS;
    }

    static int link(int to, int code) {
        return to << CODE_BITS | code;
    }

    private final int vertices;
    private int size;
    /** Found once: in found order (from vertex, link, source), grouped at the end; null when found twice. */
    private FoundOrder found;
    /** Counting (the first pass): where each vertex's edges are counted (vertex v's at v + 1): {@link #off}, or a later stretch's. */
    private int[] counts;
    /** Placing (the second pass): the next free place of each vertex's edges. */
    private int[] fill;
    private int placed;
    /**
     * Found twice on two threads ({@link #laterStretch}): the later stretch's counts, the rest's counted with them; once
     * placing, the later stretch's first place of each vertex.
     */
    private int[] laterCounts;
    private int[] laterFill;
    /**
     * Predicate dependencies, by their source: each one's {@link Dep} without its read and writer's statement, and its read (the
     * predicate read's header operation), from which {@link #dep} completes it.
     */
    private final List<Dep> predicateDeps = new ArrayList<>();
    private int[] predicateReads = new int[16];

    /** Grouped by source vertex: vertex v's edges are off[v] up to off[v + 1]. */
    private final int[] off;
    private int[] link;
    private int[] source;
    /** What a {@link Dep} is made from. */
    private long[] vertexIds;
    private HistoryColumns columns;
    private RowVersions[] byRow;
    private RowVersions[] byBase;
    private int[] bases;

    /** {@code found}: the dependencies are found once, and kept there in found order until {@link #group}ed; null: found twice. */
    Edges(int vertices, FoundOrder found) {
        this(vertices, new int[vertices + 1]);
        this.found = found;
    }

    private Edges(int vertices, int[] off) {
        if (vertices > MAX_VERTICES) {
            throw new IllegalArgumentException("a dependency graph of " + vertices + " committed transactions is past the checker's "
                    + MAX_VERTICES);
        }
        this.vertices = vertices;
        this.off = off;
        counts = off;
    }

    static int code(DepType type, boolean predicate, boolean locking) {
        return CycleSearch.typeOf(type, predicate) | (predicate ? PREDICATE : 0) | (locking ? LOCKING : 0);
    }

    /** An edge between vertices {@code from} and {@code to}: {@code source} as the class comment says, -1 for session order. */
    void add(int from, int to, int code, int source) {
        if (found != null) {
            found.append(from, link(to, code), source); // counted per vertex in group(), in a loop of its own
            size++;
            return;
        }
        if (fill == null) {
            counts[from + 1]++; // counting
            size++;
            return;
        }
        int k = fill[from]++;
        link[k] = link(to, code);
        this.source[k] = source;
        placed++;
    }

    /** A predicate edge, with its evidence: {@code d} but for its read, which is operation {@code read}, and its writer's statement. */
    void addPredicate(int from, int to, Dep d, int read) {
        int k = predicateDeps.size();
        if (k == predicateReads.length) {
            predicateReads = Arrays.copyOf(predicateReads, k * 2);
        }
        predicateReads[k] = read;
        predicateDeps.add(d);
        add(from, to, code(d.type(), true, d.locking()), k);
    }

    int size() {
        return size;
    }

    /** Found once: appends {@code later}'s edges (found once, no predicate ones), in their order, after these. */
    void appendAll(Edges later) {
        if (!later.predicateDeps.isEmpty()) {
            throw new IllegalStateException("predicate dependencies are found on one thread, after the rows'");
        }
        found.appendAll(later.found);
        size += later.size;
    }

    /**
     * Found once: groups the blocks by source vertex. Each vertex's edges are counted here rather than as they are found: a
     * short loop keeps many of its scattered increments in flight. {@code together}: the first and second halves of the blocks
     * are counted, then placed, on two threads ({@link TwoThreads}): placing is a scattered write per edge and column, and a
     * second core keeps as many more misses in flight. A vertex's edges of the second half are placed after those of the first,
     * so each lands where it would on one thread. The blocks are dropped once all are placed.
     */
    void group(boolean together) {
        int blocks = found.blocks();
        int half = together ? found.halfway() : blocks;
        int[] secondCounts = together ? new int[vertices + 1] : off;
        TwoThreads.run(together, () -> count(0, half, off), () -> count(half, blocks, secondCounts));
        int[] secondAt = together ? new int[vertices] : null;
        for (int v = 0; v < vertices; v++) {
            if (together) {
                secondAt[v] = off[v + 1]; // the vertex's edges in the first half: those of the second are placed past them
                off[v + 1] += secondCounts[v + 1];
            }
            off[v + 1] += off[v];
            if (together) {
                secondAt[v] += off[v];
            }
        }
        link = new int[size];
        source = new int[size];
        TwoThreads.run(together, () -> place(0, half, Arrays.copyOf(off, vertices)), () -> place(half, blocks, secondAt));
        found.close();
        found = null;
        placed = size;
    }

    /** Counts blocks {@code from} up to {@code until}'s edges per source vertex into {@code counts} (vertex v's at v + 1). */
    private void count(int from, int until, int[] counts) {
        FoundOrder.Reader r = found.reader();
        for (int b = from; b < until; b++) {
            r.load(b, false);
            int[] f = r.from;
            for (int i = 0; i < r.count; i++) {
                counts[f[i] + 1]++;
            }
        }
    }

    /** Places blocks {@code from} up to {@code until}'s edges, each at its source vertex's next place in {@code at}. */
    private void place(int from, int until, int[] at) {
        FoundOrder.Reader r = found.reader();
        for (int b = from; b < until; b++) {
            r.load(b, true);
            int[] f = r.from;
            int[] l = r.link;
            int[] s = r.source;
            for (int i = 0; i < r.count; i++) {
                int k = at[f[i]]++;
                link[k] = l[i];
                source[k] = s[i];
            }
        }
    }

    /** Frees what the found order holds (its files among it) if the inference stopped before grouping. */
    void close() {
        if (found != null) {
            found.close();
        }
    }

    /**
     * Found twice, on two threads: where a later stretch of rows' dependencies go, found on a thread of its own beside this
     * one's earlier stretch. Counting, they are counted apart; placing, each vertex's are placed past its edges of the earlier
     * stretch, so each lands where it would on one thread. {@link #join} it once both stretches are done.
     */
    Edges laterStretch() {
        if (found != null || !predicateDeps.isEmpty()) {
            throw new IllegalStateException("a later stretch is of rows found twice, before the predicates");
        }
        Edges later = new Edges(vertices, fill == null ? new int[vertices + 1] : off);
        if (fill != null) {
            later.link = link;
            later.source = source;
            later.fill = laterFill;
        }
        return later;
    }

    /** The later stretch is done: what is found from now on (the rest, on one thread) comes after its edges. */
    void join(Edges later) {
        if (fill == null) {
            size += later.size;
            laterCounts = later.counts;
            counts = laterCounts;
        } else {
            placed += later.placed;
            fill = laterFill;
            laterFill = null;
        }
    }

    /** The edges are counted: the same ones, found again in the same order, are now placed. */
    void startPlacing() {
        if (laterCounts == null) {
            for (int v = 0; v < vertices; v++) {
                off[v + 1] += off[v];
            }
        } else {
            // each vertex's edges of the earlier stretch, then those of the later one and the rest
            laterFill = new int[vertices];
            int start = 0;
            for (int v = 0; v < vertices; v++) {
                int earlier = off[v + 1];
                off[v] = start;
                laterFill[v] = start + earlier;
                start += earlier + laterCounts[v + 1];
            }
            off[vertices] = start;
            laterCounts = null;
        }
        counts = null;
        link = new int[size];
        source = new int[size];
        if (found == null) {
            fill = Arrays.copyOf(off, vertices);
            predicateDeps.clear();
        }
    }

    /** The edges are placed; {@link Dep}s are made from these. */
    void finish(long[] vertexIds, HistoryColumns columns, RowVersions[] byRow, List<RowVersions> byBase) {
        if (placed != size) {
            throw new IllegalStateException("the second pass found " + placed + " dependencies, the first " + size);
        }
        fill = null;
        this.vertexIds = vertexIds;
        this.columns = columns;
        this.byRow = byRow;
        this.byBase = byBase.toArray(new RowVersions[0]);
        this.bases = new int[this.byBase.length];
        for (int k = 0; k < bases.length; k++) {
            bases[k] = this.byBase[k].base;
        }
    }

    int[] offsets() {
        return off;
    }

    /** Each grouped edge's target vertex and code ({@link #target}, the code in its low {@link #CODE_BITS} bits). */
    int[] links() {
        return link;
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
        int c = link[k] & ((1 << CODE_BITS) - 1);
        long from = vertexIds[fromVertex(k)];
        long toId = vertexIds[target(link[k])];
        DepType type = BY_SEARCH_TYPE[c & TYPE_BITS];
        int s = source[k];
        if ((c & PREDICATE) != 0) {
            Dep d = predicateDeps.get(s);
            long writer = d.type() == DepType.WR ? d.from() : d.to();
            return new Dep(d.type(), d.from(), d.to(), d.row(), true, d.locking(), d.version(), d.nextVersion(), d.readerStmt(),
                    d.row().writerStmt(writer, columns.ids), columns.predicateRead(predicateReads[s]));
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
