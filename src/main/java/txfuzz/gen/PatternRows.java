package txfuzz.gen;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import txfuzz.gen.pattern.AnomalyPattern;
import txfuzz.gen.pattern.PatternOp;

/**
 * The rows a pattern's items stand for: per item a table and a row of it — one of the initial rows,
 * or, for an item the pattern inserts, new values its INSERT will write — and the condition that
 * selects the row: by key where the table has a PRIMARY KEY or unique column, otherwise by the
 * values of all columns but one (the one writes may change). Items a predicate read lists together
 * share a table, so one WHERE can cover them. When a table has too few initial rows, rows are added
 * to the setup.
 */
final class PatternRows {
    /**
     * One item's row.
     *
     * @param template its condition, column references written {@code "@Q@.c"}
     * @param cond     the columns the condition tests
     * @param key      the unique key it is selected by, or null (the table has none)
     * @param keep     the columns writes must not change: the condition's and every unique key's
     * @param rid      its rid in an instrumented case, null for an inserted item (the INSERT's tag gives it) or a plain case
     */
    record ItemRow(Schema.Table table, List<Object> values, String template, List<Schema.Column> cond, List<Schema.Column> key,
                   List<Schema.Column> keep, String rid) {
        String condition() {
            return template.replace(StatementGenerator.Aim.Q, "");
        }
    }

    /** How rows of a table are aimed at. */
    private record TableAim(List<Schema.Column> cond, List<Schema.Column> key, List<Schema.Column> keep) {
    }

    private final Rng rng;
    private final ValuePool pool;
    private final Schema schema;
    private final boolean instrumented;
    private final List<String> setup;
    /** Per table, the rids of its rows in order (SchemaGenerator numbers initial rows 1, 2, … across tables). */
    private final Map<Schema.Table, List<String>> rids = new HashMap<>();
    private int nextRid = 1;
    private final Map<Schema.Table, TableAim> aims = new LinkedHashMap<>();
    /** Per table, the rows items stand for (initial and new): their conditions must differ. */
    private final Map<Schema.Table, List<List<Object>>> taken = new HashMap<>();

    PatternRows(Rng rng, ValuePool pool, Schema schema, boolean instrumented, List<String> setup) {
        this.rng = rng;
        this.pool = pool;
        this.schema = schema;
        this.instrumented = instrumented;
        this.setup = setup;
        for (Schema.Table t : schema.tables) {
            List<String> r = new ArrayList<>();
            for (int i = 0; i < t.rows.size(); i++) {
                r.add(String.valueOf(nextRid++));
            }
            rids.put(t, r);
        }
    }

    /** Places every item of {@code p}, in order of first appearance. */
    Map<String, ItemRow> place(AnomalyPattern p) {
        Map<String, Schema.Table> tableOf = tables(p);
        Map<String, ItemRow> out = new LinkedHashMap<>();
        for (String item : p.items()) {
            Schema.Table t = tableOf.get(item);
            TableAim aim = aims.computeIfAbsent(t, this::aimOf);
            List<List<Object>> mine = taken.computeIfAbsent(t, k -> new ArrayList<>());
            List<Object> row;
            String rid = null;
            if (p.insertedItems().contains(item)) {
                row = newRow(t, aim);
            } else {
                List<Integer> free = new ArrayList<>();
                for (int i = 0; i < t.rows.size(); i++) {
                    if (distinct(t.rows.get(i), mine, aim.cond())) {
                        free.add(i);
                    }
                }
                int index;
                if (!free.isEmpty()) {
                    index = rng.pick(free);
                } else {
                    List<Object> added = newRow(t, aim);
                    // a row the constraints refuse would break the setup: share a row with another item instead
                    index = valid(t, added, aim) || t.rows.isEmpty() ? addInitialRow(t, added) : rng.nextInt(t.rows.size());
                }
                row = t.rows.get(index);
                rid = instrumented ? rids.get(t).get(index) : null;
            }
            mine.add(row);
            out.put(item, new ItemRow(t, row, template(aim.cond(), row), aim.cond(), aim.key(), aim.keep(), rid));
        }
        return out;
    }

    /** A table per item: items a predicate read lists together share one; other groups pick theirs at random. */
    private Map<String, Schema.Table> tables(AnomalyPattern p) {
        Map<String, String> group = new LinkedHashMap<>();
        p.items().forEach(i -> group.put(i, i));
        for (PatternOp op : p.ops()) {
            if (op.type() == PatternOp.Type.PREDICATE_READ) {
                String first = root(group, op.reads().get(0).item());
                for (PatternOp.Version v : op.reads()) {
                    group.put(root(group, v.item()), first);
                }
            }
        }
        Map<String, Schema.Table> byGroup = new HashMap<>();
        Map<String, Schema.Table> out = new LinkedHashMap<>();
        for (String item : p.items()) {
            out.put(item, byGroup.computeIfAbsent(root(group, item), g -> rng.pick(schema.tables)));
        }
        return out;
    }

    private static String root(Map<String, String> group, String item) {
        String r = item;
        while (!group.get(r).equals(r)) {
            r = group.get(r);
        }
        return r;
    }

    /** By the PRIMARY KEY, else by a unique column; without either by all columns but one, which writes may change. */
    private TableAim aimOf(Schema.Table t) {
        List<Schema.Column> key = !t.primaryKey.isEmpty() ? List.copyOf(t.primaryKey) : t.uniqueKeys.isEmpty() ? null : t.uniqueKeys.get(0);
        List<Schema.Column> keep = new ArrayList<>();
        t.uniqueKeys.forEach(k -> k.stream().filter(c -> !keep.contains(c)).forEach(keep::add));
        List<Schema.Column> cond;
        if (key != null) {
            cond = key;
        } else {
            cond = new ArrayList<>(t.columns);
            if (cond.size() > 1) {
                cond.remove(rng.nextInt(cond.size()));
            }
            keep.addAll(cond);
        }
        return new TableAim(List.copyOf(cond), key, List.copyOf(keep));
    }

    private static boolean distinct(List<Object> row, List<List<Object>> others, List<Schema.Column> cols) {
        for (List<Object> o : others) {
            if (cols.stream().allMatch(c -> Objects.equals(row.get(c.index()), o.get(c.index())))) {
                return false;
            }
        }
        return true;
    }

    /** "@Q@.c0 = 1 AND @Q@.c2 IS NULL". */
    private static String template(List<Schema.Column> cols, List<Object> row) {
        List<String> terms = new ArrayList<>();
        for (Schema.Column c : cols) {
            Object v = row.get(c.index());
            terms.add(StatementGenerator.Aim.Q + c.name + (v == null ? " IS NULL" : " = " + Literals.sql(v)));
        }
        return String.join(" AND ", terms);
    }

    /**
     * Values for a row no other row (initial, or standing for an item) shares a key or a condition
     * with, within the columns' constraints; the best found when a few tries find none.
     */
    private List<Object> newRow(Schema.Table t, TableAim aim) {
        List<List<Object>> others = new ArrayList<>(t.rows);
        others.addAll(taken.getOrDefault(t, List.of()));
        List<Object> row = null;
        for (int attempt = 0; attempt < 20; attempt++) {
            row = new ArrayList<>();
            for (Schema.Column c : t.columns) {
                row.add(value(c, others));
            }
            if (valid(t, row, aim)) {
                break;
            }
        }
        for (int k = 0; k < row.size(); k++) {
            pool.record(t.columns.get(k), row.get(k));
        }
        return row;
    }

    /** Whether {@code row} keeps the table's constraints and differs from every other row (initial, or an item's) in its condition. */
    private boolean valid(Schema.Table t, List<Object> row, TableAim aim) {
        List<List<Object>> others = new ArrayList<>(t.rows);
        others.addAll(taken.getOrDefault(t, List.of()));
        boolean ok = distinct(row, others, aim.cond());
        for (List<Schema.Column> key : t.uniqueKeys) {
            ok &= distinct(row, others, key);
        }
        for (Schema.Column c : t.columns) {
            Object v = row.get(c.index());
            ok &= c.accepts(v) && (v == null || c.references == null || c.references.table.rows.stream()
                    .anyMatch(pr -> v.equals(pr.get(c.references.index()))));
        }
        return ok;
    }

    /** A value for {@code c}: a parent's for a reference, an unused one for a unique column, else the pool's. */
    private Object value(Schema.Column c, List<List<Object>> others) {
        List<Object> used = new ArrayList<>();
        others.forEach(o -> used.add(o.get(c.index())));
        boolean unique = c.unique || c.table.primaryKey.contains(c);
        if (c.references != null) {
            List<Object> parents = new ArrayList<>();
            for (List<Object> pr : c.references.table.rows) {
                Object v = pr.get(c.references.index());
                if (v != null && !(unique && used.contains(v))) {
                    parents.add(v);
                }
            }
            if (!parents.isEmpty() || !c.notNull) {
                return parents.isEmpty() ? null : rng.pick(parents);
            }
        }
        for (int attempt = 0; attempt < 10; attempt++) {
            Object v = unique ? pool.fresh(c.type) : (!c.notNull && rng.chance(0.1) ? null : pool.valueFor(c));
            if (c.accepts(v) && (v != null || !unique) && !(unique && used.contains(v))) {
                return v;
            }
        }
        if (unique) {
            // the small domains run out: past the largest value used
            for (Object v : beyond(c, used)) {
                if (c.accepts(v) && !used.contains(v)) {
                    return v;
                }
            }
        }
        return c.defaultValue != null ? c.defaultValue : pool.valueFor(c);
    }

    /** Values past those used: max + 1, min - 1, a longer string. */
    private List<Object> beyond(Schema.Column c, List<Object> used) {
        List<Object> out = new ArrayList<>();
        switch (c.type) {
            case INT -> {
                int max = used.stream().filter(Objects::nonNull).mapToInt(v -> ((Number) v).intValue()).max().orElse(0);
                int min = used.stream().filter(Objects::nonNull).mapToInt(v -> ((Number) v).intValue()).min().orElse(0);
                out.add(max + 1);
                out.add(min - 1);
            }
            case DOUBLE -> {
                double max = used.stream().filter(Objects::nonNull).mapToDouble(v -> ((Number) v).doubleValue()).max().orElse(0);
                double min = used.stream().filter(Objects::nonNull).mapToDouble(v -> ((Number) v).doubleValue()).min().orElse(0);
                out.add(max + 1.0);
                out.add(min - 1.0);
            }
            default -> {
                for (int i = 0; i < 20; i++) {
                    out.add((String) pool.fresh(ColType.VARCHAR) + (char) ('a' + rng.nextInt(5)));
                }
            }
        }
        return out;
    }

    /** Adds {@code row} to the initial rows (and the setup); its index in the table. */
    private int addInitialRow(Schema.Table t, List<Object> row) {
        t.rows.add(row);
        List<String> cols = new ArrayList<>();
        List<String> vals = new ArrayList<>();
        for (int k = 0; k < t.columns.size(); k++) {
            cols.add(t.columns.get(k).name);
            vals.add(Literals.sql(row.get(k)));
        }
        String rid = String.valueOf(nextRid++);
        if (instrumented) {
            cols.add(Instrumentation.RID);
            vals.add("'" + rid + "'");
            cols.add(Instrumentation.WL);
            vals.add("',0'");
        }
        rids.get(t).add(rid);
        setup.add("INSERT INTO " + t.name + " (" + String.join(", ", cols) + ") VALUES (" + String.join(", ", vals) + ")");
        return t.rows.size() - 1;
    }
}
