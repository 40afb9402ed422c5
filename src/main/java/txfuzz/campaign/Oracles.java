package txfuzz.campaign;

import txfuzz.model.Tracking;
import txfuzz.model.TestCase;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import txfuzz.oracle.Oracle;
import txfuzz.oracle.Violation;
import txfuzz.oracle.ViolationKind;
import txfuzz.oracle.explicit.ExplicitOracle;
import txfuzz.oracle.equiv.EquivOracle;
import txfuzz.oracle.isolation.IsolationOracle;
import txfuzz.oracle.wss.WssOracle;

/**
 * The registry of oracles by command-line name: a new oracle is its package plus one line here.
 * Everything else asks the oracles (their kinds, capabilities and verdicts), never their names.
 */
public final class Oracles {
    private static final Map<String, Supplier<Oracle>> FACTORIES = new LinkedHashMap<>();

    static {
        register(WssOracle::new);
        register(ExplicitOracle::new);
        register(IsolationOracle::new);
        register(EquivOracle::new);
    }

    private static void register(Supplier<Oracle> factory) {
        FACTORIES.put(factory.get().name(), factory);
    }

    private Oracles() {
    }

    /** Whether these oracles need cases generated with rowId/wList instrumentation (e.g. the isolation oracle's history). */
    public static boolean needInstrumentation(List<String> names) {
        return names.stream().map(n -> FACTORIES.get(n.trim())).anyMatch(f -> f != null && f.get().needsRowTracking());
    }

    /**
     * The oracles a recorded case needs when none are named: wss and explicit for every case; the
     * isolation oracle for a case with row tracking (it was made for it, and only it reads the rows'
     * versions); the equiv oracle for a case with version-set reads (only it adds them).
     */
    public static List<String> forCase(TestCase c) {
        List<String> out = new ArrayList<>(List.of("wss", "explicit"));
        List<Tracking.Role> roles = c.transactions().stream().flatMap(t -> t.statements().stream()).map(s -> s.tracking())
                .filter(java.util.Objects::nonNull).map(Tracking::role).toList();
        if (!roles.isEmpty()) {
            out.add("isolation");
        }
        if (roles.contains(Tracking.Role.VERSION_SET_READ)) {
            out.add("equiv");
        }
        return List.copyOf(out);
    }

    public static List<String> names() {
        return List.copyOf(FACTORIES.keySet());
    }

    /** Every violation kind of every oracle, in registration order. */
    public static List<ViolationKind> kinds() {
        List<ViolationKind> out = new ArrayList<>();
        FACTORIES.values().forEach(f -> out.addAll(f.get().kinds()));
        return List.copyOf(out);
    }

    /** The kind spelled {@code label} (its one spelling, e.g. "lost-update"), of any oracle. */
    public static java.util.Optional<ViolationKind> kind(String label) {
        return kinds().stream().filter(k -> k.label().equals(label)).findFirst();
    }

    /**
     * The engine failed outside any single statement of a run (it could not open, read back or
     * replay): a finding whichever oracles run, reported as the explicit oracle's engine failure.
     */
    public static Violation engineFailure(String when, Exception e) {
        return ExplicitOracle.engineFailure(when, e);
    }

    /** Oracles by name; IllegalArgumentException naming the known ones for an unknown name. */
    public static List<Oracle> create(List<String> names) {
        List<Oracle> out = new ArrayList<>();
        if (names.isEmpty()) {
            throw new IllegalArgumentException("no oracle named; known: " + String.join(", ", names()));
        }
        for (String n : names) {
            Supplier<Oracle> f = FACTORIES.get(n.trim());
            if (f == null) {
                throw new IllegalArgumentException("unknown oracle '" + n.trim() + "'; known: " + String.join(", ", names()));
            }
            out.add(f.get());
        }
        return out;
    }
}
