package txfuzz.gen;

import java.util.ArrayList;
import java.util.List;
import txfuzz.dbms.Dialect;
import txfuzz.dbms.Feature;

/**
 * Typed expressions and predicates over the tables in scope. Every expression has one
 * {@link ColType}; strings are only compared with strings, so strictly typed engines (Derby,
 * DuckDB, PostgreSQL) accept them. No NULL literals (Derby rejects untyped NULL), no division,
 * no functions beyond COALESCE.
 */
final class ExprGenerator {
    /** A table in scope under the qualifier its columns are referenced by. */
    record Ref(String qual, Schema.Table table) {
    }

    /** A column as referenced in the statement. */
    record ColRef(Ref ref, Schema.Column column) {
        String sql() {
            return ref.qual() + "." + column.name;
        }

        ColType type() {
            return column.type;
        }
    }

    /**
     * Where subqueries may go. {@code writeTable} is the table the enclosing statement writes (null
     * for a read), {@code level} how deeply nested the expression already is.
     */
    record Sub(Schema.Table writeTable, int level) {
        Sub deeper() {
            return new Sub(writeTable, level + 1);
        }
    }

    private static final String[] COMPARISONS = {"=", "=", "<>", "<", "<=", ">", ">="};

    private final Rng rng;
    private final Dialect dialect;
    private final Schema schema;
    private final ValuePool pool;
    private int aliases;

    ExprGenerator(Rng rng, Dialect dialect, Schema schema, ValuePool pool) {
        this.rng = rng;
        this.dialect = dialect;
        this.schema = schema;
        this.pool = pool;
    }

    /**
     * A subquery of the current statement whose WHERE is row-local over its own table (no outer
     * column, no nested subquery), so a companion read can repeat it as a predicate read: its table,
     * its alias and its WHERE (" WHERE ..." or "").
     */
    record SubqueryRead(Schema.Table table, Ref inner, String where) {
    }

    private final List<SubqueryRead> subqueryReads = new ArrayList<>();

    /** Starts a new statement: aliases are unique within one statement. */
    void reset() {
        aliases = 0;
        subqueryReads.clear();
    }

    /** The current statement's uncorrelated, row-local subqueries, in the order they were generated. */
    List<SubqueryRead> subqueryReads() {
        return List.copyOf(subqueryReads);
    }

    /** Notes a generated subquery over {@code inner} with {@code where} (" WHERE ..." or "") when it is row-local. */
    private void noteSubquery(Ref inner, String where) {
        if (Instrumentation.rowLocal(where, inner)) {
            subqueryReads.add(new SubqueryRead(inner.table(), inner, where));
        }
    }

    String alias(String prefix) {
        return prefix + aliases++;
    }

    boolean has(Feature f) {
        return dialect.has(f);
    }

    static List<ColRef> columns(List<Ref> scope) {
        List<ColRef> out = new ArrayList<>();
        for (Ref r : scope) {
            for (Schema.Column c : r.table().columns) {
                out.add(new ColRef(r, c));
            }
        }
        return out;
    }

    static List<ColRef> columns(List<Ref> scope, ColType type) {
        List<ColRef> out = new ArrayList<>();
        for (ColRef c : columns(scope)) {
            if (c.type() == type) {
                out.add(c);
            }
        }
        return out;
    }

    /** Tables a subquery may read here; empty when no subquery is allowed. */
    List<Schema.Table> subqueryTables(Sub sub) {
        List<Schema.Table> out = new ArrayList<>();
        if (sub == null || sub.level() >= 2) {
            return out;
        }
        for (Schema.Table t : schema.tables) {
            if (sub.writeTable() == null
                    || (t == sub.writeTable() ? has(Feature.WRITE_SUBQUERY_SAME_TABLE) : has(Feature.WRITE_SUBQUERY_OTHER_TABLE))) {
                out.add(t);
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- scalar expressions

    /** A constant fit for {@code column} (half the time a value the tables hold). */
    String constant(Schema.Column column) {
        return Literals.sql(pool.valueFor(column));
    }

    String constant(ColType type) {
        return Literals.sql(pool.valueOf(type));
    }

    /**
     * An expression of {@code type}. {@code hint}, when not null, is the column the value is
     * compared with or assigned to; constants are drawn from its values.
     */
    String expr(ColType type, Schema.Column hint, List<Ref> scope, Sub sub, int depth) {
        List<ColRef> cols = columns(scope, type);
        List<ColRef> others = new ArrayList<>();
        for (ColRef c : cols) {
            if (c.column() != hint) {
                others.add(c); // "c = c" and "SET c = c" test nothing
            }
        }
        boolean scalarSub = has(Feature.SUBQUERY_SCALAR) && has(Feature.AGGREGATE) && !subqueryTables(sub).isEmpty();
        int choice = rng.weighted(
                others.isEmpty() ? 0 : 5,
                4,
                depth > 0 && type.numeric() && !cols.isEmpty() ? 2 : 0,
                depth > 0 && has(Feature.CASE_WHEN) ? 1 : 0,
                depth > 0 && has(Feature.COALESCE) && !cols.isEmpty() ? 1 : 0,
                depth > 0 && scalarSub ? 1 : 0);
        switch (choice) {
            case 0:
                return rng.pick(others).sql();
            case 1:
                return hint != null && hint.type == type ? constant(hint) : constant(type);
            case 2: {
                ColRef c = rng.pick(cols);
                String step = Literals.sql(pool.step(type));
                return switch (rng.nextInt(3)) {
                    case 0 -> "(" + c.sql() + " + " + step + ")";
                    case 1 -> "(" + c.sql() + " - " + step + ")";
                    default -> "(" + c.sql() + " * 2)";
                };
            }
            case 3:
                return "CASE WHEN " + predicate(scope, sub, depth - 1) + " THEN " + expr(type, hint, scope, sub, depth - 1)
                        + " ELSE " + expr(type, hint, scope, sub, depth - 1) + " END";
            case 4: {
                ColRef c = rng.pick(cols);
                return "COALESCE(" + c.sql() + ", " + (hint != null && hint.type == type ? constant(hint) : constant(c.column())) + ")";
            }
            default:
                return scalarSubquery(type, hint, scope, sub);
        }
    }

    /** {@code (SELECT MAX(s.c) FROM t s WHERE ...)}: an aggregate without GROUP BY, so always one row. */
    String scalarSubquery(ColType type, Schema.Column hint, List<Ref> scope, Sub sub) {
        List<Schema.Table> tables = subqueryTables(sub);
        Schema.Table t = rng.pick(tables);
        Ref inner = new Ref(alias("s"), t);
        List<ColRef> typed = columns(List.of(inner), type);
        String agg;
        if (typed.isEmpty() || (type == ColType.INT && rng.chance(0.25))) {
            if (type != ColType.INT) {
                return hint != null && hint.type == type ? constant(hint) : constant(type);
            }
            agg = "COUNT(*)";
        } else {
            ColRef c = rng.pick(typed);
            agg = (rng.chance(0.5) ? "MAX(" : "MIN(") + c.sql() + ")";
        }
        StringBuilder sb = new StringBuilder("(SELECT ").append(agg).append(" FROM ").append(t.name).append(' ').append(inner.qual());
        String where = rng.chance(0.8) ? " WHERE " + correlated(inner, scope, sub.deeper()) : "";
        noteSubquery(inner, where);
        return sb.append(where).append(')').toString();
    }

    /** A predicate for a subquery over {@code inner}, often tied to the outer row. */
    private String correlated(Ref inner, List<Ref> outer, Sub sub) {
        List<ColRef> innerCols = columns(List.of(inner));
        List<ColRef> outerCols = columns(outer);
        if (!outerCols.isEmpty() && rng.chance(0.6)) {
            List<String> pairs = new ArrayList<>();
            for (ColRef i : innerCols) {
                for (ColRef o : outerCols) {
                    if (i.type().comparable(o.type())) {
                        pairs.add(i.sql() + " " + rng.pick(List.of(COMPARISONS)) + " " + o.sql());
                    }
                }
            }
            if (!pairs.isEmpty()) {
                String join = rng.pick(pairs);
                return rng.chance(0.4) ? "(" + join + " AND " + predicate(List.of(inner), sub, 0) + ")" : join;
            }
        }
        return predicate(List.of(inner), sub, 1);
    }

    // ---------------------------------------------------------------- predicates

    /** A boolean condition over the columns of {@code scope}. */
    String predicate(List<Ref> scope, Sub sub, int depth) {
        List<ColRef> cols = columns(scope);
        List<ColRef> strings = columns(scope, ColType.VARCHAR);
        boolean subs = !subqueryTables(sub).isEmpty();
        int choice = rng.weighted(
                8,
                2,
                has(Feature.BETWEEN) ? 1 : 0,
                has(Feature.LIKE) && !strings.isEmpty() ? 1 : 0,
                2,
                has(Feature.SUBQUERY_IN) && subs ? 2 : 0,
                has(Feature.SUBQUERY_EXISTS) && subs ? 2 : 0,
                depth > 0 ? 4 : 0,
                depth > 0 ? 1 : 0);
        ColRef c = rng.pick(cols);
        switch (choice) {
            case 0:
                return c.sql() + " " + rng.pick(List.of(COMPARISONS)) + " " + comparand(c, scope, sub, depth);
            case 1:
                return c.sql() + (rng.chance(0.5) ? " IS NULL" : " IS NOT NULL");
            case 2: {
                Object a = pool.valueFor(c.column());
                Object b = pool.valueFor(c.column());
                if (Literals.compare(a, b) > 0) {
                    Object x = a;
                    a = b;
                    b = x;
                }
                return c.sql() + (rng.chance(0.2) ? " NOT" : "") + " BETWEEN " + Literals.sql(a) + " AND " + Literals.sql(b);
            }
            case 3: {
                ColRef s = rng.pick(strings);
                String v = (String) pool.valueFor(s.column());
                String pattern = switch (rng.nextInt(4)) {
                    case 0 -> v.charAt(0) + "%";
                    case 1 -> "%" + v.charAt(v.length() - 1);
                    case 2 -> "_" + (v.length() > 1 ? v.substring(1) : "%");
                    default -> v;
                };
                return s.sql() + (rng.chance(0.2) ? " NOT" : "") + " LIKE '" + pattern + "'";
            }
            case 4: {
                List<String> vals = new ArrayList<>();
                int n = rng.between(1, 3);
                for (int i = 0; i < n; i++) {
                    String v = constant(c.column());
                    if (!vals.contains(v)) {
                        vals.add(v);
                    }
                }
                return c.sql() + (rng.chance(0.2) ? " NOT" : "") + " IN (" + String.join(", ", vals) + ")";
            }
            case 5:
                return inSubquery(c, scope, sub);
            case 6:
                return (rng.chance(0.25) ? "NOT " : "") + "EXISTS (SELECT 1 FROM " + existsBody(scope, sub) + ")";
            case 7:
                return "(" + predicate(scope, sub, depth - 1) + (rng.chance(0.6) ? " AND " : " OR ") + predicate(scope, sub, depth - 1) + ")";
            default:
                return "NOT (" + predicate(scope, sub, depth - 1) + ")";
        }
    }

    /**
     * The right-hand side of a comparison with {@code c}: mostly a constant drawn from c's values
     * (so rows collide), sometimes another column or a richer expression.
     */
    private String comparand(ColRef c, List<Ref> scope, Sub sub, int depth) {
        List<ColRef> others = new ArrayList<>();
        for (ColRef o : columns(scope)) {
            if (o.type().comparable(c.type()) && !o.equals(c)) {
                others.add(o);
            }
        }
        return switch (rng.weighted(6, others.isEmpty() ? 0 : 2, 2)) {
            case 0 -> constant(c.column());
            case 1 -> rng.pick(others).sql();
            default -> expr(c.type(), c.column(), scope, sub, depth);
        };
    }

    private String inSubquery(ColRef c, List<Ref> scope, Sub sub) {
        List<Schema.Table> tables = new ArrayList<>();
        for (Schema.Table t : subqueryTables(sub)) {
            for (Schema.Column col : t.columns) {
                if (col.type.comparable(c.type())) {
                    tables.add(t);
                    break;
                }
            }
        }
        if (tables.isEmpty()) {
            return c.sql() + " IS NOT NULL";
        }
        Schema.Table t = rng.pick(tables);
        Ref inner = new Ref(alias("s"), t);
        List<ColRef> candidates = new ArrayList<>();
        for (ColRef x : columns(List.of(inner))) {
            if (x.type().comparable(c.type())) {
                candidates.add(x);
            }
        }
        ColRef picked = rng.pick(candidates);
        StringBuilder sb = new StringBuilder(c.sql()).append(rng.chance(0.2) ? " NOT IN (SELECT " : " IN (SELECT ")
                .append(picked.sql()).append(" FROM ").append(t.name).append(' ').append(inner.qual());
        String where = "";
        if (rng.chance(0.7)) {
            where = " WHERE " + (rng.chance(0.5) ? correlated(inner, scope, sub.deeper()) : predicate(List.of(inner), sub.deeper(), 0));
        }
        noteSubquery(inner, where);
        return sb.append(where).append(')').toString();
    }

    private String existsBody(List<Ref> scope, Sub sub) {
        Schema.Table t = rng.pick(subqueryTables(sub));
        Ref inner = new Ref(alias("s"), t);
        String where = " WHERE " + correlated(inner, scope, sub.deeper());
        noteSubquery(inner, where);
        return t.name + " " + inner.qual() + where;
    }
}
