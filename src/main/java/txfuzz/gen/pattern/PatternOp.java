package txfuzz.gen.pattern;

import java.util.List;
import java.util.stream.Collectors;

/**
 * One operation of an anomaly pattern.
 *
 * @param type  what it does
 * @param txn   the transaction (1, 2, 3)
 * @param reads for {@link Type#PREDICATE_READ}, each item the predicate covers with the version it
 *              sees; for the other reads and writes, the one item and the version read or installed;
 *              empty for commit and abort. Version 0 is the initial row; for an item the pattern
 *              inserts, version 0 means "not there yet"
 */
public record PatternOp(Type type, int txn, List<Version> reads) {
    public enum Type {
        /** {@code R1[x0]}: reads item x by its row. */
        READ("R"),
        /** {@code W1[x1]}: updates item x, installing the version. */
        WRITE("W"),
        /** {@code I1[x1]}: inserts item x (its first version). */
        INSERT("I"),
        /** {@code D1[x2]}: deletes item x (the version is the deletion). */
        DELETE("D"),
        /** {@code R1[P:x0,y1]}: reads by a predicate that covers the items listed. */
        PREDICATE_READ("R"),
        /** {@code C1}. */
        COMMIT("C"),
        /** {@code A1}: the transaction rolls back. */
        ABORT("A");

        private final String letter;

        Type(String letter) {
            this.letter = letter;
        }

        public boolean writes() {
            return this == WRITE || this == INSERT || this == DELETE;
        }

        public boolean reads() {
            return this == READ || this == PREDICATE_READ;
        }

        public boolean ends() {
            return this == COMMIT || this == ABORT;
        }
    }

    /** Item {@code item} ("x") at version {@code version}. */
    public record Version(String item, int version) {
        @Override
        public String toString() {
            return item + version;
        }
    }

    public PatternOp {
        reads = List.copyOf(reads);
    }

    /** The item of a single-item read or write. */
    public Version single() {
        if (reads.size() != 1 || type == Type.PREDICATE_READ) {
            throw new IllegalStateException(this + " is not a single-item operation");
        }
        return reads.get(0);
    }

    /** As the catalogue writes it: "R1[x0]", "R2[P:x0,y1]", "C1". */
    @Override
    public String toString() {
        String head = type.letter + txn;
        if (type.ends()) {
            return head;
        }
        String body = reads.stream().map(Version::toString).collect(Collectors.joining(","));
        return head + "[" + (type == Type.PREDICATE_READ ? "P:" : "") + body + "]";
    }
}
