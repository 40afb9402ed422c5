package txfuzz.oracle.diff;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.expression.Alias;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.create.index.CreateIndex;
import net.sf.jsqlparser.statement.create.table.ColumnDefinition;
import net.sf.jsqlparser.statement.create.table.CreateTable;
import net.sf.jsqlparser.statement.create.table.Index;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.SelectItem;
import txfuzz.model.Stmt;
import txfuzz.model.TestCase;

/**
 * Whether a query's ORDER BY gives its rows a total order, so that two subjects must return them as the same list
 * ({@link Rules#totallyOrdered}), decided from the parsed statement (JSqlParser, as gen/ForeignInstrumentation) and the
 * case's schema (its setup's CREATE TABLE and CREATE UNIQUE INDEX). A query of one table, without joins, set
 * operations or DISTINCT (which may fold rows of different keys into one), is totally ordered when its ORDER BY keys include a key unique for the rows it returns:
 * <ul>
 *   <li>all columns of the table's PRIMARY KEY, or of a UNIQUE constraint whose columns are all NOT NULL (two NULLs
 *       of a UNIQUE column tie);</li>
 *   <li>with GROUP BY, every grouping column (one row per group), each NOT NULL or in the primary key (where NULLs sort,
 *       first or last, differs between engines).</li>
 * </ul>
 * Engines may collate text differently, so between subjects of different engines only keys whose columns are all
 * numeric count. Anything the parser cannot read, or the rule does not cover, compares as a multiset, as DT2 does.
 */
final class TotalOrder {
    /** Column facts of one table: its columns' types, which are NOT NULL, and its unique keys. */
    private record TableKeys(Map<String, String> types, Set<String> notNull, List<List<String>> primaryKeys, List<List<String>> unique) {
    }

    private final Map<String, TableKeys> tables;
    private final boolean sameEngine;

    private TotalOrder(Map<String, TableKeys> tables, boolean sameEngine) {
        this.tables = tables;
        this.sameEngine = sameEngine;
    }

    /** The rule for {@code c}'s queries; {@code sameEngine}: both subjects are one engine (one collation of text). */
    static TotalOrder of(TestCase c, boolean sameEngine) {
        Map<String, TableKeys> tables = new HashMap<>();
        for (String sql : c.setup()) {
            Statement st;
            try {
                st = txfuzz.gen.StatementStructure.parseOrThrow(sql);
            } catch (JSQLParserException | RuntimeException e) {
                continue; // a statement the parser does not read declares no key the rule can use
            }
            if (st instanceof CreateTable ct && ct.getColumnDefinitions() != null) {
                tables.put(name(ct.getTable()), keys(ct));
            } else if (st instanceof CreateIndex ci && ci.getIndex().getType() != null
                    && ci.getIndex().getType().toUpperCase(Locale.ROOT).contains("UNIQUE") && tables.containsKey(name(ci.getTable()))) {
                tables.get(name(ci.getTable())).unique().add(ci.getIndex().getColumnsNames().stream().map(TotalOrder::unquote).toList());
            }
        }
        return new TotalOrder(tables, sameEngine);
    }

    private static TableKeys keys(CreateTable ct) {
        Map<String, String> types = new HashMap<>();
        Set<String> notNull = new HashSet<>();
        List<List<String>> primary = new ArrayList<>();
        List<List<String>> unique = new ArrayList<>();
        for (ColumnDefinition c : ct.getColumnDefinitions()) {
            String col = unquote(c.getColumnName());
            types.put(col, c.getColDataType().getDataType().toUpperCase(Locale.ROOT));
            String specs = c.getColumnSpecs() == null ? "" : String.join(" ", c.getColumnSpecs()).toUpperCase(Locale.ROOT);
            if (specs.contains("NOT NULL")) {
                notNull.add(col);
            }
            if (specs.contains("PRIMARY KEY")) {
                primary.add(List.of(col));
            } else if (specs.contains("UNIQUE")) {
                unique.add(List.of(col));
            }
        }
        if (ct.getIndexes() != null) {
            for (Index i : ct.getIndexes()) {
                String type = i.getType() == null ? "" : i.getType().toUpperCase(Locale.ROOT);
                List<String> cols = i.getColumnsNames().stream().map(TotalOrder::unquote).toList();
                if (type.contains("PRIMARY")) {
                    primary.add(cols);
                } else if (type.contains("UNIQUE")) {
                    unique.add(cols);
                }
            }
        }
        primary.forEach(notNull::addAll); // a primary key's columns are NOT NULL
        return new TableKeys(types, notNull, primary, unique);
    }

    /** Whether {@code s}'s rows are totally ordered by its ORDER BY. */
    boolean test(Stmt s) {
        return totallyOrders(s.sql());
    }

    boolean totallyOrders(String sql) {
        Statement st;
        try {
            st = txfuzz.gen.StatementStructure.parseOrThrow(sql);
        } catch (JSQLParserException | RuntimeException e) {
            return false;
        }
        if (!(st instanceof PlainSelect ps) || ps.getOrderByElements() == null || ps.getOrderByElements().isEmpty()
                || ps.getJoins() != null && !ps.getJoins().isEmpty() || ps.getDistinct() != null || !(ps.getFromItem() instanceof Table from)) {
            return false;
        }
        TableKeys t = tables.get(name(from));
        if (t == null) {
            return false;
        }
        Set<String> names = new HashSet<>(List.of(name(from)));
        Alias alias = from.getAlias();
        if (alias != null) {
            names.add(alias.getName().toLowerCase(Locale.ROOT));
        }
        Set<String> ordered = new HashSet<>();
        for (OrderByElement o : ps.getOrderByElements()) {
            String col = column(o.getExpression(), names, t, ps);
            if (col != null) {
                ordered.add(col);
            }
        }
        if (ps.getGroupBy() != null) {
            List<String> grouping = new ArrayList<>();
            for (Object e : ps.getGroupBy().getGroupByExpressionList()) {
                String col = e instanceof Expression x ? column(x, names, t, ps) : null;
                if (col == null || !t.notNull().contains(col)) {
                    return false; // an expression, or a column whose NULL group sorts where each engine puts NULLs
                }
                grouping.add(col);
            }
            return !grouping.isEmpty() && ordered.containsAll(grouping) && comparable(t, grouping);
        }
        List<List<String>> keys = new ArrayList<>(t.primaryKeys());
        t.unique().stream().filter(k -> t.notNull().containsAll(k)).forEach(keys::add);
        return keys.stream().anyMatch(k -> ordered.containsAll(k) && comparable(t, k));
    }

    /** Whether both subjects sort these columns alike: one engine, or numbers only. */
    private boolean comparable(TableKeys t, List<String> cols) {
        return sameEngine || cols.stream().allMatch(c -> numeric(t.types().get(c)));
    }

    private static boolean numeric(String type) {
        return type != null && List.of("INT", "INTEGER", "SMALLINT", "BIGINT", "TINYINT", "MEDIUMINT", "DECIMAL", "NUMERIC", "REAL", "FLOAT",
                "DOUBLE", "DOUBLE PRECISION").contains(type);
    }

    /**
     * The table column {@code e} names (qualified by the table or its alias, or not at all), or null. An unqualified
     * name that is a select item's alias means that item: a column only when the item is one.
     */
    private static String column(Expression e, Set<String> tableNames, TableKeys t, PlainSelect ps) {
        if (!(e instanceof Column c)) {
            return null;
        }
        if (c.getTable() == null || c.getTable().getName() == null) {
            String name = unquote(c.getColumnName());
            for (SelectItem<?> item : ps.getSelectItems()) {
                if (item.getAlias() != null && unquote(item.getAlias().getName()).equals(name)) {
                    return item.getExpression() instanceof Column target ? tableColumn(target, tableNames, t) : null;
                }
            }
        }
        return tableColumn(c, tableNames, t);
    }

    private static String tableColumn(Column c, Set<String> tableNames, TableKeys t) {
        if (c.getTable() != null && c.getTable().getName() != null && !tableNames.contains(unquote(c.getTable().getName()))) {
            return null;
        }
        String col = unquote(c.getColumnName());
        return t.types().containsKey(col) ? col : null;
    }

    private static String name(Table t) {
        return unquote(t.getName());
    }

    private static String unquote(String name) {
        String n = name;
        if (n.length() >= 2 && (n.startsWith("\"") && n.endsWith("\"") || n.startsWith("`") && n.endsWith("`"))) {
            n = n.substring(1, n.length() - 1);
        }
        return n.toLowerCase(Locale.ROOT);
    }
}
