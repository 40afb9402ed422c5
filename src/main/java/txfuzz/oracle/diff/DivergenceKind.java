package txfuzz.oracle.diff;

import txfuzz.oracle.ViolationKind;

/**
 * How two runs of one case, on two subjects, first differed (DT2 §4.3): in the order the first
 * side ran its statements, the first statement whose outcome differs, else the final state.
 */
public enum DivergenceKind implements ViolationKind {
    /** A statement waited for a lock on one side and not on the other (DT2: inconsistent blocked statements). */
    BLOCKING("diff-blocking", "a statement waited for a lock on one subject and not on the other"),
    /** A deadlock or serialization failure on one side only, or of another kind (DT2: inconsistent deadlock). */
    ABORT("diff-abort", "a transaction was aborted by concurrency control on one subject and not on the other"),
    /** Another error on one side only, or errors of different classes (DT2: inconsistent error). */
    ERROR("diff-error", "a statement failed on one subject and not on the other"),
    /** A statement ran on one side only: its transaction had ended earlier on the other. */
    ONE_SIDED("diff-one-sided", "a statement ran on one subject only"),
    /** A query returned other rows (DT2: inconsistent query results). */
    ROWS("diff-rows", "a query returned different rows on the two subjects"),
    /** A write changed a different number of rows. */
    AFFECTED("diff-affected", "a write changed a different number of rows on the two subjects"),
    /** The database ended differently (DT2: inconsistent database final states). */
    STATE("diff-state", "the database ended differently on the two subjects");

    private final String label;
    private final String headline;

    DivergenceKind(String label, String headline) {
        this.label = label;
        this.headline = headline;
    }

    @Override
    public String oracle() {
        return DiffOracle.NAME;
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public String headline() {
        return headline;
    }

    @Override
    public String rule(Setting where) {
        return "Run in the same submitted order at levels that make the same promise, two subjects that claim the same "
                + "semantics should block, fail and answer alike and end in the same state (DT2, ASE 2022, §4.3). "
                + "Each side ran the case twice and differed the same way both times.";
    }

    @Override
    public String undocumented(Setting where) {
        return "One subject's own oracles flag the case and the other subject's do not: a bug candidate of the flagged subject.";
    }
}
