package txfuzz.oracle.equiv;

import java.util.Objects;

/**
 * One item version as TxCheck's instrumentation sees it (OSDI 2023 §3.2): the row identity
 * ({@code key}, the PrimaryKey column, never changed after insertion) of a table and its version
 * ({@code version}, the VersionKey column, a fresh value on every write; all rows written by one
 * statement share it). Two outputs of instrumentation statements "intersect" when they contain an
 * equal {@code Item}.
 */
public record Item(String table, String key, String version) {
    public Item {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(version, "version");
    }

    public static Item of(String table, Object key, Object version) {
        return new Item(table, String.valueOf(key), String.valueOf(version));
    }

    /** "t0(1,20)", in the paper's "(pkey, vkey)" style. */
    @Override
    public String toString() {
        return table + "(" + key + "," + version + ")";
    }
}
