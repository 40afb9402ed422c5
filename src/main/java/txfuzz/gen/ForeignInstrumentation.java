package txfuzz.gen;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.ExpressionVisitorAdapter;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.statement.create.index.CreateIndex;
import net.sf.jsqlparser.statement.create.table.Index;
import net.sf.jsqlparser.statement.merge.Merge;
import net.sf.jsqlparser.statement.merge.MergeDelete;
import net.sf.jsqlparser.statement.merge.MergeInsert;
import net.sf.jsqlparser.statement.merge.MergeOperation;
import net.sf.jsqlparser.statement.merge.MergeUpdate;
import net.sf.jsqlparser.statement.select.SetOperationList;
import net.sf.jsqlparser.statement.upsert.Upsert;
import net.sf.jsqlparser.statement.upsert.UpsertType;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.create.table.ColDataType;
import net.sf.jsqlparser.statement.create.table.ColumnDefinition;
import net.sf.jsqlparser.statement.create.table.CreateTable;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.insert.ConflictActionType;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.insert.InsertConflictAction;
import net.sf.jsqlparser.statement.insert.InsertConflictTarget;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;
import net.sf.jsqlparser.statement.select.Values;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.update.UpdateSet;
import txfuzz.dbms.Dialect;
import txfuzz.dbms.Feature;
import txfuzz.gen.Instrumentation.Ctx;
import txfuzz.model.ExecutionMode;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.TestCase;
import txfuzz.model.Tracking;
import txfuzz.model.Txn;

/**
 * Row tracking for a case someone else wrote (an imported schedule, a bug report's plain program):
 * the instrumented case the generator would have produced for the same statements — {@code rid}/{@code wl}
 * on every table of the case, initial rows with rids and {@code ",0"}, every transaction explicit,
 * and per data statement the instrumented form and companions of {@link Instrumentation}, with the
 * {@link Tracking} the history recorder reads (docs/history-format.md). Version-set reads are not
 * added here: an oracle that wants them adds them when it prepares the case, as for a generated one.
 *
 * <p>The statements are parsed with JSqlParser (5.3), not with regular expressions: it is the one
 * parser that reads the DML of all seven dialects txfuzz targets — {@code FOR UPDATE}/{@code FOR
 * SHARE}, {@code ON CONFLICT}, {@code ON DUPLICATE KEY UPDATE}, {@code REPLACE}, {@code MERGE},
 * {@code DELETE … RETURNING}, CREATE TABLE with constraints. Calcite 1.42.0's parser (core and
 * Babel) reads none of these except MERGE (measured, docs/architecture.md), so a schedule of
 * PostgreSQL's or MariaDB's would lose most of its statements. JSqlParser misses MariaDB's
 * {@code LOCK IN SHARE MODE}, which is taken off before parsing and put back.
 *
 * <p>It covers every statement shape the generator makes (SELECT with joins, aggregates, UNION,
 * subqueries and locking clauses; INSERT … VALUES and … SELECT; UPDATE; DELETE; ON CONFLICT; ON
 * DUPLICATE KEY UPDATE; REPLACE; MERGE). A statement it cannot instrument (a write over joined
 * tables, a RETURNING of the user's, a SELECT over a derived table, an aggregate INSERT … SELECT,
 * text the parser refuses) is kept as it is and named with the reason in
 * {@link Instrumented#unhandled}: the history would miss what it did, so the oracles that need row
 * tracking cannot judge the case and must say so. (gen cannot name them: oracle comes after gen.)
 */
public final class ForeignInstrumentation {
    private static final String LOCK_IN_SHARE_MODE = "LOCK IN SHARE MODE";

    /** A statement kept as it was, where it is ("setup 2", "T1.3": the plain case's numbering) and why. */
    public record Unhandled(String where, String sql, String reason) {
        @Override
        public String toString() {
            return where + " `" + sql + "`: " + reason;
        }
    }

    /**
     * The instrumented case and the statements it could not instrument. {@link #rowTrackingComplete}
     * false means the history of a run misses some statement's reads or writes: an oracle that needs
     * row tracking ({@code Oracle.needsRowTracking()}) is not applicable to the case.
     */
    public record Instrumented(TestCase testCase, List<Unhandled> unhandled) {
        public Instrumented {
            unhandled = List.copyOf(unhandled);
        }

        public boolean rowTrackingComplete() {
            return unhandled.isEmpty();
        }

        /** Why the oracles that need row tracking do not apply, one line; empty when they do. */
        public Optional<String> notApplicableBecause() {
            if (unhandled.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of("not applicable: row tracking misses " + unhandled.size() + " statement(s), first " + unhandled.get(0));
        }
    }

    /** A table of the case: its name as the case lists it, its columns (lower case, to compare) and as CREATE TABLE spells them. */
    private record TableInfo(String name, List<String> columns, List<String> declared, List<List<String>> keys, Map<String, String> defaults,
                             List<String> integerKey) {
    }

    /** A table as a statement names it: the case's table and the qualifier its columns use. */
    private record Scope(TableInfo table, String qual) {
    }

    /** Control flow: the statement cannot be instrumented, for this reason. */
    private static final class Refused extends Exception {
        Refused(String why) {
            super(why, null, false, false);
        }
    }

    private final Dialect dialect;
    private final Map<String, TableInfo> tables = new LinkedHashMap<>();
    private final List<Unhandled> unhandled = new ArrayList<>();

    private ForeignInstrumentation(Dialect dialect) {
        this.dialect = dialect;
    }

    /** The instrumented form of {@code plain}, written in {@code dialect}, and what it could not instrument. */
    public static Instrumented instrument(TestCase plain, Dialect dialect) {
        ForeignInstrumentation f = new ForeignInstrumentation(dialect);
        List<String> setup = f.setup(plain);
        List<Txn> txns = new ArrayList<>();
        List<List<Integer>> groupSizes = new ArrayList<>();
        for (Txn p : plain.transactions()) {
            List<Stmt> all = new ArrayList<>();
            List<Integer> sizes = new ArrayList<>();
            all.add(p.explicit() ? p.statements().get(0) : Stmt.begin());
            int before = 0;
            if (p.explicit()) {
                sizes.add(1);
                before = 1;
            }
            List<Stmt> body = p.body();
            for (int k = 0; k < body.size(); k++) {
                int index = p.explicit() ? k + 1 : k;
                all.addAll(f.statement(body.get(k), new Ctx(p.id(), all.size(), dialect), "T" + p.id() + "." + index));
                sizes.add(all.size() - before);
                before = all.size();
            }
            if (p.explicit()) {
                all.add(p.statements().get(p.statements().size() - 1));
                sizes.add(1);
            } else {
                all.add(Stmt.commit());
                sizes.set(0, all.size()); // the autocommit statement is BEGIN, its group and COMMIT
            }
            txns.add(p.with(p.id(), all));
            groupSizes.add(sizes);
        }
        List<Integer> order = new ArrayList<>();
        int[] next = new int[plain.transactions().size()];
        for (int id : plain.order()) {
            int n = groupSizes.get(id - 1).get(next[id - 1]++);
            for (int k = 0; k < n; k++) {
                order.add(id);
            }
        }
        List<String> tableNames = plain.tables().isEmpty() ? f.tables.values().stream().map(TableInfo::name).toList() : plain.tables();
        TestCase out = new TestCase(plain.formatVersion(), plain.dbms(), plain.seed(), plain.iteration(), plain.isolation(), plain.mode(),
                ExecutionMode.PLAIN, tableNames, setup, txns, order, null, plain.engine(), plain.source());
        // the source stays: a finding of an imported case is written back in the form it came from
        return new Instrumented(out, f.unhandled);
    }

    // ---------------------------------------------------------------- setup

    /** The setup with rid/wl on the case's tables and on their initial rows. */
    private List<String> setup(TestCase plain) {
        List<String> out = new ArrayList<>();
        int nextRid = 1;
        for (int i = 0; i < plain.setup().size(); i++) {
            String sql = plain.setup().get(i);
            String where = "setup " + (i + 1);
            Statement st;
            try {
                st = StatementStructure.parseOrThrow(sql);
            } catch (JSQLParserException | RuntimeException e) {
                out.add(sql);
                unhandled.add(new Unhandled(where, sql, "the parser does not read it (" + firstLine(e) + ")"));
                continue;
            }
            if (st instanceof CreateTable ct && listed(plain, ct.getTable())) {
                if (ct.getColumnDefinitions() == null || ct.getColumnDefinitions().isEmpty()) {
                    out.add(sql);
                    unhandled.add(new Unhandled(where, sql, "a table made from a query or another table: its columns are not in the statement"));
                    continue;
                }
                List<String> cols = new ArrayList<>();
                List<String> declared = new ArrayList<>();
                ct.getColumnDefinitions().forEach(c -> cols.add(unquote(c.getColumnName())));
                ct.getColumnDefinitions().forEach(c -> declared.add(c.getColumnName()));
                if (cols.contains(Instrumentation.RID) || cols.contains(Instrumentation.WL)) {
                    out.add(sql);
                    unhandled.add(new Unhandled(where, sql, "the table already has a column named " + Instrumentation.RID + " or " + Instrumentation.WL));
                    continue;
                }
                tables.put(key(ct.getTable()), new TableInfo(listedName(plain, ct.getTable()), cols, declared, keys(ct), defaults(ct), integerKey(ct)));
                // last, never in a key: as the generator's tables have them
                ct.getColumnDefinitions().add(new ColumnDefinition(Instrumentation.RID, varchar()));
                ct.getColumnDefinitions().add(new ColumnDefinition(Instrumentation.WL, varchar()));
                out.add(ct.toString());
            } else if (st instanceof CreateIndex ci && ci.getIndex().getType() != null && ci.getIndex().getType().toUpperCase(Locale.ROOT).contains("UNIQUE")
                    && tables.containsKey(key(ci.getTable()))) {
                List<String> cols = new ArrayList<>();
                ci.getIndex().getColumnsNames().forEach(c -> cols.add(unquote(c)));
                tables.get(key(ci.getTable())).keys().add(cols);
                out.add(sql);
            } else if (st instanceof Insert ins && tables.containsKey(key(ins.getTable()))) {
                List<List<Expression>> rows = valuesRows(ins);
                TableInfo t = tables.get(key(ins.getTable()));
                boolean plainInsert = ins.getConflictAction() == null && !ins.isUseDuplicate() && ins.getReturningClause() == null;
                if (rows == null && plainInsert && t.integerKey() != null) {
                    // rows from a query (generate_series and the like): each gets its table's name and its integer key as rid;
                    // without a column list the query's columns are the table's declared ones, rid and wl left NULL for the UPDATE
                    boolean named = ins.getColumns() != null && !ins.getColumns().isEmpty();
                    out.add(named ? sql : "INSERT INTO " + ins.getTable() + " (" + String.join(", ", t.declared()) + ") " + ins.getSelect());
                    out.add(initialRids(t));
                    continue;
                }
                if (rows == null || !plainInsert) {
                    out.add(sql);
                    unhandled.add(new Unhandled(where, sql, "initial rows not given as INSERT … VALUES, into a table without an integer primary key:"
                            + " their rids are unknown"));
                    continue;
                }
                List<String> tracked = new ArrayList<>();
                for (List<Expression> row : rows) {
                    tracked.add(row(row, "'" + nextRid++ + "'", "',0'")); // T0, the initial state
                }
                out.add("INSERT INTO " + ins.getTable() + columnList(ins) + " VALUES " + String.join(", ", tracked));
            } else {
                out.add(sql);
            }
        }
        for (String t : plain.tables()) {
            if (!tables.containsKey(t.toLowerCase(Locale.ROOT))) {
                unhandled.add(new Unhandled("setup", t, "no CREATE TABLE of it in the setup"));
            }
        }
        return out;
    }

    /** The PRIMARY KEY and UNIQUE column lists of a CREATE TABLE, primary key first (more join from CREATE UNIQUE INDEX). */
    private static List<List<String>> keys(CreateTable ct) {
        List<List<String>> keys = new ArrayList<>();
        List<List<String>> unique = new ArrayList<>();
        for (ColumnDefinition c : ct.getColumnDefinitions()) {
            String specs = c.getColumnSpecs() == null ? "" : String.join(" ", c.getColumnSpecs()).toUpperCase(Locale.ROOT);
            if (specs.contains("PRIMARY KEY")) {
                keys.add(List.of(unquote(c.getColumnName())));
            } else if (specs.contains("UNIQUE")) {
                unique.add(List.of(unquote(c.getColumnName())));
            }
        }
        if (ct.getIndexes() != null) {
            for (Index i : ct.getIndexes()) {
                String type = i.getType() == null ? "" : i.getType().toUpperCase(Locale.ROOT);
                List<String> cols = new ArrayList<>();
                i.getColumnsNames().forEach(c -> cols.add(unquote(c)));
                if (type.contains("PRIMARY")) {
                    keys.add(0, cols);
                } else if (type.contains("UNIQUE")) {
                    unique.add(cols);
                }
            }
        }
        keys.addAll(unique);
        return keys;
    }

    /**
     * {@code UPDATE t SET rid = 't:<key>', wl = ',0' WHERE rid IS NULL}: rids for initial rows a query inserted,
     * unique across the case's tables (the table's name, then its integer primary key; '|' between the
     * columns of a composite one), never one a VALUES row or a write's tag gives (those have no ':').
     */
    private String initialRids(TableInfo t) {
        String rid = "'" + t.name() + ":'";
        for (int i = 0; i < t.integerKey().size(); i++) {
            if (i > 0) {
                rid = dialect.concat(rid, "'|'");
            }
            // through CHAR, trimmed (run on H2 and PostgreSQL by ForeignInstrumentationAnomalyTest; not yet on the other engines)
            rid = dialect.concat(rid, "TRIM(CAST(" + t.integerKey().get(i) + " AS CHAR(20)))");
        }
        return "UPDATE " + t.name() + " SET " + Instrumentation.RID + " = " + rid + ", " + Instrumentation.WL + " = ',0' WHERE "
                + Instrumentation.RID + " IS NULL";
    }

    private static final java.util.Set<String> INTEGER_TYPES = java.util.Set.of("INT", "INTEGER", "BIGINT", "SMALLINT", "TINYINT", "INT2", "INT4",
            "INT8", "SERIAL", "BIGSERIAL", "SMALLSERIAL");

    /** The PRIMARY KEY's columns when every one is of an integer type, else null. */
    private static List<String> integerKey(CreateTable ct) {
        Map<String, String> types = new LinkedHashMap<>();
        List<String> pk = null;
        for (ColumnDefinition c : ct.getColumnDefinitions()) {
            types.put(unquote(c.getColumnName()), c.getColDataType().getDataType().toUpperCase(Locale.ROOT));
            String specs = c.getColumnSpecs() == null ? "" : String.join(" ", c.getColumnSpecs()).toUpperCase(Locale.ROOT);
            if (specs.contains("PRIMARY KEY")) {
                pk = List.of(unquote(c.getColumnName()));
            }
        }
        if (ct.getIndexes() != null) {
            for (Index i : ct.getIndexes()) {
                if (i.getType() != null && i.getType().toUpperCase(Locale.ROOT).contains("PRIMARY")) {
                    pk = new ArrayList<>();
                    for (String c : i.getColumnsNames()) {
                        pk.add(unquote(c));
                    }
                }
            }
        }
        if (pk == null) {
            return null;
        }
        for (String c : pk) {
            if (!INTEGER_TYPES.contains(types.getOrDefault(c, ""))) {
                return null;
            }
        }
        return pk;
    }

    /** The DEFAULT a CREATE TABLE gives a column, as written (a single token: a literal), by column. */
    private static Map<String, String> defaults(CreateTable ct) {
        Map<String, String> out = new LinkedHashMap<>();
        for (ColumnDefinition c : ct.getColumnDefinitions()) {
            List<String> specs = c.getColumnSpecs() == null ? List.of() : c.getColumnSpecs();
            for (int i = 0; i < specs.size(); i++) {
                if (specs.get(i).equalsIgnoreCase("DEFAULT")) {
                    // a negative number is two tokens; anything else longer is an expression: kept whole, never compared
                    String v = i + 1 < specs.size() ? specs.get(i + 1) : "";
                    if (v.equals("-") && i + 2 < specs.size()) {
                        v = "-" + specs.get(i + 2);
                    }
                    out.put(unquote(c.getColumnName()), v);
                }
            }
        }
        return out;
    }

    private static ColDataType varchar() {
        ColDataType t = new ColDataType("VARCHAR");
        t.setArgumentsStringList(List.of("1000"));
        return t;
    }

    private static boolean listed(TestCase plain, Table t) {
        return listedName(plain, t) != null;
    }

    /** The case's name of table {@code t}: as its table list spells it; any table its setup creates when the list is empty. */
    private static String listedName(TestCase plain, Table t) {
        if (plain.tables().isEmpty()) {
            return unquote(t.getName());
        }
        for (String name : plain.tables()) {
            if (name.equalsIgnoreCase(unquote(t.getName()))) {
                return name;
            }
        }
        return null;
    }

    // ---------------------------------------------------------------- statements

    /** The instrumented group of one data statement at {@code ctx}; the statement itself, untracked, when it cannot be instrumented. */
    private List<Stmt> statement(Stmt plain, Ctx ctx, String where) {
        String sql = plain.sql().strip();
        boolean lockInShareMode = false;
        if (sql.endsWith(";")) {
            sql = sql.substring(0, sql.length() - 1).strip();
        }
        if (sql.toUpperCase(Locale.ROOT).endsWith(" " + LOCK_IN_SHARE_MODE)) {
            // JSqlParser 5.3 does not read MariaDB's spelling of FOR SHARE
            sql = sql.substring(0, sql.length() - LOCK_IN_SHARE_MODE.length()).strip();
            lockInShareMode = true;
        }
        if (plain.kind() == StmtKind.OTHER && txfuzz.imports.ForeignStatement.changesNoRow(sql)) {
            return List.of(plain); // a setting or an inspection (EXPLAIN, SHOW, the catalog): reads and writes no row of the case
        }
        Statement st;
        try {
            st = StatementStructure.parseOrThrow(sql);
        } catch (JSQLParserException | RuntimeException e) {
            if (firstWords(sql, 2).equals("SET TRANSACTION")) {
                return List.of(plain); // the next transaction's level or access mode: reads and writes no row (the parser does not read it)
            }
            return kept(plain, where, "the parser does not read it (" + firstLine(e) + ")");
        }
        try {
            if (st instanceof Select s) {
                return select(s, lockInShareMode, plain.sql());
            }
            if (lockInShareMode) {
                throw new Refused(LOCK_IN_SHARE_MODE + " on a statement that is no SELECT");
            }
            if (st instanceof Update u) {
                return update(u, ctx);
            }
            if (st instanceof Delete d) {
                return delete(d, ctx);
            }
            if (st instanceof Insert i) {
                return insert(i, ctx);
            }
            if (st instanceof Upsert r) {
                return replace(r, ctx);
            }
            if (st instanceof Merge m) {
                return merge(m, ctx);
            }
            if (st instanceof net.sf.jsqlparser.statement.SetStatement) {
                if (!txfuzz.imports.ForeignStatement.changesNoRow(sql)) {
                    throw new Refused("a SET that reads a table");
                }
                return List.of(plain); // a session setting: reads and writes no row
            }
            throw new Refused("a " + st.getClass().getSimpleName() + " statement, which row tracking does not cover");
        } catch (Refused r) {
            return kept(plain, where, r.getMessage());
        } catch (RuntimeException unsupported) { // the parser's visitors do not cover every form it reads: kept, never a crash
            return kept(plain, where, "the instrumentation cannot read it (" + firstLine(unsupported) + ")");
        }
    }

    private List<Stmt> kept(Stmt plain, String where, String reason) {
        unhandled.add(new Unhandled(where, plain.sql(), reason));
        return List.of(plain.withTracking(null));
    }

    /** The case's table {@code t} names, with its qualifier in the statement. */
    private Scope scope(FromItem item) throws Refused {
        if (!(item instanceof Table t)) {
            throw new Refused("it reads " + item + ", which is no table of the case");
        }
        TableInfo info = tables.get(key(t));
        if (info == null) {
            throw new Refused("table " + t.getName() + " is not a table of the case with a CREATE TABLE in its setup");
        }
        Alias a = t.getAlias();
        return new Scope(info, a != null ? a.getName() : t.getName());
    }

    // ---------------------------------------------------------------- SELECT

    private List<Stmt> select(Select s, boolean lockInShareMode, String plainSql) throws Refused {
        if (s instanceof SetOperationList sol) {
            return compound(sol, plainSql);
        }
        if (!(s instanceof PlainSelect ps)) {
            throw new Refused("a parenthesised query");
        }
        if (ps.getWithItemsList() != null && !ps.getWithItemsList().isEmpty()) {
            throw new Refused("a WITH query");
        }
        if (ps.getIntoTables() != null && !ps.getIntoTables().isEmpty()) {
            throw new Refused("SELECT … INTO");
        }
        if (ps.getFromItem() == null) {
            throw new Refused("a SELECT without FROM reads no table");
        }
        List<Scope> scopes = new ArrayList<>();
        scopes.add(scope(ps.getFromItem()));
        if (ps.getJoins() != null) {
            for (Join j : ps.getJoins()) {
                scopes.add(scope(j.getFromItem()));
                for (Expression on : j.getOnExpressions()) {
                    requireNoSubquery(on, "a join condition with a subquery");
                }
            }
        }
        boolean locking = ps.getForMode() != null || lockInShareMode;
        boolean aggregate = ps.getGroupBy() != null || ps.getHaving() != null || hasAggregate(ps.getSelectItems());
        boolean limited = ps.getLimit() != null || ps.getOffset() != null || ps.getFetch() != null || ps.getTop() != null;
        if (aggregate && (locking || limited)) {
            throw new Refused("an aggregate with a locking clause or a limit");
        }
        String whereText = ps.getWhere() == null ? "" : " WHERE " + ps.getWhere();
        String predicate = scopes.size() == 1 && !limited ? predicate(ps.getWhere(), scopes.get(0)) : null;
        List<String> tableNames = scopes.stream().map(x -> x.table().name()).toList();
        Tracking tracking = Tracking.read(tableNames, locking, predicate);
        List<Stmt> out = new ArrayList<>();
        if (aggregate) {
            // aggregates hide the rows they read: the row-level SELECT of the same FROM and WHERE, the plain one kept beside it
            StringBuilder from = new StringBuilder(" FROM ").append(ps.getFromItem());
            if (ps.getJoins() != null) {
                for (Join j : ps.getJoins()) {
                    from.append(j.isSimple() ? ", " : " ").append(j);
                }
            }
            out.add(Stmt.of(StmtKind.SELECT, "SELECT " + pairs(scopes) + from + whereText, tracking.withPlain(plainSql)));
        } else {
            List<SelectItem<?>> items = new ArrayList<>();
            for (Scope sc : scopes) {
                items.add(new SelectItem<>(new Column(new Table(sc.qual()), Instrumentation.RID), (Alias) null));
                items.add(new SelectItem<>(new Column(new Table(sc.qual()), Instrumentation.WL), (Alias) null));
            }
            for (SelectItem<?> item : ps.getSelectItems()) {
                // * would now return rid and wl among the program's columns: the table's own columns instead, in its order
                if (item.getExpression() instanceof AllTableColumns atc) {
                    Scope sc = scopes.stream().filter(x -> x.qual().equalsIgnoreCase(atc.getTable().getName())).findFirst()
                            .orElseThrow(() -> new Refused(atc + " names no table of the query"));
                    items.addAll(columnsOf(List.of(sc)));
                } else if (item.getExpression() instanceof AllColumns) {
                    items.addAll(columnsOf(scopes));
                } else {
                    items.add(item);
                }
            }
            ps.setSelectItems(items);
            String sql = ps.toString() + (lockInShareMode ? " " + LOCK_IN_SHARE_MODE : "");
            out.add(Stmt.of(StmtKind.SELECT, sql, tracking));
        }
        // in the order of the statement's text: the select list's subqueries, then the WHERE's
        for (SelectItem<?> item : ps.getSelectItems()) {
            out.addAll(subqueryReads(item.getExpression()));
        }
        out.addAll(subqueryReads(ps.getWhere()));
        return out;
    }

    /**
     * A UNION (or another set operation) of single-table SELECTs: instrumented, a UNION ALL of each
     * side's rows led by its table's name and (rid, wl) — the rows read, duplicates included — with the
     * plain statement kept beside it.
     */
    private List<Stmt> compound(SetOperationList sol, String plainSql) throws Refused {
        if (sol.getLimit() != null || sol.getOffset() != null || sol.getFetch() != null || sol.getForMode() != null
                || (sol.getWithItemsList() != null && !sol.getWithItemsList().isEmpty())) {
            throw new Refused("a compound query with a limit, a locking clause or WITH");
        }
        List<String> sides = new ArrayList<>();
        List<PlainSelect> selects = new ArrayList<>();
        for (Select side : sol.getSelects()) {
            if (!(side instanceof PlainSelect ps) || ps.getFromItem() == null || (ps.getJoins() != null && !ps.getJoins().isEmpty())
                    || ps.getGroupBy() != null || ps.getHaving() != null || hasAggregate(ps.getSelectItems()) || ps.getLimit() != null
                    || ps.getOffset() != null || ps.getFetch() != null) {
                throw new Refused("a compound query whose sides are not plain SELECTs of one table");
            }
            Scope sc = scope(ps.getFromItem());
            sides.add("SELECT '" + sc.table().name() + "', " + pairs(List.of(sc)) + " FROM " + ps.getFromItem()
                    + (ps.getWhere() == null ? "" : " WHERE " + ps.getWhere()));
            selects.add(ps);
        }
        List<Stmt> out = new ArrayList<>();
        out.add(Stmt.of(StmtKind.SELECT, String.join(" UNION ALL ", sides), Tracking.read(List.of(Tracking.TABLE_COLUMN), false, null).withPlain(plainSql)));
        for (PlainSelect ps : selects) {
            for (SelectItem<?> item : ps.getSelectItems()) {
                out.addAll(subqueryReads(item.getExpression()));
            }
            out.addAll(subqueryReads(ps.getWhere()));
        }
        return out;
    }

    /** The declared columns of {@code scopes}' tables, qualified: what {@code *} stands for. */
    private static List<SelectItem<?>> columnsOf(List<Scope> scopes) {
        List<SelectItem<?>> out = new ArrayList<>();
        for (Scope sc : scopes) {
            for (String c : sc.table().declared()) {
                out.add(new SelectItem<>(new Column(new Table(sc.qual()), c), (Alias) null));
            }
        }
        return out;
    }

    private static boolean hasAggregate(List<SelectItem<?>> items) {
        for (SelectItem<?> item : items) {
            Reads r = Reads.of(item.getExpression());
            if (r.aggregate) {
                return true;
            }
        }
        return false;
    }

    private static String pairs(List<Scope> scopes) {
        List<String> out = new ArrayList<>();
        for (Scope s : scopes) {
            out.add(s.qual() + "." + Instrumentation.RID);
            out.add(s.qual() + "." + Instrumentation.WL);
        }
        return String.join(", ", out);
    }

    // ---------------------------------------------------------------- UPDATE, DELETE

    private List<Stmt> update(Update u, Ctx ctx) throws Refused {
        if ((u.getJoins() != null && !u.getJoins().isEmpty()) || (u.getStartJoins() != null && !u.getStartJoins().isEmpty())
                || u.getFromItem() != null) {
            throw new Refused("an UPDATE of joined tables");
        }
        if (u.getReturningClause() != null || u.getOutputClause() != null) {
            throw new Refused("an UPDATE that returns rows");
        }
        if (u.getWithItemsList() != null && !u.getWithItemsList().isEmpty()) {
            throw new Refused("a WITH query");
        }
        Scope sc = scope(u.getTable());
        boolean limited = u.getLimit() != null || (u.getOrderByElements() != null && !u.getOrderByElements().isEmpty());
        List<String> sets = new ArrayList<>();
        for (UpdateSet set : u.getUpdateSets()) {
            sets.add(set.toString());
        }
        String tail = (u.getWhere() == null ? "" : " WHERE " + u.getWhere()) + orderAndLimit(u.getOrderByElements(), u.getLimit());
        String tag = ctx.tag(0);
        String sql = "UPDATE " + u.getTable() + " SET " + Instrumentation.setsWithTag(dialect, sets, tag) + tail;
        String predicate = limited ? null : predicate(u.getWhere(), sc);
        boolean tagsOnlyChanged = Instrumentation.tagsOnlyChangedRows(dialect, sets);
        Tracking write = Tracking.write(sc.table().name(), tag, List.of(), false, tagsOnlyChanged ? null : predicate);
        List<Stmt> out = new ArrayList<>();
        out.add(Stmt.of(StmtKind.UPDATE, sql, write));
        out.add(postRead(sc, tag));
        if (tagsOnlyChanged && predicate != null && dialect.has(Feature.LOCK_IN_SHARE_MODE)) {
            // the rows it matched and left unchanged, as the generator's match read finds them
            String lock = dialect.has(Feature.FOR_SHARE) ? " FOR SHARE SKIP LOCKED" : " LOCK IN SHARE MODE SKIP LOCKED";
            out.add(Stmt.of(StmtKind.SELECT, "SELECT " + Instrumentation.RID + ", " + Instrumentation.WL + " FROM " + u.getTable() + tail + lock,
                    Tracking.matchRead(sc.table().name(), tag, predicate)));
        }
        // in the order of the statement's text: the SET list's subqueries, then the WHERE's
        for (UpdateSet set : u.getUpdateSets()) {
            for (Expression e : set.getValues()) {
                out.addAll(subqueryReads(e));
            }
        }
        out.addAll(subqueryReads(u.getWhere()));
        return out;
    }

    private List<Stmt> delete(Delete d, Ctx ctx) throws Refused {
        if ((d.getJoins() != null && !d.getJoins().isEmpty()) || (d.getUsingList() != null && !d.getUsingList().isEmpty())
                || (d.getTables() != null && !d.getTables().isEmpty())) {
            throw new Refused("a DELETE of joined tables");
        }
        if (d.getReturningClause() != null || d.getOutputClause() != null) {
            throw new Refused("a DELETE that returns rows");
        }
        if (d.getWithItemsList() != null && !d.getWithItemsList().isEmpty()) {
            throw new Refused("a WITH query");
        }
        Scope sc = scope(d.getTable());
        boolean limited = d.getLimit() != null || (d.getOrderByElements() != null && !d.getOrderByElements().isEmpty());
        String tail = (d.getWhere() == null ? "" : " WHERE " + d.getWhere()) + orderAndLimit(d.getOrderByElements(), d.getLimit());
        String scan = limited ? null : predicate(d.getWhere(), sc);
        String table = sc.table().name();
        List<Stmt> out = new ArrayList<>();
        if (dialect.has(Feature.DELETE_RETURNING)) {
            // the DELETE itself returns the versions it deleted
            out.add(Stmt.of(StmtKind.DELETE, "DELETE FROM " + d.getTable() + tail + " RETURNING " + Instrumentation.RID + ", " + Instrumentation.WL,
                    Tracking.write(table, ctx.tag(0), List.of(), true, scan)));
        } else {
            // tag-UPDATE with the DELETE's WHERE, post-read of the tagged rows, delete by tag
            String tag = ctx.tag(2);
            out.add(Stmt.of(StmtKind.UPDATE, "UPDATE " + d.getTable() + " SET " + Instrumentation.appendTag(dialect, "", tag) + tail,
                    Tracking.tag(table, tag, scan)));
            out.add(postRead(sc, tag));
            out.add(Stmt.of(StmtKind.DELETE, "DELETE FROM " + table + " WHERE " + Instrumentation.WL + " LIKE '%," + tag + "'",
                    Tracking.write(table, tag, List.of(), true)));
        }
        out.addAll(subqueryReads(d.getWhere()));
        return out;
    }

    private static String orderAndLimit(List<?> orderBy, Object limit) {
        String o = orderBy == null || orderBy.isEmpty() ? "" : " " + net.sf.jsqlparser.statement.select.PlainSelect.orderByToString(castOrder(orderBy)).strip();
        return o + (limit == null ? "" : " " + limit.toString().strip());
    }

    @SuppressWarnings("unchecked")
    private static List<net.sf.jsqlparser.statement.select.OrderByElement> castOrder(List<?> l) {
        return (List<net.sf.jsqlparser.statement.select.OrderByElement>) l;
    }

    private static Stmt postRead(Scope sc, String tag) {
        String t = sc.table().name();
        return Stmt.of(StmtKind.SELECT, "SELECT " + Instrumentation.RID + ", " + Instrumentation.WL + " FROM " + t + " WHERE " + Instrumentation.WL
                + " LIKE '%," + tag + "'", Tracking.postRead(t, tag));
    }

    // ---------------------------------------------------------------- INSERT and upserts

    private List<Stmt> insert(Insert ins, Ctx ctx) throws Refused {
        if (ins.getReturningClause() != null || ins.getOutputClause() != null) {
            throw new Refused("an INSERT that returns rows");
        }
        if (ins.getWithItemsList() != null && !ins.getWithItemsList().isEmpty()) {
            throw new Refused("a WITH query");
        }
        if (ins.isUseSet()) {
            throw new Refused("INSERT … SET");
        }
        Scope sc = scope(ins.getTable());
        String table = sc.table().name();
        List<List<Expression>> rows = valuesRows(ins);
        if (rows == null) {
            return insertSelect(ins, sc, ctx);
        }
        String tag = ctx.tag(0);
        String head = "INSERT INTO " + ins.getTable() + columnList(ins) + " VALUES ";
        InsertConflictAction conflict = ins.getConflictAction();
        if (conflict == null && !ins.isUseDuplicate()) {
            List<String> rids = new ArrayList<>();
            List<String> tracked = new ArrayList<>();
            for (int k = 0; k < rows.size(); k++) {
                String rid = Instrumentation.ridLiteral(tag, k);
                rids.add(rid);
                tracked.add(row(rows.get(k), "'" + rid + "'", Instrumentation.tagLiteral(tag)));
            }
            return List.of(Stmt.of(StmtKind.INSERT, head + String.join(", ", tracked), Tracking.write(table, tag, rids, false)));
        }
        if (rows.size() != 1) {
            throw new Refused("an upsert of several rows");
        }
        String values = row(rows.get(0), "'" + Instrumentation.ridLiteral(tag, 0) + "'", Instrumentation.tagLiteral(tag));
        String tail;
        if (conflict != null) {
            String target = conflictTarget(ins.getConflictTarget());
            if (conflict.getConflictActionType() == ConflictActionType.DO_NOTHING) {
                tail = " ON CONFLICT" + target + " DO NOTHING";
            } else {
                List<String> sets = new ArrayList<>();
                conflict.getUpdateSets().forEach(s -> sets.add(s.toString()));
                tail = " ON CONFLICT" + target + " DO UPDATE SET " + String.join(", ", sets) + ", "
                        + Instrumentation.appendTag(dialect, sc.qual() + ".", tag)
                        + (conflict.getWhereExpression() == null ? "" : " WHERE " + conflict.getWhereExpression());
            }
        } else {
            List<String> sets = new ArrayList<>();
            ins.getDuplicateUpdateSets().forEach(s -> sets.add(s.toString()));
            tail = " ON DUPLICATE KEY UPDATE " + Instrumentation.setsWithTag(dialect, sets, tag);
        }
        return List.of(Stmt.of(StmtKind.UPSERT, head + values + tail, Tracking.write(table, tag, List.of(), false)), postRead(sc, tag));
    }

    /**
     * INSERT … SELECT from one table: each inserted row's rid is its source row's rid and the tag, then the
     * post-read of the tag; the source rows it read, when its WHERE is row-local, as a companion read.
     */
    private List<Stmt> insertSelect(Insert ins, Scope target, Ctx ctx) throws Refused {
        if (ins.getConflictAction() != null || ins.isUseDuplicate()) {
            throw new Refused("an upsert of selected rows");
        }
        if (!(ins.getSelect() instanceof PlainSelect src) || src.getFromItem() == null) {
            throw new Refused("INSERT of a query that is no single SELECT");
        }
        if ((src.getJoins() != null && !src.getJoins().isEmpty()) || src.getGroupBy() != null || src.getHaving() != null
                || hasAggregate(src.getSelectItems()) || src.getDistinct() != null || src.getLimit() != null || src.getOffset() != null
                || src.getFetch() != null || src.getForMode() != null) {
            throw new Refused("INSERT … SELECT whose rows are not one per source row (a join, an aggregate, DISTINCT or a limit)");
        }
        Scope source = scope(src.getFromItem());
        String tag = ctx.tag(0);
        List<String> items = new ArrayList<>();
        for (SelectItem<?> item : src.getSelectItems()) {
            if (item.getExpression() instanceof AllColumns || item.getExpression() instanceof AllTableColumns) {
                throw new Refused("INSERT … SELECT *");
            }
            items.add(item.toString());
        }
        items.add(Instrumentation.ridFrom(dialect, source.qual(), tag));
        items.add(Instrumentation.tagLiteral(tag));
        String sql = "INSERT INTO " + ins.getTable() + columnList(ins) + " SELECT " + String.join(", ", items) + " FROM " + src.getFromItem()
                + (src.getWhere() == null ? "" : " WHERE " + src.getWhere());
        List<Stmt> out = new ArrayList<>();
        out.add(Stmt.of(StmtKind.INSERT, sql, Tracking.write(target.table().name(), tag, List.of(), false)));
        out.add(postRead(target, tag));
        String pred = predicate(src.getWhere(), source);
        if (pred != null) {
            out.add(companionRead(source, src.getWhere() == null, pred));
        }
        for (SelectItem<?> item : src.getSelectItems()) {
            out.addAll(subqueryReads(item.getExpression()));
        }
        out.addAll(subqueryReads(src.getWhere()));
        return out;
    }

    /**
     * REPLACE (SQLite, MariaDB): when a unique key of the new row is known and not NULL, a tag-UPDATE of
     * the rows that conflict on any such key and their post-read first (the versions REPLACE deletes),
     * then the REPLACE with a fresh rid and a second post-read; with no such key it deletes nothing and
     * is instrumented as an INSERT.
     */
    private List<Stmt> replace(Upsert r, Ctx ctx) throws Refused {
        if (r.getUpsertType() != UpsertType.REPLACE && r.getUpsertType() != UpsertType.INSERT_OR_REPLACE) {
            throw new Refused("a " + r.getUpsertType() + " statement, which row tracking does not cover");
        }
        if (r.getDuplicateUpdateSets() != null && !r.getDuplicateUpdateSets().isEmpty()) {
            throw new Refused("REPLACE … ON DUPLICATE KEY");
        }
        Scope sc = scope(r.getTable());
        if (!(r.getSelect() instanceof Values v)) {
            throw new Refused("REPLACE of selected rows");
        }
        List<List<Expression>> rows = rows(v.getExpressions());
        if (rows.size() != 1) {
            throw new Refused("REPLACE of several rows");
        }
        List<String> columns = new ArrayList<>();
        if (r.getColumns() != null) {
            r.getColumns().forEach(c -> columns.add(unquote(c.getColumnName())));
        } else {
            columns.addAll(sc.table().columns());
        }
        String conflicts = conflictPredicate(sc.table(), columns, rows.get(0));
        int offset = conflicts == null ? 0 : 2;
        String tag = ctx.tag(offset);
        String rid = Instrumentation.ridLiteral(tag, 0);
        String head = r.getUpsertType() == UpsertType.REPLACE ? "REPLACE INTO " : "INSERT OR REPLACE INTO ";
        String cols = r.getColumns() == null ? "" : " (" + String.join(", ", r.getColumns().stream().map(Object::toString).toList()) + ", "
                + Instrumentation.RID + ", " + Instrumentation.WL + ")";
        String sql = head + r.getTable() + cols + " VALUES " + row(rows.get(0), "'" + rid + "'", Instrumentation.tagLiteral(tag));
        String table = sc.table().name();
        if (conflicts == null) {
            return List.of(Stmt.of(StmtKind.UPSERT, sql, Tracking.write(table, tag, List.of(rid), false)));
        }
        // the post-read after it shows rows the key predicate tagged that REPLACE did not delete
        return List.of(Stmt.of(StmtKind.UPDATE, "UPDATE " + table + " SET " + Instrumentation.appendTag(dialect, "", tag) + " WHERE " + conflicts,
                        Tracking.tag(table, tag, null)),
                postRead(sc, tag),
                Stmt.of(StmtKind.UPSERT, sql, Tracking.write(table, tag, List.of(rid), true)),
                postRead(sc, tag));
    }

    /**
     * The rows a new row conflicts with: an OR over the table's unique keys all of whose values the row
     * gives or its DEFAULT gives, not NULL; null when there is none.
     */
    private static String conflictPredicate(TableInfo t, List<String> columns, List<Expression> values) throws Refused {
        if (columns.size() != values.size()) {
            throw new Refused("REPLACE with " + values.size() + " values for " + columns.size() + " columns");
        }
        List<String> disjuncts = new ArrayList<>();
        for (List<String> key : t.keys()) {
            List<String> eqs = new ArrayList<>();
            for (String c : key) {
                int i = columns.indexOf(c);
                String v = i >= 0 ? (values.get(i) instanceof NullValue ? "NULL" : values.get(i).toString())
                        : t.defaults().getOrDefault(c, "NULL"); // a column it does not name gets its DEFAULT
                if (v.isEmpty() || v.equalsIgnoreCase("NULL")) {
                    eqs = null;
                    break;
                }
                eqs.add(c + " = " + v);
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

    /**
     * MERGE INTO t USING s x ON (...) WHEN MATCHED [AND ...] THEN UPDATE SET ... | DELETE, WHEN NOT MATCHED
     * [AND ...] THEN INSERT (...) VALUES (...): the tag appended to the rows it updates, inserted rows
     * with the source row's rid and the tag, then the post-read. With WHEN MATCHED THEN DELETE, the rows
     * a matching source row selects are tagged and read first (tag-UPDATE with an EXISTS over the
     * source), and a post-read follows the MERGE.
     */
    private List<Stmt> merge(Merge m, Ctx ctx) throws Refused {
        if (m.getWithItemsList() != null && !m.getWithItemsList().isEmpty()) {
            throw new Refused("a WITH query");
        }
        if (m.getOutputClause() != null) {
            throw new Refused("a MERGE that returns rows");
        }
        Scope target = scope(m.getTable());
        Scope source = scope(m.getFromItem());
        Expression on = m.getOnCondition();
        String onText = on.toString();
        String head = "MERGE INTO " + m.getTable() + " USING " + m.getFromItem() + " ON " + (onText.startsWith("(") ? onText : "(" + onText + ")");
        boolean deletes = false;
        boolean updates = false;
        Expression matchedCond = null;
        StringBuilder clauses = new StringBuilder();
        for (MergeOperation op : m.getOperations()) {
            if (op instanceof MergeUpdate u) {
                if (u.getWhereCondition() != null || u.getDeleteWhereCondition() != null) {
                    throw new Refused("MERGE … UPDATE … WHERE");
                }
                List<String> sets = new ArrayList<>();
                u.getUpdateSets().forEach(x -> sets.add(x.toString()));
                clauses.append(" WHEN MATCHED").append(u.getAndPredicate() == null ? "" : " AND " + u.getAndPredicate())
                        .append(" THEN UPDATE SET ").append(String.join(", ", sets)).append(", ")
                        .append(Instrumentation.appendTag(dialect, target.qual() + ".", "@TAG@"));
                updates = true;
                matchedCond = u.getAndPredicate();
            } else if (op instanceof MergeDelete d) {
                clauses.append(" WHEN MATCHED").append(d.getAndPredicate() == null ? "" : " AND " + d.getAndPredicate()).append(" THEN DELETE");
                deletes = true;
                matchedCond = d.getAndPredicate();
            } else if (op instanceof MergeInsert i) {
                if (i.getColumns() == null || i.getColumns().isEmpty()) {
                    throw new Refused("MERGE … INSERT without a column list");
                }
                if (i.getWhereCondition() != null) {
                    throw new Refused("MERGE … INSERT … WHERE");
                }
                List<String> vals = new ArrayList<>();
                i.getValues().forEach(x -> vals.add(x.toString()));
                clauses.append(" WHEN NOT MATCHED").append(i.getAndPredicate() == null ? "" : " AND " + i.getAndPredicate())
                        .append(" THEN INSERT (").append(String.join(", ", i.getColumns().stream().map(Object::toString).toList())).append(", ")
                        .append(Instrumentation.RID).append(", ").append(Instrumentation.WL).append(") VALUES (").append(String.join(", ", vals))
                        .append(", ").append(Instrumentation.ridFrom(dialect, source.qual(), "@TAG@")).append(", ")
                        .append(Instrumentation.tagLiteral("@TAG@")).append(')');
            } else {
                throw new Refused("a MERGE clause row tracking does not cover");
            }
        }
        if (deletes && updates) {
            throw new Refused("a MERGE that both updates and deletes matched rows");
        }
        String template = head + clauses;
        String table = target.table().name();
        if (!deletes) {
            String tag = ctx.tag(0);
            return List.of(Stmt.of(StmtKind.UPSERT, template.replace("@TAG@", tag), Tracking.write(table, tag, List.of(), false)), postRead(target, tag));
        }
        if (!(m.getFromItem() instanceof Table)) {
            throw new Refused("a MERGE that deletes, from a source that is no table");
        }
        // the rows matched by a source row for which the condition holds
        String victims = " WHERE EXISTS (SELECT 1 FROM " + m.getFromItem() + " WHERE " + on + (matchedCond == null ? "" : " AND " + matchedCond) + ")";
        String tag = ctx.tag(2);
        return List.of(Stmt.of(StmtKind.UPDATE, "UPDATE " + m.getTable() + " SET " + Instrumentation.appendTag(dialect, "", tag) + victims,
                        Tracking.tag(table, tag, null)),
                postRead(target, tag),
                Stmt.of(StmtKind.UPSERT, template.replace("@TAG@", tag), Tracking.write(table, tag, List.of(), true)),
                postRead(target, tag));
    }

    private static String conflictTarget(InsertConflictTarget t) throws Refused {
        if (t == null) {
            return "";
        }
        if (t.getConstraintName() != null) {
            return " ON CONSTRAINT " + t.getConstraintName();
        }
        if (t.getIndexExpression() != null || t.getWhereExpression() != null) {
            throw new Refused("an ON CONFLICT target with an expression or a WHERE");
        }
        return " (" + String.join(", ", t.getIndexColumnNames()) + ")";
    }

    /** The rows of an INSERT … VALUES, or null when it is no such INSERT. */
    private static List<List<Expression>> valuesRows(Insert ins) {
        Select s = ins.getSelect();
        if (!(s instanceof Values v)) {
            return null;
        }
        return rows(v.getExpressions());
    }

    /** The rows of a VALUES list: one row, or several parenthesised ones. */
    private static List<List<Expression>> rows(ExpressionList<?> list) {
        List<List<Expression>> rows = new ArrayList<>();
        boolean nested = !list.isEmpty() && list.stream().allMatch(e -> e instanceof ExpressionList<?>);
        if (nested) {
            for (Expression e : list) {
                rows.add(new ArrayList<>((ExpressionList<?>) e));
            }
        } else {
            rows.add(new ArrayList<>(list));
        }
        return rows;
    }

    private static String columnList(Insert ins) {
        if (ins.getColumns() == null || ins.getColumns().isEmpty()) {
            return ""; // positional: rid and wl are the last columns, so their values go last
        }
        List<String> names = new ArrayList<>();
        ins.getColumns().forEach(c -> names.add(c.toString()));
        return " (" + String.join(", ", names) + ", " + Instrumentation.RID + ", " + Instrumentation.WL + ")";
    }

    private static String row(List<Expression> values, String rid, String wl) {
        List<String> all = new ArrayList<>();
        values.forEach(v -> all.add(v.toString()));
        all.add(rid);
        all.add(wl);
        return "(" + String.join(", ", all) + ")";
    }

    // ---------------------------------------------------------------- predicates and subqueries

    /** What an expression reads: its column references, its subqueries (not entered), whether it aggregates. */
    private static final class Reads extends ExpressionVisitorAdapter<Void> {
        final List<Column> columns = new ArrayList<>();
        final List<Select> subqueries = new ArrayList<>();
        boolean aggregate;

        static Reads of(Expression e) {
            Reads r = new Reads();
            if (e != null) {
                e.accept(r, null);
            }
            return r;
        }

        @Override
        public <S> Void visit(Column column, S context) {
            columns.add(column);
            return null;
        }

        @Override
        public <S> Void visit(ParenthesedSelect select, S context) {
            subqueries.add(select.getSelect());
            return null;
        }

        @Override
        public <S> Void visit(Select select, S context) {
            // how EXISTS and IN reach their subquery: not entered, its reads are its own
            subqueries.add(select instanceof ParenthesedSelect ps ? ps.getSelect() : select);
            return null;
        }

        @Override
        public <S> Void visit(Function f, S context) {
            String n = f.getName() == null ? "" : f.getName().toUpperCase(Locale.ROOT);
            if (List.of("COUNT", "SUM", "MIN", "MAX", "AVG", "GROUP_CONCAT", "STRING_AGG", "ARRAY_AGG", "BOOL_AND", "BOOL_OR", "EVERY").contains(n)) {
                aggregate = true;
            }
            return super.visit(f, context);
        }
    }

    private static void requireNoSubquery(Expression e, String what) throws Refused {
        if (!Reads.of(e).subqueries.isEmpty()) {
            throw new Refused(what);
        }
    }

    /**
     * The predicate of a read of {@code sc}'s table through {@code where} for the history: its text
     * without the table's qualifier ({@code "true"} without WHERE), or null when it is not row-local
     * (a subquery, a column of another table).
     */
    private static String predicate(Expression where, Scope sc) {
        if (where == null) {
            return "true";
        }
        Reads r = Reads.of(where);
        if (!r.subqueries.isEmpty()) {
            return null;
        }
        List<Column> qualified = new ArrayList<>();
        for (Column c : r.columns) {
            if (c.getTable() != null && c.getTable().getName() != null) {
                if (!c.getTable().getName().equalsIgnoreCase(sc.qual())) {
                    return null;
                }
                qualified.add(c);
            } else if (!sc.table().columns().contains(unquote(c.getColumnName()))) {
                return null; // a name that is no column of the table: not a condition on its own row
            }
        }
        List<Table> saved = new ArrayList<>();
        qualified.forEach(c -> saved.add(c.getTable()));
        qualified.forEach(c -> c.setTable(null));
        String text = where.toString();
        for (int i = 0; i < qualified.size(); i++) {
            qualified.get(i).setTable(saved.get(i));
        }
        return text;
    }

    /**
     * Companion reads of the row-local subqueries in {@code e} (docs/history-format.md, "Subqueries"):
     * per subquery over one table of the case whose WHERE reads only that table's row, {@code SELECT rid,
     * wl FROM u WHERE <its WHERE, unqualified>}; a correlated subquery gets none, as a generated one.
     */
    private List<Stmt> subqueryReads(Expression e) throws Refused {
        List<Stmt> out = new ArrayList<>();
        for (Select sub : Reads.of(e).subqueries) {
            if (!(sub instanceof PlainSelect inner) || inner.getFromItem() == null) {
                throw new Refused("a subquery that is no single SELECT");
            }
            if (inner.getJoins() != null && !inner.getJoins().isEmpty()) {
                throw new Refused("a subquery over joined tables");
            }
            Scope sc = scope(inner.getFromItem());
            // its own subqueries first, as the generator notes them once their WHERE is made
            out.addAll(subqueryReads(inner.getWhere()));
            String pred = predicate(inner.getWhere(), sc);
            if (pred == null) {
                continue; // correlated, or it has a subquery: no predicate of its own table alone
            }
            out.add(companionRead(sc, inner.getWhere() == null, pred));
        }
        return out;
    }

    /** {@code SELECT rid, wl FROM u WHERE <pred>}: a plain predicate read of u after the statement's group. */
    private static Stmt companionRead(Scope sc, boolean noWhere, String pred) {
        String sql = "SELECT " + Instrumentation.RID + ", " + Instrumentation.WL + " FROM " + sc.table().name() + (noWhere ? "" : " WHERE " + pred);
        return Stmt.of(StmtKind.SELECT, sql, Tracking.companionRead(sc.table().name(), pred));
    }

    // ---------------------------------------------------------------- names

    private static String key(Table t) {
        return unquote(t.getName()).toLowerCase(Locale.ROOT);
    }

    private static String unquote(String name) {
        String n = name;
        if (n.length() >= 2 && (n.startsWith("\"") && n.endsWith("\"") || n.startsWith("`") && n.endsWith("`"))) {
            n = n.substring(1, n.length() - 1);
        }
        return n.toLowerCase(Locale.ROOT);
    }

    /** The first {@code n} words of {@code sql}, upper case, one space apart. */
    private static String firstWords(String sql, int n) {
        String[] w = sql.strip().split("\\s+", n + 1);
        return String.join(" ", java.util.Arrays.copyOf(w, Math.min(n, w.length))).toUpperCase(Locale.ROOT);
    }

    private static String firstLine(Exception e) {
        Throwable c = e.getCause() != null ? e.getCause() : e;
        String m = String.valueOf(c.getMessage());
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
