package txfuzz.oracle.equiv;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jgrapht.Graph;
import org.jgrapht.alg.connectivity.KosarajuStrongConnectivityInspector;
import org.jgrapht.graph.DefaultDirectedGraph;
import txfuzz.model.StmtRef;

/**
 * The statement-dependency graph SDG(H) of TxCheck (OSDI 2023, Definition 1, §3.1): nodes are the
 * statements of committed transactions (those of aborted transactions are dismissed: "these
 * statements conceptually do not affect the manipulated databases and other committed
 * transactions"), edges S<sub>i</sub> → S<sub>j</sub> when S<sub>j</sub> depends on S<sub>i</sub> by one of the seven
 * {@link DepKind}s. There are no statement-order edges, not even within a transaction (§3.1; Fig. 9
 * sorts T0.S2 before T0.S1).
 *
 * <p>Edges are inferred from the instrumentation outputs as in §3.2 and Appendix B (Lemmas 1–7),
 * for every ordered pair of distinct committed statements:
 * <ul>
 *   <li>AWR(S<sub>i</sub>) ∩ output(S<sub>j</sub>), S<sub>j</sub> a read: item-read (Lemma 1);</li>
 *   <li>AWR(S<sub>i</sub>) ∩ BWR(S<sub>j</sub>): item-write (Lemma 2);</li>
 *   <li>output(S<sub>i</sub>) ∩ BWR(S<sub>j</sub>), S<sub>i</sub> a read: item-anti (Lemma 3);</li>
 *   <li>AWR(S<sub>i</sub>) ∩ VSR(S<sub>j</sub>): predicate-read if S<sub>j</sub> is a predicate read (Lemma 4),
 *       predicate-write if S<sub>j</sub> is a predicate write and the item is of the table it writes
 *       (Lemma 5 (2)), value-write if S<sub>j</sub> is a value write (Lemma 7 (2));</li>
 *   <li>VSR(S<sub>i</sub>) ∩ BWR(S<sub>j</sub>): predicate-anti if S<sub>i</sub> is a predicate read (Lemma 6),
 *       predicate-write if S<sub>i</sub> is a predicate write and the item is of the table it writes
 *       (Lemma 5 (1)), value-write if S<sub>i</sub> is a value write (Lemma 7 (1)).</li>
 * </ul>
 * A predicate write whose predicate has a subquery over another table also performs a predicate
 * read of that table: its VSR items of tables it does not write give predicate-read (as S<sub>j</sub>) and
 * predicate-anti (as S<sub>i</sub>) edges. This is how §3.2 names the edge T1.S3 → T0.S1 of Fig. 6 ("T1.S3
 * is (stmt-predicate-anti) depended on T0.S1": the UPDATE of t1 read t0 in its subquery).
 * Item edges are exact; the others may be spurious because a VSR returns whole tables (§3.2),
 * which only adds order constraints and never invalidates the oracle (§3.3).
 *
 * <p><b>Dead versions (an addition to the paper).</b> A DELETE installs a dead version, which belongs
 * to the version sets of later predicate operations (Adya) but no SELECT can return, and TxCheck gives
 * a DELETE no AWR ("item is deleted, so no need for later dependency"). Without an edge, a later
 * statement that did not see the row could be replayed before the DELETE and see it. When
 * {@code deadVersions} is on, for each committed DELETE S<sub>i</sub> of item x and each statement S<sub>j</sub>
 * completed after it that references x's table but has no version of x in its VSR/BWR: an edge of
 * the kind Definitions 5/6/8 give for "S<sub>j</sub> used x<sub>i</sub>" (predicate-read, predicate-write,
 * value-write); and item-write when S<sub>j</sub> re-creates x's key (its AWR has it, its BWR does not).
 * These edges may be spurious too (a snapshot older than x's insertion also lacks x), which again
 * only constrains the order.
 *
 * <p><b>Unborn versions (likewise an addition).</b> An INSERT overwrites its row's unborn version,
 * which every predicate operation that ran without seeing the row used; TxCheck's BWR of an INSERT is
 * empty, so no intersection shows it. For each committed S<sub>i</sub> that inserts item x and each
 * S<sub>j</sub> that references x's table, saw no version of x, and did not run after a committed DELETE of
 * x: the edge S<sub>j</sub> → S<sub>i</sub> (predicate-anti for a read, predicate-write for a write, and
 * value-write). Without it a replay may run S<sub>j</sub> after the INSERT, where its predicate matches
 * the new row (a phantom the transactional run never had).
 */
public final class StatementDependencyGraph {

    /** One drawn edge: all dependencies between an ordered pair of statements. */
    public record Link(StmtRef from, StmtRef to) {
    }

    private final Execution execution;
    private final List<StmtExec> nodes;
    private final List<Dependency> dependencies;
    private final Graph<StmtRef, Link> graph;
    private final Map<Link, Set<DepKind>> kinds = new LinkedHashMap<>();

    private StatementDependencyGraph(Execution execution, List<Dependency> deps) {
        this.execution = execution;
        this.nodes = execution.committedStmts();
        this.dependencies = List.copyOf(deps);
        this.graph = new DefaultDirectedGraph<>(null, null, false);
        for (StmtExec s : nodes) {
            graph.addVertex(s.ref());
        }
        for (Dependency d : deps) {
            Link l = new Link(d.from(), d.to());
            if (!graph.containsEdge(l)) {
                graph.addEdge(d.from(), d.to(), l);
            }
            kinds.computeIfAbsent(l, k -> EnumSet.noneOf(DepKind.class)).add(d.kind());
        }
    }

    /** The SDG as the paper infers it, plus the dead-version edges of DELETEs (see the class comment). */
    public static StatementDependencyGraph build(Execution e) {
        return build(e, true);
    }

    public static StatementDependencyGraph build(Execution e, boolean deadVersions) {
        List<StmtExec> committed = e.committedStmts();
        List<Dependency> deps = new ArrayList<>();
        for (StmtExec si : committed) {
            for (StmtExec sj : committed) {
                if (si == sj) {
                    continue;
                }
                infer(si, sj, deps);
                if (deadVersions && si.delete() && sj.completion() > si.completion()) {
                    inferDead(si, sj, deps);
                }
                if (deadVersions) {
                    inferUnborn(si, sj, committed, deps);
                }
            }
        }
        return new StatementDependencyGraph(e, deps);
    }

    private static void infer(StmtExec si, StmtExec sj, List<Dependency> out) {
        if (sj.isRead()) {
            add(out, si, sj, DepKind.ITEM_READ, si.awr(), sj.reads(), "AWR(Si) ∩ output(Sj)");
        }
        add(out, si, sj, DepKind.ITEM_WRITE, si.awr(), sj.bwr(), "AWR(Si) ∩ BWR(Sj)");
        if (si.isRead()) {
            add(out, si, sj, DepKind.ITEM_ANTI, si.reads(), sj.bwr(), "output(Si) ∩ BWR(Sj)");
        }
        Set<Item> vsrJ = sj.vsrItems();
        if (sj.predicate() && sj.isRead()) {
            add(out, si, sj, DepKind.PREDICATE_READ, si.awr(), vsrJ, "AWR(Si) ∩ VSR(Sj)");
        }
        if (sj.predicate() && sj.isWrite()) {
            add(out, si, sj, DepKind.PREDICATE_WRITE, si.awr(), onTable(vsrJ, sj.target(), true), "AWR(Si) ∩ VSR(Sj) on the table Sj writes");
            add(out, si, sj, DepKind.PREDICATE_READ, si.awr(), onTable(vsrJ, sj.target(), false),
                    "AWR(Si) ∩ VSR(Sj) on a table Sj only reads");
        }
        if (sj.valueWrite()) {
            add(out, si, sj, DepKind.VALUE_WRITE, si.awr(), vsrJ, "AWR(Si) ∩ VSR(Sj)");
        }
        Set<Item> vsrI = si.vsrItems();
        if (si.predicate() && si.isRead()) {
            add(out, si, sj, DepKind.PREDICATE_ANTI, vsrI, sj.bwr(), "VSR(Si) ∩ BWR(Sj)");
        }
        if (si.predicate() && si.isWrite()) {
            add(out, si, sj, DepKind.PREDICATE_WRITE, onTable(vsrI, si.target(), true), sj.bwr(), "VSR(Si) ∩ BWR(Sj) on the table Si writes");
            add(out, si, sj, DepKind.PREDICATE_ANTI, onTable(vsrI, si.target(), false), sj.bwr(),
                    "VSR(Si) ∩ BWR(Sj) on a table Si only reads");
        }
        if (si.valueWrite()) {
            add(out, si, sj, DepKind.VALUE_WRITE, vsrI, sj.bwr(), "VSR(Si) ∩ BWR(Sj)");
        }
    }

    private static Set<Item> onTable(Set<Item> items, String table, boolean same) {
        Set<Item> out = new LinkedHashSet<>();
        for (Item i : items) {
            if (i.table().equals(table) == same) {
                out.add(i);
            }
        }
        return out;
    }

    private static void inferDead(StmtExec si, StmtExec sj, List<Dependency> out) {
        Set<String> tables = sj.referencedTables();
        Set<Item> used = new LinkedHashSet<>();
        Set<Item> recreated = new LinkedHashSet<>();
        for (Item x : si.bwr()) {
            boolean sawKey = hasKey(sj.vsrItems(), x) || hasKey(sj.bwr(), x) || hasKey(sj.reads(), x);
            if (tables.contains(x.table()) && !sawKey) {
                used.add(x);
            }
            if (hasKey(sj.awr(), x) && !hasKey(sj.bwr(), x)) {
                recreated.add(x);
            }
        }
        String rule = "dead version: Si deleted it, Sj (completed later) references its table without seeing it";
        if (!used.isEmpty()) {
            if (sj.predicate()) {
                out.add(new Dependency(si.ref(), sj.ref(), sj.isRead() ? DepKind.PREDICATE_READ : DepKind.PREDICATE_WRITE, used, rule));
            }
            if (sj.valueWrite()) {
                out.add(new Dependency(si.ref(), sj.ref(), DepKind.VALUE_WRITE, used, rule));
            }
        }
        if (!recreated.isEmpty()) {
            out.add(new Dependency(si.ref(), sj.ref(), DepKind.ITEM_WRITE, recreated,
                    "dead version: Si deleted it, AWR(Sj) re-creates its key"));
        }
    }

    /**
     * Unborn versions: Si inserted item x (x's key is in its AWR, not its BWR); Sj references x's table
     * and saw no version of x, and no committed DELETE of x completed before Sj — so Sj ran on x's
     * unborn version, which Si overwrote. Replayed after Si, Sj would see x (a phantom): Sj must come
     * first.
     */
    private static void inferUnborn(StmtExec si, StmtExec sj, List<StmtExec> committed, List<Dependency> out) {
        Set<Item> unborn = new LinkedHashSet<>();
        for (Item x : si.awr()) {
            if (hasKey(si.bwr(), x) || !sj.referencedTables().contains(x.table())
                    || hasKey(sj.vsrItems(), x) || hasKey(sj.bwr(), x) || hasKey(sj.reads(), x) || hasKey(sj.awr(), x)) {
                continue;
            }
            boolean deletedBefore = committed.stream().anyMatch(d -> d.delete() && d.completion() < sj.completion() && hasKey(d.bwr(), x));
            if (!deletedBefore) {
                unborn.add(x);
            }
        }
        if (unborn.isEmpty()) {
            return;
        }
        String rule = "unborn version: Sj references the table of a row Si inserted without seeing any version of it";
        if (sj.predicate()) {
            out.add(new Dependency(sj.ref(), si.ref(), sj.isRead() ? DepKind.PREDICATE_ANTI : DepKind.PREDICATE_WRITE, unborn, rule));
        }
        if (sj.valueWrite()) {
            out.add(new Dependency(sj.ref(), si.ref(), DepKind.VALUE_WRITE, unborn, rule));
        }
    }

    private static boolean hasKey(Set<Item> items, Item x) {
        for (Item i : items) {
            if (i.table().equals(x.table()) && i.key().equals(x.key())) {
                return true;
            }
        }
        return false;
    }

    private static void add(List<Dependency> out, StmtExec si, StmtExec sj, DepKind kind, Set<Item> a, Set<Item> b, String rule) {
        if (a.isEmpty() || b.isEmpty()) {
            return;
        }
        Set<Item> common = new LinkedHashSet<>();
        for (Item x : a) {
            if (b.contains(x)) {
                common.add(x);
            }
        }
        if (!common.isEmpty()) {
            out.add(new Dependency(si.ref(), sj.ref(), kind, common, rule));
        }
    }

    public Execution execution() {
        return execution;
    }

    /** The committed statements, in completion order. */
    public List<StmtExec> nodes() {
        return nodes;
    }

    public List<Dependency> dependencies() {
        return dependencies;
    }

    /** The JGraphT view: one edge per ordered pair, read-only by convention. */
    public Graph<StmtRef, Link> graph() {
        return graph;
    }

    /** The kinds of dependency from {@code from} to {@code to}; empty when none. */
    public Set<DepKind> kinds(StmtRef from, StmtRef to) {
        return Collections.unmodifiableSet(kinds.getOrDefault(new Link(from, to), EnumSet.noneOf(DepKind.class)));
    }

    public boolean has(StmtRef from, StmtRef to, DepKind kind) {
        return kinds(from, to).contains(kind);
    }

    /** All (from, to, kinds) of the graph. */
    public Map<Link, Set<DepKind>> links() {
        return Collections.unmodifiableMap(kinds);
    }

    /** The strongly connected components with more than one statement: where the cycles are. */
    public List<Set<StmtRef>> cyclicComponents() {
        List<Set<StmtRef>> out = new ArrayList<>();
        for (Set<StmtRef> scc : new KosarajuStrongConnectivityInspector<>(graph).stronglyConnectedSets()) {
            if (scc.size() > 1) {
                out.add(new TreeSet<>(scc));
            }
        }
        out.sort((a, b) -> a.iterator().next().compareTo(b.iterator().next()));
        return out;
    }

    /** Statements on some cycle, sorted. */
    public Set<StmtRef> cycleNodes() {
        Set<StmtRef> all = new TreeSet<>();
        cyclicComponents().forEach(all::addAll);
        return all;
    }

    public boolean acyclic() {
        return cyclicComponents().isEmpty();
    }

    public String mermaid() {
        Set<StmtRef> cyc = cycleNodes();
        StringBuilder sb = new StringBuilder("flowchart LR\n");
        for (StmtExec s : nodes) {
            sb.append("  ").append(id(s.ref())).append("[\"").append(nodeLabel(s).replace("\"", "#quot;")).append("\"]")
                    .append(cyc.contains(s.ref()) ? ":::cycle" : "").append('\n');
        }
        kinds.forEach((l, k) -> sb.append("  ").append(id(l.from())).append(" -->|\"").append(label(k)).append("\"| ")
                .append(id(l.to())).append('\n'));
        if (!cyc.isEmpty()) {
            sb.append("  classDef cycle stroke:#c00,stroke-width:2px\n");
        }
        return sb.toString();
    }

    public String dot() {
        Set<StmtRef> cyc = cycleNodes();
        StringBuilder sb = new StringBuilder("digraph \"SDG\" {\n  rankdir=LR;\n  node [shape=box];\n");
        for (StmtExec s : nodes) {
            sb.append("  ").append(id(s.ref())).append(" [label=\"").append(nodeLabel(s).replace("\\", "\\\\").replace("\"", "\\\""))
                    .append('"').append(cyc.contains(s.ref()) ? ", color=red" : "").append("];\n");
        }
        kinds.forEach((l, k) -> sb.append("  ").append(id(l.from())).append(" -> ").append(id(l.to())).append(" [label=\"")
                .append(label(k)).append("\"];\n"));
        return sb.append("}\n").toString();
    }

    private static String nodeLabel(StmtExec s) {
        String oneLine = s.sql().replaceAll("\\s+", " ").trim();
        String sql = oneLine.length() > 60 ? oneLine.substring(0, 57) + "..." : oneLine;
        return sql.isEmpty() ? s.label() : s.label() + ": " + sql;
    }

    private static String id(StmtRef r) {
        return "T" + r.txn() + "_S" + r.index();
    }

    private static String label(Set<DepKind> k) {
        StringBuilder sb = new StringBuilder();
        for (DepKind d : k) {
            sb.append(sb.length() == 0 ? "" : ", ").append(d.label());
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        kinds.forEach((l, k) -> sb.append(StmtExec.label(l.from())).append(" -").append(label(k)).append("-> ")
                .append(StmtExec.label(l.to())).append('\n'));
        return sb.toString();
    }
}
