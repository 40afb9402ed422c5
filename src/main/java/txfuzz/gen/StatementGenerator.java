package txfuzz.gen;

import java.util.ArrayList;
import java.util.List;
import txfuzz.gen.ExprGenerator.ColRef;
import txfuzz.gen.ExprGenerator.Ref;
import txfuzz.gen.ExprGenerator.Sub;
import txfuzz.gen.Instrumentation.Ctx;
import txfuzz.gen.Instrumentation.Expander;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.Tracking;
import txfuzz.dbms.Dialect;
import txfuzz.dbms.Feature;

/**
 * One data statement at a time: SELECT, INSERT, UPDATE, DELETE or an upsert, within the dialect's
 * features. Writes read only inside themselves (subqueries, SET c = c + 1), never through values
 * an earlier statement returned. Constants written are added to the value pool.
 *
 * <p>Each statement comes with its instrumented form ({@link Instrumentation}), rendered from the
 * same pieces without further random draws.
 */
final class StatementGenerator {
    /** A generated statement: its plain form and how to render it instrumented. */
    record Gen(Stmt stmt, Expander instrumented) {
        List<Stmt> expand(Ctx ctx) {
            return instrumented.expand(ctx);
        }
    }

    private final Rng rng;
    private final Dialect dialect;
    private final Schema schema;
    private final ValuePool pool;
    private final ExprGenerator ex;
    /** Where the statement being generated aims (pattern cases), or null: a random statement. */
    private Aim aim;

    StatementGenerator(Rng rng, Dialect dialect, Schema schema, ValuePool pool) {
        this.rng = rng;
        this.dialect = dialect;
        this.schema = schema;
        this.pool = pool;
        this.ex = new ExprGenerator(rng, dialect, schema, pool);
    }

    private boolean has(Feature f) {
        return dialect.has(f);
    }

    // ---------------------------------------------------------------- aimed statements (pattern cases)

    /**
     * Where a statement aims (APTrans' condition alignment): on {@link #table}, its WHERE is
     * {@link #where} — a row-local condition whose column references read {@code "@Q@.c"}, "" for a
     * full scan — widened by an OR with a random predicate when {@link #widen}. A read reads the table
     * {@link #alone} (no join, no union) where it is to be a predicate read in the history. Writes leave
     * {@link #keep} alone, so the row stays where later statements aim.
     *
     * @param row the aimed row's values, one per column (an upsert proposes them)
     * @param key the unique key the row conflicts on, or null when its table has none
     */
    record Aim(Schema.Table table, String where, boolean widen, boolean alone, List<Schema.Column> keep, List<Object> row,
               List<Schema.Column> key) {
        static final String Q = "@Q@.";

        String on(Ref ref) {
            return where.replace(Q, ref.qual() + ".");
        }
    }

    /** A read of the aimed rows: a simple, join, aggregate, union or locking SELECT. */
    Gen aimedRead(Aim a) {
        return aimed(a, this::select);
    }

    /** A write of the aimed row: an UPDATE, or an upsert or MERGE that updates it. */
    Gen aimedWrite(Aim a) {
        return aimed(a, () -> {
            ex.reset();
            boolean upsert = a.key() != null && (onConflictKey(a) || has(Feature.INSERT_ON_DUPLICATE_KEY));
            List<MergeSource> sources = has(Feature.MERGE) ? mergeSources(a.table()) : List.of();
            return withSubqueryReads(switch (rng.weighted(6, upsert ? 3 : 0, sources.isEmpty() ? 0 : 2)) {
                case 0 -> update();
                case 1 -> upsertAimed();
                default -> mergeAimed(rng.pick(sources));
            });
        });
    }

    /** A DELETE of the aimed row. */
    Gen aimedDelete(Aim a) {
        return aimed(a, () -> {
            ex.reset();
            return withSubqueryReads(delete());
        });
    }

    private Gen aimed(Aim a, java.util.function.Supplier<Gen> make) {
        aim = a;
        try {
            return make.get();
        } finally {
            aim = null;
        }
    }

    /** Whether the statement must read the aimed table alone. */
    private boolean oneTable() {
        return aim != null && aim.alone();
    }

    /** The reference of the aimed table in {@code scope}, or null. */
    private Ref aimedRef(List<Ref> scope) {
        if (aim == null) {
            return null;
        }
        for (Ref r : scope) {
            if (r.table() == aim.table()) {
                return r;
            }
        }
        return null;
    }

    /** " WHERE <the aim's condition on ref>", or "" for a full scan. */
    private String aimedWhere(Ref r) {
        if (aim.where().isEmpty()) {
            return "";
        }
        String c = aim.on(r);
        return " WHERE " + (aim.widen() ? "(" + c + " OR " + ex.predicate(List.of(r), null, 0) + ")" : c);
    }

    /**
     * The aimed WHERE of an UPDATE or DELETE; now and then reached through a subquery on the same
     * table by its single-column key ({@code k IN (SELECT s.k FROM t s WHERE <aim on s>)}), where the
     * dialect lets a write read its own table.
     */
    private String aimedWriteWhere(Ref r) {
        Schema.Table t = aim.table();
        if (aim.key() != null && aim.key().size() == 1 && !aim.where().isEmpty() && has(Feature.SUBQUERY_IN)
                && has(Feature.WRITE_SUBQUERY_SAME_TABLE) && rng.chance(0.15)) {
            Ref inner = new Ref(ex.alias("s"), t);
            String k = aim.key().get(0).name;
            return " WHERE " + r.qual() + "." + k + " IN (SELECT " + inner.qual() + "." + k + " FROM " + t.name + " " + inner.qual()
                    + " WHERE " + aim.on(inner) + ")";
        }
        return aimedWhere(r);
    }

    /** The columns a write to {@code t} must leave alone. */
    private List<Schema.Column> kept(Schema.Table t) {
        return aim != null && aim.table() == t ? aim.keep() : List.of();
    }

    /** The aimed row's key is a conflict target ON CONFLICT can name (a PRIMARY KEY or UNIQUE constraint). */
    private boolean onConflictKey(Aim a) {
        return has(Feature.INSERT_ON_CONFLICT) && keysOf(a.table(), true).contains(a.key());
    }

    /**
     * INSERT of the aimed row's own values ... ON CONFLICT (key) DO UPDATE / ON DUPLICATE KEY UPDATE:
     * the proposed row conflicts with the aimed row on every unique key, so the update hits it.
     */
    private Gen upsertAimed() {
        Schema.Table t = aim.table();
        List<String> vals = new ArrayList<>();
        aim.row().forEach(v -> vals.add(Literals.sql(v)));
        List<Ref> scope = List.of(new Ref(t.name, t));
        List<String> sets = setsOrSelf(t, assignments(t, scope, null, aim.keep()));
        String setList = String.join(", ", sets);
        if (onConflictKey(aim)) {
            String target = " ON CONFLICT (" + SchemaGenerator.names(aim.key()) + ")";
            return singleRowUpsert(t, t.columns, vals, target + " DO UPDATE SET " + setList,
                    tag -> target + " DO UPDATE SET " + setList + ", " + Instrumentation.appendTag(dialect, t.name + ".", tag));
        }
        return singleRowUpsert(t, t.columns, vals, " ON DUPLICATE KEY UPDATE " + setList,
                tag -> " ON DUPLICATE KEY UPDATE " + Instrumentation.setsWithTag(dialect, sets, tag));
    }

    /** A SET list with nothing to assign (every column kept) writes a kept column's own value: still a write of the row. */
    private static List<String> setsOrSelf(Schema.Table t, List<String> sets) {
        if (!sets.isEmpty()) {
            return sets;
        }
        Schema.Column c = t.columns.get(t.columns.size() - 1);
        return List.of(c.name + " = " + t.name + "." + c.name);
    }

    /** A MERGE source row: {@code source.column = value} selects one row, the column being unique. */
    private record MergeSource(Schema.Table source, Schema.Column column, Object value) {
    }

    /** Source rows of other tables a MERGE into {@code target} can match exactly one of. */
    private List<MergeSource> mergeSources(Schema.Table target) {
        List<MergeSource> out = new ArrayList<>();
        for (Schema.Table s : schema.tables) {
            if (s == target) {
                continue; // Derby: the source of a MERGE may not be its target
            }
            for (Schema.Column c : s.columns) {
                if (!c.unique) {
                    continue;
                }
                for (List<Object> row : s.rows) {
                    Object v = row.get(c.index());
                    if (v != null) {
                        out.add(new MergeSource(s, c, v));
                        break;
                    }
                }
            }
        }
        return out;
    }

    /**
     * MERGE INTO t USING s x ON (<aim on t> AND x.c = v) WHEN MATCHED THEN UPDATE SET ...: one source
     * row, so each aimed row matches it once; no NOT MATCHED clause, so it only updates.
     */
    private Gen mergeAimed(MergeSource ms) {
        Schema.Table t = aim.table();
        Ref tgt = new Ref(t.name, t);
        Ref src = new Ref(ex.alias("x"), ms.source());
        String cond = aimedWhere(tgt);
        String on = (cond.isEmpty() ? "" : cond.substring(" WHERE ".length()) + " AND ") + src.qual() + "." + ms.column().name + " = "
                + Literals.sql(ms.value());
        List<String> sets = setsOrSelf(t, assignments(t, List.of(tgt, src), null, aim.keep()));
        String head = "MERGE INTO " + t.name + " USING " + ms.source().name + " " + src.qual() + " ON (" + on + ") WHEN MATCHED THEN UPDATE SET "
                + String.join(", ", sets);
        return new Gen(Stmt.of(StmtKind.UPSERT, head), ctx -> {
            String tag = ctx.tag(0);
            String sql = head + ", " + Instrumentation.appendTag(dialect, t.name + ".", tag);
            return List.of(Stmt.of(StmtKind.UPSERT, sql, Tracking.write(t.name, tag, List.of(), false)), Instrumentation.postRead(t, tag));
        });
    }

    /**
     * INSERT of a row the caller chose (a pattern's inserted item), every column named; now and then
     * as INSERT … ON CONFLICT DO NOTHING, which inserts it as well when nothing holds its keys.
     */
    Gen insertRow(Schema.Table t, List<Object> row) {
        ex.reset();
        List<String> vals = new ArrayList<>();
        row.forEach(v -> vals.add(Literals.sql(v)));
        if (has(Feature.INSERT_ON_CONFLICT) && !keysOf(t, true).isEmpty() && rng.chance(0.2)) {
            return singleRowUpsert(t, t.columns, vals, " ON CONFLICT DO NOTHING", tag -> " ON CONFLICT DO NOTHING");
        }
        Stmt plain = Stmt.of(StmtKind.INSERT, "INSERT " + insertHead(t, t.columns) + " VALUES " + row(vals));
        return new Gen(plain, ctx -> {
            String tag = ctx.tag(0);
            String rid = Instrumentation.ridLiteral(tag, 0);
            return List.of(Stmt.of(StmtKind.INSERT, "INSERT " + trackedHead(t, t.columns) + " VALUES " + trackedRow(vals, "'" + rid + "'", tag),
                    Tracking.write(t.name, tag, List.of(rid), false)));
        });
    }

    /** Any data statement; about 60% writes. */
    Gen any() {
        return rng.chance(0.4) ? select() : write();
    }

    Gen write() {
        ex.reset();
        boolean upserts = hasUpsert();
        return withSubqueryReads(switch (rng.weighted(30, 34, 16, upserts ? 20 : 0)) {
            case 0 -> insert();
            case 1 -> update();
            case 2 -> delete();
            default -> upsert();
        });
    }

    /**
     * Instrumented, each row-local subquery of the statement gets a companion predicate read after
     * the statement's group (docs/history-format.md, "Subqueries"): the subquery's own reads cannot
     * be returned without changing the statement.
     */
    private Gen withSubqueryReads(Gen g) {
        List<ExprGenerator.SubqueryRead> subs = ex.subqueryReads();
        if (subs.isEmpty()) {
            return g;
        }
        return new Gen(g.stmt(), ctx -> {
            List<Stmt> out = new ArrayList<>(g.expand(ctx));
            for (ExprGenerator.SubqueryRead s : subs) {
                out.add(Instrumentation.subqueryRead(s.inner(), s.where()));
            }
            return out;
        });
    }

    private boolean hasUpsert() {
        return (has(Feature.MERGE) && mergePlans() != null) || has(Feature.INSERT_ON_CONFLICT) || has(Feature.REPLACE)
                || has(Feature.INSERT_ON_DUPLICATE_KEY);
    }

    // ---------------------------------------------------------------- SELECT

    Gen select() {
        ex.reset();
        boolean join = !oneTable() && (has(Feature.JOIN_INNER) || has(Feature.JOIN_LEFT) || has(Feature.JOIN_RIGHT) || has(Feature.JOIN_FULL));
        boolean lock = has(Feature.FOR_UPDATE) || has(Feature.FOR_SHARE) || has(Feature.LOCK_IN_SHARE_MODE);
        return withSubqueryReads(switch (rng.weighted(5, join ? 3 : 0, has(Feature.AGGREGATE) ? 2 : 0, has(Feature.UNION) && !oneTable() ? 1 : 0, lock ? 3 : 0)) {
            case 0 -> simpleSelect();
            case 1 -> joinSelect();
            case 2 -> aggregateSelect();
            case 3 -> unionSelect();
            default -> lockingSelect();
        });
    }

    /** A SELECT whose instrumented form is one statement with the given tracking. */
    private static Gen read(String plain, String instrumented, Tracking tracking) {
        Stmt stmt = Stmt.of(StmtKind.SELECT, plain);
        return new Gen(stmt, ctx -> List.of(Stmt.of(StmtKind.SELECT, instrumented, tracking)));
    }

    /** The tracking of a read over {@code scope}: a predicate read when it is one table and a row-local WHERE. */
    private static Tracking readTracking(List<Ref> scope, String where, boolean locking) {
        String pred = scope.size() == 1 ? Instrumentation.predicate(where, scope.get(0)) : null;
        return Tracking.read(Instrumentation.tables(scope), locking, pred);
    }

    /** A random table, or the aimed one. */
    private Schema.Table anyTable() {
        return aim != null ? aim.table() : rng.pick(schema.tables);
    }

    private Sub readSub() {
        return new Sub(null, 0);
    }

    /** 1..3 select-list items: mostly column references, sometimes an expression. */
    private List<String> items(List<Ref> scope, List<String> plainColumns) {
        List<String> out = new ArrayList<>();
        int n = rng.between(1, 3);
        List<ColRef> cols = ExprGenerator.columns(scope);
        for (int i = 0; i < n; i++) {
            if (rng.chance(0.75)) {
                String c = rng.pick(cols).sql();
                if (!out.contains(c)) {
                    out.add(c);
                    plainColumns.add(c);
                }
            } else {
                ColRef hint = rng.pick(cols);
                out.add(ex.expr(hint.type(), hint.column(), scope, readSub(), 2));
            }
        }
        if (out.isEmpty()) {
            String c = rng.pick(cols).sql();
            out.add(c);
            plainColumns.add(c);
        }
        return out;
    }

    private String where(List<Ref> scope, Sub sub, double p) {
        Ref aimed = aimedRef(scope);
        if (aimed != null) {
            return aimedWhere(aimed);
        }
        return rng.chance(p) ? " WHERE " + ex.predicate(scope, sub, 2) : "";
    }

    private String orderBy(List<String> plainColumns) {
        if (!has(Feature.ORDER_BY) || plainColumns.isEmpty() || !rng.chance(0.3)) {
            return "";
        }
        String first = rng.pick(plainColumns);
        return " ORDER BY " + first + (rng.chance(0.3) ? " DESC" : "");
    }

    private Gen simpleSelect() {
        Schema.Table t = anyTable();
        List<Ref> scope = List.of(new Ref(ex.alias("x"), t));
        List<String> plain = new ArrayList<>();
        List<String> items = items(scope, plain);
        boolean distinct = rng.chance(0.15);
        String head = "SELECT " + (distinct ? "DISTINCT " : "");
        String where = where(scope, readSub(), 0.8);
        String rest = " FROM " + t.name + " " + scope.get(0).qual() + where + orderBy(plain);
        return read(head + String.join(", ", items) + rest, head + Instrumentation.pairs(scope) + ", " + String.join(", ", items) + rest,
                readTracking(scope, where, false));
    }

    /** FROM t x0 JOIN t' x1 ON ...; the join kinds the dialect has, an equality on comparable columns. */
    private String fromJoin(List<Ref> scope) {
        Schema.Table a = anyTable();
        Schema.Table b = rng.pick(schema.tables); // the aimed table, if any, is a's
        Ref ra = new Ref(ex.alias("x"), a);
        Ref rb = new Ref(ex.alias("x"), b);
        scope.add(ra);
        scope.add(rb);
        List<String> kinds = new ArrayList<>();
        if (has(Feature.JOIN_INNER)) {
            kinds.add(rng.chance(0.5) ? "JOIN" : "INNER JOIN");
        }
        if (has(Feature.JOIN_LEFT)) {
            kinds.add("LEFT JOIN");
        }
        if (has(Feature.JOIN_RIGHT)) {
            kinds.add("RIGHT JOIN");
        }
        List<String> equalities = new ArrayList<>();
        for (ColRef x : ExprGenerator.columns(List.of(ra))) {
            for (ColRef y : ExprGenerator.columns(List.of(rb))) {
                if (x.type() == y.type()) {
                    equalities.add(x.sql() + " = " + y.sql());
                }
            }
        }
        if (has(Feature.JOIN_FULL) && !equalities.isEmpty()) {
            kinds.add("FULL JOIN");
        }
        if (aim != null && has(Feature.JOIN_LEFT)) {
            // the aimed row is a's: only a join that keeps every row of a returns it whatever the ON says
            kinds.removeIf(k -> !k.startsWith("LEFT") && !k.startsWith("FULL"));
        }
        String kind = rng.pick(kinds);
        String on;
        if (kind.startsWith("FULL")) {
            on = rng.pick(equalities); // PostgreSQL wants FULL JOIN conditions merge- or hash-joinable
        } else if (!equalities.isEmpty() && rng.chance(0.85)) {
            on = rng.pick(equalities);
            if (rng.chance(0.25)) {
                on = on + " AND " + ex.predicate(scope, null, 0);
            }
        } else {
            on = ex.predicate(scope, null, 1);
        }
        return a.name + " " + ra.qual() + " " + kind + " " + b.name + " " + rb.qual() + " ON " + on;
    }

    private Gen joinSelect() {
        List<Ref> scope = new ArrayList<>();
        String from = fromJoin(scope);
        List<String> plain = new ArrayList<>();
        List<String> items = items(scope, plain);
        String rest = " FROM " + from + where(scope, readSub(), 0.6) + orderBy(plain);
        // outer joins give NULL rids for the missing side: the recorder skips those
        return read("SELECT " + String.join(", ", items) + rest, "SELECT " + Instrumentation.pairs(scope) + ", " + String.join(", ", items) + rest,
                Tracking.read(Instrumentation.tables(scope), false, null));
    }

    /**
     * Instrumented, an aggregate becomes the row-level SELECT of the same FROM and WHERE: the rows
     * it reads, without GROUP BY, HAVING or ORDER BY (aggregates hide the rows they read).
     */
    private Gen aggregateSelect() {
        List<Ref> scope = new ArrayList<>();
        String from;
        boolean join = !oneTable() && (has(Feature.JOIN_INNER) || has(Feature.JOIN_LEFT) || has(Feature.JOIN_RIGHT) || has(Feature.JOIN_FULL));
        if (join && rng.chance(0.25)) {
            from = fromJoin(scope);
        } else {
            Schema.Table t = anyTable();
            Ref r = new Ref(ex.alias("x"), t);
            scope.add(r);
            from = t.name + " " + r.qual();
        }
        List<ColRef> cols = ExprGenerator.columns(scope);
        List<String> items = new ArrayList<>();
        String groupBy = "";
        String group = null;
        if (has(Feature.GROUP_BY) && rng.chance(0.6)) {
            group = rng.pick(cols).sql();
            items.add(group);
            groupBy = " GROUP BY " + group;
        }
        int n = rng.between(1, 2);
        for (int i = 0; i < n; i++) {
            ColRef c = rng.pick(cols);
            String agg = switch (rng.nextInt(c.type().numeric() ? 5 : 4)) {
                case 0 -> "COUNT(*)";
                case 1 -> "COUNT(" + c.sql() + ")";
                case 2 -> "MIN(" + c.sql() + ")";
                case 3 -> "MAX(" + c.sql() + ")";
                default -> "SUM(" + c.sql() + ")";
            };
            if (!items.contains(agg)) {
                items.add(agg);
            }
        }
        String where = where(scope, readSub(), 0.6);
        String having = group != null && rng.chance(0.3) ? " HAVING COUNT(*) " + rng.pick(List.of(">", ">=", "=")) + " " + rng.between(1, 2) : "";
        String order = group != null && has(Feature.ORDER_BY) && rng.chance(0.3) ? " ORDER BY " + group : "";
        String plain = "SELECT " + String.join(", ", items) + " FROM " + from + where + groupBy + having + order;
        // the tracked form no longer holds the aggregate: it is kept beside it, for the plain program (reduce/TrackingStripper)
        return read(plain, "SELECT " + Instrumentation.pairs(scope) + " FROM " + from + where, readTracking(scope, where, false).withPlain(plain));
    }

    /**
     * Instrumented, a UNION becomes a UNION ALL of both sides' rows, each led by its table's name
     * and (rid, wl): the rows read are the same, duplicates included.
     */
    private Gen unionSelect() {
        Schema.Table a = anyTable();
        Ref ra = new Ref(ex.alias("x"), a);
        ColRef left = rng.pick(ExprGenerator.columns(List.of(ra)));
        Schema.Table b = rng.pick(schema.tables);
        if (b.columnsOf(left.type()).isEmpty()) {
            b = a;
        }
        Ref rb = new Ref(ex.alias("x"), b);
        ColRef right = rng.pick(ExprGenerator.columns(List.of(rb), left.type()));
        String fromA = " FROM " + a.name + " " + ra.qual() + where(List.of(ra), readSub(), 0.7);
        String union = rng.chance(0.5) ? " UNION " : " UNION ALL ";
        String fromB = " FROM " + b.name + " " + rb.qual() + where(List.of(rb), readSub(), 0.7);
        String instrumented = "SELECT '" + a.name + "', " + Instrumentation.pairs(List.of(ra)) + fromA
                + " UNION ALL SELECT '" + b.name + "', " + Instrumentation.pairs(List.of(rb)) + fromB;
        String plain = "SELECT " + left.sql() + fromA + union + "SELECT " + right.sql() + fromB;
        return read(plain, instrumented, Tracking.read(List.of(Tracking.TABLE_COLUMN), false, null).withPlain(plain));
    }

    /**
     * SELECT ... FOR UPDATE / FOR SHARE / LOCK IN SHARE MODE over one table, plain columns, a WHERE
     * without subqueries and no ORDER BY: Derby and PostgreSQL refuse locking clauses on anything richer.
     */
    private Gen lockingSelect() {
        Schema.Table t = anyTable();
        Ref r = new Ref(ex.alias("x"), t);
        List<Ref> scope = List.of(r);
        List<String> cols = new ArrayList<>();
        for (ColRef c : ExprGenerator.columns(scope)) {
            if (cols.isEmpty() || rng.chance(0.5)) {
                cols.add(c.sql());
            }
        }
        List<String> clauses = new ArrayList<>();
        if (has(Feature.FOR_UPDATE)) {
            clauses.add(" FOR UPDATE");
        }
        if (has(Feature.FOR_SHARE)) {
            clauses.add(" FOR SHARE");
        }
        if (has(Feature.LOCK_IN_SHARE_MODE)) {
            clauses.add(" LOCK IN SHARE MODE");
        }
        String w = aim != null ? aimedWhere(r) : rng.chance(0.85) ? " WHERE " + ex.predicate(scope, null, 1) : "";
        String rest = " FROM " + t.name + " " + r.qual() + w + rng.pick(clauses);
        return read("SELECT " + String.join(", ", cols) + rest, "SELECT " + Instrumentation.pairs(scope) + ", " + String.join(", ", cols) + rest,
                readTracking(scope, w, true));
    }

    // ---------------------------------------------------------------- INSERT

    /** The columns an INSERT names: every required one, and each other one with probability 0.6. */
    private List<Schema.Column> insertColumns(Schema.Table t) {
        List<Schema.Column> cols = new ArrayList<>();
        for (Schema.Column c : t.columns) {
            if (c.required() || rng.chance(0.6)) {
                cols.add(c);
            }
        }
        if (cols.isEmpty()) {
            cols.add(rng.pick(t.columns));
        }
        return cols;
    }

    /** A value to insert into {@code c}, recorded in the pool. */
    private String insertValue(Schema.Column c) {
        Object v;
        if (!c.notNull && rng.chance(0.1)) {
            v = null;
        } else if (c.references != null && rng.chance(0.8)) {
            v = pool.valueFor(c.references);
        } else {
            v = pool.valueFor(c);
        }
        pool.record(c, v);
        return Literals.sql(v);
    }

    /** The literals of one row to insert, one per column. */
    private List<String> valuesRow(List<Schema.Column> cols) {
        List<String> vals = new ArrayList<>();
        for (Schema.Column c : cols) {
            vals.add(insertValue(c));
        }
        return vals;
    }

    private static String row(List<String> vals) {
        return "(" + String.join(", ", vals) + ")";
    }

    /** The row with the tracking columns: its rid and the write's tag. */
    private static String trackedRow(List<String> vals, String rid, String tag) {
        List<String> all = new ArrayList<>(vals);
        all.add(rid);
        all.add(Instrumentation.tagLiteral(tag));
        return row(all);
    }

    private String insertHead(Schema.Table t, List<Schema.Column> cols) {
        return "INTO " + t.name + " (" + SchemaGenerator.names(cols) + ")";
    }

    private static String trackedHead(Schema.Table t, List<Schema.Column> cols) {
        return "INTO " + t.name + " (" + SchemaGenerator.names(cols) + ", " + Instrumentation.RID + ", " + Instrumentation.WL + ")";
    }

    private Gen insert() {
        Schema.Table t = anyTable();
        List<Schema.Column> cols = insertColumns(t);
        int form = rng.weighted(6, has(Feature.MULTI_ROW_INSERT) ? 2 : 0, has(Feature.INSERT_SELECT) ? 2 : 0);
        if (form == 2) {
            InsertSelect is = insertSelect(t, cols);
            Stmt plain = Stmt.of(StmtKind.INSERT, "INSERT " + insertHead(t, cols) + " SELECT " + String.join(", ", is.exprs()) + is.rest());
            return new Gen(plain, ctx -> {
                String tag = ctx.tag(0);
                String sql = "INSERT " + trackedHead(t, cols) + " SELECT " + String.join(", ", is.exprs()) + ", "
                        + Instrumentation.ridFrom(dialect, is.source().qual(), tag) + ", " + Instrumentation.tagLiteral(tag) + is.rest();
                List<Stmt> out = new ArrayList<>(List.of(Stmt.of(StmtKind.INSERT, sql, Tracking.write(t.name, tag, List.of(), false)),
                        Instrumentation.postRead(t, tag)));
                if (Instrumentation.rowLocal(is.where(), is.source())) {
                    // the source rows it read, as a companion predicate read (like a row-local subquery's)
                    out.add(Instrumentation.subqueryRead(is.source(), is.where()));
                }
                return out;
            });
        }
        List<List<String>> rows = new ArrayList<>();
        int n = form == 1 ? rng.between(2, 3) : 1;
        for (int i = 0; i < n; i++) {
            rows.add(valuesRow(cols));
        }
        Stmt plain = Stmt.of(StmtKind.INSERT, "INSERT " + insertHead(t, cols) + " VALUES " + String.join(", ", rows.stream().map(StatementGenerator::row).toList()));
        return new Gen(plain, ctx -> {
            String tag = ctx.tag(0);
            List<String> rids = new ArrayList<>();
            List<String> tracked = new ArrayList<>();
            for (int k = 0; k < rows.size(); k++) {
                String rid = Instrumentation.ridLiteral(tag, k);
                rids.add(rid);
                tracked.add(trackedRow(rows.get(k), "'" + rid + "'", tag));
            }
            return List.of(Stmt.of(StmtKind.INSERT, "INSERT " + trackedHead(t, cols) + " VALUES " + String.join(", ", tracked),
                    Tracking.write(t.name, tag, rids, false)));
        });
    }

    /** The SELECT of an INSERT … SELECT: its expressions, and " FROM s x WHERE ..." over {@code source}. */
    private record InsertSelect(List<String> exprs, Ref source, String where) {
        String rest() {
            return " FROM " + source.table().name + " " + source.qual() + where;
        }
    }

    /** SELECT exprs FROM s x WHERE ...: one expression of the right type per target column. */
    private InsertSelect insertSelect(Schema.Table target, List<Schema.Column> cols) {
        Schema.Table src = anyTable();
        Ref r = new Ref(ex.alias("x"), src);
        List<Ref> scope = List.of(r);
        Sub sub = new Sub(target, 0);
        List<String> exprs = new ArrayList<>();
        for (Schema.Column c : cols) {
            List<ColRef> same = ExprGenerator.columns(scope, c.type);
            if (c.unique && !same.isEmpty() && c.type.numeric()) {
                // shift keys so the copy does not always collide with its source
                exprs.add("(" + rng.pick(same).sql() + " + " + Literals.sql(pool.step(c.type)) + ")");
            } else {
                exprs.add(ex.expr(c.type, c, scope, sub, 1));
            }
        }
        return new InsertSelect(exprs, r, where(scope, sub, 0.7));
    }

    // ---------------------------------------------------------------- UPDATE, DELETE

    /** SET assignments over the row's own columns (qualified by {@code qual}), recorded in the pool. */
    private List<String> assignments(Schema.Table t, List<Ref> scope, Sub sub, List<Schema.Column> exclude) {
        List<Schema.Column> candidates = new ArrayList<>();
        for (Schema.Column c : t.columns) {
            if (!exclude.contains(c)) {
                candidates.add(c);
            }
        }
        List<String> out = new ArrayList<>();
        if (candidates.isEmpty()) {
            return out;
        }
        int n = rng.chance(0.7) ? 1 : 2;
        List<Schema.Column> chosen = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Schema.Column c = rng.pick(candidates);
            if (chosen.contains(c)) {
                continue;
            }
            chosen.add(c);
            out.add(c.name + " = " + assignedValue(c, scope, sub));
        }
        return out;
    }

    private String assignedValue(Schema.Column c, List<Ref> scope, Sub sub) {
        List<ColRef> own = ExprGenerator.columns(scope, c.type);
        boolean scalar = sub != null && has(Feature.SUBQUERY_SCALAR) && has(Feature.AGGREGATE) && !ex.subqueryTables(sub).isEmpty();
        switch (rng.weighted(4, own.isEmpty() || !c.type.numeric() ? 0 : 4, 3, scalar ? 2 : 0)) {
            case 0: {
                Object v = !c.notNull && rng.chance(0.1) ? null : pool.valueFor(c.references != null ? c.references : c);
                pool.record(c, v);
                return Literals.sql(v);
            }
            case 1: {
                ColRef x = rng.pick(own);
                return "(" + x.sql() + (rng.chance(0.7) ? " + " : " - ") + Literals.sql(pool.step(c.type)) + ")";
            }
            case 2:
                return ex.expr(c.type, c, scope, null, 2);
            default: {
                // SET c = (SELECT MAX(...) ...): reads inside the write, never through a variable
                String q = ex.scalarSubquery(c.type, c, scope, sub);
                return has(Feature.COALESCE) && rng.chance(0.5) ? "COALESCE(" + q + ", " + ex.constant(c) + ")" : q;
            }
        }
    }

    /** Instrumented: the tag appended in the SET list, then the post-read of the tagged rows. */
    private Gen update() {
        Schema.Table t = anyTable();
        List<Ref> scope = List.of(new Ref(t.name, t));
        Sub sub = new Sub(t, 0);
        Sub setSub = has(Feature.UPDATE_SET_SUBQUERY) ? sub : null;
        List<String> sets = aim == null ? assignments(t, scope, setSub, List.of()) : setsOrSelf(t, assignments(t, scope, setSub, kept(t)));
        String where = aim != null ? aimedWriteWhere(scope.get(0)) : where(scope, sub, 0.85);
        Stmt plain = Stmt.of(StmtKind.UPDATE, "UPDATE " + t.name + " SET " + String.join(", ", sets) + where);
        return new Gen(plain, ctx -> {
            String tag = ctx.tag(0);
            String sql = "UPDATE " + t.name + " SET " + Instrumentation.setsWithTag(dialect, sets, tag) + where;
            // the WHERE is the rows the UPDATE scans: its post-read becomes a predicate read too, unless rows it
            // matched but left unchanged carry no tag
            String predicate = Instrumentation.predicate(where, scope.get(0));
            boolean tagsOnlyChanged = Instrumentation.tagsOnlyChangedRows(dialect, sets);
            String scan = tagsOnlyChanged ? null : predicate;
            Tracking write = Tracking.write(t.name, tag, List.of(), false, scan);
            if (tagsOnlyChanged && predicate != null && dialect.features().contains(Feature.LOCK_IN_SHARE_MODE)) {
                // the rows it matched and left unchanged: without them its later reads of those rows could not be checked
                return List.of(Stmt.of(StmtKind.UPDATE, sql, write), Instrumentation.postRead(t, tag), Instrumentation.matchRead(dialect, t, tag, where, predicate));
            }
            return List.of(Stmt.of(StmtKind.UPDATE, sql, write), Instrumentation.postRead(t, tag));
        });
    }

    /**
     * Instrumented: a tag-UPDATE with the DELETE's WHERE, the post-read of the tagged rows (the
     * versions about to be deleted), then {@code DELETE FROM t WHERE wl LIKE '%,tag'}.
     */
    private Gen delete() {
        Schema.Table t = anyTable();
        List<Ref> scope = List.of(new Ref(t.name, t));
        String where = aim != null ? aimedWriteWhere(scope.get(0)) : where(scope, new Sub(t, 0), 0.9);
        // the tag-update scans the DELETE's rows through its WHERE: a predicate read (docs/history-format.md)
        String scan = Instrumentation.predicate(where, scope.get(0));
        if (has(Feature.DELETE_RETURNING)) {
            // the DELETE itself returns the versions it deleted: no companion statement changes what the engine does
            return new Gen(Stmt.of(StmtKind.DELETE, "DELETE FROM " + t.name + where), ctx -> List.of(Stmt.of(StmtKind.DELETE,
                    "DELETE FROM " + t.name + where + " RETURNING " + Instrumentation.RID + ", " + Instrumentation.WL,
                    Tracking.write(t.name, ctx.tag(0), List.of(), true, scan))));
        }
        return new Gen(Stmt.of(StmtKind.DELETE, "DELETE FROM " + t.name + where), ctx -> deleting(ctx, t, where,
                "DELETE FROM " + t.name + " WHERE " + Instrumentation.WL + " LIKE '%," + ctx.tag(2) + "'", StmtKind.DELETE, List.of(), false, scan));
    }

    /**
     * A write that deletes the rows {@code where} selects: tag-UPDATE, post-read, the write at
     * offset 2 (tag {@code ctx.tag(2)}), and a second post-read when the write can also leave rows
     * it inserted or updated.
     */
    private List<Stmt> deleting(Ctx ctx, Schema.Table t, String where, String write, StmtKind kind, List<String> rids, boolean postReadAfter) {
        return deleting(ctx, t, where, write, kind, rids, postReadAfter, null);
    }

    /** As above; {@code scanPredicate}: the row-local WHERE the tag-update scans through, when the write is a plain DELETE. */
    private List<Stmt> deleting(Ctx ctx, Schema.Table t, String where, String write, StmtKind kind, List<String> rids, boolean postReadAfter,
                                String scanPredicate) {
        String tag = ctx.tag(2);
        List<Stmt> out = new ArrayList<>();
        out.add(Instrumentation.tagUpdate(dialect, t, where, tag, scanPredicate));
        out.add(Instrumentation.postRead(t, tag));
        out.add(Stmt.of(kind, write, Tracking.write(t.name, tag, rids, true)));
        if (postReadAfter) {
            out.add(Instrumentation.postRead(t, tag));
        }
        return out;
    }

    // ---------------------------------------------------------------- upserts

    private Gen upsert() {
        List<Integer> forms = new ArrayList<>();
        if (has(Feature.MERGE) && mergePlans() != null) {
            forms.add(0);
        }
        if (has(Feature.INSERT_ON_CONFLICT) && !keyedTables().isEmpty()) {
            forms.add(1);
        }
        if (has(Feature.REPLACE)) {
            forms.add(2);
        }
        if (has(Feature.INSERT_ON_DUPLICATE_KEY)) {
            forms.add(3);
        }
        if (forms.isEmpty()) {
            return insert(); // ON CONFLICT alone and no table with a key to conflict on
        }
        return switch (rng.pick(forms)) {
            case 0 -> merge();
            case 1 -> onConflict();
            case 2 -> replace();
            default -> onDuplicateKey();
        };
    }

    /** An upsert of one VALUES row: instrumented, the row carries a fresh rid and the tag, {@code tail(tag)} follows, then the post-read. */
    private Gen singleRowUpsert(Schema.Table t, List<Schema.Column> cols, List<String> vals, String plainTail,
                                java.util.function.Function<String, String> trackedTail) {
        Stmt plain = Stmt.of(StmtKind.UPSERT, "INSERT " + insertHead(t, cols) + " VALUES " + row(vals) + plainTail);
        return new Gen(plain, ctx -> {
            String tag = ctx.tag(0);
            String sql = "INSERT " + trackedHead(t, cols) + " VALUES " + trackedRow(vals, "'" + Instrumentation.ridLiteral(tag, 0) + "'", tag)
                    + trackedTail.apply(tag);
            return List.of(Stmt.of(StmtKind.UPSERT, sql, Tracking.write(t.name, tag, List.of(), false)), Instrumentation.postRead(t, tag));
        });
    }

    /** Tables with a key: a single-column unique key or the PK. */
    private List<List<Schema.Column>> keysOf(Schema.Table t, boolean constraintsOnly) {
        List<List<Schema.Column>> keys = new ArrayList<>();
        if (!t.primaryKey.isEmpty()) {
            keys.add(t.primaryKey);
        }
        for (Schema.Column c : t.columns) {
            if ((constraintsOnly ? c.uniqueConstraint : c.unique) && !(t.primaryKey.size() == 1 && t.primaryKey.get(0) == c)) {
                keys.add(List.of(c));
            }
        }
        return keys;
    }

    /** Tables with a PRIMARY KEY or UNIQUE constraint. */
    private List<Schema.Table> keyedTables() {
        List<Schema.Table> out = new ArrayList<>();
        for (Schema.Table t : schema.tables) {
            if (!keysOf(t, true).isEmpty()) {
                out.add(t);
            }
        }
        return out;
    }

    /**
     * INSERT ... ON CONFLICT [(key)] DO UPDATE SET ... | DO NOTHING (SQLite, DuckDB, PostgreSQL), on
     * a table with a key: DuckDB refuses ON CONFLICT on a table without one.
     */
    private Gen onConflict() {
        Schema.Table t = rng.pick(keyedTables());
        List<Schema.Column> key = rng.pick(keysOf(t, true));
        List<Schema.Column> cols = insertColumns(t);
        for (Schema.Column k : key) {
            if (!cols.contains(k)) {
                cols.add(k);
            }
        }
        cols.sort((a, b) -> Integer.compare(a.index(), b.index()));
        List<String> vals = valuesRow(cols);
        if (rng.chance(0.15)) {
            return singleRowUpsert(t, cols, vals, " ON CONFLICT DO NOTHING", tag -> " ON CONFLICT DO NOTHING");
        }
        String target = " ON CONFLICT (" + SchemaGenerator.names(key) + ")";
        List<Ref> scope = List.of(new Ref(t.name, t));
        List<String> sets = assignments(t, scope, null, key);
        if (sets.isEmpty() || rng.chance(0.15)) {
            return singleRowUpsert(t, cols, vals, target + " DO NOTHING", tag -> target + " DO NOTHING");
        }
        if (rng.chance(0.4)) {
            // take the proposed row's value: excluded.c
            Schema.Column c = null;
            for (Schema.Column x : cols) {
                if (!key.contains(x)) {
                    c = x;
                }
            }
            if (c != null) {
                sets = List.of(c.name + " = excluded." + c.name);
            }
        }
        String w = rng.chance(0.2) ? " WHERE " + ex.predicate(scope, null, 0) : "";
        String setList = String.join(", ", sets);
        return singleRowUpsert(t, cols, vals, target + " DO UPDATE SET " + setList + w,
                tag -> target + " DO UPDATE SET " + setList + ", " + Instrumentation.appendTag(dialect, t.name + ".", tag) + w);
    }

    /**
     * REPLACE INTO t (...) VALUES (...) (SQLite, MariaDB). Instrumented (IsoRel ⑨, ⑩): when a unique
     * key of the new row is fully known and not NULL, a tag-UPDATE of the rows that conflict on any
     * such key and their post-read come first (the versions REPLACE deletes), then the REPLACE with
     * a fresh rid; with no such key it can delete nothing and is instrumented like an INSERT.
     */
    private Gen replace() {
        Schema.Table t = anyTable();
        List<Schema.Column> cols = insertColumns(t);
        List<String> vals = valuesRow(cols);
        Stmt plain = Stmt.of(StmtKind.UPSERT, "REPLACE " + insertHead(t, cols) + " VALUES " + row(vals));
        String conflicts = conflictPredicate(t, cols, vals);
        return new Gen(plain, ctx -> {
            int offset = conflicts == null ? 0 : 2;
            String tag = ctx.tag(offset);
            String rid = Instrumentation.ridLiteral(tag, 0);
            String sql = "REPLACE " + trackedHead(t, cols) + " VALUES " + trackedRow(vals, "'" + rid + "'", tag);
            if (conflicts == null) {
                return List.of(Stmt.of(StmtKind.UPSERT, sql, Tracking.write(t.name, tag, List.of(rid), false)));
            }
            // the post-read after it shows rows our key predicate tagged that REPLACE did not delete
            return deleting(ctx, t, " WHERE " + conflicts, sql, StmtKind.UPSERT, List.of(rid), true);
        });
    }

    /**
     * The rows a new row {@code vals} (for {@code cols}, defaults elsewhere) conflicts with: an OR
     * over the unique keys all of whose values are known and not NULL; null when there is none.
     */
    private static String conflictPredicate(Schema.Table t, List<Schema.Column> cols, List<String> vals) {
        List<String> disjuncts = new ArrayList<>();
        for (List<Schema.Column> key : t.uniqueKeys) {
            List<String> eqs = new ArrayList<>();
            for (Schema.Column c : key) {
                int i = cols.indexOf(c);
                String v = i >= 0 ? vals.get(i) : c.defaultValue != null ? Literals.sql(c.defaultValue) : "NULL";
                if (v.equals("NULL")) {
                    eqs = null;
                    break;
                }
                eqs.add(c.name + " = " + v);
            }
            if (eqs != null && !eqs.isEmpty()) {
                String conj = String.join(" AND ", eqs);
                if (!disjuncts.contains(conj)) {
                    disjuncts.add(conj);
                }
            }
        }
        if (disjuncts.isEmpty()) {
            return null;
        }
        return disjuncts.size() == 1 ? disjuncts.get(0) : "(" + String.join(") OR (", disjuncts) + ")";
    }

    /** INSERT ... ON DUPLICATE KEY UPDATE c = ... (MariaDB, MySQL). */
    private Gen onDuplicateKey() {
        Schema.Table t = anyTable();
        List<Schema.Column> cols = insertColumns(t);
        List<String> vals = valuesRow(cols);
        List<Ref> scope = List.of(new Ref(t.name, t));
        List<String> sets = assignments(t, scope, null, List.of());
        String setList = String.join(", ", sets);
        return singleRowUpsert(t, cols, vals, " ON DUPLICATE KEY UPDATE " + setList,
                tag -> " ON DUPLICATE KEY UPDATE " + Instrumentation.setsWithTag(dialect, sets, tag));
    }

    /**
     * How a MERGE joins target and source: {@code target.tc = source.sc} where sc is unique in the
     * source, so each target row matches at most one source row.
     */
    private record MergePlan(Schema.Table target, Schema.Column tc, Schema.Table source, Schema.Column sc) {
    }

    /** All MERGE plans the schema allows, in schema order; null when there is none. */
    private List<MergePlan> mergePlans() {
        List<MergePlan> plans = new ArrayList<>();
        for (Schema.Table target : schema.tables) {
            for (Schema.Table source : schema.tables) {
                if (source == target) {
                    continue; // Derby: the source of a MERGE may not be its target
                }
                for (Schema.Column sc : source.columns) {
                    if (!sc.unique) {
                        continue;
                    }
                    for (Schema.Column tc : target.columns) {
                        if (tc.type == sc.type) {
                            plans.add(new MergePlan(target, tc, source, sc));
                        }
                    }
                }
            }
        }
        return plans.isEmpty() ? null : plans;
    }

    /**
     * MERGE INTO t USING s x ON (t.a = x.b) WHEN MATCHED [AND ...] THEN UPDATE SET ... | DELETE
     * WHEN NOT MATCHED [AND ...] THEN INSERT (...) VALUES (...). The source is a base table: Derby
     * accepts nothing else, and H2, HSQLDB, DuckDB and PostgreSQL all accept it.
     */
    private Gen merge() {
        List<MergePlan> plans = mergePlans();
        // prefer plans that join on the target's key: that is the upsert idiom
        List<MergePlan> keyed = new ArrayList<>();
        for (MergePlan p : plans) {
            if (p.tc().unique) {
                keyed.add(p);
            }
        }
        MergePlan p = !keyed.isEmpty() && rng.chance(0.8) ? rng.pick(keyed) : rng.pick(plans);
        Schema.Table t = p.target();
        Ref src = new Ref(ex.alias("x"), p.source());
        Ref tgt = new Ref(t.name, t);
        List<Ref> both = List.of(tgt, src);
        String on = tgt.qual() + "." + p.tc().name + " = " + src.qual() + "." + p.sc().name;
        StringBuilder sb = new StringBuilder("MERGE INTO ").append(t.name).append(" USING ").append(p.source().name).append(' ')
                .append(src.qual()).append(" ON (").append(on).append(')');
        // the instrumented form, built alongside: @TAG@ stands for the tag, filled in on expansion
        StringBuilder tracked = new StringBuilder(sb);
        String matchedCond = null;
        boolean deletes = false;
        int clauses = rng.weighted(3, 1, 1); // both, matched only, not matched only
        if (clauses != 2) {
            sb.append(" WHEN MATCHED");
            tracked.append(" WHEN MATCHED");
            if (rng.chance(0.3)) {
                matchedCond = ex.predicate(both, null, 0);
                sb.append(" AND ").append(matchedCond);
                tracked.append(" AND ").append(matchedCond);
            }
            List<String> sets = clauses == 0 || rng.chance(0.85) ? assignments(t, both, null, List.of(p.tc())) : List.of();
            sb.append(sets.isEmpty() ? " THEN DELETE" : " THEN UPDATE SET " + String.join(", ", sets));
            if (sets.isEmpty()) {
                deletes = true;
                tracked.append(" THEN DELETE");
            } else {
                tracked.append(" THEN UPDATE SET ").append(String.join(", ", sets)).append(", ")
                        .append(Instrumentation.appendTag(dialect, t.name + ".", "@TAG@"));
            }
        }
        if (clauses != 1) {
            sb.append(" WHEN NOT MATCHED");
            tracked.append(" WHEN NOT MATCHED");
            if (rng.chance(0.6)) {
                String cond = ex.predicate(List.of(src), null, 0);
                sb.append(" AND ").append(cond);
                tracked.append(" AND ").append(cond);
            }
            List<Schema.Column> cols = insertColumns(t);
            if (!cols.contains(p.tc())) {
                cols.add(p.tc());
                cols.sort((a, b) -> Integer.compare(a.index(), b.index()));
            }
            List<String> vals = new ArrayList<>();
            for (Schema.Column c : cols) {
                if (c == p.tc()) {
                    vals.add(src.qual() + "." + p.sc().name);
                } else {
                    vals.add(ex.expr(c.type, c, List.of(src), null, 1));
                }
            }
            sb.append(" THEN INSERT (").append(SchemaGenerator.names(cols)).append(") VALUES (").append(String.join(", ", vals)).append(')');
            tracked.append(" THEN INSERT (").append(SchemaGenerator.names(cols)).append(", ").append(Instrumentation.RID).append(", ")
                    .append(Instrumentation.WL).append(") VALUES (").append(String.join(", ", vals)).append(", ")
                    .append(Instrumentation.ridFrom(dialect, src.qual(), "@TAG@")).append(", ").append(Instrumentation.tagLiteral("@TAG@"))
                    .append(')');
        }
        Stmt plain = Stmt.of(StmtKind.UPSERT, sb.toString());
        String template = tracked.toString();
        if (!deletes) {
            return new Gen(plain, ctx -> {
                String tag = ctx.tag(0);
                return List.of(Stmt.of(StmtKind.UPSERT, template.replace("@TAG@", tag), Tracking.write(t.name, tag, List.of(), false)),
                        Instrumentation.postRead(t, tag));
            });
        }
        // WHEN MATCHED THEN DELETE: the rows matched by a source row for which the condition holds
        // (the source column is unique, so each target row matches at most one source row)
        String victims = " WHERE EXISTS (SELECT 1 FROM " + p.source().name + " " + src.qual() + " WHERE " + on
                + (matchedCond == null ? "" : " AND " + matchedCond) + ")";
        // always a post-read after it: it shows inserted rows, and tagged rows the MERGE did not delete
        // (HSQLDB 2.7 has been seen to keep a row the equivalent EXISTS selects)
        return new Gen(plain, ctx -> deleting(ctx, t, victims, template.replace("@TAG@", ctx.tag(2)), StmtKind.UPSERT, List.of(), true));
    }
}
