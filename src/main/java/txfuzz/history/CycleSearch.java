package txfuzz.history;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Finds witness cycles for each cycle anomaly, Elle-style: strongly connected components first
 * (no cycle crosses two of them), then, inside each component, a breadth-first search from every
 * <em>anchor</em> edge (the edge type every cycle of the kind must contain: rw for G-single, ww
 * for G0, ...) back to the anchor's source, over the edge types the kind allows, tracking a small
 * automaton state (how many rw edges, whether two were adjacent, the type of the last edge). BFS
 * gives the shortest such cycle per anchor; the best over the anchors tried is reported.
 *
 * <p>Each kind is searched in the components of the subgraph of its own edge types (a G0 search
 * only ever looks at ww-components), first without session-order edges and then, where nothing
 * was found, with them (the cycle is then flagged as needing session order). Work is bounded per
 * component (anchors tried) and per kind (BFS steps) and findings are capped per kind; hitting a
 * bound is reported as a warning, never silently.
 *
 * <p>IsoRel §3.4: "if a cycle between T1 and T2 includes an rw dependency produced by a SELECT
 * statement in T1 and a wr dependency produced by a SELECT FOR UPDATE statement in T1 (e.g.
 * T1 -rw(r)-> T2 and T2 -wr(r)-> T1), it is not an isolation anomaly … because the SELECT FOR
 * UPDATE statement is current read, instead of snapshot read". Implemented exactly so: a
 * two-transaction cycle made of an rw edge from a non-locking read of T1 and a wr edge into a
 * locking read of T1 is not accepted as a witness (the search continues, so a cycle that closes
 * some other way is still found). It applies to every row, as the paper's rule does not restrict
 * the row; wr edges from locking and non-locking reads are distinct edges, so a non-locking read
 * of the same version still closes the cycle.
 */
final class CycleSearch {
    static final int WW = 0, WR = 1, RW = 2, RWP = 3, SO = 4;
    /** The automaton's states are below 8 (three bits, see {@link Spec#start}): a vertex's visited states fit a byte. */
    private static final int STATES = 8;

    /** What one kind of cycle looks like. */
    enum Spec {
        G0(WW, bits(WW), EnumSet.of(Anomaly.G0), 2),
        G1C(WR, bits(WW, WR), EnumSet.of(Anomaly.G1C), 2),
        /** Exactly one anti-dependency, the cycle closing with a ww edge (lost update, read-write skew). */
        G_SINGLE_WW(RW, bits(WW, WR), EnumSet.of(Anomaly.LOST_UPDATE, Anomaly.READ_WRITE_SKEW), 2),
        /** Exactly one anti-dependency, the cycle closing with a wr edge (non-repeatable read, read skew). */
        G_SINGLE_WR(RW, bits(WW, WR), EnumSet.of(Anomaly.NON_REPEATABLE_READ, Anomaly.READ_SKEW), 2),
        /** Exactly one anti-dependency, closing any way (the session-order pass). */
        G_SINGLE_ANY(RW, bits(WW, WR), EnumSet.of(Anomaly.G_SINGLE, Anomaly.LOST_UPDATE, Anomaly.READ_WRITE_SKEW,
                Anomaly.NON_REPEATABLE_READ, Anomaly.READ_SKEW), 2),
        PHANTOM(RWP, bits(WW, WR), EnumSet.of(Anomaly.PHANTOM), 2),
        G_NONADJACENT(RW, bits(WW, WR, RW), EnumSet.of(Anomaly.G_NONADJACENT), 4),
        G2_ITEM(RW, bits(WW, WR, RW), EnumSet.of(Anomaly.WRITE_SKEW, Anomaly.G2_ITEM), 2),
        G2(RWP, bits(WW, WR, RW, RWP), EnumSet.of(Anomaly.G2), 2);

        final int anchor;
        final int pathMask;
        /** The kinds this search looks for (it stops once each has a shortest witness); classification may name others. */
        final Set<Anomaly> produces;
        final int minLength;

        Spec(int anchor, int pathMask, Set<Anomaly> produces, int minLength) {
            this.anchor = anchor;
            this.pathMask = pathMask;
            this.produces = produces;
            this.minLength = minLength;
        }

        int cycleMask() {
            return pathMask | (1 << anchor);
        }

        /**
         * State after the anchor. Bits: 1 = previous edge rw, 2 = an rw in the path, 4 = two rw adjacent; for the
         * single anti-dependency kinds, which use no other bit, 4 = last edge ww.
         */
        int start() {
            return 1;
        }

        int step(int s, int type) {
            boolean rw = type == RW || type == RWP;
            return switch (this) {
                case G_NONADJACENT -> rw ? ((s & 1) != 0 ? -1 : 1 | 2) : (s & 2);
                case G2_ITEM -> rw ? (1 | 2 | (s & 4) | ((s & 1) << 2)) : (s & 6);
                case G2 -> rw ? 1 | 2 : (s & 2);
                case G_SINGLE_WW, G_SINGLE_WR, G_SINGLE_ANY -> type == WW ? 4 : 0;
                default -> 0;
            };
        }

        boolean accept(int s) {
            return switch (this) {
                case G_NONADJACENT -> (s & 2) != 0 && (s & 1) == 0;
                case G2_ITEM -> (s & 2) != 0 && ((s & 4) != 0 || (s & 1) != 0);
                case G2 -> (s & 2) != 0;
                case G_SINGLE_WW -> (s & 4) != 0;
                case G_SINGLE_WR -> (s & 4) == 0;
                default -> true;
            };
        }

        boolean singleAntiDependency() {
            return this == G_SINGLE_WW || this == G_SINGLE_WR || this == G_SINGLE_ANY || this == PHANTOM;
        }
    }

    private static int bits(int... types) {
        int m = 0;
        for (int t : types) {
            m |= 1 << t;
        }
        return m;
    }

    /** A found cycle, before explanation. */
    record Witness(Anomaly anomaly, List<Dep> cycle, boolean viaSession) {
    }

    private final int nV;
    /** The graph's edges grouped by source vertex ({@link Edges#finish}): vertex v's are off[v] up to off[v + 1]. */
    private final int[] off;
    /** Each edge's target vertex and code ({@link Edges#links}): its search type in bits 0–2 ({@link Edges#TYPE_BITS}). */
    private final int[] link;
    private final Edges edges;
    private final DependencyGraph.Limits limits;
    final List<String> warnings = new ArrayList<>();
    private final Map<Integer, int[]> componentCache = new HashMap<>();
    /** The sets of edge types found acyclic, and the components they and every subset of them have (only singletons: all -1). */
    private final List<Integer> acyclicMasks = new ArrayList<>();
    private int[] allSingletons;
    /** How many times Tarjan's walk ran (of them, inside a known set's components), and for how many sets of edge types components are known (for tests). */
    int walks;
    int walksWithinKnown;

    int setsKnown() {
        return componentCache.size();
    }
    /** The edge types the graph has, as bits. */
    private final int presentTypes;
    /** Distinct two-transaction cycles IsoRel §3.4 exempts. */
    final Set<String> exempted = new HashSet<>();

    /**
     * BFS scratch. Per vertex only a stamp (the search that last reached it) and the states it was reached in; the
     * queue holds each reached (vertex, state) with the queue position it was reached from and by which edge, which
     * is the search tree, so it grows with what a search visits. Four arrays of 16 ints per vertex and state were
     * 256 MB at a million transactions.
     */
    private final int[] stamp;
    /**
     * Tarjan's scratch, made once and kept for every set of edge types: each computation wrote only what it reads back, and
     * five new arrays of a vertex each per computation (about nine computations) were fresh memory for the collector to zero.
     */
    private int[] tarjanIndex;
    private int[] tarjanLow;
    private int[] tarjanStack;
    private int[] tarjanCallV;
    private int[] tarjanCallE;
    private final byte[] reachedStates;
    private int[] queueKey = new int[1024];
    private int[] queueParent = new int[1024];
    private int[] queueEdge = new int[1024];
    private int cur;

    /** Searches the graph's own grouped edges: no copy of them (at ten million transactions they are more than a gigabyte). */
    CycleSearch(DependencyGraph g, DependencyGraph.Limits limits) {
        this.limits = limits;
        nV = g.vertexIds.length;
        edges = g.edges;
        off = edges.offsets();
        link = edges.links();
        int present = 0;
        for (int l : link) {
            present |= 1 << (l & Edges.TYPE_BITS);
            if (present == 0b11111) {
                break;
            }
        }
        presentTypes = present;
        stamp = new int[nV];
        reachedStates = new byte[nV];
    }

    static int typeOf(DepType t, boolean predicate) {
        return switch (t) {
            case WW -> WW;
            case WR -> WR;
            case RW -> predicate ? RWP : RW;
            case SO -> SO;
        };
    }

    private Dep dep(int k) {
        return edges.dep(k);
    }

    /**
     * The components of {@link #components}, computed once per set of edge types the graph has: types it has no edge
     * of change nothing (a history without predicate dependencies has the same G2 and G-single components), and
     * each computation walks every edge.
     */
    int[] componentsOf(int mask) {
        int m = mask & presentTypes;
        int[] known = componentCache.get(m);
        if (known != null) {
            return known;
        }
        // fewer edge types than an acyclic set's are acyclic too: every vertex its own component, as Tarjan would find
        boolean acyclic = false;
        for (int a : acyclicMasks) {
            acyclic |= (a & m) == m;
        }
        int[] comp = acyclic ? null : componentsWithinKnown(m);
        if (!acyclic) {
            acyclic = true;
            for (int c : comp) {
                if (c >= 0) {
                    acyclic = false;
                    break;
                }
            }
        }
        if (acyclic) {
            acyclicMasks.add(m);
            if (allSingletons == null) {
                allSingletons = comp != null ? comp : new int[nV];
                Arrays.fill(allSingletons, -1);
            }
            comp = allSingletons; // the same values: one array for every acyclic set
        }
        componentCache.put(m, comp);
        return comp;
    }

    /**
     * The components of {@code mask}'s subgraph, walked only inside those of a set of edge types containing it that is known
     * already (a subgraph's components split its supergraph's, never join them): in a large history most vertices are in no
     * cycle at all (ten million synthetic stale transactions: 19,354 components, none above six vertices), so only a few
     * are walked instead of every vertex and edge.
     */
    private int[] componentsWithinKnown(int mask) {
        int[] outer = null;
        int outerBits = Integer.MAX_VALUE;
        for (Map.Entry<Integer, int[]> known : componentCache.entrySet()) {
            int k = known.getKey();
            if ((k & mask) == mask && known.getValue() != allSingletons && Integer.bitCount(k) < outerBits) {
                outer = known.getValue();
                outerBits = Integer.bitCount(k);
            }
        }
        return components(mask, outer);
    }

    /** Strongly connected components of the subgraph of the edge types in {@code mask} (iterative Tarjan). comp[v] = -1 for singletons. */
    int[] components(int mask) {
        return components(mask, null);
    }

    /** The vertices in a component (not a singleton) of {@code outer}, ascending; one array per known set's components. */
    private int[] membersOf(int[] outer) {
        return members.computeIfAbsent(outer, o -> {
            int n = 0;
            for (int c : o) {
                n += c >= 0 ? 1 : 0;
            }
            int[] in = new int[n];
            int k = 0;
            for (int v = 0; v < o.length; v++) {
                if (o[v] >= 0) {
                    in[k++] = v;
                }
            }
            return in;
        });
    }

    private final Map<int[], int[]> members = new IdentityHashMap<>();

    /**
     * {@link #components(int)}, with {@code outer} (when not null) the components of a set of edge types containing {@code
     * mask}'s: only their vertices are walked, and only edges inside one of them; every other vertex is a singleton.
     * Components are numbered in the order the walk completes them, which depends on what it walks: nothing may depend on
     * the numbers but which vertices share one.
     */
    private int[] components(int mask, int[] outer) {
        walks++;
        walksWithinKnown += outer != null ? 1 : 0;
        if (tarjanIndex == null) {
            tarjanIndex = new int[nV];
            tarjanLow = new int[nV];
            tarjanStack = new int[nV];
            tarjanCallV = new int[nV];
            tarjanCallE = new int[nV];
        }
        int[] index = tarjanIndex;
        int[] low = tarjanLow;
        int[] comp = new int[nV];
        int[] roots = outer == null ? null : membersOf(outer);
        if (roots == null) {
            Arrays.fill(index, -1);
        } else {
            Arrays.fill(comp, -1); // a vertex in no component of the outer set is in none of this one
            for (int v : roots) {
                index[v] = -1; // only these are reached: an edge is followed only inside one outer component
            }
        }
        // a vertex off the stack (its component done) gets the largest index, so an edge to it lowers nothing: one
        // array read per edge instead of two (the pass waits on memory)
        final int done = Integer.MAX_VALUE;
        int[] stack = tarjanStack;
        int sp = 0;
        int[] callV = tarjanCallV;
        int[] callE = tarjanCallE;
        int counter = 0;
        int comps = 0;
        int rootCount = roots == null ? nV : roots.length;
        for (int r = 0; r < rootCount; r++) {
            int root = roots == null ? r : roots[r];
            if (index[root] >= 0) {
                continue;
            }
            int csp = 0;
            callV[csp] = root;
            callE[csp] = off[root];
            csp++;
            index[root] = low[root] = counter++;
            stack[sp++] = root;
            while (csp > 0) {
                int v = callV[csp - 1];
                int e = callE[csp - 1];
                boolean pushed = false;
                while (e < off[v + 1]) {
                    int l = link[e];
                    int w = Edges.target(l);
                    int t = l & Edges.TYPE_BITS;
                    e++;
                    if ((mask & (1 << t)) == 0 || outer != null && outer[w] != outer[v]) {
                        continue;
                    }
                    int iw = index[w];
                    if (iw < 0) {
                        callE[csp - 1] = e;
                        index[w] = low[w] = counter++;
                        stack[sp++] = w;
                        callV[csp] = w;
                        callE[csp] = off[w];
                        csp++;
                        pushed = true;
                        break;
                    } else if (iw < low[v]) {
                        low[v] = iw; // w is on the stack: a finished one has index `done`
                    }
                }
                if (pushed) {
                    continue;
                }
                callE[csp - 1] = e;
                if (low[v] == index[v]) {
                    int size = 0;
                    int w;
                    do {
                        w = stack[--sp];
                        index[w] = done;
                        comp[w] = comps;
                        size++;
                    } while (w != v);
                    if (size == 1) {
                        comp[v] = -1;
                    }
                    comps++;
                }
                csp--;
                if (csp > 0) {
                    int parent = callV[csp - 1];
                    low[parent] = Math.min(low[parent], low[v]);
                }
            }
        }
        return comp;
    }

    /**
     * Searches every kind; {@code found} counts the witnesses per anomaly so far (a kind is
     * skipped once all it can produce reached the cap).
     */
    List<Witness> searchAll(Map<Anomaly, Integer> found) {
        List<Witness> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        boolean cyclic = false;
        for (int c : componentsOf(bits(WW, WR, RW, RWP, SO))) {
            cyclic |= c >= 0;
        }
        if (!cyclic) {
            return out; // the whole graph is acyclic: nothing to find
        }
        // ww, wr, predicate rw and session order first: without a G1c or phantom cycle that set is acyclic, and so are the
        // G0, G1c and phantom searches' sets with and without session order, which then need no walk over the edges (the
        // session pass needs this set anyway unless a phantom is found without it); else ww, wr and session order, for G0
        // and G1c. Only which sets are computed changes, not what any search sees.
        if (componentsOf(bits(WW, WR, RWP, SO)) != allSingletons) {
            componentsOf(bits(WW, WR, SO));
        }
        for (Spec spec : new Spec[] {Spec.G0, Spec.G1C, Spec.G_SINGLE_WW, Spec.G_SINGLE_WR, Spec.PHANTOM, Spec.G_NONADJACENT, Spec.G2_ITEM,
                Spec.G2}) {
            search(spec, false, found, out, seen);
        }
        // session order: only kinds not seen without it
        for (Spec spec : new Spec[] {Spec.G0, Spec.G1C, Spec.G_SINGLE_ANY, Spec.PHANTOM, Spec.G_NONADJACENT, Spec.G2_ITEM, Spec.G2}) {
            boolean any = false;
            for (Anomaly a : spec.produces) {
                any |= found.getOrDefault(a, 0) > 0;
            }
            if (!any) {
                search(spec, true, found, out, seen);
            }
        }
        return out;
    }

    private boolean saturated(Spec spec, Map<Anomaly, Integer> found) {
        for (Anomaly a : spec.produces) {
            if (found.getOrDefault(a, 0) < limits.findingsPerKind()) {
                return false;
            }
        }
        return true;
    }

    private void search(Spec spec, boolean session, Map<Anomaly, Integer> found, List<Witness> out, Set<String> seen) {
        if (saturated(spec, found)) {
            return;
        }
        int mask = spec.cycleMask() | (session ? 1 << SO : 0);
        int pathMask = spec.pathMask | (session ? 1 << SO : 0);
        int[] comp = componentsOf(mask);
        // anchors grouped by component, the components and their anchors in the order they are met (not by the components'
        // numbers, which depend on what the walk that found them walked); past the limit only the fact that there are more
        int keep = limits.anchorsPerComponent() + 1;
        Map<Integer, Anchors> anchors = new LinkedHashMap<>();
        for (int v = 0; v < nV; v++) {
            if (comp[v] < 0) {
                continue;
            }
            for (int e = off[v]; e < off[v + 1]; e++) {
                if ((link[e] & Edges.TYPE_BITS) == spec.anchor && comp[Edges.target(link[e])] == comp[v]) {
                    anchors.computeIfAbsent(comp[v], k -> new Anchors()).add(e, keep);
                }
            }
        }
        long[] steps = {0};
        int capped = 0;
        boolean exhausted = false;
        for (Anchors as : anchors.values()) {
            if (saturated(spec, found) || exhausted) {
                return;
            }
            Map<Anomaly, Witness> best = new EnumMap<>(Anomaly.class);
            int tried = 0;
            for (int i = 0; i < as.count; i++) {
                int a = as.edges[i];
                if (tried++ >= limits.anchorsPerComponent()) {
                    capped++;
                    break;
                }
                if (steps[0] > limits.bfsStepsPerSpec()) {
                    warnings.add(spec + (session ? " (with session order)" : "") + ": search budget of " + limits.bfsStepsPerSpec()
                            + " steps exhausted; some cycles of this kind may be unreported");
                    exhausted = true;
                    break;
                }
                bfs(spec, a, comp, pathMask, best, steps);
                if (allShortest(spec, best)) {
                    break;
                }
            }
            if (capped == 1) {
                warnings.add(spec + (session ? " (with session order)" : "") + ": tried only the first " + limits.anchorsPerComponent()
                        + " anchor edges of some components; witnesses there may not be the shortest");
            }
            for (Witness w : best.values()) {
                if (found.getOrDefault(w.anomaly(), 0) >= limits.findingsPerKind()) {
                    continue;
                }
                String key = w.anomaly() + ":" + canonical(w.cycle());
                if (seen.add(key)) {
                    found.merge(w.anomaly(), 1, Integer::sum);
                    out.add(w);
                }
            }
        }
    }

    /** One component's anchor edges, the first few only: a component is searched from at most the limit's. */
    private static final class Anchors {
        int[] edges = new int[4];
        int count;

        void add(int edge, int keep) {
            if (count == keep) {
                return;
            }
            if (count == edges.length) {
                edges = Arrays.copyOf(edges, Math.min(keep, count * 2));
            }
            edges[count++] = edge;
        }
    }

    private static boolean allShortest(Spec spec, Map<Anomaly, Witness> best) {
        for (Anomaly a : spec.produces) {
            Witness w = best.get(a);
            if (w == null || w.cycle().size() > spec.minLength) {
                return false;
            }
        }
        return true;
    }

    private static String canonical(List<Dep> cycle) {
        List<String> parts = new ArrayList<>();
        for (Dep d : cycle) {
            parts.add(d.toString());
        }
        parts.sort(null);
        return String.join("|", parts);
    }

    /** BFS from the anchor's target back to its source; records the shortest witness per produced anomaly. */
    private void bfs(Spec spec, int anchorEdge, int[] comp, int pathMask, Map<Anomaly, Witness> best, long[] steps) {
        Dep anchor = dep(anchorEdge);
        int u = edges.fromVertex(anchorEdge);
        int v = Edges.target(link[anchorEdge]);
        int c = comp[u];
        cur++;
        if (cur == Integer.MAX_VALUE) {
            Arrays.fill(stamp, 0);
            cur = 1;
        }
        int head = 0;
        int tail = 0;
        int s0 = spec.start();
        stamp[v] = cur;
        reachedStates[v] = (byte) (1 << s0);
        tail = enqueue(tail, v * STATES + s0, -1, -1);
        int depth = 0;
        int levelEnd = tail;
        int bound = longestUseful(spec, best); // longest path (cycle minus the anchor) still worth finding
        while (head < tail) {
            if (head == levelEnd) {
                depth++;
                levelEnd = tail;
            }
            if (depth + 2 > bound) {
                break;
            }
            int at = head++;
            int key = queueKey[at];
            int x = key / STATES;
            int s = key % STATES;
            for (int e = off[x]; e < off[x + 1]; e++) {
                int l = link[e];
                int t = l & Edges.TYPE_BITS;
                if ((pathMask & (1 << t)) == 0) {
                    continue;
                }
                int y = Edges.target(l);
                if (comp[y] != c) {
                    continue;
                }
                steps[0]++;
                int ns = spec.step(s, t);
                if (ns < 0) {
                    continue;
                }
                if (y == u) {
                    if (!spec.accept(ns)) {
                        continue;
                    }
                    if (spec.singleAntiDependency() && depth == 0 && exempt(anchor, dep(e))) {
                        exempted.add(anchor + "|" + dep(e));
                        continue;
                    }
                    List<Dep> cycle = reconstruct(anchor, at, e);
                    if (cycle == null) {
                        continue; // repeats a transaction
                    }
                    Anomaly a = classify(spec, cycle);
                    Witness old = best.get(a);
                    if (old == null || old.cycle().size() > cycle.size()) {
                        best.put(a, new Witness(a, cycle, cycle.stream().anyMatch(d -> d.type() == DepType.SO)));
                    }
                    if (allShortest(spec, best)) {
                        return;
                    }
                    bound = longestUseful(spec, best);
                    continue;
                }
                if (stamp[y] != cur) {
                    stamp[y] = cur;
                    reachedStates[y] = 0;
                }
                if ((reachedStates[y] & (1 << ns)) == 0) {
                    reachedStates[y] |= (byte) (1 << ns);
                    tail = enqueue(tail, y * STATES + ns, at, e);
                }
            }
        }
    }

    /** Appends a reached (vertex, state) key, reached from queue position {@code parent} by edge {@code edge}; returns the new tail. */
    private int enqueue(int tail, int key, int parent, int edge) {
        if (tail == queueKey.length) {
            int grown = tail * 2;
            queueKey = Arrays.copyOf(queueKey, grown);
            queueParent = Arrays.copyOf(queueParent, grown);
            queueEdge = Arrays.copyOf(queueEdge, grown);
        }
        queueKey[tail] = key;
        queueParent[tail] = parent;
        queueEdge[tail] = edge;
        return tail + 1;
    }

    private static int longestUseful(Spec spec, Map<Anomaly, Witness> best) {
        int bound = 0;
        for (Anomaly a : spec.produces) {
            Witness w = best.get(a);
            if (w == null) {
                return Integer.MAX_VALUE;
            }
            bound = Math.max(bound, w.cycle().size() - 1);
        }
        return bound;
    }

    /** IsoRel §3.4 (see class comment): T1 -rw-> T2 from a plain read of T1, T2 -wr-> T1 into a locking read of T1. */
    static boolean exempt(Dep rw, Dep wr) {
        return rw.type() == DepType.RW && !rw.locking() && wr.type() == DepType.WR && wr.locking() && !wr.predicate() && wr.to() == rw.from()
                && wr.from() == rw.to();
    }

    /** The cycle: the anchor, the search tree's path to queue position {@code last}, and the closing edge. */
    private List<Dep> reconstruct(Dep anchor, int last, int closing) {
        List<Dep> rev = new ArrayList<>();
        rev.add(dep(closing));
        for (int at = last; queueParent[at] >= 0; at = queueParent[at]) {
            rev.add(dep(queueEdge[at]));
        }
        List<Dep> cycle = new ArrayList<>(rev.size() + 1);
        cycle.add(anchor);
        for (int i = rev.size() - 1; i >= 0; i--) {
            cycle.add(rev.get(i));
        }
        Set<Long> vs = new LinkedHashSet<>();
        for (Dep d : cycle) {
            if (!vs.add(d.from())) {
                return null;
            }
        }
        return cycle;
    }

    static Anomaly classify(Spec spec, List<Dep> cycle) {
        switch (spec) {
            case G0:
                return Anomaly.G0;
            case G1C:
                return Anomaly.G1C;
            case G_NONADJACENT:
                return Anomaly.G_NONADJACENT;
            case G2:
                return Anomaly.G2;
            case G2_ITEM:
                return cycle.size() == 2 && cycle.get(0).type() == DepType.RW && cycle.get(1).type() == DepType.RW ? Anomaly.WRITE_SKEW
                        : Anomaly.G2_ITEM;
            default:
                break;
        }
        // a phantom is a cycle whose one anti-dependency is a predicate one (docs/history-format.md, 5.):
        // a predicate wr (a reader saw a row vanish) beside an item rw (it had read that row) is still an
        // item anti-dependency cycle, Adya's G2-item, which PL-2.99 proscribes (its long item read locks
        // keep a read row from being deleted; only rows that were never read can appear)
        if (spec == Spec.PHANTOM || cycle.stream().anyMatch(d -> d.predicate() && d.type() == DepType.RW)) {
            return Anomaly.PHANTOM;
        }
        Dep last = cycle.get(cycle.size() - 1);
        Set<RowVersions> rows = new HashSet<>();
        for (Dep d : cycle) {
            if (d.row() != null) {
                rows.add(d.row());
            }
        }
        boolean oneRow = rows.size() == 1 && cycle.stream().noneMatch(d -> d.type() == DepType.SO);
        if (last.type() == DepType.WW) {
            return oneRow ? Anomaly.LOST_UPDATE : Anomaly.READ_WRITE_SKEW;
        }
        if (last.type() == DepType.WR) {
            return oneRow ? Anomaly.NON_REPEATABLE_READ : Anomaly.READ_SKEW;
        }
        return Anomaly.G_SINGLE;
    }
}
