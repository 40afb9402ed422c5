package txfuzz.history;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Objects;

/**
 * A statement read {@code table} through a predicate and these were <em>all</em> the rows that
 * matched. Each returned row counts as a {@link Read} (do not record them twice). The claim of
 * completeness is what makes predicate dependencies inferable: a row the statement did not return
 * did not match, in the version it saw.
 *
 * @param predicate identifies the predicate; two predicate reads with the same table and the same
 *                  predicate must select the same rows from the same row versions. Use it only for
 *                  a deterministic condition over the row's own columns (no subquery, no other
 *                  table, no LIMIT), e.g. the normalised WHERE text; null when that does not hold —
 *                  the rows still count as reads, but no predicate dependency is inferred.
 */
public record PredicateRead(int stmt, String table, String predicate,
                            @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean locking, List<RowVersion> rows) implements Op {
    public PredicateRead {
        Op.checkCommon(stmt, table);
        rows = List.copyOf(Objects.requireNonNull(rows, "rows is missing"));
    }

    @JsonCreator
    static PredicateRead json(@JsonProperty("stmt") Integer stmt, @JsonProperty("table") String table,
                              @JsonProperty("predicate") String predicate, @JsonProperty("locking") Boolean locking,
                              @JsonProperty("rows") List<RowVersion> rows) {
        return new PredicateRead(Op.required(stmt, "stmt"), table, predicate, locking != null && locking, rows);
    }
}
