package txfuzz.history;

/** A history file that cannot be read; the message says where ({@code file:line[:column]: reason}). */
public final class HistoryFormatException extends Exception {
    public HistoryFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
