package txfuzz.target;

import java.util.EnumSet;
import java.util.Set;

/**
 * What a target documents about one isolation level.
 *
 * @param deviations        write-order deviations the engine documents at this level
 * @param serializableReads whether reads must match the commit-order serial schedule (true
 *                          serializability with commit order as serialization order, e.g. 2PL)
 * @param reference         where the engine documents it (URL or manual section)
 */
public record LevelSemantics(Set<Deviation> deviations, boolean serializableReads, String reference) {
    public LevelSemantics {
        deviations = deviations.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(deviations));
    }

    public static LevelSemantics strict(String reference) {
        return new LevelSemantics(Set.of(), true, reference);
    }

    public static LevelSemantics permits(String reference, Deviation... deviations) {
        return new LevelSemantics(Set.of(deviations), false, reference);
    }
}
