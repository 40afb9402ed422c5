package txfuzz.oracle.equiv;

import java.util.Objects;
import java.util.Set;

/**
 * The output of one Version-Set Read (VSR, OSDI 2023 §3.2, Fig. 5): every item version of one table
 * the target statement references, read right before it in its session. A statement has one per
 * referenced table (T1.S2.VSR0 over t0, T1.S2.VSR1 over t1 in Fig. 5); a referenced table that is
 * empty gives an empty set, which still says the statement depends on that table's contents.
 */
public record VersionSet(String table, Set<Item> items) {
    public VersionSet {
        Objects.requireNonNull(table, "table");
        items = Set.copyOf(items);
        for (Item i : items) {
            if (!i.table().equals(table)) {
                throw new IllegalArgumentException("VSR of " + table + " holds an item of " + i.table() + ": " + i);
            }
        }
    }
}
