package txfuzz.oracle;

import txfuzz.model.IsolationLevel;

/**
 * A kind of violation, owned by the oracle that reports it (each oracle declares its kinds as an
 * enum or record of its own package). It carries everything a report says about the kind — its
 * one spelling, headline, the rule it breaks and what a bug candidate of it means — so report/
 * renders any oracle's violations without knowing the oracle.
 */
public interface ViolationKind {
    /** The oracle that reports it, as named on the command line: {@code wss}. */
    String oracle();

    /**
     * Its one spelling: summary.json's {@code kind}, signatures, {@code --kind}, table columns
     * ({@code tx-wss}, {@code lost-update}). A single word: no spaces.
     */
    String label();

    /** What went wrong, for a report's title: "a statement hangs without waiting on a lock". */
    String headline();

    /** The rule this kind breaks and why such an observation breaks it, for a report's explanation. */
    String rule(Setting where);

    /** What it means that nothing the engine documents explains a violation of this kind. */
    default String undocumented(Setting where) {
        return "No isolation level permits this. This is a bug candidate.";
    }

    /** An isolation anomaly of the run's history (the generators' figures count cases that show one). */
    default boolean isAnomaly() {
        return false;
    }

    /**
     * Direct evidence that the engine failed (a crash, a hang, an internal error): among violations
     * of the same classification, such a kind is what a finding is about.
     */
    default boolean engineFailure() {
        return false;
    }

    /** Whether running the case again can re-check it, so the reducer can shrink its case. */
    default boolean reducible() {
        return true;
    }

    /** Where a violation was seen, as reports name it. */
    record Setting(String dbms, IsolationLevel level) {
    }
}
