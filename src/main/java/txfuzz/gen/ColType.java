package txfuzz.gen;

/** The column types the generator uses; their spelling comes from the dialect. */
enum ColType {
    INT, DOUBLE, VARCHAR;

    boolean numeric() {
        return this != VARCHAR;
    }

    /** Whether values of the two types may be compared with each other everywhere. */
    boolean comparable(ColType other) {
        return this == other || (numeric() && other.numeric());
    }
}
