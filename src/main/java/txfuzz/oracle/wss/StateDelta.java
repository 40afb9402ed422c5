package txfuzz.oracle.wss;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import txfuzz.model.DbState;

/** The rows one statement or transaction removed and added, per table (multisets). */
record StateDelta(Map<String, List<List<String>>> removed, Map<String, List<List<String>>> added) {

    static StateDelta between(DbState before, DbState after) {
        Map<String, List<List<String>>> removed = new LinkedHashMap<>();
        Map<String, List<List<String>>> added = new LinkedHashMap<>();
        for (DbState.TableDiff d : before.diff(after)) {
            removed.put(d.table(), d.onlyHere());
            added.put(d.table(), d.onlyThere());
        }
        return new StateDelta(removed, added);
    }

    /**
     * Only the changes to rows whose identity (the last column) is in {@code ids}: removed rows with
     * those ids and the rows added in their place. Rows the statement inserted are dropped too.
     */
    StateDelta restrictedTo(java.util.Set<String> ids) {
        Map<String, List<List<String>>> r = new LinkedHashMap<>();
        Map<String, List<List<String>>> a = new LinkedHashMap<>();
        removed.forEach((t, rows) -> r.put(t, rows.stream().filter(row -> ids.contains(row.get(row.size() - 1))).toList()));
        added.forEach((t, rows) -> a.put(t, rows.stream().filter(row -> ids.contains(row.get(row.size() - 1))).toList()));
        return new StateDelta(r, a);
    }

    /** {@code state} with this delta applied, or empty when a row to remove is not there (the writes collide). */
    Optional<DbState> applyTo(DbState state) {
        Map<String, List<List<String>>> tables = new LinkedHashMap<>();
        state.tables().forEach((t, rows) -> tables.put(t, new ArrayList<>(rows)));
        for (var e : removed.entrySet()) {
            List<List<String>> rows = tables.computeIfAbsent(e.getKey(), k -> new ArrayList<>());
            for (List<String> row : e.getValue()) {
                if (!rows.remove(row)) {
                    return Optional.empty();
                }
            }
        }
        for (var e : added.entrySet()) {
            tables.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).addAll(e.getValue());
        }
        return Optional.of(new DbState(tables));
    }

    /** Both deltas' changes, this one's rows first (two parts of one statement, on disjoint rows). */
    StateDelta and(StateDelta other) {
        Map<String, List<List<String>>> r = new LinkedHashMap<>(removed);
        Map<String, List<List<String>>> a = new LinkedHashMap<>(added);
        other.removed.forEach((t, rows) -> r.merge(t, rows, StateDelta::concat));
        other.added.forEach((t, rows) -> a.merge(t, rows, StateDelta::concat));
        return new StateDelta(r, a);
    }

    private static List<List<String>> concat(List<List<String>> a, List<List<String>> b) {
        List<List<String>> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }
}
