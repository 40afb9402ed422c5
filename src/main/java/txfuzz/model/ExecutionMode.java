package txfuzz.model;

/** How statements reach the engine: as plain text, or as prepared statements re-used per session. */
public enum ExecutionMode {
    PLAIN, PREPARED
}
