package txfuzz.history;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiPredicate;

/**
 * The per-statement view check: a read statement that ran alone (no other statement completed
 * while it ran, it did not wait) saw one state of the database, whatever the level above READ
 * UNCOMMITTED: the statement's snapshot (READ COMMITTED), the transaction's (REPEATABLE READ,
 * SNAPSHOT), or the latest committed data (locking reads, lock-based engines) — and no commit
 * happened while it ran. In that state a committed transaction's writes are either all there or
 * none is. So if the statement returned a row in a version that includes committed transaction U's
 * write, and another row of the same table that U also wrote in a version without U's write, no state
 * holds both: a fractured read. Rows the reader's own DML touched (wrote, or matched without
 * changing) are left out here: a transaction sees them in the version its DML left or acted on, built
 * on the latest data, next to its snapshot (documented at REPEATABLE READ by the engine that does it).
 * That they are seen in exactly that version, and never an older one, is the internal-consistency
 * check's ({@link Read#matched}). Rows of other tables are left out too (per-table snapshots).
 *
 * <p>Adya's levels do not name this: it follows from the controlled run (statements one at a time)
 * and every engine's documented read rule (a statement reads one snapshot or the committed data of
 * one moment). The checker reports it only where it is told which statements ran alone.
 */
public final class FracturedReads {
    private FracturedReads() {
    }

    /**
     * Fractured reads of {@code h}'s committed and aborted transactions' statements for which
     * {@code ranAlone(txn, stmt)} holds. At most one finding per statement.
     */
    public static List<AnomalyFinding> find(History h, BiPredicate<Long, Integer> ranAlone) {
        // per committed transaction and table: the rows it wrote
        Map<Long, Map<String, Set<String>>> written = new HashMap<>();
        for (Transaction t : h.transactions()) {
            if (!t.committed()) {
                continue;
            }
            for (Op op : t.ops()) {
                if (op instanceof Write w) {
                    written.computeIfAbsent(t.id(), k -> new HashMap<>()).computeIfAbsent(w.table(), k -> new HashSet<>()).add(w.row());
                }
            }
        }
        List<AnomalyFinding> out = new ArrayList<>();
        for (Transaction reader : h.transactions()) {
            Set<String> ownRows = new HashSet<>();
            for (Op op : reader.ops()) {
                if (op instanceof Write w) {
                    ownRows.add(w.table() + "." + w.row());
                } else if (op instanceof Read r && r.matched()) {
                    ownRows.add(r.table() + "." + r.row());
                }
            }
            Map<Integer, Map<String, Map<String, WList>>> seenByStmt = new LinkedHashMap<>();
            for (Op op : reader.ops()) {
                if (op instanceof Read r) {
                    seen(seenByStmt, r.stmt(), r.table()).put(r.row(), r.wList());
                } else if (op instanceof PredicateRead p) {
                    for (RowVersion v : p.rows()) {
                        seen(seenByStmt, p.stmt(), p.table()).put(v.row(), v.wList());
                    }
                }
            }
            for (Map.Entry<Integer, Map<String, Map<String, WList>>> stmt : seenByStmt.entrySet()) {
                if (!ranAlone.test(reader.id(), stmt.getKey())) {
                    continue;
                }
                AnomalyFinding f = fracture(reader, stmt.getKey(), stmt.getValue(), ownRows, written);
                if (f != null) {
                    out.add(f);
                }
            }
        }
        return out;
    }

    private static Map<String, WList> seen(Map<Integer, Map<String, Map<String, WList>>> byStmt, int stmt, String table) {
        return byStmt.computeIfAbsent(stmt, k -> new LinkedHashMap<>()).computeIfAbsent(table, k -> new LinkedHashMap<>());
    }

    /** The first fracture of one statement's rows, or null. */
    private static AnomalyFinding fracture(Transaction reader, int stmt, Map<String, Map<String, WList>> seen, Set<String> ownRows,
                                           Map<Long, Map<String, Set<String>>> written) {
        for (Map.Entry<String, Map<String, WList>> table : seen.entrySet()) {
            String name = table.getKey();
            Map<String, WList> rows = new LinkedHashMap<>(table.getValue());
            rows.keySet().removeIf(row -> ownRows.contains(name + "." + row));
            for (Map.Entry<String, WList> withU : rows.entrySet()) {
                WList w = withU.getValue();
                for (int i = 0; i < w.size(); i++) {
                    long u = w.get(i);
                    if (u == reader.id() || !written.containsKey(u)) {
                        continue; // the initial state, the reader, or a transaction that did not commit
                    }
                    for (String other : written.get(u).getOrDefault(name, Set.of())) {
                        WList otherSeen = rows.get(other);
                        if (otherSeen != null && !otherSeen.contains(u)) {
                            return finding(reader, stmt, name, withU.getKey(), w, other, otherSeen, u);
                        }
                    }
                }
            }
        }
        return null;
    }

    private static AnomalyFinding finding(Transaction reader, int stmt, String table, String row, WList w, String other, WList otherSeen,
                                          long u) {
        Anomaly a = Anomaly.FRACTURED_READ;
        String x = table + "." + row;
        String y = table + "." + other;
        String t = Explainer.t(reader.id());
        String sql = reader.sqlOf(stmt);
        String summary = a.label() + ": " + t + " statement " + stmt + " saw " + x + " with " + Explainer.t(u) + "'s write and " + y
                + " without it";
        String explanation = a.label() + ": " + a.description() + ".\n\n" + t + "'s statement " + stmt
                + (sql == null || sql.isEmpty() ? "" : " (`" + sql.replaceAll("\\s+", " ") + "`)")
                + " ran alone, so it saw one state of the database. It returned " + x + " as wList " + w + ", which includes committed "
                + Explainer.t(u) + "'s write, and " + y + " as wList " + otherSeen + ", although " + Explainer.t(u) + " also wrote " + y
                + " and committed: no state holds both versions.\n";
        List<Explainer.Arrow> arrows = List.of(new Explainer.Arrow(u, reader.id(), "wr " + x, false),
                new Explainer.Arrow(reader.id(), u, "missed " + y, true));
        return new AnomalyFinding(a, List.of(reader.id(), u), List.of(), false, summary, explanation, Explainer.mermaid(arrows, Set.of()),
                Explainer.dot(a.label(), arrows, Set.of()), null, false, false);
    }
}
