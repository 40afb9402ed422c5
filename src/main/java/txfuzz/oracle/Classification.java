package txfuzz.oracle;

import com.fasterxml.jackson.annotation.JsonValue;

/** How much a violation deserves a DBMS developer's time. */
public enum Classification {
    /** Breaks what the engine documents: worth reporting. */
    BUG_CANDIDATE("bug-candidate"),
    /** Explained by behaviour the engine documents at this level: the reference quotes the manual's sentence that describes it. */
    DOCUMENTED("documented"),
    /**
     * Breaks only txfuzz's own stricter expectation (write-specific serializability, or an anomaly the engine's manual
     * does not rule out) while every promise the level makes holds: the standard level the engine claims (Adya's PL
     * levels) and its manual's own words. Explained by behaviour txfuzz measured or by what the standard level permits,
     * never by a manual's sentence (that would be {@link #DOCUMENTED}). Counted, not filed as a finding unless asked for.
     */
    NOT_PROMISED("not-promised"),
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
