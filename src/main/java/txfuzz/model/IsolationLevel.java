package txfuzz.model;

import java.util.Locale;

/** The isolation levels txfuzz knows; each target says which of them it offers. */
public enum IsolationLevel {
    READ_UNCOMMITTED("RU"),
    READ_COMMITTED("RC"),
    REPEATABLE_READ("RR"),
    SNAPSHOT("SI"),
    SERIALIZABLE("SER");

    private final String shortName;

    IsolationLevel(String shortName) {
        this.shortName = shortName;
    }

    public String shortName() {
        return shortName;
    }

    /** SQL spelling, e.g. "REPEATABLE READ". */
    public String sql() {
        return name().replace('_', ' ');
    }

    /** Accepts "READ_COMMITTED", "read committed", "rc" and the like; null when unknown. */
    public static IsolationLevel parse(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT).replace(' ', '_').replace('-', '_');
        for (IsolationLevel level : values()) {
            if (level.name().equals(t) || level.shortName.equals(t)) {
                return level;
            }
        }
        return null;
    }
}
