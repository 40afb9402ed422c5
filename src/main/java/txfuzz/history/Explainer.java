package txfuzz.history;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongFunction;

/**
 * Explains dependencies and cycles in Elle's style ("Let … Then: T1 &lt; T2, because … However,
 * T2 &lt; T1, because …: a contradiction!") and draws them as Mermaid flowcharts and Graphviz DOT.
 * Transactions keep their history ids, so the text matches the wLists.
 */
final class Explainer {
    private final LongFunction<Transaction> txns;

    Explainer(LongFunction<Transaction> txns) {
        this.txns = txns;
    }

    static String t(long id) {
        return "T" + id;
    }

    /** " in T5.2 `UPDATE t SET …`", or " in T5.2", or "" when the statement is unknown. */
    String at(long txn, int stmt) {
        if (stmt < 0) {
            return "";
        }
        Transaction tx = txns.apply(txn);
        String sql = tx == null ? null : tx.sqlOf(stmt);
        return " in T" + txn + "." + stmt + (sql == null ? "" : " `" + oneLine(sql) + "`");
    }

    static String oneLine(String sql) {
        String s = sql.replaceAll("\\s+", " ").trim();
        return s.length() > 160 ? s.substring(0, 157) + "..." : s;
    }

    /** Why {@code d.from} precedes {@code d.to}, as a clause after "because". */
    String reason(Dep d) {
        RowVersions r = d.row();
        switch (d.type()) {
            case SO:
                Transaction a = txns.apply(d.from());
                return t(d.to()) + " ran after " + t(d.from()) + " in session " + (a == null ? "?" : a.session());
            case WW: {
                boolean tomb = r.deleted() && d.nextVersion() == r.tombstone;
                if (tomb) {
                    return t(d.to()) + " deleted " + r.name() + " when its version was " + t(d.from()) + "'s (wList " + r.versionText(d.version())
                            + ")" + at(d.to(), d.writerStmt());
                }
                return t(d.to()) + " wrote " + r.name() + "'s version (wList " + r.versionText(d.nextVersion()) + ") right after "
                        + t(d.from()) + "'s (wList " + r.versionText(d.version()) + ")" + at(d.to(), d.writerStmt());
            }
            case WR:
                if (d.predicate()) {
                    return t(d.to()) + "'s predicate read of " + r.table() + predText(d.pred()) + at(d.to(), d.readerStmt()) + " did not return "
                            + r.name() + ", which matched in every version from the start until " + t(d.from())
                            + " deleted it: " + t(d.to()) + " saw the deletion";
                }
                return t(d.to()) + " read " + r.name() + "'s version written by " + t(d.from()) + " (wList " + r.versionText(d.version()) + ")"
                        + at(d.to(), d.readerStmt()) + (d.locking() ? ", a locking read" : "");
            case RW: {
                if (d.predicate()) {
                    return t(d.from()) + "'s predicate read of " + r.table() + predText(d.pred()) + at(d.from(), d.readerStmt())
                            + " did not return " + r.name() + ", yet every version of it from " + t(d.to()) + "'s (wList "
                            + r.versionText(d.nextVersion()) + ") on matches the predicate: " + t(d.from()) + " saw " + r.name()
                            + (d.version() == 0 ? " before it existed" : " before " + t(d.to()) + " wrote it");
                }
                boolean tomb = r.deleted() && d.nextVersion() == r.tombstone;
                String next = tomb ? t(d.to()) + " deleted it" + at(d.to(), d.writerStmt())
                        : t(d.to()) + " wrote the next version (wList " + r.versionText(d.nextVersion()) + ")" + at(d.to(), d.writerStmt());
                return t(d.from()) + " read " + r.name() + "'s version (wList " + r.versionText(d.version()) + ")" + at(d.from(), d.readerStmt())
                        + (d.locking() ? " (a locking read)" : "") + " and " + next;
            }
            default:
                throw new IllegalStateException();
        }
    }

    private static String predText(PredicateRead p) {
        return p == null || p.predicate() == null ? "" : " (`" + oneLine(p.predicate()) + "`)";
    }

    String describeTxn(long id, Set<Integer> stmts) {
        Transaction tx = txns.apply(id);
        if (tx == null) {
            return t(id) + " = (not in the history)";
        }
        StringBuilder sb = new StringBuilder(t(id) + " = session " + tx.session() + " #" + tx.seq() + ", " + tx.outcome().label());
        for (int s : stmts) {
            String sql = tx.sqlOf(s);
            if (sql != null) {
                sb.append("\n      ").append(id == 0 ? "" : "T" + id + "." + s + " ").append(oneLine(sql));
            }
        }
        return sb.toString();
    }

    /** Elle-style explanation of a cycle (edges in order, each edge's {@code to} is the next one's {@code from}). */
    String explainCycle(Anomaly kind, List<Dep> cycle) {
        Map<Long, Set<Integer>> stmts = new LinkedHashMap<>();
        for (Dep d : cycle) {
            stmts.computeIfAbsent(d.from(), k -> new TreeSet<>());
        }
        for (Dep d : cycle) {
            if (d.type() == DepType.WR && d.readerStmt() >= 0) {
                stmts.computeIfAbsent(d.to(), k -> new TreeSet<>()).add(d.readerStmt());
            } else if (d.type() == DepType.RW && d.readerStmt() >= 0) {
                stmts.computeIfAbsent(d.from(), k -> new TreeSet<>()).add(d.readerStmt());
            }
            if ((d.type() == DepType.WW || d.type() == DepType.RW) && d.writerStmt() >= 0) {
                stmts.computeIfAbsent(d.to(), k -> new TreeSet<>()).add(d.writerStmt());
            } else if (d.type() == DepType.WR && d.writerStmt() >= 0) {
                stmts.computeIfAbsent(d.from(), k -> new TreeSet<>()).add(d.writerStmt());
            }
        }
        StringBuilder sb = new StringBuilder();
        sb.append(kind.label()).append(": ").append(kind.description()).append(".\n\nLet:\n");
        for (Map.Entry<Long, Set<Integer>> e : stmts.entrySet()) {
            sb.append("  ").append(describeTxn(e.getKey(), e.getValue())).append('\n');
        }
        sb.append("\nThen:\n");
        for (int i = 0; i < cycle.size(); i++) {
            Dep d = cycle.get(i);
            boolean last = i == cycle.size() - 1;
            sb.append("  - ").append(last ? "However, " : "").append(t(d.from())).append(" < ").append(t(d.to())).append(", because ")
                    .append(reason(d)).append(last ? ": a contradiction!" : ".").append('\n');
        }
        return sb.toString();
    }

    /** One line naming the cycle: "T3 -rw t.r1-> T4 -ww t.r1-> T3". */
    static String cycleLine(List<Dep> cycle) {
        StringBuilder sb = new StringBuilder(t(cycle.get(0).from()));
        for (Dep d : cycle) {
            sb.append(" -").append(d.label()).append("-> ").append(t(d.to()));
        }
        return sb.toString();
    }

    /** A labelled edge for the drawings. */
    record Arrow(long from, long to, String label, boolean dashed) {
    }

    static List<Arrow> arrows(List<Dep> cycle) {
        List<Arrow> out = new ArrayList<>();
        for (Dep d : cycle) {
            out.add(new Arrow(d.from(), d.to(), d.label(), d.type() == DepType.RW));
        }
        return out;
    }

    static String mermaid(List<Arrow> arrows, Set<Long> aborted) {
        StringBuilder sb = new StringBuilder("flowchart LR\n");
        Set<Long> nodes = new LinkedHashSet<>();
        for (Arrow a : arrows) {
            nodes.add(a.from());
            nodes.add(a.to());
        }
        for (long n : nodes) {
            String label = t(n) + (aborted.contains(n) ? " (aborted)" : n == History.INITIAL ? " (initial)" : "");
            sb.append("  ").append(t(n)).append("[\"").append(label).append("\"]\n");
        }
        for (Arrow a : arrows) {
            sb.append("  ").append(t(a.from())).append(a.dashed() ? " -.->|\"" : " -->|\"").append(a.label().replace("\"", "#quot;"))
                    .append("\"| ").append(t(a.to())).append('\n');
        }
        return sb.toString();
    }

    static String dot(String name, List<Arrow> arrows, Set<Long> aborted) {
        StringBuilder sb = new StringBuilder("digraph \"").append(name.replace("\"", "'")).append("\" {\n  rankdir=LR;\n  node [shape=box];\n");
        Set<Long> nodes = new LinkedHashSet<>();
        for (Arrow a : arrows) {
            nodes.add(a.from());
            nodes.add(a.to());
        }
        for (long n : nodes) {
            if (aborted.contains(n)) {
                sb.append("  ").append(t(n)).append(" [label=\"").append(t(n)).append(" (aborted)\", style=dashed];\n");
            }
        }
        for (Arrow a : arrows) {
            sb.append("  ").append(t(a.from())).append(" -> ").append(t(a.to())).append(" [label=\"").append(a.label().replace("\"", "\\\""))
                    .append('"').append(a.dashed() ? ", style=dashed" : "").append("];\n");
        }
        return sb.append("}\n").toString();
    }
}
