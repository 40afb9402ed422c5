package txfuzz.gen;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import txfuzz.dbms.Dialect;
import txfuzz.dbms.Feature;

/**
 * APTrans' condition alignment: the WHERE a pattern operation's statement gets on its item's table.
 * Mostly the item's own condition; now and then a wider predicate that still covers the row (a range
 * around its value, an OR with a random predicate) or none at all (a full scan), so the engine is
 * also tested on scans that meet the row among others.
 */
final class PatternAims {
    private final Rng rng;
    private final Dialect dialect;

    PatternAims(Rng rng, Dialect dialect) {
        this.rng = rng;
        this.dialect = dialect;
    }

    /** The aim of a read or write of one item; writes widen less often (a wide write also changes other items). */
    StatementGenerator.Aim single(PatternRows.ItemRow item, boolean write) {
        String range = range(List.of(item));
        int choice = write ? rng.weighted(85, 7, 3, range == null ? 0 : 5) : rng.weighted(72, 10, 8, range == null ? 0 : 10);
        return switch (choice) {
            case 0 -> aim(item, item.template(), false, false);
            case 1 -> aim(item, item.template(), true, false);
            case 2 -> aim(item, "", false, false);
            default -> aim(item, range, false, false);
        };
    }

    /**
     * The aim of a predicate read listing {@code items} (all on one table): a predicate covering every
     * one of their rows, read from the table alone so the history records it as a predicate read.
     */
    StatementGenerator.Aim covering(List<PatternRows.ItemRow> items) {
        PatternRows.ItemRow first = items.get(0);
        List<String> conditions = new ArrayList<>();
        for (PatternRows.ItemRow i : items) {
            if (!conditions.contains(i.template())) {
                conditions.add(i.template());
            }
        }
        String or = conditions.size() == 1 ? conditions.get(0) : "(" + String.join(") OR (", conditions) + ")";
        String range = range(items);
        return switch (rng.weighted(6, range == null ? 0 : 4, 1)) {
            // never widened by a random OR: a widening is drawn per statement, and every read of the pattern's P must be one predicate
            case 0 -> aim(first, or, false, true);
            case 1 -> aim(first, range, false, true);
            default -> aim(first, "", false, true);
        };
    }

    private static StatementGenerator.Aim aim(PatternRows.ItemRow item, String where, boolean widen, boolean alone) {
        return new StatementGenerator.Aim(item.table(), where, widen, alone, item.keep(), item.values(), item.key());
    }

    /**
     * {@code c BETWEEN lo AND hi} on the first numeric condition column, from below the smallest of
     * the items' values to above the largest; null when there is no such column or a value is NULL.
     */
    private String range(List<PatternRows.ItemRow> items) {
        if (!dialect.has(Feature.BETWEEN)) {
            return null;
        }
        for (Schema.Column c : items.get(0).cond()) {
            if (!c.type.numeric()) {
                continue;
            }
            List<Object> values = items.stream().map(i -> i.values().get(c.index())).toList();
            if (values.stream().anyMatch(Objects::isNull)) {
                return null;
            }
            double lo = values.stream().mapToDouble(v -> ((Number) v).doubleValue()).min().orElseThrow();
            double hi = values.stream().mapToDouble(v -> ((Number) v).doubleValue()).max().orElseThrow();
            Object from = c.type == ColType.INT ? (Object) (int) (lo - rng.between(0, 1)) : (Object) (lo - 0.5 * rng.between(0, 2));
            Object to = c.type == ColType.INT ? (Object) (int) (hi + rng.between(0, 1)) : (Object) (hi + 0.5 * rng.between(0, 2));
            return StatementGenerator.Aim.Q + c.name + " BETWEEN " + Literals.sql(from) + " AND " + Literals.sql(to);
        }
        return null;
    }
}
