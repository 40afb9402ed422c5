package txfuzz.model;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The contents of a database: per table, its rows as normalised values, sorted so that equality
 * is multiset equality.
 */
public record DbState(Map<String, List<List<String>>> tables) {

    private static final Comparator<List<String>> ROW_ORDER = (a, b) -> {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = Comparator.nullsFirst(Comparator.<String>naturalOrder()).compare(a.get(i), b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    };

    public DbState {
        Map<String, List<List<String>>> copy = new LinkedHashMap<>();
        tables.forEach((name, rows) -> copy.put(name, sorted(rows)));
        tables = java.util.Collections.unmodifiableMap(copy);
    }

    public static List<List<String>> sorted(List<List<String>> rows) {
        List<List<String>> copy = new ArrayList<>(rows.size());
        for (List<String> r : rows) {
            copy.add(java.util.Collections.unmodifiableList(new ArrayList<>(r)));
        }
        copy.sort(ROW_ORDER);
        return java.util.Collections.unmodifiableList(copy);
    }

    /** Tables whose contents differ, each with the rows only one side has. Empty when equal. */
    public List<TableDiff> diff(DbState other) {
        List<TableDiff> diffs = new ArrayList<>();
        java.util.Set<String> names = new java.util.LinkedHashSet<>(tables.keySet());
        names.addAll(other.tables.keySet());
        for (String name : names) {
            List<List<String>> mine = tables.getOrDefault(name, List.of());
            List<List<String>> theirs = other.tables.getOrDefault(name, List.of());
            if (!Objects.equals(mine, theirs)) {
                diffs.add(new TableDiff(name, minus(mine, theirs), minus(theirs, mine)));
            }
        }
        return diffs;
    }

    private static List<List<String>> minus(List<List<String>> a, List<List<String>> b) {
        List<List<String>> rest = new ArrayList<>(b);
        List<List<String>> out = new ArrayList<>();
        for (List<String> row : a) {
            if (!rest.remove(row)) {
                out.add(row);
            }
        }
        return out;
    }

    /** Rows of table {@code table} present only on this side ({@code onlyHere}) or only on the other. */
    public record TableDiff(String table, List<List<String>> onlyHere, List<List<String>> onlyThere) {
    }

    public static String formatRow(List<String> row) {
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < row.size(); i++) {
            if (i > 0) {
                sb.append(", ");
            }
            String v = row.get(i);
            sb.append(v == null ? "NULL" : v);
        }
        return sb.append(')').toString();
    }
}
