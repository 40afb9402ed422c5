package txfuzz.gen.pattern;

import java.util.List;
import txfuzz.model.IsolationLevel;

/**
 * Which pattern a campaign's k-th pattern case at a level is generated from: the patterns that
 * level proscribes, in turn, and every {@value #CONTROL_EVERY}th case one it permits, as a control
 * (a correct engine may realise a control; that it does shows the generator reaches its rows).
 *
 * @param patterns the patterns to rotate through (the --patterns selection)
 */
public record PatternRotation(List<AnomalyPattern> patterns) {
    public static final int CONTROL_EVERY = 5;

    public PatternRotation {
        patterns = List.copyOf(patterns);
        if (patterns.isEmpty()) {
            throw new IllegalArgumentException("a rotation needs a pattern");
        }
    }

    /** The pattern of the {@code k}-th pattern case at {@code level} (k counts from 0). */
    public AnomalyPattern pick(IsolationLevel level, long k) {
        List<AnomalyPattern> targets = PatternCatalogue.proscribedAt(patterns, level);
        List<AnomalyPattern> controls = PatternCatalogue.permittedAt(patterns, level);
        if (targets.isEmpty()) {
            return controls.get((int) (k % controls.size()));
        }
        if (controls.isEmpty()) {
            return targets.get((int) (k % targets.size()));
        }
        long controlsBefore = k / CONTROL_EVERY;
        if (k % CONTROL_EVERY == CONTROL_EVERY - 1) {
            return controls.get((int) (controlsBefore % controls.size()));
        }
        return targets.get((int) ((k - controlsBefore) % targets.size()));
    }
}
