package txfuzz.history;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jgrapht.Graph;

/**
 * The dependency graph of a history (IsoRel §2.3, §3.3 Algorithm 1; Adya's DSG): one vertex per
 * committed transaction, typed {@link Dep} edges (ww, wr, rw, so). Built by {@link #infer(History)},
 * which also collects the anomalies that are not cycles (G1a, G1b, dirty update, incompatible
 * order, garbage read, internal, predicate read miss).
 *
 * <p>Inference, per row:
 * <ol>
 * <li>Every read, write and predicate-read row is an observation of a wList. Observations naming
 *     an aborted transaction are set aside: a committed reader of one is G1a, a committed version
 *     on top of one is a dirty update. A wList naming a transaction the history does not have is a
 *     garbage read.</li>
 * <li>Version order: the longest remaining observation; all others must be prefixes of it (the
 *     prefix rule). Otherwise the row has an incompatible order and yields no dependencies. A row
 *     with a committed DELETE ends with the deleter's tombstone; a version after it, or a read of
 *     it, is an incompatible order as well.</li>
 * <li>ww: consecutive different writers of the order (Algorithm 1 l.16–19; a DELETE's tombstone
 *     gives l.11–13's ww to the deleter).</li>
 * <li>wr: a committed reader of version k gets a wr edge from its writer (l.14–15) — unless it is
 *     the reader itself. If the writer wrote the row again right after (the next entry is the
 *     same transaction), the read was of an intermediate version: G1b.</li>
 * <li>rw: the reader of version k gets an rw edge to the first different writer after the
 *     writer's run (l.20–35: "the first transaction in wList_j that modifies the row after
 *     wList_i"; for a DELETE, l.26–30).</li>
 * <li>so: consecutive committed transactions of a session.</li>
 * <li>Predicate reads (not in IsoRel, which names this its limitation §6.1): see
 *     {@link PredicateRead}. For a row the read did not return, if every version of the row from
 *     some writer W's on was returned by a read with the same predicate, the reader saw a version
 *     before W's: a predicate rw edge reader → W. If the row existed from the start and every
 *     version matched, missing it is a predicate read miss; if it was then deleted by D, the
 *     reader saw the deletion: a predicate wr edge D → reader.</li>
 * </ol>
 *
 * <p>Transactions with an unknown outcome count as committed once a committed transaction
 * observed one of their writes, and are left out otherwise.
 */
public final class DependencyGraph {
    private final History history;
    private final TxnLookup byId;
    private final Set<Long> aborted;
    /** The rows, in the order the inference visited them (see {@link Builder#rows}). */
    private final List<RowVersions> rows;
    /** The rows by key, made on the first {@link #row} call: only explanations and tests look a row up by name. */
    private Map<RowKey, RowVersions> rowsByKey;
    private Graph<Long, Dep> graph;
    private final List<AnomalyFinding> findings;
    private final Map<Anomaly, Integer> counts;
    private final List<String> warnings;
    /** The vertices and edges again, as arrays, for {@link CycleSearch}. */
    long[] vertexIds;
    Edges edges;
    /** How many of the inference's passes ran on two threads ({@link Limits#twoThreadOps}; for tests). */
    int passesOnTwoThreads;

    record RowKey(String table, String rowId) {
        /** Mixed: the record default (31·h(table) + h(rowId)) clusters for rowIds like "r12345". */
        @Override
        public int hashCode() {
            int h = table.hashCode() * 0x9E3779B9 + rowId.hashCode();
            h *= 0x85EBCA6B;
            h ^= h >>> 13;
            h *= 0xC2B2AE35;
            return h ^ (h >>> 16);
        }
    }

    private DependencyGraph(History history, TxnLookup byId, Set<Long> aborted, List<RowVersions> rows,
                            List<AnomalyFinding> findings, Map<Anomaly, Integer> counts, List<String> warnings) {
        this.history = history;
        this.byId = byId;
        this.aborted = aborted;
        this.rows = rows;
        this.findings = findings;
        this.counts = counts;
        this.warnings = warnings;
    }

    public History history() {
        return history;
    }

    /**
     * The JGraphT graph: vertices are committed transaction ids, edges {@link Dep}s (one per
     * distinct dependency). Built on first use: the checker itself searches compact arrays.
     */
    public synchronized Graph<Long, Dep> graph() {
        if (graph == null) {
            Graph<Long, Dep> g = new DepGraph();
            for (long v : vertexIds) {
                g.addVertex(v);
            }
            for (Dep d : edges.asList()) {
                g.addEdge(d.from(), d.to(), d);
            }
            graph = g;
        }
        return graph;
    }

    /**
     * Chains of dependencies whose types are {@code types} in order (each edge's {@code to} the
     * next one's {@code from}, no transaction twice), e.g. [RW, WW] for APTrans's lost-update
     * path; {@code closed} also requires the last edge to end where the first began (a cycle).
     * At most {@code limit} chains. Depth-first, meant for the small graphs of one test case.
     */
    public List<List<Dep>> chains(List<DepType> types, boolean closed, int limit) {
        List<List<Dep>> out = new ArrayList<>();
        if (types.isEmpty()) {
            return out;
        }
        Map<Long, List<Dep>> outEdges = new HashMap<>();
        List<Dep> edges = this.edges.asList();
        for (Dep d : edges) {
            outEdges.computeIfAbsent(d.from(), k -> new ArrayList<>()).add(d);
        }
        List<Dep> path = new ArrayList<>();
        for (Dep first : edges) {
            if (out.size() >= limit) {
                break;
            }
            if (first.type() == types.get(0)) {
                path.add(first);
                extend(path, types, closed, limit, outEdges, out);
                path.clear();
            }
        }
        return out;
    }

    private static void extend(List<Dep> path, List<DepType> types, boolean closed, int limit, Map<Long, List<Dep>> outEdges, List<List<Dep>> out) {
        if (out.size() >= limit) {
            return;
        }
        Dep last = path.get(path.size() - 1);
        if (path.size() == types.size()) {
            if (!closed || last.to() == path.get(0).from()) {
                out.add(List.copyOf(path));
            }
            return;
        }
        for (Dep d : outEdges.getOrDefault(last.to(), List.of())) {
            if (d.type() != types.get(path.size())) {
                continue;
            }
            boolean repeats = false;
            for (Dep p : path) {
                repeats |= p.from() == d.to() && !(closed && path.size() + 1 == types.size() && d.to() == path.get(0).from());
            }
            if (!repeats) {
                path.add(d);
                extend(path, types, closed, limit, outEdges, out);
                path.remove(path.size() - 1);
            }
        }
    }

    /** Number of distinct dependencies (edges), without building the JGraphT graph. */
    public int edgeCount() {
        return edges.size();
    }

    public Transaction transaction(long id) {
        return byId.transaction(id);
    }

    /** Committed, or of unknown outcome and observed: the vertices of the graph. */
    public boolean committed(long id) {
        return byId.committed(id);
    }

    public Set<Long> aborted() {
        return Collections.unmodifiableSet(aborted);
    }

    public synchronized RowVersions row(String table, String rowId) {
        if (rowsByKey == null) {
            Map<RowKey, RowVersions> byKey = new HashMap<>();
            for (RowVersions r : rows) {
                byKey.put(new RowKey(r.table(), r.rowId()), r);
            }
            rowsByKey = byKey;
        }
        return rowsByKey.get(new RowKey(table, rowId));
    }

    public Collection<RowVersions> rows() {
        return Collections.unmodifiableList(rows);
    }

    /** The anomalies found without looking for cycles, capped per kind (see {@link #count}). */
    List<AnomalyFinding> directFindings() {
        return findings;
    }

    /** How many occurrences of a direct anomaly kind there were (findings are capped, counts are not). */
    int count(Anomaly a) {
        return counts.getOrDefault(a, 0);
    }

    Map<Anomaly, Integer> counts() {
        return counts;
    }

    List<String> warnings() {
        return warnings;
    }

    Explainer explainer() {
        return new Explainer(byId::transaction);
    }

    /**
     * Transactions by id, and which are vertices, over the inference's arrays: three boxed maps of a
     * million entries each (id → index, id → transaction, committed ids) cost more than a second and
     * 200 MB at a million transactions.
     */
    private static final class TxnLookup {
        final HistoryColumns columns;
        /** id → index + 1 when ids are small, else null and {@link #sparse} is used. */
        final int[] dense;
        final Map<Long, Integer> sparse;
        /** 1 committed (or unknown and observed), 2 aborted, 3 unknown and unobserved; filled in by the inference. */
        final byte[] status;

        TxnLookup(HistoryColumns columns) {
            this.columns = columns;
            int n = columns.size;
            long[] ids = columns.ids;
            long max = 0;
            for (int i = 0; i < n; i++) {
                max = Math.max(max, ids[i]);
            }
            if (max < 8L * n + 1024) {
                dense = new int[(int) max + 1];
                sparse = null;
                for (int i = 0; i < n; i++) {
                    dense[(int) ids[i]] = i + 1;
                }
            } else {
                dense = null;
                sparse = new HashMap<>(n * 2);
                for (int i = 0; i < n; i++) {
                    sparse.put(ids[i], i);
                }
            }
            status = new byte[n];
        }

        int idx(long id) {
            if (dense != null) {
                return id >= 0 && id < dense.length ? dense[(int) id] - 1 : -1;
            }
            Integer i = sparse.get(id);
            return i == null ? -1 : i;
        }

        /** Made from the columns on each call: only explanations ask. */
        Transaction transaction(long id) {
            int i = idx(id);
            return i < 0 ? null : columns.transaction(i);
        }

        boolean committed(long id) {
            int i = idx(id);
            return i >= 0 && status[i] == 1;
        }
    }

    public static DependencyGraph infer(History h) {
        return infer(h, Limits.DEFAULT);
    }

    /** One inference for every history: on its columns, read as such or made from its objects ({@link HistoryColumns#of}). */
    static DependencyGraph infer(History h, Limits limits) {
        HistoryColumns c = HistoryColumns.of(h);
        Builder b = new Builder(h, c, limits);
        try {
            return b.build();
        } catch (FoundOrder.NoRoom e) {
            // its disk filled while the found order was written: the same graph, its dependencies found twice, once the first
            // inference's state is garbage
            b.closeFoundOrder();
            b = null;
            return new Builder(h, c, limits.withFoundOrderDir(null)).build();
        } finally {
            if (b != null) {
                b.closeFoundOrder(); // its files, if the inference stopped before grouping
            }
        }
    }

    /** Bounds that keep pathological histories from taking forever; reaching one adds a warning. */
    record Limits(int findingsPerKind, long predicateEdges, int anchorsPerComponent, long bfsStepsPerSpec, long onePassOps, long twoThreadOps,
            Path foundOrderDir) {
        /**
         * Dependencies are kept in found order in memory for histories of up to {@code onePassOps} operations ({@link Edges}):
         * about two dependencies per operation, 12 bytes each in found order and 8 grouped, with room to spare for the rest;
         * beyond, in a file in {@code foundOrderDir} ({@link FoundOrder}); where none can be written (null, or no room) they
         * are found twice. Passes are split over two threads ({@link TwoThreads}) for histories of more than {@code
         * twoThreadOps} operations, when there is a second core: a test case's few hundred operations are not worth a thread.
         */
        static final Limits DEFAULT = new Limits(20, 2_000_000, 200, 50_000_000, Runtime.getRuntime().maxMemory() / 176,
                TwoThreads.AVAILABLE ? 100_000 : Long.MAX_VALUE, Path.of(System.getProperty("java.io.tmpdir")));

        /** These limits with passes split over two threads from {@code ops} operations on ({@link Long#MAX_VALUE}: never). */
        Limits withTwoThreadOps(long ops) {
            return new Limits(findingsPerKind, predicateEdges, anchorsPerComponent, bfsStepsPerSpec, onePassOps, ops, foundOrderDir);
        }

        /** These limits with the found order in memory up to {@code ops} operations, and beyond in a file in {@code dir} (null: none). */
        Limits withFoundOrder(long ops, Path dir) {
            return new Limits(findingsPerKind, predicateEdges, anchorsPerComponent, bfsStepsPerSpec, ops, twoThreadOps, dir);
        }

        Limits withFoundOrderDir(Path dir) {
            return withFoundOrder(onePassOps, dir);
        }
    }

    // ------------------------------------------------------------------------------------------

    private static final class Builder {
        final History h;
        final HistoryColumns c;
        final Limits limits;
        /** Whether passes are split over two threads ({@link Limits#twoThreadOps}). */
        final boolean together;
        int passesOnTwoThreads;
        final int n;
        final long[] ids;
        final TxnLookup lookup;
        final byte[] status; // 1 committed (effective), 2 aborted, 3 unknown & unobserved
        /**
         * The rows in a {@link HashMap}'s order by {@link RowKey}, keyed in the order of their first observation: the order in
         * which their dependencies are found, hence the witnesses'. The map itself is dropped once its order is taken: a key and
         * a node per row were 150 MB at ten million transactions, beside the graph being built.
         */
        List<RowVersions> rows;
        /** The rows by their column number: the look-up of every operation's row is an array read. */
        final RowVersions[] byRow;
        /**
         * The operations grouped by row (reads, writes, predicate reads' rows; each row's in history order): row r's are
         * {@code byRowOps[rowOpStart[r]]} up to {@code rowOpStart[r + 1]}. A row's observations are then recorded over its stretch.
         */
        int[] byRowOps;
        int[] rowOpStart;
        /** Set during the observation pass, which goes row by row: what it would report is reported afterwards, in history order. */
        private boolean deferring;
        /**
         * The distinct dependencies. Duplicates can only come from one row (a transaction reading
         * versions of the same writer's run twice, a writer pair adjacent twice in an order) or from
         * predicate reads, so they are removed there, with compact keys. Found twice: once to count each
         * vertex's, then to place them grouped by vertex ({@link Edges}); the second pass reports nothing.
         */
        Edges edges;
        boolean placing;
        /** The rows one predicate read returned ({@link #predicates}). */
        private final Seen predicateRowsSeen = new Seen();
        final Set<Dep> predicateEdges = new HashSet<>();
        final List<AnomalyFinding> findings = new ArrayList<>();
        final Map<Anomaly, Integer> counts = new EnumMap<>(Anomaly.class);
        final List<String> warnings = new ArrayList<>();
        final Explainer ex;
        final Map<PredKey, PredGroup> predGroups = new LinkedHashMap<>();
        final Set<Long> abortedIds = new HashSet<>();
        final Set<String> reported = new HashSet<>();
        /** Scratch of {@link #internal()}, one transaction at a time. */
        final OwnVersions ownVersions = new OwnVersions();
        /** The graph's vertices (committed transactions, in history order): each one's id, and each transaction's vertex or -1. */
        long[] vertexIds;
        int[] vertexOfTxn;
        int[] vertexById;
        /** The rows with dependencies, in the order their versions are numbered for ww edges ({@link RowVersions#base}). */
        final List<RowVersions> byBase = new ArrayList<>();
        int nextBase;
        /** Where the rows are split in two stretches with about as many observations each, when found on two threads. */
        int rowsMid;

        record PredKey(String table, String predicate) {
        }

        static final class PredGroup {
            /** The predicate reads' header operations (committed readers only). */
            final List<Integer> readRefs = new ArrayList<>();
            /**
             * The rows the reads returned, as (row number, wList length) in history order, until {@link #groupByRow}. A map of
             * rows to a set of lengths each (ordered as first seen: an identity-hashed map ordered the predicate dependencies
             * differently from run to run) was an entry, a set and its array per row and group: 180 MB at ten million transactions.
             */
            private long[] returned = new long[8];
            private int returnedCount;
            /** The rows returned, in the order first returned; row {@code rowsInOrder[m]}'s lengths are {@code lengths[lengthStart[m]]} up to {@code lengthStart[m + 1]}, ascending. */
            int[] rowsInOrder;
            private int[] lengthStart;
            private int[] lengths;

            void add(int row, int length) {
                if (returnedCount == returned.length) {
                    returned = Arrays.copyOf(returned, returnedCount * 2);
                }
                returned[returnedCount++] = (long) row << 32 | length;
            }

            /** Groups what was returned by row, once: the rows in the order first returned, each one's distinct lengths ascending. */
            void groupByRow() {
                if (rowsInOrder != null) {
                    return;
                }
                int n = returnedCount;
                long[] byRow = new long[n]; // row, then the place returned: a row's first place leads its run
                for (int k = 0; k < n; k++) {
                    byRow[k] = (returned[k] >>> 32) << 32 | k;
                }
                Arrays.sort(byRow);
                long[] runs = new long[n]; // (first place, the run's start in byRow)
                int runCount = 0;
                for (int k = 0; k < n; k++) {
                    if (k == 0 || byRow[k] >>> 32 != byRow[k - 1] >>> 32) {
                        runs[runCount++] = (byRow[k] & 0xFFFFFFFFL) << 32 | k;
                    }
                }
                Arrays.sort(runs, 0, runCount);
                rowsInOrder = new int[runCount];
                lengthStart = new int[runCount + 1];
                int[] lens = new int[n];
                int at = 0;
                for (int m = 0; m < runCount; m++) {
                    int from = (int) runs[m];
                    int row = (int) (byRow[from] >>> 32);
                    rowsInOrder[m] = row;
                    lengthStart[m] = at;
                    int first = at;
                    for (int k = from; k < n && (int) (byRow[k] >>> 32) == row; k++) {
                        lens[at++] = (int) returned[(int) byRow[k]];
                    }
                    Arrays.sort(lens, first, at);
                    int distinct = first;
                    for (int k = first; k < at; k++) {
                        if (k == first || lens[k] != lens[k - 1]) {
                            lens[distinct++] = lens[k];
                        }
                    }
                    at = distinct;
                }
                lengthStart[runCount] = at;
                lengths = Arrays.copyOf(lens, at);
                returned = null;
            }

            /** Whether the m-th row in {@link #rowsInOrder} was returned in its version of wList length {@code length}. */
            boolean returnedAt(int m, int length) {
                return Arrays.binarySearch(lengths, lengthStart[m], lengthStart[m + 1], length) >= 0;
            }
        }

        Builder(History h, HistoryColumns c, Limits limits) {
            this.h = h;
            this.c = c;
            this.limits = limits;
            this.together = c.ops > limits.twoThreadOps();
            this.n = c.size;
            this.ids = c.ids;
            this.lookup = new TxnLookup(c);
            this.status = lookup.status;
            this.byRow = new RowVersions[c.rows];
            this.ex = new Explainer(lookup::transaction);
        }

        int idx(long id) {
            return lookup.idx(id);
        }

        boolean isCommittedId(long id) {
            if (id == History.INITIAL) {
                return true;
            }
            int i = idx(id);
            return i >= 0 && status[i] == 1;
        }

        /** Where the dependencies are kept in found order ({@link Edges}); null: none, they are found twice. */
        private FoundOrder foundOrder;
        private boolean foundOnce;

        private FoundOrder foundOrder() {
            if (c.ops <= limits.onePassOps()) {
                foundOrder = FoundOrder.inMemory();
            } else if (limits.foundOrderDir() != null) {
                // some two dependencies an operation (1.6 in the synthetic histories)
                foundOrder = FoundOrder.inFile(limits.foundOrderDir(), 3L * c.ops * FoundOrder.BYTES_PER_EDGE);
            }
            foundOnce = foundOrder != null;
            return foundOrder;
        }

        void closeFoundOrder() {
            if (foundOrder != null) {
                foundOrder.close();
            }
        }

        DependencyGraph build() {
            resolveOutcomes();
            vertexOfTxn = new int[n];
            int nv = 0;
            for (int i = 0; i < n; i++) {
                vertexOfTxn[i] = status[i] == 1 ? nv++ : -1;
            }
            vertexIds = new long[nv];
            edges = new Edges(nv, foundOrder());
            // by id directly when ids are dense: two look-ups per end of every edge were a tenth of the inference
            vertexById = lookup.dense == null ? null : new int[lookup.dense.length];
            for (int i = 0; i < n; i++) {
                if (vertexOfTxn[i] >= 0) {
                    vertexIds[vertexOfTxn[i]] = ids[i];
                }
                if (vertexById != null) {
                    vertexById[(int) ids[i]] = vertexOfTxn[i];
                }
            }
            for (int i = 0; i < n; i++) {
                if (status[i] != 1 && c.outcome(i) == Outcome.ABORTED) {
                    abortedIds.add(ids[i]);
                }
            }
            observeRowByRow();
            predicateGroups();
            byRowOps = null;
            rowOpStart = null;
            findRowDependencies();
            internal();
            sessionOrder();
            predicates();
            if (foundOnce) {
                edges.group(together);
                passesOnTwoThreads += together ? 1 : 0;
            } else {
                // again, placing each dependency among its source vertex's: the same rows, sessions and predicates in the
                // same order give the same dependencies (and found order)
                placing = true;
                edges.startPlacing();
                predicateEdges.clear();
                allRowDependencies();
                sessionOrder();
                predicates();
            }
            edges.finish(vertexIds, c, byRow, byBase);
            DependencyGraph g = new DependencyGraph(h, lookup, abortedIds, rows, findings, counts, warnings);
            g.vertexIds = vertexIds;
            g.edges = edges;
            g.passesOnTwoThreads = passesOnTwoThreads;
            return g;
        }

        /**
         * Records every operation's observation, a row at a time: each row's state (its version order, observations, the
         * committed prefix) stays in cache while its operations are recorded, where going through the operations in history
         * order waited on a random row's state per operation. A row's operations are in history order, so its state evolves as
         * before; the rest of what was done in history order is restored: what observations report (garbage reads, G1a, dirty
         * updates) is reported afterwards in history order, rows are keyed in the order their first observation came
         * (the map's order is the dependencies' found order), and predicate reads are grouped in a pass of their own.
         */
        private void observeRowByRow() {
            // a counting sort, in two halves of the history on two threads when it is large: each row's operations of the first
            // half, then those of the second, in history order either way
            int half = together ? c.ops / 2 : c.ops;
            int[] start = new int[c.rows + 1];
            int[] secondCounts = together ? new int[c.rows + 1] : start;
            TwoThreads.run(together, () -> countByRow(0, half, start), () -> countByRow(half, c.ops, secondCounts));
            int[] secondFill = together ? new int[c.rows] : null;
            for (int r = 0; r < c.rows; r++) {
                if (together) {
                    secondFill[r] = start[r + 1]; // the row's first-half count: its second half begins past it
                    start[r + 1] += secondCounts[r + 1];
                }
                start[r + 1] += start[r];
                if (together) {
                    secondFill[r] += start[r];
                }
            }
            int[] grouped = new int[start[c.rows]];
            TwoThreads.run(together, () -> groupByRow(0, half, Arrays.copyOf(start, c.rows), grouped),
                    () -> groupByRow(half, c.ops, secondFill, grouped));
            byRowOps = grouped;
            rowOpStart = start;
            deferring = true;
            // two stretches of rows with about as many operations each, on two threads when the history is large: a row's
            // observations touch its own state only, and what each part made is merged below in an order of its own
            int mid = together ? rowSplittingOperations(start, c.rows) : c.rows;
            ObservationPart first = new ObservationPart(c.ops);
            ObservationPart second = new ObservationPart(together ? c.ops : 0);
            TwoThreads.run(together, () -> observeRows(first, 0, mid), () -> observeRows(second, mid, c.rows));
            passesOnTwoThreads += together ? 1 : 0;
            deferring = false;
            observed = first.observed;
            touched = first.touched + second.touched;
            if (together) {
                for (int w = 0; w < observed.length; w++) {
                    observed[w] |= second.observed[w];
                }
            }
            // the reports, in history order (an observation's fate does not depend on the others': a row's committed prefix only
            // spares looking up entries already found committed, which no list reaching them reports)
            int[] deferred = ObservationPart.concat(first.deferredOps, first.deferredCount, second.deferredOps, second.deferredCount);
            Arrays.sort(deferred);
            ObservationPart replay = new ObservationPart(0);
            for (int o : deferred) {
                int head = c.head(o);
                if (observe(replay, head >>> 4, o, HistoryColumns.flagsOf(head & 15)) != null) {
                    throw new IllegalStateException("operation " + o + " was set aside as not an observation, and is one");
                }
            }
            long[] made = ObservationPart.concat(first.madeRows, first.madeCount, second.madeRows, second.madeCount);
            Arrays.sort(made);
            Map<RowKey, RowVersions> keyed = new HashMap<>();
            for (long m : made) {
                RowVersions row = byRow[(int) m];
                keyed.put(new RowKey(row.table(), row.rowId()), row);
            }
            rows = Arrays.asList(keyed.values().toArray(new RowVersions[0]));
        }

        /** Counts operations {@code from} up to {@code until} by row, into {@code counts} (row r's at r + 1); predicate headers have none. */
        private void countByRow(int from, int until, int[] counts) {
            for (int o = from; o < until; o++) {
                if (HistoryColumns.kind(c.code(o)) != HistoryColumns.PRED) {
                    counts[c.row(o) + 1]++;
                }
            }
        }

        /** Places operations {@code from} up to {@code until} in {@code grouped}, each at its row's next place in {@code fill}. */
        private void groupByRow(int from, int until, int[] fill, int[] grouped) {
            for (int o = from; o < until; o++) {
                if (HistoryColumns.kind(c.code(o)) != HistoryColumns.PRED) {
                    grouped[fill[c.row(o)]++] = o;
                }
            }
        }

        /** The first row of the second of two stretches of rows with about as many operations each ({@code start}: each row's first). */
        private static int rowSplittingOperations(int[] start, int rowCount) {
            int half = start[rowCount] / 2;
            int lo = 0;
            int hi = rowCount;
            while (lo < hi) { // the first row whose operations begin at or past the half
                int m = (lo + hi) >>> 1;
                if (start[m] < half) {
                    lo = m + 1;
                } else {
                    hi = m;
                }
            }
            return lo;
        }

        /** Records the observations of rows {@code from} up to {@code until}, into {@code part} what is not the rows' own. */
        private void observeRows(ObservationPart part, int from, int until) {
            int[] grouped = byRowOps;
            int[] start = rowOpStart;
            long[] observedHere = part.observed;
            for (int r = from; r < until; r++) {
                int first = start[r];
                int end = start[r + 1];
                part.touched += touchOperations(grouped, first, end);
                for (int k = first; k < end; k++) {
                    int o = grouped[k]; // read before the row's observations may overwrite its slot (they stay at or before k)
                    int head = c.head(o);
                    if (observe(part, head >>> 4, o, HistoryColumns.flagsOf(head & 15)) != null) {
                        observedHere[o >>> 6] |= 1L << o;
                    }
                }
            }
        }

        /**
         * What one part of the observation pass makes besides the rows' own state (which is the rows' alone): the operations set
         * aside to be reported in history order, the rows made, as (their first observation's operation, their number) to be keyed
         * in that order, and which operations were observations (a word holds 64 operations of any rows: one set per part).
         */
        private static final class ObservationPart {
            int[] deferredOps = new int[16];
            int deferredCount;
            long[] madeRows = new long[16];
            int madeCount;
            final long[] observed;
            long touched;

            ObservationPart(int ops) {
                observed = new long[(ops + 63) >>> 6];
            }

            /** Operation {@code o} is no observation, and what it shows is reported later, in history order ({@link #observeRowByRow}). */
            RowVersions setAside(int o) {
                if (deferredCount == deferredOps.length) {
                    deferredOps = Arrays.copyOf(deferredOps, deferredCount * 2);
                }
                deferredOps[deferredCount++] = o;
                return null;
            }

            void made(int o, int column) {
                if (madeCount == madeRows.length) {
                    madeRows = Arrays.copyOf(madeRows, madeCount * 2);
                }
                madeRows[madeCount++] = (long) o << 32 | column;
            }

            static int[] concat(int[] a, int an, int[] b, int bn) {
                int[] all = Arrays.copyOf(a, an + bn);
                System.arraycopy(b, 0, all, an, bn);
                return all;
            }

            static long[] concat(long[] a, int an, long[] b, int bn) {
                long[] all = Arrays.copyOf(a, an + bn);
                System.arraycopy(b, 0, all, an, bn);
                return all;
            }
        }

        /** Which operations were recorded as observations (of the observation pass; for {@link #predicateGroups}). */
        private long[] observed;

        /** Sum of what {@link #touchOperations} loaded, so that the loads are not dropped as unused. */
        private long touched;

        /**
         * Loads a row's operations (scattered over the history) in a short loop of independent loads before they are recorded, so
         * that their cache misses are in flight together rather than one after another in the long loop that records them.
         */
        private long touchOperations(int[] grouped, int from, int to) {
            long sum = 0;
            for (int k = from; k < to; k++) {
                sum += c.head(grouped[k]);
            }
            return sum;
        }

        /** The predicate reads by (table, predicate), in history order: their committed readers and the rows' versions they returned. */
        private void predicateGroups() {
            PredKey groupKey = null; // of the predicate read whose rows follow, when it has a predicate
            PredGroup group = null;
            long[] seen = observed;
            for (int o = 0; o < c.ops; o++) {
                int op = c.code(o);
                int kind = HistoryColumns.kind(op);
                if (kind == HistoryColumns.PRED) {
                    int i = c.txn(o);
                    groupKey = c.len(o) < 0 ? null : new PredKey(c.strings[c.row(o)], c.predicateText(o));
                    group = null;
                    if (groupKey != null && status[i] == 1) {
                        group = predGroups.computeIfAbsent(groupKey, key -> new PredGroup());
                        group.readRefs.add(o);
                    }
                } else if (kind == HistoryColumns.PRED_ROW && groupKey != null && (seen[o >>> 6] & 1L << o) != 0) {
                    if (group == null) {
                        group = predGroups.computeIfAbsent(groupKey, key -> new PredGroup()); // a reader that did not commit: its rows still match
                    }
                    group.add(c.row(o), c.listLength(o));
                }
            }
            observed = null;
        }

        /** Committed stays committed; unknown becomes committed when a committed transaction observed its writes. */
        private void resolveOutcomes() {
            List<Integer> work = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Outcome o = c.outcome(i);
                status[i] = o == Outcome.COMMITTED ? (byte) 1 : o == Outcome.ABORTED ? (byte) 2 : (byte) 3;
                if (status[i] == 1) {
                    work.add(i);
                }
            }
            boolean anyUnknown = false;
            for (int i = 0; i < n; i++) {
                anyUnknown |= status[i] == 3;
            }
            if (!anyUnknown) {
                return; // nothing to resolve: walking every wList of every committed transaction would find nothing
            }
            while (!work.isEmpty()) {
                int i = work.remove(work.size() - 1);
                for (int o = c.opStart[i]; o < c.opStart[i + 1]; o++) {
                    if (HistoryColumns.kind(c.code(o)) == HistoryColumns.PRED) {
                        continue;
                    }
                    long[] a = c.listArray(o);
                    int an = c.listLength(o);
                    for (int k = 0; k < an; k++) {
                        long id = a[k];
                        int j = id == History.INITIAL ? -1 : idx(id);
                        if (j >= 0 && j != i && status[j] == 3) {
                            status[j] = 1;
                            work.add(j);
                        }
                    }
                }
            }
        }

        private boolean report(Anomaly a, String dedupeKey) {
            if (placing) {
                return false; // the second pass over the dependencies: reported in the first
            }
            if (dedupeKey != null && !reported.add(a + "\u0000" + dedupeKey)) {
                return false;
            }
            int c = counts.merge(a, 1, Integer::sum);
            return c <= limits.findingsPerKind();
        }

        private void add(Anomaly a, List<Long> txnIds, String summary, String explanation, List<Explainer.Arrow> arrows) {
            Set<Long> ab = new HashSet<>();
            for (long id : txnIds) {
                if (abortedIds.contains(id)) {
                    ab.add(id);
                }
            }
            String text = a.label() + ": " + a.description() + ".\n\n" + explanation + "\n";
            findings.add(new AnomalyFinding(a, txnIds, List.of(), false, a.label() + ": " + summary, text, Explainer.mermaid(arrows, ab),
                    Explainer.dot(a.label(), arrows, ab), null, false, false));
        }

        /** Records operation {@code o} (of transaction {@code t}) as an observation; returns the row when it counts towards the version order. */
        private RowVersions observe(ObservationPart part, int t, int o, int flags) {
            long[] a = c.listArray(o);
            int an = c.listLength(o); // a is the row's whole order, or a list of its own
            int column = c.row(o);
            boolean observerCommitted = status[t] == 1;
            RowVersions row = byRow[column];
            // entries already known to name committed transactions need no look-up: most lists are prefixes of one
            // array per row, and looking every entry of every list up again was most of the inference
            int checked = row != null && row.checkedIds == a ? Math.min(an, row.checkedLength) : 0;
            // the observer's id only when an entry is looked at or it did not commit (a load from a far place per operation)
            long observer = checked < an || !observerCommitted ? ids[t] : History.INITIAL;
            // garbage: unknown transactions, or the initial state anywhere but first
            for (int i = checked; i < an; i++) {
                long id = a[i];
                boolean bad = id == History.INITIAL ? i != 0 : idx(id) < 0;
                if (bad) {
                    if (deferring) {
                        return part.setAside(o);
                    }
                    String where = c.table(column) + "." + c.rowId(column);
                    String w = WList.text(a, an);
                    int stmt = c.stmt(o); // read only for a report: a column of its own, not loaded per observation
                    if (observerCommitted && report(Anomaly.GARBAGE_READ, observer + "/" + where)) {
                        add(Anomaly.GARBAGE_READ, List.of(observer), Explainer.t(observer) + " observed " + where + " with wList " + w,
                                Explainer.t(observer) + " observed " + where + " with wList " + w + ex.at(observer, stmt) + ", but "
                                        + (id == History.INITIAL ? "the initial state T0 can only come first"
                                        : Explainer.t(id) + " is not a transaction of this history") + ".",
                                List.of(new Explainer.Arrow(id, observer, "? " + where, true)));
                    }
                    return null;
                }
            }
            // versions that contain writes of transactions that did not commit
            int firstAborted = -1;
            for (int i = checked; i < an; i++) {
                if (!isCommittedId(a[i]) && a[i] != observer) {
                    firstAborted = i;
                    break;
                }
            }
            // an uncommitted transaction's own writes are no evidence of the committed version order
            if (firstAborted >= 0 || (!observerCommitted && containsId(a, an, observer))) {
                if (deferring) {
                    return part.setAside(o);
                }
                String where = c.table(column) + "." + c.rowId(column);
                int stmt = c.stmt(o);
                if (firstAborted >= 0) {
                    String w = WList.text(a, an);
                    long writer = a[firstAborted];
                    boolean reallyAborted = c.outcome(idx(writer)) == Outcome.ABORTED;
                    if (reallyAborted && observerCommitted && (flags & RowVersions.READ) != 0
                            && report(Anomaly.G1A, observer + "/" + writer)) {
                        add(Anomaly.G1A, List.of(writer, observer), Explainer.t(observer) + " read " + where + " written by aborted "
                                        + Explainer.t(writer) + " (wList " + w + ")",
                                Explainer.t(observer) + " read " + where + "'s version with wList " + w + ex.at(observer, stmt) + ", which contains "
                                        + Explainer.t(writer) + "'s write; but " + Explainer.t(writer) + " aborted, so " + Explainer.t(observer)
                                        + " read data that never existed.",
                                List.of(new Explainer.Arrow(writer, observer, "wr " + where, false)));
                    }
                    // a committed write on top of an aborted one
                    for (int j = firstAborted + 1; j < an; j++) {
                        if (isCommittedId(a[j]) && reallyAborted) {
                            if (report(Anomaly.DIRTY_UPDATE, where + "/" + writer + "/" + a[j])) {
                                add(Anomaly.DIRTY_UPDATE, List.of(writer, a[j]), Explainer.t(a[j]) + " wrote " + where + " on top of aborted "
                                                + Explainer.t(writer) + "'s version (wList " + w + ")",
                                        "The wList " + w + " of " + where + " (observed by " + Explainer.t(observer) + ex.at(observer, stmt)
                                                + ") shows committed " + Explainer.t(a[j]) + " writing after " + Explainer.t(writer)
                                                + ", which aborted: the aborted write survives in a committed version.",
                                        List.of(new Explainer.Arrow(writer, a[j], "ww " + where, false)));
                            }
                            break;
                        }
                    }
                }
                return null;
            }
            if (row == null) {
                int from = rowOpStart[column];
                row = new RowVersions(c.table(column), c.rowId(column), c, byRowOps, from, rowOpStart[column + 1] - from);
                row.column = column;
                part.made(o, column); // keyed in this order once all are made
                byRow[column] = row;
            }
            row.observe(o, a, an);
            if (observerCommitted && row.checkedIds != a) {
                row.checkedIds = a; // every entry names a committed transaction (or is T0, first); stored only when it changes (see RowVersions#observe)
                row.checkedLength = an;
            } else if (observerCommitted && row.checkedLength < an) {
                row.checkedLength = an;
            }
            if ((flags & RowVersions.DELETE) != 0 && observerCommitted) {
                row.tombstone = row.tombstone < 0 ? an : Math.min(row.tombstone, an);
            }
            return row;
        }

        private static boolean containsId(long[] a, int n, long id) {
            for (int i = 0; i < n; i++) {
                if (a[i] == id) {
                    return true;
                }
            }
            return false;
        }

        /** Whether the current row already has a ww edge between these vertices. */
        private static boolean rowHasWw(RowScratch s, int from, int to) {
            long key = (long) from << 32 | to;
            for (int k = 0; k < s.rowWwCount; k++) {
                if (s.rowWw[k] == key) {
                    return true;
                }
            }
            return false;
        }

        /** The vertex of committed transaction {@code id}. */
        private int vertex(long id) {
            return vertexById != null ? vertexById[(int) id] : vertexOfTxn[idx(id)];
        }

        /** An item dependency (ww, wr, rw) or session order, named by its source (see {@link Edges}). */
        private void edge(DepType type, long from, long to, boolean locking, int source) {
            edges.add(vertex(from), vertex(to), Edges.code(type, false, locking), source);
        }

        /**
         * A predicate dependency found by the predicate read whose header is operation {@code read}. Its {@link Dep} is kept without
         * the read as an object and the writer's statement, which {@link Edges#dep} adds when the dependency is asked for: made
         * for every dependency, they held every predicate read's rows as objects (about 5 million at ten million transactions)
         * and each row's writers.
         */
        private void predicateEdge(DepType type, long from, long to, RowVersions r, boolean locking, int version, int nextVersion, int readerStmt,
                                   int read) {
            Dep d = new Dep(type, from, to, r, true, locking, version, nextVersion, readerStmt, -1, null);
            if (predicateEdges.add(d)) {
                edges.addPredicate(vertex(from), vertex(to), d, read);
            }
        }

        /**
         * A set of longs by open addressing: row-local de-duplication keys (a HashSet of boxed keys was a fifth of the inference's
         * garbage; one per builder, cleared per row: a new one per row, grown by doubling, was 7% of the check), and the rows and
         * versions predicate reads returned (boxed sets, an Integer made per look-up of a row number above 127).
         */
        private static final class Seen {
            private static final long FREE = Long.MIN_VALUE;
            /** Past this many slots a clear drops the array instead of filling it: one row with many keys does not make every later clear long. */
            private static final int KEEP = 256;
            private long[] keys = free(8);
            private int size;
            private boolean hasFree;

            private static long[] free(int n) {
                long[] a = new long[n];
                Arrays.fill(a, FREE);
                return a;
            }

            void clear() {
                if (size > 0) {
                    if (keys.length > KEEP) {
                        keys = free(8);
                    } else {
                        Arrays.fill(keys, FREE);
                    }
                    size = 0;
                }
                hasFree = false;
            }

            boolean contains(long k) {
                if (k == FREE) {
                    return hasFree;
                }
                int mask = keys.length - 1;
                long h = k * 0x9E3779B97F4A7C15L;
                for (int i = (int) (h >>> 40) & mask; ; i = (i + 1) & mask) {
                    if (keys[i] == k) {
                        return true;
                    }
                    if (keys[i] == FREE) {
                        return false;
                    }
                }
            }

            boolean add(long k) {
                if (k == FREE) {
                    boolean had = hasFree;
                    hasFree = true;
                    return !had;
                }
                if (2 * (size + 1) > keys.length) {
                    long[] old = keys;
                    keys = free(old.length * 2);
                    for (long o : old) {
                        if (o != FREE) {
                            insert(o);
                        }
                    }
                }
                return insert(k);
            }

            private boolean insert(long k) {
                int mask = keys.length - 1;
                long h = k * 0x9E3779B97F4A7C15L;
                for (int i = (int) (h >>> 40) & mask; ; i = (i + 1) & mask) {
                    if (keys[i] == k) {
                        return false;
                    }
                    if (keys[i] == FREE) {
                        keys[i] = k;
                        size++;
                        return true;
                    }
                }
            }
        }

        /**
         * The rows a transaction wrote (or matched) so far, each with its latest own version (an operation): a short list
         * scanned in place, since most transactions touch a few rows, indexed by a map only once it grows long.
         */
        private static final class OwnVersions {
            private static final int SCAN = 16;
            private int[] rows = new int[8];
            private int[] versions = new int[8];
            private boolean[] matched = new boolean[8];
            private int size;
            private Map<Integer, Integer> index;

            void clear() {
                size = 0;
                index = null;
            }

            boolean isEmpty() {
                return size == 0;
            }

            private int find(int row) {
                if (index != null) {
                    Integer at = index.get(row);
                    return at == null ? -1 : at;
                }
                for (int i = 0; i < size; i++) {
                    if (rows[i] == row) {
                        return i;
                    }
                }
                return -1;
            }

            /** The operation with the row's latest own version, or -1. */
            int version(int row) {
                int i = find(row);
                return i < 0 ? -1 : versions[i];
            }

            /** Whether the row's latest own version is one the transaction's DML matched without changing it. */
            boolean matched(int row) {
                int i = find(row);
                return i >= 0 && matched[i];
            }

            void put(int row, int op, boolean matchedOnly) {
                int i = find(row);
                if (i < 0) {
                    if (size == rows.length) {
                        rows = Arrays.copyOf(rows, size * 2);
                        versions = Arrays.copyOf(versions, size * 2);
                        matched = Arrays.copyOf(matched, size * 2);
                    }
                    i = size++;
                    rows[i] = row;
                    if (index != null) {
                        index.put(row, i);
                    } else if (size > SCAN) {
                        index = new HashMap<>();
                        for (int k = 0; k < size; k++) {
                            index.put(rows[k], k);
                        }
                    }
                }
                versions[i] = op;
                matched[i] = matchedOnly;
            }
        }

        private void incompatible(RowVersions r, String summary, String explanation, List<Long> who) {
            if (report(Anomaly.INCOMPATIBLE_ORDER, r.name())) {
                List<Explainer.Arrow> arrows = new ArrayList<>();
                for (int i = 1; i < who.size(); i++) {
                    arrows.add(new Explainer.Arrow(who.get(0), who.get(i), "? " + r.name(), true));
                }
                add(Anomaly.INCOMPATIBLE_ORDER, who, summary, explanation, arrows);
            }
        }

        /**
         * The rows' dependencies, in the rows' order (their found order). Each row's versions are numbered first, in that order
         * (a ww dependency names its version by its place among all rows'); then the dependencies are found
         * ({@link #allRowDependencies}).
         */
        private void findRowDependencies() {
            long observations = 0;
            for (RowVersions r : rows) {
                if (r.conflictOther == null && !(r.tombstone > 0 && r.length > r.tombstone)) {
                    r.base = nextBase;
                    nextBase += r.length;
                    byBase.add(r);
                }
                observations += r.observations();
            }
            for (long before = 0; rowsMid < rows.size() && 2 * before < observations; rowsMid++) {
                before += rows.get(rowsMid).observations();
            }
            allRowDependencies();
        }

        /**
         * Every row's dependencies, in the rows' order: for a large history, the rows are split in two stretches with about as
         * many observations each ({@link #rowsMid}), found on two threads ({@link TwoThreads}), and what they report is
         * reported afterwards, the first's first. Found once, the second stretch's dependencies are kept apart and appended to
         * the first's; found twice, the second's are counted apart and then placed past the first's of each vertex
         * ({@link Edges#laterStretch}). Either way the same dependencies in the same order, the same reports in the same order.
         */
        private void allRowDependencies() {
            if (!together) {
                RowScratch scratch = new RowScratch(edges, null);
                for (RowVersions r : rows) {
                    rowDependencies(scratch, r);
                }
                return;
            }
            RowScratch first = new RowScratch(edges, new ArrayList<>());
            RowScratch second = new RowScratch(foundOnce ? new Edges(vertexIds.length, foundOrder.sibling()) : edges.laterStretch(),
                    new ArrayList<>());
            List<RowVersions> firstRows = rows.subList(0, rowsMid);
            List<RowVersions> secondRows = rows.subList(rowsMid, rows.size());
            TwoThreads.run(true, () -> {
                for (RowVersions r : firstRows) {
                    rowDependencies(first, r);
                }
            }, () -> {
                for (RowVersions r : secondRows) {
                    rowDependencies(second, r);
                }
            });
            passesOnTwoThreads++;
            if (foundOnce) {
                edges.appendAll(second.edges);
            } else {
                edges.join(second.edges);
            }
            first.reports.forEach(Runnable::run);
            second.reports.forEach(Runnable::run);
        }

        /**
         * What finding a stretch of rows' dependencies uses besides the rows: where the dependencies go, what the rows report (null:
         * reported at once; else kept to be reported in order once both stretches are done), and the scratch of one row at a time.
         */
        private static final class RowScratch {
            final Edges edges;
            final List<Runnable> reports;
            /** The current row's ww edges (from and to vertex, side by side), for the rare writer pair adjacent twice. */
            long[] rowWw = new long[8];
            int rowWwCount;
            /** The current row's de-duplication keys (see {@link #rowDependencies}). */
            final Seen rowWwSeen = new Seen();
            final Seen rowReadsSeen = new Seen();
            /** Each version's writer's vertex (-1 for T0), and the observations' fields gathered. */
            int[] rowWriterV = new int[64];
            int[] obsHead = new int[64];
            int[] obsLen = new int[64];
            int[] obsVertex = new int[64];

            RowScratch(Edges edges, List<Runnable> reports) {
                this.edges = edges;
                this.reports = reports;
            }

            void report(Runnable r) {
                if (reports == null) {
                    r.run();
                } else {
                    reports.add(r);
                }
            }
        }

        private void rowDependencies(RowScratch s, RowVersions r) {
            if (placing && r.nextDiff == null) {
                return; // an incompatible order: no dependencies (and reported in the first pass)
            }
            if (r.conflictOther != null) {
                long a = r.longestObs < 0 ? -1 : ids[r.obsTxn(r.longestObs)];
                long b = ids[r.obsTxn(r.conflictObs)];
                String wa = r.versionText(r.length);
                String wb = WList.text(r.conflictOther, r.conflictOther.length);
                s.report(() -> incompatible(r, r.name() + " was seen as " + wa + " and as " + wb,
                        Explainer.t(a) + ex.at(a, r.longestObs < 0 ? -1 : r.obsStmt(r.longestObs)) + " saw " + r.name() + " with wList " + wa + ", but "
                                + Explainer.t(b) + ex.at(b, r.obsStmt(r.conflictObs)) + " saw it with wList " + wb
                                + ". Neither is a prefix of the other, so no single order of writes explains both: a committed write was lost.",
                        a == b || a < 0 ? List.of(b) : List.of(a, b)));
                return;
            }
            if (r.tombstone > 0 && r.length > r.tombstone) {
                long deleter = r.order[r.tombstone - 1];
                long after = r.order[r.tombstone];
                String summary = r.name() + " got a version from " + Explainer.t(after) + " after " + Explainer.t(deleter) + " deleted it";
                String explanation = Explainer.t(deleter) + " deleted " + r.name() + " (its version was " + r.versionText(r.tombstone - 1) + "), yet "
                        + Explainer.t(ids[r.obsTxn(r.longestObs)]) + ex.at(ids[r.obsTxn(r.longestObs)], r.obsStmt(r.longestObs)) + " saw wList "
                        + r.versionText(r.length) + ": " + Explainer.t(after) + " wrote the row after it was deleted.";
                s.report(() -> incompatible(r, summary, explanation, List.of(deleter, after)));
                r.conflictOther = Arrays.copyOf(r.order, r.tombstone);
                return;
            }
            if (!placing) {
                r.computeRuns(); // numbered already (findRowDependencies)
            }
            s.rowWwCount = 0;
            int len = r.length;
            long[] order = r.order;
            // each version's writer's vertex, looked up once per row rather than per dependency
            int[] writerV = rowWriterVertices(s, order, len);
            Seen ww = s.rowWwSeen;
            ww.clear();
            for (int i = 0; i + 1 < len; i++) {
                long from = order[i];
                long to = order[i + 1];
                if (from != to && from != History.INITIAL) {
                    if (ww.add(from * 31 + to) || !rowHasWw(s, writerV[i], writerV[i + 1])) {
                        s.edges.add(writerV[i], writerV[i + 1], WW_CODE, r.base + i);
                        if (s.rowWwCount == s.rowWw.length) {
                            s.rowWw = Arrays.copyOf(s.rowWw, s.rowWwCount * 2);
                        }
                        s.rowWw[s.rowWwCount++] = (long) writerV[i] << 32 | writerV[i + 1];
                    }
                }
            }
            int nObs = r.observations();
            gatherObservations(s, r, nObs);
            int[] gHead = s.obsHead;
            int[] gLen = s.obsLen;
            int[] gVertex = s.obsVertex;
            Seen reads = s.rowReadsSeen;
            reads.clear();
            for (int o = 0; o < nObs; o++) {
                int head = gHead[o];
                int flags = HistoryColumns.flagsOf(head & 15);
                int xv = gVertex[o]; // the reader's vertex: -1 unless it committed
                if ((flags & RowVersions.READ) == 0 || xv < 0) {
                    continue;
                }
                int op = r.obsOp(o);
                int reader = head >>> 4;
                int p = c.lengthOf(gLen[o]);
                boolean locking = (flags & RowVersions.LOCKING) != 0;
                // one wr and one rw per (reader, writer's run, locking): later reads of the same run add nothing
                int runStart = p - 1;
                while (runStart > 0 && order[runStart - 1] == order[p - 1]) {
                    runStart--;
                }
                if (!reads.add(((long) reader << 32) | ((long) runStart << 1) | (locking ? 1 : 0))) {
                    continue;
                }
                if (r.tombstone > 0 && p >= r.tombstone) {
                    long x = ids[reader];
                    int readerStmt = c.stmt(op);
                    String summary = Explainer.t(x) + " read " + r.name() + " after " + Explainer.t(order[r.tombstone - 1]) + " deleted it";
                    String explanation = Explainer.t(x) + ex.at(x, readerStmt) + " read " + r.name() + " with wList " + r.versionText(p) + ", but "
                            + Explainer.t(order[r.tombstone - 1]) + "'s delete made that the row's last, invisible version.";
                    List<Long> who = List.of(order[r.tombstone - 1], x);
                    s.report(() -> incompatible(r, summary, explanation, who));
                    continue;
                }
                // the order's writers are committed (or T0, vertex -1) and so is the reader: the same transaction iff the same vertex
                if (writerV[p - 1] == xv) {
                    continue;
                }
                long w = order[p - 1];
                int code = locking ? WR_LOCKING_CODE : WR_CODE;
                if (w != History.INITIAL) {
                    s.edges.add(writerV[p - 1], xv, code, op);
                }
                int q = r.nextDiff[p - 1];
                if (q > p && w != History.INITIAL) {
                    int version = p;
                    long x = ids[reader];
                    s.report(() -> intermediateRead(r, op, x, w, version, q));
                }
                if (q < len) {
                    if (writerV[q] != xv) {
                        s.edges.add(xv, writerV[q], locking ? RW_LOCKING_CODE : RW_CODE, op);
                    }
                }
            }
        }

        /** G1b: reader {@code x} (its operation {@code op}) read version {@code p} of the row, which {@code w} wrote again up to {@code q}. */
        private void intermediateRead(RowVersions r, int op, long x, long w, int p, int q) {
            if (report(Anomaly.G1B, x + "/" + w + "/" + r.name())) {
                int readerStmt = c.stmt(op);
                int wStmt = r.writerStmt(w, ids);
                add(Anomaly.G1B, List.of(w, x), Explainer.t(x) + " read " + r.name() + "'s intermediate version " + r.versionText(p) + " of "
                                + Explainer.t(w),
                        Explainer.t(x) + ex.at(x, readerStmt) + " read " + r.name() + "'s version with wList " + r.versionText(p) + ", written by "
                                + Explainer.t(w) + ex.at(w, wStmt) + "; but " + Explainer.t(w) + " wrote the row again afterwards (wList "
                                + r.versionText(q) + "), so " + Explainer.t(x) + " saw a state " + Explainer.t(w) + " never committed.",
                        List.of(new Explainer.Arrow(w, x, "wr " + r.name() + " (intermediate)", false)));
            }
        }

        private static final int WW_CODE = Edges.code(DepType.WW, false, false);
        private static final int WR_CODE = Edges.code(DepType.WR, false, false);
        private static final int WR_LOCKING_CODE = Edges.code(DepType.WR, false, true);
        private static final int RW_CODE = Edges.code(DepType.RW, false, false);
        private static final int RW_LOCKING_CODE = Edges.code(DepType.RW, false, true);

        private int[] rowWriterVertices(RowScratch s, long[] order, int len) {
            if (s.rowWriterV.length < len) {
                s.rowWriterV = new int[Math.max(len, s.rowWriterV.length * 2)];
            }
            int[] v = s.rowWriterV;
            for (int i = 0; i < len; i++) {
                long id = order[i];
                if (id == History.INITIAL) {
                    v[i] = -1;
                } else if (vertexById != null) {
                    v[i] = id > 0 && id < vertexById.length ? vertexById[(int) id] : -1;
                } else {
                    int t = idx(id);
                    v[i] = t < 0 ? -1 : vertexOfTxn[t];
                }
            }
            return v;
        }

        /**
         * Copies the row's observations' operation fields (transaction and code, wList length) and their transactions' vertex (which
         * says whether they committed: the id is loaded only for a report) into the scratch arrays, each in a loop of its own: the operations and transactions are scattered over the history,
         * and a short loop of independent loads keeps many cache misses in flight, where the dependency loop, long and branching,
         * waited on them one at a time (the pass's cost was memory latency). Reads the same values as before, so finds the same.
         */
        private void gatherObservations(RowScratch s, RowVersions r, int nObs) {
            if (s.obsHead.length < nObs) {
                int size = Math.max(nObs, s.obsHead.length * 2);
                s.obsHead = new int[size];
                s.obsLen = new int[size];
                s.obsVertex = new int[size];
            }
            int[] head = s.obsHead;
            int[] lens = s.obsLen;
            for (int o = 0; o < nObs; o++) {
                int op = r.obsOp(o);
                head[o] = c.head(op);
                lens[o] = c.len(op);
            }
            int[] vs = s.obsVertex;
            for (int o = 0; o < nObs; o++) {
                vs[o] = vertexOfTxn[head[o] >>> 4];
            }
        }

        /**
         * A transaction must see its own earlier writes of a row (Elle's internal consistency), and the
         * version of a row its DML matched without changing it ({@link Read#matched}): a transaction's
         * DML makes the rows it touches visible to it in that version, and it holds their locks, so no one
         * else changes them before it ends.
         */
        private void internal() {
            for (int i = 0; i < n; i++) {
                if (status[i] != 1) {
                    continue;
                }
                long x = ids[i];
                OwnVersions own = ownVersions;
                own.clear();
                for (int o = c.opStart[i]; o < c.opStart[i + 1]; o++) {
                    int code = c.code(o);
                    int row = c.row(o);
                    switch (HistoryColumns.kind(code)) {
                        case HistoryColumns.WRITE -> {
                            int before = own.version(row);
                            boolean insert = ((code >>> HistoryColumns.WRITE_KIND_SHIFT) & 3) == WriteKind.INSERT.ordinal();
                            if (before >= 0 && !insert && !startsWith(o, before)) {
                                internalFinding(x, row, before, o, "wrote", own.matched(row), -1);
                            }
                            own.put(row, o, false);
                        }
                        case HistoryColumns.READ -> {
                            boolean matched = (code & HistoryColumns.MATCHED) != 0;
                            if (own.isEmpty() && !matched) {
                                continue;
                            }
                            int before = own.version(row);
                            if (before >= 0 && !startsWith(o, before)) {
                                internalFinding(x, row, before, o, "read", own.matched(row), ownVersionReadToo(i, c.stmt(o), row, before));
                            } else if (matched) {
                                own.put(row, o, true);
                            }
                        }
                        case HistoryColumns.PRED_ROW -> {
                            if (own.isEmpty()) {
                                continue;
                            }
                            int before = own.version(row);
                            if (before >= 0 && !startsWith(o, before)) {
                                internalFinding(x, row, before, o, "read", own.matched(row), ownVersionReadToo(i, c.stmt(o), row, before));
                            }
                        }
                        default -> {
                        }
                    }
                }
            }
        }

        /** Whether operation {@code o}'s wList starts with operation {@code p}'s. */
        private boolean startsWith(int o, int p) {
            long[] a = c.listArray(o);
            long[] b = c.listArray(p);
            int pn = c.listLength(p);
            if (pn > c.listLength(o)) {
                return false;
            }
            return a == b || Arrays.equals(a, 0, pn, b, 0, pn);
        }

        /**
         * The operation with the version of {@code row} with transaction {@code t}'s own write ({@code mine} or later) that
         * statement {@code stmt} read too, beside one without it; -1 when it read none: then the statement saw only the other version.
         */
        private int ownVersionReadToo(int t, int stmt, int row, int mine) {
            for (int o = c.opStart[t]; o < c.opStart[t + 1]; o++) {
                int kind = HistoryColumns.kind(c.code(o));
                if ((kind == HistoryColumns.READ || kind == HistoryColumns.PRED_ROW) && c.stmt(o) == stmt && c.row(o) == row
                        && startsWith(o, mine)) {
                    return o;
                }
            }
            return -1;
        }

        /**
         * A transaction that did not see its own earlier write of a row (operation {@code seen} lacks {@code mine}); {@code alsoOwn}:
         * the operation with the version with its write that the same statement read as well (-1: none), for then it did see its
         * write — and the row's old version beside it, which is what went wrong.
         */
        private void internalFinding(long x, int row, int mineOp, int seenOp, String verb, boolean matchedOnly, int alsoOwnOp) {
            String where = c.table(row) + "." + c.rowId(row);
            int stmt = c.stmt(seenOp);
            String mine = WList.text(c.listArray(mineOp), c.listLength(mineOp));
            String seen = WList.text(c.listArray(seenOp), c.listLength(seenOp));
            if (report(Anomaly.INTERNAL, x + "/" + where)) {
                if (alsoOwnOp >= 0) {
                    String alsoOwn = WList.text(c.listArray(alsoOwnOp), c.listLength(alsoOwnOp));
                    String summary = Explainer.t(x) + "." + stmt + " read both the old and the new version of row " + where + ": wList " + seen
                            + " and its own wList " + alsoOwn;
                    String text = Explainer.t(x) + " wrote " + where + " (wList " + mine + "), then" + ex.at(x, stmt) + " read the row twice: as"
                            + " wList " + alsoOwn + ", with its own write, and as wList " + seen + ", the version before it. A statement sees"
                            + " each row once, in one version, and a transaction's own write replaces the version it saw before.";
                    add(Anomaly.INTERNAL, List.of(x), summary, text, List.of(new Explainer.Arrow(x, x, "read " + where + " twice", true)));
                    return;
                }
                String summary = Explainer.t(x) + " " + verb + " " + where + " as " + seen + (matchedOnly ? " after its DML matched it as " : " after writing ")
                        + mine;
                String text = matchedOnly
                        ? Explainer.t(x) + "'s DML matched " + where + " in version wList " + mine + " without changing it (so it locked that version), then"
                        + ex.at(x, stmt) + " " + verb + " it as wList " + seen + ", an older version: a transaction's DML makes the rows it"
                        + " touches visible to it in the version it acted on, and it holds their locks until it ends."
                        : Explainer.t(x) + " wrote " + where + " (wList " + mine + "), then" + ex.at(x, stmt) + " " + verb + " it as wList " + seen
                        + ", which does not contain its own write.";
                add(Anomaly.INTERNAL, List.of(x), summary, text,
                        List.of(new Explainer.Arrow(x, x, verb + " " + where, true)));
            }
        }

        private void sessionOrder() {
            // by session in the map's order (as before: the order edges are found in decides the witnesses), then by seq
            Map<Integer, int[]> sessions = new HashMap<>();
            Map<Integer, Integer> sizes = new HashMap<>();
            for (int i = 0; i < n; i++) {
                if (status[i] == 1) {
                    int at = sizes.merge(c.sessions[i], 1, Integer::sum) - 1;
                    int[] members = sessions.get(c.sessions[i]);
                    if (members == null || at == members.length) {
                        members = members == null ? new int[8] : Arrays.copyOf(members, at * 2);
                        sessions.put(c.sessions[i], members);
                    }
                    members[at] = i;
                }
            }
            for (Map.Entry<Integer, int[]> e : sessions.entrySet()) {
                int size = sizes.get(e.getKey());
                long[] bySeq = new long[size];
                for (int k = 0; k < size; k++) {
                    int t = e.getValue()[k];
                    bySeq[k] = (long) c.seqs[t] << 32 | t; // seqs are unique in a session
                }
                Arrays.sort(bySeq);
                for (int k = 0; k + 1 < size; k++) {
                    edge(DepType.SO, ids[(int) bySeq[k]], ids[(int) bySeq[k + 1]], false, -1);
                }
            }
        }

        private void predicates() {
            long budget = limits.predicateEdges();
            for (Map.Entry<PredKey, PredGroup> e : predGroups.entrySet()) {
                PredGroup g = e.getValue();
                // rows whose versions match the predicate from some point on (see class comment)
                List<RowVersions> cand = new ArrayList<>();
                List<int[]> how = new ArrayList<>(); // {kind 0=rw 1=miss 2=deleted-wr, runStart, runFinalLen}
                g.groupByRow();
                for (int m = 0; m < g.rowsInOrder.length; m++) {
                    RowVersions r = byRow[g.rowsInOrder[m]];
                    if (r.conflictOther != null || r.nextDiff == null) {
                        continue;
                    }
                    boolean deleted = r.tombstone > 0;
                    int live = deleted ? r.length - 1 : r.length;
                    if (live <= 0) {
                        continue;
                    }
                    // walk runs backwards over the live versions; a run matches when its final live version was seen matching
                    int k = -1; // start index of the earliest run of the all-matching suffix
                    int end = live;
                    while (end > 0) {
                        int start = end - 1;
                        while (start > 0 && r.order[start - 1] == r.order[end - 1]) {
                            start--;
                        }
                        if (!g.returnedAt(m, end)) {
                            break;
                        }
                        k = start;
                        end = start;
                    }
                    if (k < 0) {
                        continue;
                    }
                    boolean fromStart = k == 0 && r.order[0] == History.INITIAL;
                    if (deleted) {
                        if (fromStart) {
                            cand.add(r);
                            how.add(new int[] {2, 0, 0});
                        }
                    } else if (fromStart) {
                        cand.add(r);
                        how.add(new int[] {1, 0, 0});
                    } else {
                        int runEnd = r.nextDiff[k];
                        cand.add(r);
                        how.add(new int[] {0, k, runEnd});
                    }
                }
                if (cand.isEmpty()) {
                    continue;
                }
                for (int ref : g.readRefs) {
                    int t = c.txn(ref);
                    long x = ids[t];
                    boolean locking = (c.code(ref) & HistoryColumns.LOCKING) != 0;
                    int stmt = c.stmt(ref);
                    Seen seen = predicateRowsSeen;
                    seen.clear();
                    for (int o = ref + 1, end = c.predEnd(ref); o < end; o++) {
                        seen.add(c.row(o));
                    }
                    for (int k = 0; k < cand.size(); k++) {
                        RowVersions r = cand.get(k);
                        if (seen.contains(r.column) || containsId(r.order, r.length, x)) {
                            continue;
                        }
                        int[] hw = how.get(k);
                        if (hw[0] == 1) {
                            if (report(Anomaly.PREDICATE_READ_MISS, x + "/" + r.name())) {
                                add(Anomaly.PREDICATE_READ_MISS, List.of(x), Explainer.t(x) + "'s predicate read of " + r.table() + " missed "
                                                + r.name(),
                                        Explainer.t(x) + "'s predicate read of " + r.table() + " (`" + c.predicateText(ref) + "`)" + ex.at(x, stmt)
                                                + " did not return " + r.name() + ", which existed from the start, was never deleted, and matched the "
                                                + "predicate in every version (" + r.versionText(r.length) + ").",
                                        List.of(new Explainer.Arrow(History.INITIAL, x, "missed " + r.name(), true)));
                            }
                            continue;
                        }
                        if (budget-- <= 0) {
                            if (!placing) {
                                warnings.add("predicate dependencies truncated at " + limits.predicateEdges() + " edges");
                            }
                            return;
                        }
                        if (hw[0] == 2) {
                            long d = r.order[r.length - 1];
                            if (d != x) {
                                predicateEdge(DepType.WR, d, x, r, locking, r.length, 0, stmt, ref);
                            }
                        } else {
                            long w = r.order[hw[1]];
                            predicateEdge(DepType.RW, x, w, r, locking, hw[1], hw[2], stmt, ref);
                        }
                    }
                }
            }
        }
    }
}
