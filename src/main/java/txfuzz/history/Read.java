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
 * @param matched the read of a data-changing statement that matched the row without changing it (an
 *                UPDATE that sets a row to the values it holds, on an engine that then writes nothing):
 *                the version it acted on. A transaction's DML makes the rows it touches visible to it in
 *                that version, so its later reads of the row must not see an older one
 */
public record Read(int stmt, String table, String row, @JsonProperty("wlist") WList wList,
                   @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean locking,
                   @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean matched) implements Op {
    public Read {
        Op.checkCommon(stmt, table);
        Op.checkRow(row);
        Objects.requireNonNull(wList, "wlist is missing");
    }

    public Read(int stmt, String table, String row, WList wList, boolean locking) {
        this(stmt, table, row, wList, locking, false);
    }

    @JsonCreator
    static Read json(@JsonProperty("stmt") Integer stmt, @JsonProperty("table") String table, @JsonProperty("row") String row,
                     @JsonProperty("wlist") WList wList, @JsonProperty("locking") Boolean locking, @JsonProperty("matched") Boolean matched) {
        return new Read(Op.required(stmt, "stmt"), table, row, wList, locking != null && locking, matched != null && matched);
    }
}
