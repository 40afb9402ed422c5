package txfuzz.imports;

/** A schedule, statement or file that a case cannot express; the message is the one-line reason. */
final class Unexpressible extends Exception {
    Unexpressible(String reason) {
        super(reason, null, false, false);
    }
}
