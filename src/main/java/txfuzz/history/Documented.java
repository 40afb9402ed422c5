package txfuzz.history;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;

/**
 * The anomalies an engine documents at one level, each with the shape of cycle its manual describes
 * ({@link CycleCondition}). A finding is covered when its kind, or a generalisation of it ({@link Anomaly#parent()}), is
 * documented and its witness cycle has that kind's shape: a profile documenting G-single only for cycles closed by a locking
 * read or DML does not cover a non-repeatable read between two plain reads.
 */
public record Documented(Map<Anomaly, CycleCondition> shapes, Set<Anomaly> measured) {
    public static final Documented NONE = new Documented(Map.of());

    /**
     * @param measured the kinds among {@code shapes}' whose shape is a behaviour txfuzz measured, not one the manual
     *                 describes: a finding they cover is not promised rather than documented
     */
    public Documented {
        EnumMap<Anomaly, CycleCondition> m = new EnumMap<>(Anomaly.class);
        m.putAll(shapes);
        shapes = Collections.unmodifiableMap(m);
        measured = measured.isEmpty() ? Set.of() : Collections.unmodifiableSet(java.util.EnumSet.copyOf(measured));
    }

    public Documented(Map<Anomaly, CycleCondition> shapes) {
        this(shapes, Set.of());
    }

    /** Each of {@code kinds} in any shape. */
    public static Documented anyShape(Set<Anomaly> kinds) {
        Map<Anomaly, CycleCondition> m = new EnumMap<>(Anomaly.class);
        kinds.forEach(a -> m.put(a, CycleCondition.ANY));
        return new Documented(m);
    }

    /** The same, with {@code kinds} documented only in {@code shape} (added when not documented yet). */
    public Documented onlyIn(CycleCondition shape, Anomaly... kinds) {
        Map<Anomaly, CycleCondition> m = new EnumMap<>(Anomaly.class);
        m.putAll(shapes);
        for (Anomaly a : kinds) {
            m.put(a, shape);
        }
        Set<Anomaly> stillMeasured = new java.util.HashSet<>(measured);
        stillMeasured.removeAll(Set.of(kinds));
        return new Documented(m, stillMeasured);
    }

    /** The same, with {@code kinds} covered only in {@code shape} by a measured behaviour. */
    public Documented measuredIn(CycleCondition shape, Anomaly... kinds) {
        Documented d = onlyIn(shape, kinds);
        Set<Anomaly> m = new java.util.HashSet<>(d.measured);
        m.addAll(Set.of(kinds));
        return new Documented(d.shapes, m);
    }

    /**
     * Whether the entry that covers a finding of kind {@code anomaly} with witness {@code cycle} ({@link #covers}) is a
     * measured behaviour rather than the manual's words.
     */
    public boolean coveredByMeasurement(Anomaly anomaly, java.util.List<Dep> cycle) {
        for (Anomaly a = anomaly; a != null; a = a.parent()) {
            CycleCondition c = shapes.get(a);
            if (c != null && c.holds(cycle)) {
                return measured.contains(a);
            }
        }
        return false;
    }

    /** The kinds documented in some shape. */
    public Set<Anomaly> kinds() {
        return shapes.keySet();
    }

    public boolean isEmpty() {
        return shapes.isEmpty();
    }

    /** Whether a finding of kind {@code anomaly} with witness {@code cycle} is documented. */
    public boolean covers(Anomaly anomaly, java.util.List<Dep> cycle) {
        for (Anomaly a = anomaly; a != null; a = a.parent()) {
            CycleCondition c = shapes.get(a);
            if (c != null && c.holds(cycle)) {
                return true;
            }
        }
        return false;
    }

    /** The shape in which {@code anomaly} (or the kind it refines) is documented, or null. */
    public CycleCondition shapeOf(Anomaly anomaly) {
        for (Anomaly a = anomaly; a != null; a = a.parent()) {
            if (shapes.containsKey(a)) {
                return shapes.get(a);
            }
        }
        return null;
    }
}
