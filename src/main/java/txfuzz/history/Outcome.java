package txfuzz.history;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** How a transaction ended, as far as the client knows. */
public enum Outcome {
    /** The engine committed it (learned from the engine, not from {@code commit()} returning). */
    COMMITTED,
    /** Rolled back: by the test's ROLLBACK or by the engine (deadlock, conflict, error). */
    ABORTED,
    /**
     * The client cannot tell (connection lost during COMMIT, say). Like Elle's {@code :info}: it is
     * treated as committed once a committed transaction observed one of its writes, and ignored
     * otherwise.
     */
    UNKNOWN;

    @JsonValue
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static Outcome parse(String s) {
        for (Outcome o : values()) {
            if (o.label().equalsIgnoreCase(s)) {
                return o;
            }
        }
        throw new IllegalArgumentException("outcome must be committed, aborted or unknown, not \"" + s + "\"");
    }
}
