package txfuzz.oracle.wss;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.ExpressionVisitorAdapter;
import net.sf.jsqlparser.expression.NotExpression;
import net.sf.jsqlparser.expression.Parenthesis;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.relational.ExistsExpression;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.update.Update;

/**
 * The subqueries of an UPDATE's or DELETE's WHERE that PostgreSQL's planner turns into joins ("pulls up"), so that its
 * EvalPlanQual re-check of a row changed meanwhile uses the rows of the subquery's table that were joined to it, not the
 * subquery run again: "When re-running the test query we want to use the same rows from these relations that were joined
 * to the locked rows" (src/backend/executor/README, "EvalPlanQual"). Which subqueries become joins
 * (src/backend/optimizer/prep/prepjointree.c, {@code pull_up_sublinks}): those that are an AND-ed term of the WHERE, a
 * correlated {@code EXISTS} (a semi-join: the row joined is the first match the plan found) or {@code NOT EXISTS} (an
 * anti-join: no row was joined, so the re-check finds none), and an uncorrelated {@code x IN (SELECT ...)} (a semi-join).
 * A correlated {@code IN}, a {@code NOT IN}, or a subquery under OR stays a subplan that the re-check runs again on the
 * statement's snapshot. Measured on PostgreSQL 18.6 ({@code PostgresRecheckJoinedRowsTest}).
 * Only a subquery over one plain table with no aggregate, grouping, LIMIT or set operation counts; anything the parser
 * does not know, none.
 */
final class JoinedSublinks {
    /** A pulled-up subquery: the table it reads, and whether it became an anti-join. */
    record Sublink(String table, boolean anti) {
    }

    /** The statement's pulled-up subqueries, and the statement with each one's table renamed (to {@code copies.get(i)}). */
    record Found(List<Sublink> sublinks, Renamer renamer) {
    }

    /** Writes the statement with the i-th subquery reading {@code copies.get(i)} in place of its table. */
    interface Renamer {
        String rename(List<String> copies);
    }

    private JoinedSublinks() {
    }

    /** The pulled-up subqueries of {@code sql}, an UPDATE or DELETE; empty when it has none or cannot be told. */
    static Optional<Found> of(String sql) {
        Statement statement = txfuzz.gen.StatementStructure.parse(sql);
        Expression where;
        if (statement instanceof Delete delete && none(delete.getJoins()) && none(delete.getUsingList()) && none(delete.getWithItemsList())) {
            where = delete.getWhere();
        } else if (statement instanceof Update update && update.getFromItem() == null && none(update.getJoins())
                && none(update.getStartJoins()) && none(update.getWithItemsList())) {
            where = update.getWhere();
        } else {
            return Optional.empty();
        }
        if (where == null) {
            return Optional.empty();
        }
        try {
            List<Sublink> sublinks = new ArrayList<>();
            List<Table> tables = new ArrayList<>();
            collect(where, sublinks, tables);
            if (sublinks.isEmpty()) {
                return Optional.empty();
            }
            List<String> names = tables.stream().map(Table::getName).toList();
            return Optional.of(new Found(List.copyOf(sublinks), copies -> {
                List<net.sf.jsqlparser.expression.Alias> aliases = tables.stream().map(Table::getAlias).toList();
                for (int i = 0; i < tables.size(); i++) {
                    if (aliases.get(i) == null) {
                        // the subquery's columns may be qualified by the table's own name
                        tables.get(i).setAlias(new net.sf.jsqlparser.expression.Alias(names.get(i), false));
                    }
                    tables.get(i).setName(copies.get(i));
                }
                String renamed = statement.toString();
                for (int i = 0; i < tables.size(); i++) {
                    tables.get(i).setName(names.get(i));
                    tables.get(i).setAlias(aliases.get(i));
                }
                return renamed;
            }));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The AND-ed terms of {@code e} that are pulled-up subqueries. */
    private static void collect(Expression e, List<Sublink> sublinks, List<Table> tables) {
        Expression term = unparenthesised(e);
        if (term instanceof AndExpression and) {
            collect(and.getLeftExpression(), sublinks, tables);
            collect(and.getRightExpression(), sublinks, tables);
            return;
        }
        boolean negated = false;
        if (term instanceof NotExpression not) {
            negated = true;
            term = unparenthesised(not.getExpression());
        }
        if (term instanceof ExistsExpression exists) {
            negated ^= exists.isNot();
            Optional<Table> t = simpleFrom(exists.getRightExpression());
            if (t.isPresent() && correlated(exists.getRightExpression(), t.get())) {
                sublinks.add(new Sublink(name(t.get().getName()), negated));
                tables.add(t.get());
            }
        } else if (!negated && term instanceof InExpression in && !in.isNot() && !in.isGlobal()) {
            Optional<Table> t = simpleFrom(in.getRightExpression());
            if (t.isPresent() && !correlated(in.getRightExpression(), t.get()) && usesColumns(in.getLeftExpression())) {
                sublinks.add(new Sublink(name(t.get().getName()), false));
                tables.add(t.get());
            }
        }
    }

    private static Expression unparenthesised(Expression e) {
        Expression out = e;
        while (true) {
            if (out instanceof Parenthesis p) {
                out = p.getExpression();
            } else if (out instanceof ParenthesedExpressionList<?> list && list.size() == 1 && !(out instanceof ParenthesedSelect)) {
                out = list.get(0);
            } else {
                return out;
            }
        }
    }

    /** The one plain table a simple subquery reads: no join, aggregate, grouping, DISTINCT, LIMIT, set operation or WITH. */
    private static Optional<Table> simpleFrom(Expression subquery) {
        if (!(subquery instanceof ParenthesedSelect ps) || !(ps.getSelect() instanceof PlainSelect p)) {
            return Optional.empty();
        }
        boolean simple = p.getFromItem() instanceof Table && none(p.getJoins()) && p.getGroupBy() == null && p.getHaving() == null
                && p.getLimit() == null && p.getOffset() == null && p.getFetch() == null && p.getDistinct() == null
                && none(p.getWithItemsList()) && !aggregates(p);
        return simple ? Optional.of((Table) p.getFromItem()) : Optional.empty();
    }

    private static boolean aggregates(PlainSelect p) {
        String select = p.getSelectItems().toString().toUpperCase(Locale.ROOT);
        return select.matches(".*\\b(COUNT|SUM|MIN|MAX|AVG|BOOL_AND|BOOL_OR|EVERY|STRING_AGG|ARRAY_AGG)\\s*\\(.*");
    }

    private static final java.util.regex.Pattern QUALIFIED_COLUMN = java.util.regex.Pattern.compile("\\b([A-Za-z_]\\w*)\\s*\\.\\s*[A-Za-z_\"]");
    private static final java.util.regex.Pattern FROM_TABLE = java.util.regex.Pattern.compile("(?i)\\bFROM\\s+(\\w+)(?:\\s+(?:AS\\s+)?(\\w+))?");

    /** Whether the subquery refers to a column qualified by a name none of its own tables has (a column of the statement). */
    private static boolean correlated(Expression subquery, Table own) {
        Set<String> inner = new HashSet<>();
        collectAliases(subquery, inner);
        // every qualified column, nested subqueries' included (the parser's visitor does not descend into them)
        java.util.regex.Matcher m = QUALIFIED_COLUMN.matcher(subquery.toString().replaceAll("'[^']*'", "''"));
        while (m.find()) {
            if (!inner.contains(name(m.group(1)))) {
                return true;
            }
        }
        return false;
    }

    private static final Set<String> NOT_AN_ALIAS = Set.of("WHERE", "GROUP", "ORDER", "LIMIT", "HAVING", "UNION", "JOIN", "INNER", "LEFT",
            "RIGHT", "FULL", "CROSS", "ON", "FOR", "OFFSET", "FETCH", "WINDOW", "EXCEPT", "INTERSECT", "NATURAL");

    /** The names that refer to the subquery's own rows: each table's alias, or its name where it has none (nested ones too). */
    private static void collectAliases(Expression subquery, Set<String> into) {
        java.util.regex.Matcher m = FROM_TABLE.matcher(subquery.toString());
        while (m.find()) {
            boolean aliased = m.group(2) != null && !NOT_AN_ALIAS.contains(m.group(2).toUpperCase(Locale.ROOT));
            // an alias hides the table's name: t.c inside "FROM t s" is the statement's t
            into.add(name(aliased ? m.group(2) : m.group(1)));
        }
    }

    private static boolean usesColumns(Expression expression) {
        boolean[] found = {false};
        expression.accept(new ExpressionVisitorAdapter<Void>() {
            @Override
            public <S> Void visit(Column column, S context) {
                found[0] = true;
                return null;
            }
        }, null);
        return found[0];
    }

    private static boolean none(List<?> clause) {
        return clause == null || clause.isEmpty();
    }

    private static String name(String written) {
        List<String> parts = List.of(written.split("\\."));
        return parts.get(parts.size() - 1).replace("\"", "").replace("`", "").toLowerCase(Locale.ROOT);
    }
}
