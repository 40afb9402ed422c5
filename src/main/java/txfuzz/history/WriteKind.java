package txfuzz.history;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * What a write did to its row. A DELETE is a write too (IsoRel §3.3.2): it installs a final,
 * invisible <em>tombstone</em> version whose wList is the deleted version's followed by the deleter,
 * so it gets a ww dependency on the last writer and rw dependencies from the readers of the version
 * it removed. A REPLACE that replaces a row is a DELETE of the old row and an INSERT of a new one
 * (a new rowId); an upsert that updates in place is an UPDATE.
 */
public enum WriteKind {
    INSERT, UPDATE, DELETE;

    @JsonValue
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static WriteKind parse(String s) {
        for (WriteKind k : values()) {
            if (k.label().equalsIgnoreCase(s)) {
                return k;
            }
        }
        throw new IllegalArgumentException("write kind must be insert, update or delete, not \"" + s + "\"");
    }
}
