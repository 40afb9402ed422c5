package txfuzz.reduce;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;

/**
 * A case the reducer made, with the origin of each of its statements in the case as found: removing
 * transactions and statements renumbers what is left ({@link CaseEdits}), and a violation is the same
 * only when it is about the same statement of the original.
 *
 * @param testCase the case
 * @param origin   each statement of {@code testCase} → the statement of the original it came from
 */
record Lineage(TestCase testCase, Map<StmtRef, StmtRef> origin) {
    Lineage {
        origin = Map.copyOf(origin);
    }

    /** The case as found: every statement is its own origin. */
    static Lineage original(TestCase c) {
        Map<StmtRef, StmtRef> self = new HashMap<>();
        for (Txn t : c.transactions()) {
            for (int i = 0; i < t.statements().size(); i++) {
                self.put(new StmtRef(t.id(), i), new StmtRef(t.id(), i));
            }
        }
        return new Lineage(c, self);
    }

    /** {@code next}, whose statements sit where they sat in this case (only its setup, order or text changed). */
    Lineage same(TestCase next) {
        return next == null ? null : new Lineage(next, origin);
    }

    /** {@code edit}'s case, whose statements came from this case's as the edit says. */
    Lineage then(CaseEdits.Edit edit) {
        if (edit == null) {
            return null;
        }
        Map<StmtRef, StmtRef> out = new HashMap<>();
        edit.previous().forEach((now, before) -> out.put(now, origin.get(before)));
        return new Lineage(edit.testCase(), out);
    }

    /** The statement of the original {@code ref} came from; null when it has none. */
    StmtRef originOf(StmtRef ref) {
        return origin.get(ref);
    }

    /** A stable text of the origin, for cache keys: the same case reached by other removals is another candidate. */
    String originKey() {
        return new TreeMap<>(origin).toString();
    }
}
