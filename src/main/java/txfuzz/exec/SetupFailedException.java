package txfuzz.exec;

/** The test case's setup SQL failed: the case is invalid for this target, not a finding. */
public final class SetupFailedException extends Exception {
    public SetupFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
