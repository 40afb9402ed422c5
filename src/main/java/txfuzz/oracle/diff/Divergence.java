package txfuzz.oracle.diff;

import java.util.List;
import txfuzz.model.StmtRef;

/**
 * The first place two runs of one case differed.
 *
 * @param kind       what differed
 * @param at         the statement (null for {@link DivergenceKind#STATE})
 * @param left       what the first side did, in words ("blocked, then affected 1", "error SERIALIZATION")
 * @param right      what the second side did
 * @param onlyLeft   rows only the first side has (query rows or, for the state, table rows as "table: row"); may be empty
 * @param onlyRight  rows only the second side has
 */
public record Divergence(DivergenceKind kind, StmtRef at, String left, String right, List<String> onlyLeft, List<String> onlyRight) {
    public Divergence {
        onlyLeft = List.copyOf(onlyLeft);
        onlyRight = List.copyOf(onlyRight);
    }

    public Divergence(DivergenceKind kind, StmtRef at, String left, String right) {
        this(kind, at, left, right, List.of(), List.of());
    }

    /** Whether {@code other} is the same divergence (same kind at the same statement): a re-run that shows it confirms it. */
    public boolean sameAs(Divergence other) {
        return other != null && kind == other.kind && java.util.Objects.equals(at, other.at);
    }

    /** "diff-abort at T2.2" / "diff-state". */
    @Override
    public String toString() {
        return kind.label() + (at == null ? "" : " at " + at) + ": " + left + " vs " + right;
    }
}
