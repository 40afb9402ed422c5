package txfuzz.oracle.diff;

import java.util.Optional;
import java.util.function.Function;
import txfuzz.dbms.Target;
import txfuzz.model.IsolationLevel;

/**
 * A subject the diff oracle compares the primary run with: its label as the user named it, its live target
 * (opened and closed by whoever made it) and which of its levels keeps the promise of each primary level
 * (H2 SNAPSHOT ↔ PostgreSQL REPEATABLE READ); a level with no partner is not compared.
 */
public record OtherSubject(String label, Target target, Function<IsolationLevel, Optional<IsolationLevel>> levels) {
    /** Levels paired by name, where the other subject offers the level. */
    public static OtherSubject sameLevels(String label, Target target) {
        return new OtherSubject(label, target, l -> target.isolationLevels().contains(l) ? Optional.of(l) : Optional.empty());
    }
}
