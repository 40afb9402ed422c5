package txfuzz.oracle;

import com.fasterxml.jackson.annotation.JsonValue;

/** How much a violation deserves a DBMS developer's time. */
public enum Classification {
    /** Breaks what the engine documents: worth reporting. */
    BUG_CANDIDATE("bug-candidate"),
    /** Explained by behaviour the engine documents at this level (the reference says where). */
    DOCUMENTED("documented"),
    /** Seen once, not reproduced by a re-run. */
    FLAKY("flaky"),
    /**
     * Seen on the instrumented case only: its plain twin, run in the same order, behaved differently
     * (the campaign's instrumentation self-check), so the violation is about txfuzz's row tracking.
     */
    INSTRUMENTATION_EFFECT("instrumentation-effect");

    private final String label;

    Classification(String label) {
        this.label = label;
    }

    @JsonValue
    public String label() {
        return label;
    }
}
