package txfuzz.oracle.explicit;

import txfuzz.oracle.ViolationKind;

/** What the explicit oracle reports: the engine failed, whatever the isolation level promises. */
public enum ExplicitKind implements ViolationKind {
    ENGINE_ERROR("engine-error", "internal error",
            "An internal error is never the correct answer to a valid statement (APTrans's explicit oracle)."),
    CONNECTION_LOST("connection-lost", "the connection breaks (crash?)",
            "The engine dropped the connection while running a statement: it crashed or killed the session."),
    HANG("hang", "a statement hangs without waiting on a lock",
            "The statement kept running and the engine said it was not waiting on a lock; txfuzz cancelled it."),
    WAITS_FOR_ENDED("waits-for-ended", "a statement waits for a transaction that has ended",
            "The engine kept the statement waiting for a lock of transactions that had already committed or rolled back,"
                    + " so nothing could release it; txfuzz cancelled it."),
    /** Outside any single statement: opening, reading back, replaying. No oracle can re-check it by a run. */
    ENGINE_FAILURE("engine-failure", "the engine fails outside any statement",
            "The engine failed while opening, reading back or replaying, outside any single statement.");

    private final String label;
    private final String headline;
    private final String rule;

    ExplicitKind(String label, String headline, String rule) {
        this.label = label;
        this.headline = headline;
        this.rule = rule;
    }

    @Override
    public String oracle() {
        return ExplicitOracle.NAME;
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
        return rule;
    }

    /** Its label, so that a kind printed anywhere reads as spelled everywhere. */
    @Override
    public String toString() {
        return label;
    }

    @Override
    public boolean engineFailure() {
        return true;
    }

    @Override
    public boolean reducible() {
        return this != ENGINE_FAILURE;
    }
}
