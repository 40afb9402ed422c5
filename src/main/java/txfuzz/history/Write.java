package txfuzz.history;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * A statement wrote row {@code row} of {@code table}, installing the version whose write list is
 * {@code wList}: for an UPDATE the previous version's list followed by the writer, for an INSERT
 * just {@code [writer]}, for a DELETE the deleted version's list followed by the writer (the
 * tombstone, see {@link WriteKind}). {@code wList} therefore always ends with the writer's id.
 *
 * <p>Recording writes is optional for INSERT and UPDATE: later reads reveal them through their
 * wLists. It is required for DELETE (the row is gone afterwards) and useful everywhere else, for
 * explanations and for the writes of transactions nobody observed.
 */
public record Write(int stmt, String table, String row, WriteKind kind, @JsonProperty("wlist") WList wList) implements Op {
    public Write {
        Op.checkCommon(stmt, table);
        Op.checkRow(row);
        Objects.requireNonNull(kind, "kind is missing");
        Objects.requireNonNull(wList, "wlist is missing");
        if (kind == WriteKind.INSERT && wList.size() != 1) {
            throw new IllegalArgumentException("an insert creates a row with a one-entry wlist, not " + wList);
        }
    }

    @JsonCreator
    static Write json(@JsonProperty("stmt") Integer stmt, @JsonProperty("table") String table, @JsonProperty("row") String row,
                      @JsonProperty("kind") WriteKind kind, @JsonProperty("wlist") WList wList) {
        return new Write(Op.required(stmt, "stmt"), table, row, kind, wList);
    }
}
