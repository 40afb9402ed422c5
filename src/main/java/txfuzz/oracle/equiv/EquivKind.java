package txfuzz.oracle.equiv;

import txfuzz.oracle.ViolationKind;

/** What the equiv oracle reports: a statement or the final state differs from a dependency-respecting replay. */
public enum EquivKind implements ViolationKind {
    STATEMENT_RESULT("equiv-result", "a statement gives another result inside its transaction than in a replay that keeps every dependency"),
    FINAL_STATE("equiv-state", "the final state differs from a replay that keeps every dependency"),
    /** Checked on the transactional run itself (TxCheck §4's checks from the graph's item dependencies). */
    OWN_WRITE_UNSEEN("equiv-own-write", "a statement uses a row version its own transaction had already overwritten"),
    /** The run's own version-set reads returned what no engine may: a row naming none of the tables read. */
    TRACKING_READ("equiv-tracking-read", "a version-set read returned a row naming none of the tables it reads");

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
        if (this == TRACKING_READ) {
            return "Before every statement txfuzz reads the row identity and write list of every row of every table in one statement, "
                    + "`SELECT 't0', rid, wl FROM t0 UNION ALL SELECT 't1', rid, wl FROM t1`. In SQL a character-string literal in a select "
                    + "list has that value in every row, and UNION ALL returns every row of each of its operands as it is (the SQL "
                    + "standard's query expression), so each row leads with the name of one of the tables read, at every isolation level. "
                    + "A row that names another table, or none, is a wrong result of the read itself; the run's version sets cannot be "
                    + "known from it.";
        }
        return RULE;
    }

    @Override
    public String undocumented(Setting where) {
        if (this == TRACKING_READ) {
            return "No isolation level changes the value of a literal in a select list or which rows a UNION ALL returns; "
                    + where.dbms() + " documents no exception at " + where.level().sql() + ". This is a bug candidate.";
        }
        return "No isolation level lets a statement's result depend on anything but the versions it read; "
                + where.dbms() + " documents no exception at " + where.level().sql() + ". This is a bug candidate.";
    }

    @Override
    public String toString() {
        return label;
    }
}
