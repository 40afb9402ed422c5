package txfuzz.oracle.diff;

import java.util.Optional;
import java.util.function.Function;
import txfuzz.dbms.Target;
import txfuzz.model.ExecutionMode;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;

/**
 * A subject the diff oracle compares the primary run with: its label as the user named it, its live target
 * (opened and closed by whoever made it), which of its levels keeps the promise of each primary level
 * (a snapshot level of one engine may keep what another calls REPEATABLE READ; a level with no partner is not
 * compared), and its own
 * concurrency mode and execution style.
 *
 * @param mode      the target's mode to run in; null: the case's mode where the target has it, else its default
 * @param execution plain or prepared; null: as the case says
 */
public record OtherSubject(String label, Target target, Function<IsolationLevel, Optional<IsolationLevel>> levels, String mode,
                           ExecutionMode execution) {
    public OtherSubject(String label, Target target, Function<IsolationLevel, Optional<IsolationLevel>> levels) {
        this(label, target, levels, null, null);
    }

    /** Levels paired by name, where the other subject offers the level. */
    public static OtherSubject sameLevels(String label, Target target) {
        return new OtherSubject(label, target, l -> target.isolationLevels().contains(l) ? Optional.of(l) : Optional.empty());
    }

    /** The primary's case as this subject runs it; empty when its level has no partner here. */
    Optional<TestCase> caseFor(TestCase primary) {
        Optional<IsolationLevel> level = levels.apply(primary.isolation());
        if (level.isEmpty()) {
            return Optional.empty();
        }
        String m = mode != null ? mode : target.modes().contains(primary.mode()) ? primary.mode() : target.modes().get(0);
        TestCase c = new TestCase(primary.formatVersion(), target.name(), primary.seed(), primary.iteration(), level.get(), m,
                execution != null ? execution : primary.execution(), primary.tables(), primary.setup(), primary.transactions(), primary.order(),
                primary.origin(), null);
        return Optional.of(c);
    }
}
