package txfuzz.gen.pattern;

/** A pattern or a catalogue line that cannot be read; the message says where and why. */
public final class PatternFormatException extends Exception {
    public PatternFormatException(String message) {
        super(message);
    }
}
