package txfuzz.cli;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import txfuzz.model.IsolationLevel;

/**
 * Elle's names for the consistency models (jepsen-io/elle, elle.consistency-model: {@code :read-uncommitted}
 * is Adya's PL-1 … {@code :strict-serializable} PL-SS), as {@code check --level} takes them, and the
 * level txfuzz checks for each. All but one are checked exactly as Adya defines the level
 * (docs/history-format.md); strict serializability also orders transactions by real time, which a
 * history does not record, so it is checked as serializability (PL-3) only.
 */
final class ElleModels {
    /** An Elle model and what txfuzz checks for it; {@code approximation}: what is not checked, null when nothing. */
    record Model(String name, IsolationLevel level, String approximation) {
    }

    private static final Map<String, Model> MODELS = new LinkedHashMap<>();

    static {
        add("read-uncommitted", IsolationLevel.READ_UNCOMMITTED, null);
        add("read-committed", IsolationLevel.READ_COMMITTED, null);
        add("repeatable-read", IsolationLevel.REPEATABLE_READ, null);
        add("snapshot-isolation", IsolationLevel.SNAPSHOT, null);
        add("serializable", IsolationLevel.SERIALIZABLE, null);
        add("strict-serializable", IsolationLevel.SERIALIZABLE, "a history records no real-time order of its transactions, so"
                + " strict-serializable is checked as serializable (PL-3): a serializable history whose order contradicts real time is not found");
    }

    private ElleModels() {
    }

    private static void add(String name, IsolationLevel level, String approximation) {
        MODELS.put(name, new Model(name, level, approximation));
    }

    /** The model named {@code text} (Elle's spelling, a leading ':' allowed); null when it names none. */
    static Model byName(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        return MODELS.get(t.startsWith(":") ? t.substring(1) : t);
    }

    static String names() {
        return String.join(", ", MODELS.keySet());
    }
}
