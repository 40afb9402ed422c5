package txfuzz.oracle.wss;

import txfuzz.oracle.ViolationKind;

/** What write-specific serializability (WriteCheck) reports. */
public enum WssKind implements ViolationKind {
    // Headlines claim only what every violation of the kind was checked against: the commit order(s).
    // A violation's own headline (WssEvidence) adds which orders those were and whether another gives the state.
    TX_WSS("tx-wss", "committed writes end in a state the serial replay in commit order does not give"),
    STMT_WSS("stmt-wss", "committed writes end in a state the statement-by-statement serial replay in commit order does not give"),
    WRITE_OUTCOME("write-outcome", "a write's outcome differs from the serial replay in commit order"),
    READ_RESULT("read-result", "a query returns other rows than the serial replay in commit order"),
    REPLAY_HANG("replay-hang", "a statement hangs with no concurrency at all"),
    FIRST_COMMITTER_WINS("first-committer-wins", "two overlapping transactions changed one row version and both committed, where"
            + " the level requires a serialization failure"),
    UNEXPLAINED_ERROR("unexplained-error", "a statement failed with an error that no serial order of the committed transactions raises,"
            + " and that is no concurrency-control failure the engine documents");

    private final String label;
    private final String headline;

    WssKind(String label, String headline) {
        this.label = label;
        this.headline = headline;
    }

    @Override
    public String oracle() {
        return WssOracle.NAME;
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public String headline() {
        return headline;
    }

    /** Its label, so that a kind printed anywhere reads as spelled everywhere. */
    @Override
    public String toString() {
        return label;
    }

    /** The final state differs from a serial replay's (not just one statement's outcome). */
    boolean stateDiffers() {
        return this == TX_WSS || this == STMT_WSS;
    }

    @Override
    public String rule(Setting where) {
        return switch (this) {
            case TX_WSS, STMT_WSS -> "txfuzz ran the transactions concurrently, then replayed the ones that committed one after "
                    + "another, in the order they committed (First-Commit/Rollback-First-Scheduled; WriteCheck, PVLDB 2025)"
                    + (this == STMT_WSS ? ", each statement as a transaction of its own" : "")
                    + ", and also in every other commit order the run cannot rule out. Whatever the isolation level, what committed "
                    + "transactions write must not be lost or changed by running concurrently: the final state must equal such a "
                    + "replay's. Here no such replay matches the run in everything (final state and every write's outcome).";
            case WRITE_OUTCOME -> "A write statement must change the rows the serial replay in commit order says it changes "
                    + "(WriteCheck, PVLDB 2025): here it succeeded, failed or changed a different number of rows.";
            case READ_RESULT -> "At " + where.level().sql() + ", " + where.dbms() + " promises reads consistent with the order "
                    + "transactions commit in; this query returned rows the serial replay in that order does not.";
            case FIRST_COMMITTER_WINS -> "At " + where.level().sql() + ", " + where.dbms() + " keeps first-committer-wins "
                    + "(snapshot isolation; promised by its manual, or measured on the engine where the manual is silent: the "
                    + "details say which): of two concurrent transactions that change or delete (UPDATE, DELETE, MERGE, upsert) "
                    + "one row version, at most one commits, whichever wrote first; the other's write or commit must fail with a "
                    + "serialization error. Here both committed. A measured rule is reported broken only where an update may have "
                    + "been lost: the first committer changed the row's values, and no serial order with it first gives what the "
                    + "run's clients saw (reads, write outcomes) and its final state.";
            case UNEXPLAINED_ERROR -> "An error must have a cause: a serial order of the committed transactions in which the "
                    + "statement fails the same way (a duplicate key another transaction inserted first), or a concurrency-control "
                    + "failure " + where.dbms() + " documents (a deadlock, a serialization failure, a lock wait timeout). Here the "
                    + "statement's transaction, replayed up to it after the committed transactions in every position the run allows, "
                    + "does not fail with that error class.";
            case REPLAY_HANG -> "With the transactions run one after another there is nothing to wait for; the statement neither "
                    + "finished nor waited on a lock.";
        };
    }

    @Override
    public String undocumented(Setting where) {
        return "Nothing " + where.dbms() + " documents for " + where.level().sql() + " explains it: where the level "
                + "documents weaker behaviour, txfuzz simulated that behaviour on the engine itself and it does not reproduce what "
                + "happened. This is a bug candidate.";
    }
}
