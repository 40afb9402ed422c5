package txfuzz.oracle.wss;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.ExpressionVisitorAdapter;
import net.sf.jsqlparser.schema.Column;
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
 * {@code UPDATE t SET c = c + 1} and {@code ... WHERE c0 = 1} do. Only the clear cases count as not reading the
 * target: no WHERE, or a constant one ({@code WHERE TRUE}, {@code WHERE (1 = 1)}), and a SET without columns or
 * subqueries (a subquery whose columns were its own table's did not read the target either, but that is left as a
 * read);</li>
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
            boolean readsTarget = update.getWhere() != null && !constant(update.getWhere());
            if (update.getWhere() != null) {
                out.addAll(tables(update.getWhere()));
            }
            for (UpdateSet set : update.getUpdateSets()) {
                for (Expression value : set.getValues()) {
                    Set<String> inValue = tables(value);
                    out.addAll(inValue);
                    readsTarget |= !inValue.isEmpty() || usesColumns(value);
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
                if (!constant(delete.getWhere())) {
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
     * A WHERE that names no column and no table ({@code WHERE TRUE}, {@code WHERE (1 = 1)}): H2 folds it to a constant and
     * reads the target no more than without a WHERE (measured, {@code SnapshotReadsTest}; campaign h2-RR-s59-i1542).
     */
    private static boolean constant(Expression where) {
        return !usesColumns(where) && tables(where).isEmpty();
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
}
