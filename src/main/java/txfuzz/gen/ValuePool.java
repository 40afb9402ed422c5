package txfuzz.gen;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Values already in the tables (initial rows, constants written by earlier statements), so that
 * about half of all constants hit existing rows and statements collide.
 */
final class ValuePool {
    private static final String LETTERS = "abcde";

    private final Rng rng;
    private final int maxStringLength;
    private final Map<String, List<Object>> byColumn = new LinkedHashMap<>();
    private final Map<ColType, List<Object>> byType = new EnumMap<>(ColType.class);

    ValuePool(Rng rng, int varcharLength) {
        this.rng = rng;
        this.maxStringLength = Math.max(1, Math.min(3, varcharLength));
    }

    void record(Schema.Column c, Object v) {
        if (v == null) {
            return;
        }
        add(byColumn.computeIfAbsent(c.toString(), k -> new ArrayList<>()), v);
        add(byType.computeIfAbsent(c.type, k -> new ArrayList<>()), v);
    }

    private static void add(List<Object> list, Object v) {
        if (!list.contains(v)) {
            list.add(v);
        }
    }

    /** A constant for column {@code c}: half the time one it (or its type) already holds. */
    Object valueFor(Schema.Column c) {
        if (rng.chance(0.5)) {
            List<Object> own = byColumn.get(c.toString());
            if (own != null && !own.isEmpty() && rng.chance(0.75)) {
                return rng.pick(own);
            }
            List<Object> typed = byType.get(c.type);
            if (typed != null && !typed.isEmpty()) {
                return rng.pick(typed);
            }
        }
        return fresh(c.type);
    }

    /** A constant of {@code type}: half the time one the tables already hold. */
    Object valueOf(ColType type) {
        List<Object> typed = byType.get(type);
        if (typed != null && !typed.isEmpty() && rng.chance(0.5)) {
            return rng.pick(typed);
        }
        return fresh(type);
    }

    /** A new value from the type's small domain. */
    Object fresh(ColType type) {
        switch (type) {
            case INT:
                return rng.chance(0.85) ? rng.between(0, 9) : rng.between(-3, 20);
            case DOUBLE:
                // multiples of 1/4 are exact in binary, so sums do not depend on evaluation order
                return rng.chance(0.8) ? rng.between(0, 12) * 0.5 : rng.between(-4, 40) * 0.25;
            default:
                int len = rng.chance(0.6) ? 1 : rng.between(1, maxStringLength);
                StringBuilder sb = new StringBuilder();
                for (int i = 0; i < len; i++) {
                    sb.append(LETTERS.charAt(rng.nextInt(LETTERS.length())));
                }
                return sb.toString();
        }
    }

    /** A small positive step for arithmetic on {@code type}. */
    Object step(ColType type) {
        return type == ColType.DOUBLE ? rng.between(1, 8) * 0.25 : (Object) rng.between(1, 3);
    }
}
