package txfuzz.oracle.diff;

import java.util.function.Predicate;
import txfuzz.model.Stmt;
import txfuzz.model.TestCase;

/**
 * What the comparison may compare for one pair of subjects.
 *
 * @param totallyOrdered         queries whose rows compare as lists: an ORDER BY gives them a total order
 *                               (everything else compares as multisets, as DT2 does)
 * @param upsertCountsComparable whether both subjects count an upsert's affected rows the same way
 *                               (engines differ: some count an updated row of an upsert twice, some once)
 */
public record Rules(Predicate<Stmt> totallyOrdered, boolean upsertCountsComparable) {
    /** Rows as multisets; upsert counts compared only where {@code sameEngine}. */
    public static Rules multisets(boolean sameEngine) {
        return new Rules(s -> false, sameEngine);
    }

    /**
     * For {@code c}'s queries: rows as lists where an ORDER BY key is unique for the rows returned ({@link TotalOrder},
     * from the case's schema), else as multisets; upsert counts compared only where {@code sameEngine}.
     */
    public static Rules of(TestCase c, boolean sameEngine) {
        return new Rules(TotalOrder.of(c, sameEngine)::test, sameEngine);
    }
}
