package txfuzz.oracle.equiv;

import txfuzz.oracle.ViolationKind;

/** What the equiv oracle reports: a statement or the final state differs from a dependency-respecting replay. */
public enum EquivKind implements ViolationKind {
    STATEMENT_RESULT("equiv-result", "a statement gives another result inside its transaction than in a replay that keeps every dependency"),
    FINAL_STATE("equiv-state", "the final state differs from a replay that keeps every dependency"),
    /** Checked on the transactional run itself (TxCheck §4's checks from the graph's item dependencies). */
    OWN_WRITE_UNSEEN("equiv-own-write", "a statement uses a row version its own transaction had already overwritten");

    private static final String RULE = "txfuzz recorded which row versions every statement read, replaced and installed, and which versions "
            + "of every table it could have used, and built the statement-dependency graph of the committed statements (TxCheck, OSDI "
            + "2023). It replayed the statements one by one without transactions, in an order that keeps every dependency. By TxCheck's "
            + "Theorem 1 every statement must then give the same result, and the final state must be the same, at any level from READ "
            + "COMMITTED up (each statement sees a consistent set of committed versions plus its own transaction's writes).";

    private final String label;
    private final String headline;

    EquivKind(String label, String headline) {
        this.label = label;
        this.headline = headline;
    }

    @Override
    public String oracle() {
        return EquivOracle.NAME;
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
        if (this == OWN_WRITE_UNSEEN) {
            return "txfuzz recorded which row versions every statement read, replaced and installed (a row identity and the list of "
                    + "the writes that produced each version). At every isolation level a transaction sees its own writes: once one of its "
                    + "statements has replaced a row version, no later statement of the same transaction may read or replace that version.";
        }
        return RULE;
    }

    @Override
    public String undocumented(Setting where) {
        return "No isolation level lets a statement's result depend on anything but the versions it read; "
                + where.dbms() + " documents no exception at " + where.level().sql() + ". This is a bug candidate.";
    }

    @Override
    public String toString() {
        return label;
    }
}
