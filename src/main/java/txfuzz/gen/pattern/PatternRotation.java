package txfuzz.gen.pattern;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import txfuzz.model.IsolationLevel;

/**
 * Which pattern a campaign's k-th pattern case at a level is generated from: the patterns that
 * level proscribes, in turn, and every {@value #CONTROL_EVERY}th case one it permits, as a control
 * (a correct engine may realise a control; that it does shows the generator reaches its rows).
 */
public final class PatternRotation {
    public static final int CONTROL_EVERY = 5;

    /** Per level, the patterns it proscribes and those it permits: sorted once, asked for every case. */
    private final Map<IsolationLevel, List<AnomalyPattern>> targets = new EnumMap<>(IsolationLevel.class);
    private final Map<IsolationLevel, List<AnomalyPattern>> controls = new EnumMap<>(IsolationLevel.class);

    public PatternRotation(List<AnomalyPattern> patterns) {
        if (patterns.isEmpty()) {
            throw new IllegalArgumentException("a rotation needs a pattern");
        }
        for (IsolationLevel level : IsolationLevel.values()) {
            targets.put(level, PatternCatalogue.proscribedAt(patterns, level));
            controls.put(level, PatternCatalogue.permittedAt(patterns, level));
        }
    }

    /** The pattern of the {@code k}-th pattern case at {@code level} (k counts from 0). */
    public AnomalyPattern pick(IsolationLevel level, long k) {
        List<AnomalyPattern> targets = this.targets.get(level);
        List<AnomalyPattern> controls = this.controls.get(level);
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
