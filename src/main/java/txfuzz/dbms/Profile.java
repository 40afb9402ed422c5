package txfuzz.dbms;

import java.util.EnumMap;
import java.util.Map;
import txfuzz.model.IsolationLevel;

/** What a DBMS documents about each of its isolation levels. A violation it permits is documented behaviour. */
public record Profile(Map<IsolationLevel, LevelSemantics> levels) {
    public Profile {
        levels = Map.copyOf(new EnumMap<>(levels));
    }

    public LevelSemantics at(IsolationLevel level) {
        LevelSemantics s = levels.get(level);
        if (s == null) {
            throw new IllegalArgumentException("profile has no entry for " + level);
        }
        return s;
    }

    /** What the DBMS documents at {@code level}; nothing documented when the profile has no entry for it. */
    public LevelSemantics atOrNothing(IsolationLevel level) {
        return levels.getOrDefault(level, new LevelSemantics(java.util.Set.of(), false, null));
    }
}
