package txfuzz.oracle;

import java.util.Optional;

/**
 * Typed evidence of a violation, beside its Markdown: what the oracle itself needs later (e.g. the
 * statement and result behind a write-outcome, an anomaly's transactions) and what identifies the
 * bug. Each oracle defines its own records; others see only this interface.
 */
public interface Evidence {
    /** No typed evidence. */
    Evidence NONE = new Evidence() {
        @Override
        public String toString() {
            return "none";
        }
    };

    /**
     * What identifies the bug whatever case and level showed it (e.g. the engine assertion that
     * failed in a crash: "assertion: table->n_rec_locks == 0"); empty when the case does.
     */
    default Optional<String> caseIndependentIdentity() {
        return Optional.empty();
    }
}
