package txfuzz.oracle;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The table a write statement writes, read from its SQL: for evidence that names a table that ended
 * differently and must single out the statements behind it.
 */
public final class TableWrites {
    private TableWrites() {
    }

    private static final Pattern TARGET = Pattern.compile("(?is)^\\s*(?:"
            + "INSERT\\s+(?:OR\\s+\\w+\\s+|IGNORE\\s+)?INTO|REPLACE\\s+INTO|UPSERT\\s+INTO|MERGE\\s+INTO|MERGE|UPDATE|DELETE\\s+FROM|DELETE)"
            + "\\s+\"?([A-Za-z_][A-Za-z0-9_]*)");

    /** The written table, lower case; empty for a statement that is no INSERT, UPDATE, DELETE, MERGE or upsert. */
    public static Optional<String> target(String sql) {
        Matcher m = TARGET.matcher(sql);
        return m.find() ? Optional.of(m.group(1).toLowerCase(Locale.ROOT)) : Optional.empty();
    }
}
