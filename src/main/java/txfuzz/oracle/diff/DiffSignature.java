package txfuzz.oracle.diff;

import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtKind;

/**
 * What makes two diff findings the same scenario, whatever case showed them: the pair of subjects, the level
 * (the first side's), the divergence kind, the kind of the divergent statement (null for the final state),
 * the cause and the label.
 */
public record DiffSignature(String pair, IsolationLevel level, DivergenceKind kind, StmtKind statement, Cause cause, Label label) {
    /** {@code engine@1.1 vs engine@1.2 · REPEATABLE_READ · diff-abort · UPSERT · write-conflict · bug-candidate}. */
    @Override
    public String toString() {
        return pair + " · " + level + " · " + kind.label() + " · " + (statement == null ? "state" : statement.name()) + " · " + cause.label()
                + " · " + label.label();
    }
}
