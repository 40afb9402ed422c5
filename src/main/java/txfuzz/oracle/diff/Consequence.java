package txfuzz.oracle.diff;

import txfuzz.exec.Trace;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;

/** What a divergence cost a user (DT2 §6.2): the worst difference anywhere in the two runs. */
public enum Consequence {
    DATABASE_STATE("database state"),
    QUERY_RESULT("query result"),
    NO_DIFFERENCE("no difference in results");

    private final String words;

    Consequence(String words) {
        this.words = words;
    }

    public String words() {
        return words;
    }

    /** The final states differ; else some query run on both sides answered differently; else neither. */
    public static Consequence of(TestCase c, Trace left, Trace right) {
        if (!left.finalState().diff(right.finalState()).isEmpty()) {
            return DATABASE_STATE;
        }
        for (var e : left.schedule()) {
            StmtRef ref = e.ref();
            if (!c.stmt(ref).kind().isRead()) {
                continue;
            }
            var other = right.executed(ref);
            if (other.isPresent() && TraceComparison.compare(c.stmt(ref), ref, e, other.get(), Rules.multisets(false))
                    .filter(d -> d.kind() == DivergenceKind.ROWS).isPresent()) {
                return QUERY_RESULT;
            }
        }
        return NO_DIFFERENCE;
    }
}
