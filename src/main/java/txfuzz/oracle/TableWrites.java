package txfuzz.oracle;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import txfuzz.gen.StatementStructure;

/**
 * The table a write statement writes: for evidence that names a table that ended differently and must
 * single out the statements behind it. Read from the parsed statement ({@link StatementStructure}; the common forms from
 * their words, {@link StatementStructure#head}, without a parse);
 * a statement the parser does not read (H2's {@code MERGE INTO … KEY}) is read from its text as before.
 */
public final class TableWrites {
    private TableWrites() {
    }

    private static final Pattern TARGET = Pattern.compile("(?is)^\\s*(?:"
            + "INSERT\\s+(?:OR\\s+\\w+\\s+|IGNORE\\s+)?INTO|REPLACE\\s+INTO|UPSERT\\s+INTO|MERGE\\s+INTO|MERGE|UPDATE|DELETE\\s+FROM|DELETE)"
            + "\\s+\"?([A-Za-z_][A-Za-z0-9_]*)");

    /** The written table, lower case; empty for a statement that is no INSERT, UPDATE, DELETE, MERGE or upsert. */
    public static Optional<String> target(String sql) {
        return StatementStructure.head(sql).map(StatementStructure.Head::writtenTable)
                .orElseGet(() -> StatementStructure.of(sql).map(StatementStructure.Parsed::writtenTable).orElseGet(() -> targetFromText(sql)));
    }

    /** The written table of a statement the parser does not read, from its text. */
    static Optional<String> targetFromText(String sql) {
        Matcher m = TARGET.matcher(sql);
        return m.find() ? Optional.of(m.group(1).toLowerCase(Locale.ROOT)) : Optional.empty();
    }
}
