package txfuzz.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The anomaly pattern a case was generated from (APTrans: operation sequences such as
 * {@code R1[x0] W2[x1] C2 W1[x2] C1}), so a verdict can say whether the run realised it.
 *
 * @param pattern the catalogue name ("lost-update")
 * @param ops     the pattern's operations as the catalogue writes them
 * @param items   per pattern item ("x"), the row the case aimed it at
 * @param steps   per operation of {@code ops}, in order, the statement that performs it (for C and A,
 *                the COMMIT or ROLLBACK); in an instrumented case, the statement of its group that does
 *                the plain work
 */
public record PatternOrigin(String pattern, String ops, Map<String, Item> items, List<StmtRef> steps) {
    /**
     * A pattern item's row.
     *
     * @param table     its table
     * @param condition a row-local condition on the table's columns that selects it (by key where the
     *                  table has one)
     * @param rid       its row id in an instrumented case (null in a plain one)
     */
    public record Item(String table, String condition, @JsonInclude(JsonInclude.Include.NON_NULL) String rid) {
    }

    public PatternOrigin {
        if (pattern == null || ops == null) {
            throw new IllegalArgumentException("a pattern origin names its pattern and operations");
        }
        items = items == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(items));
        steps = steps == null ? List.of() : List.copyOf(steps);
    }
}
