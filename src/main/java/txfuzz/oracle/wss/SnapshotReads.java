package txfuzz.oracle.wss;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.merge.Merge;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.update.UpdateSet;
import net.sf.jsqlparser.util.TablesNamesFinder;

/**
 * The tables a statement reads, in the sense of an engine that takes each table's snapshot at the first statement that
 * reads it ({@link SnapshotPoints.Rule#PER_TABLE_AT_FIRST_READ}), from the statement's parsed form. Measured with plain
 * JDBC on H2 2.5.252 at REPEATABLE READ (T2 runs the statement, T1 commits a row, T2's next SELECT shows it or not):
 * <ul>
 * <li>a SELECT reads every table it names (a subquery's, a join's, {@code FOR UPDATE}'s, {@code LIMIT 0}'s too);</li>
 * <li>an INSERT reads the tables of its SELECT or of the subqueries in its VALUES, never its target (not even when
 * it fails on a key);</li>
 * <li>an UPDATE or DELETE reads the tables of the subqueries in its WHERE and SET, and its target when its WHERE or
 * SET uses the target's columns: {@code UPDATE t SET c = 5} and {@code DELETE FROM t} do not read {@code t},
 * {@code UPDATE t SET c = c + 1}, {@code ... WHERE c0 = 1} and a subquery correlated with the target do; a WHERE or
 * SET whose only columns are its subqueries' own ({@code WHERE EXISTS (SELECT 1 FROM t0 s0 WHERE s0.c0 = 1)},
 * {@code SET c = (SELECT MAX(s0.c0) FROM t0 s0)}) or that has none ({@code WHERE TRUE}) does not. Where a column's
 * table cannot be told from its qualifier (unqualified inside a subquery, or a subquery that names the target again)
 * it counts as the target's;</li>
 * <li>a MERGE ... USING reads its target (even with {@code ON (1 = 0)}) and every table it names.</li>
 * </ul>
 * Anything else (H2's {@code MERGE ... KEY}, a WITH, an UPDATE with a FROM, a statement the parser does not know)
 * cannot be told: empty.
 */
final class SnapshotReads {
    private SnapshotReads() {
    }

    /** The tables (lower case, unquoted) {@code sql} reads; empty: cannot tell. */
    static Optional<Set<String>> of(String sql) {
        Statement statement = txfuzz.gen.StatementStructure.parse(sql); // in the calling thread (no thread per parse)
        if (statement == null) {
            return Optional.empty();
        }
        try {
            return Optional.ofNullable(reads(statement));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    private static Set<String> reads(Statement statement) {
        if (statement instanceof Select select) {
            return none(select.getWithItemsList()) ? tables((Statement) select) : null;
        }
        if (statement instanceof Insert insert) {
            boolean plain = insert.getSelect() != null && none(insert.getWithItemsList()) && insert.getConflictAction() == null
                    && none(insert.getDuplicateUpdateSets()) && none(insert.getSetUpdateSets());
            return plain ? tables((Statement) insert.getSelect()) : null;
        }
        if (statement instanceof Update update) {
            if (update.getFromItem() != null || !none(update.getJoins()) || !none(update.getStartJoins()) || !none(update.getWithItemsList())
                    || !none(update.getOrderByElements()) || update.getLimit() != null) {
                return null;
            }
            Set<String> out = new HashSet<>();
            boolean readsTarget = false;
            if (update.getWhere() != null) {
                out.addAll(tables(update.getWhere()));
                readsTarget = usesTarget(update.getWhere(), update.getTable());
            }
            for (UpdateSet set : update.getUpdateSets()) {
                for (Expression value : set.getValues()) {
                    out.addAll(tables(value));
                    readsTarget |= usesTarget(value, update.getTable());
                }
            }
            if (readsTarget) {
                out.add(name(update.getTable().getName()));
            }
            return out;
        }
        if (statement instanceof Delete delete) {
            if (!none(delete.getTables()) || !none(delete.getJoins()) || !none(delete.getUsingList()) || !none(delete.getWithItemsList())
                    || !none(delete.getOrderByElements()) || delete.getLimit() != null) {
                return null;
            }
            Set<String> out = new HashSet<>();
            if (delete.getWhere() != null) {
                out.addAll(tables(delete.getWhere()));
                if (usesTarget(delete.getWhere(), delete.getTable())) {
                    out.add(name(delete.getTable().getName()));
                }
            }
            return out;
        }
        if (statement instanceof Merge merge) {
            return merge.getFromItem() != null && none(merge.getWithItemsList()) ? tables(merge) : null;
        }
        return null;
    }

    private static boolean none(List<?> clause) {
        return clause == null || clause.isEmpty();
    }

    private static Set<String> tables(Statement statement) {
        return names(new TablesNamesFinder<Void>().getTables(statement));
    }

    private static Set<String> tables(Expression expression) {
        return names(new TablesNamesFinder<Void>().getTables(expression));
    }

    private static Set<String> names(Set<String> found) {
        Set<String> out = new HashSet<>();
        for (String table : found) {
            out.add(name(table));
        }
        return out;
    }

    /** A table name as the case's tables are keyed: without schema and quotes, lower case. */
    private static String name(String written) {
        List<String> parts = List.of(written.split("\\."));
        return parts.get(parts.size() - 1).replace("\"", "").replace("`", "").toLowerCase(Locale.ROOT);
    }

    /**
     * Whether {@code expression} (an UPDATE's or DELETE's WHERE or SET value) uses a column of the statement's
     * {@code target}: H2 takes the target's snapshot then and only then (measured, {@code SnapshotReadsTest}). A WHERE
     * without columns ({@code WHERE TRUE}, {@code WHERE (1 = 1)}; campaign h2-RR-s59-i1542, reduced) or whose columns
     * are all its subqueries' own ({@code WHERE EXISTS (SELECT 0 FROM t1 s0)}, the same case as found) does not read it.
     * A column counts as another table's only when its qualifier is a table or alias that a subquery of the expression
     * brings into scope and that cannot be the target; an unqualified column, one qualified by anything else, or a
     * subquery that names the target's table or alias again, counts as a read of the target (the earlier snapshot,
     * as the rule stood before it was told apart).
     */
    private static boolean usesTarget(Expression expression, Table target) {
        ScopeNames found = new ScopeNames();
        found.getTables(expression);
        Set<String> targetNames = new HashSet<>();
        targetNames.add(name(target.getName()));
        if (target.getAlias() != null) {
            targetNames.add(name(target.getAlias().getName()));
        }
        if (found.tablesInScope.stream().anyMatch(targetNames::contains)) {
            return !found.qualifiers.isEmpty() || found.unqualified;
        }
        return found.unqualified || !found.tablesInScope.containsAll(found.qualifiers);
    }

    /** The column qualifiers an expression uses and the names (alias, else table) its subqueries' FROM brings in. */
    private static final class ScopeNames extends TablesNamesFinder<Void> {
        private final Set<String> tablesInScope = new HashSet<>();
        private final Set<String> qualifiers = new HashSet<>();
        private boolean unqualified;

        @Override
        public <S> Void visit(Column column, S context) {
            if (column.getTable() == null || column.getTable().getName() == null) {
                unqualified = true;
            } else {
                qualifiers.add(name(column.getTable().getName()));
            }
            return null;
        }

        @Override
        public <S> Void visit(Table table, S context) {
            tablesInScope.add(name(table.getAlias() != null ? table.getAlias().getName() : table.getName()));
            return super.visit(table, context);
        }
    }
}
