package txfuzz.model;

/** A case file that cannot be read, with a message that says where and why. */
public final class CaseFormatException extends Exception {
    public CaseFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
