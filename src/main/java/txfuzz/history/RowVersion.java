package txfuzz.history;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/** A row as a predicate read returned it: its rowId and write list. */
public record RowVersion(String row, @JsonProperty("wlist") WList wList) {
    public RowVersion {
        Op.checkRow(row);
        Objects.requireNonNull(wList, "wlist is missing");
    }
}
