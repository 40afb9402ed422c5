package txfuzz.oracle;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;
import txfuzz.model.StmtRef;

/**
 * What singles one violation out among the violations of its kind: the statements it is about and
 * which way the run differed from what was expected. Two runs show the same violation when their
 * identities are equal, once the statements of the second are named by their origin in the first
 * case (a reduced case renumbers what it kept).
 *
 * @param statements the statements the violation is about, in the case that was run (empty: it is
 *                   about none in particular, e.g. a final state)
 * @param direction  which way the difference goes, in words that do not depend on the case's values:
 *                   {@code failed, serial succeeded}, {@code affected more rows than serial}, {@code
 *                   rows missing}, a cycle's shape, an error's SQLState
 */
public record ViolationIdentity(List<StmtRef> statements, String direction) {
    public ViolationIdentity {
        statements = List.copyOf(statements);
        Objects.requireNonNull(direction, "direction");
    }

    public static ViolationIdentity of(StmtRef statement, String direction) {
        return new ViolationIdentity(statement == null ? List.of() : List.of(statement), direction);
    }

    /**
     * The same identity with each statement named by {@code origin} (a statement it cannot name,
     * null, makes the identity name none of the original's: it never equals theirs).
     */
    public ViolationIdentity mapped(UnaryOperator<StmtRef> origin) {
        List<StmtRef> out = new ArrayList<>();
        for (StmtRef r : statements) {
            StmtRef o = origin.apply(r);
            out.add(o == null ? new StmtRef(-1, -1) : o);
        }
        return new ViolationIdentity(out, direction);
    }

    /** e.g. {@code T2.3 affected fewer rows than serial}. */
    @Override
    public String toString() {
        return (statements.isEmpty() ? "" : String.join(", ", statements.stream().map(StmtRef::toString).toList()) + " ") + direction;
    }
}
