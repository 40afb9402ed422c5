package txfuzz.history;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * A statement returned row {@code row} of {@code table} with write list {@code wList}: it read the
 * version written by {@code wList.last()}.
 *
 * @param locking a current read rather than a snapshot read: SELECT ... FOR UPDATE / FOR SHARE,
 *                or a read done by (or on behalf of) a write statement. IsoRel §3.4 exempts some
 *                cycles closed by such reads.
 */
public record Read(int stmt, String table, String row, @JsonProperty("wlist") WList wList,
                   @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean locking) implements Op {
    public Read {
        Op.checkCommon(stmt, table);
        Op.checkRow(row);
        Objects.requireNonNull(wList, "wlist is missing");
    }

    @JsonCreator
    static Read json(@JsonProperty("stmt") Integer stmt, @JsonProperty("table") String table, @JsonProperty("row") String row,
                     @JsonProperty("wlist") WList wList, @JsonProperty("locking") Boolean locking) {
        return new Read(Op.required(stmt, "stmt"), table, row, wList, locking != null && locking);
    }
}
