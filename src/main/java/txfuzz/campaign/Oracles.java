package txfuzz.campaign;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import txfuzz.gen.Generation;
import txfuzz.model.TestCase;
import txfuzz.oracle.OracleContext;
import txfuzz.oracle.OracleRegistration;
import txfuzz.oracle.Violation;
import txfuzz.oracle.ViolationKind;
import txfuzz.oracle.diff.DiffOracle;
import txfuzz.oracle.equiv.EquivOracle;
import txfuzz.oracle.explicit.ExplicitOracle;
import txfuzz.oracle.isolation.IsolationOracle;
import txfuzz.oracle.wss.WssOracle;

/**
 * The registry of oracles by command-line name: a new oracle is its package plus one line here.
 * Everything else asks the registrations (their kinds and capabilities) and the oracles (their
 * verdicts), never their names; no question about capabilities makes an oracle.
 */
public final class Oracles {
    private static final Map<String, OracleRegistration> REGISTERED = new LinkedHashMap<>();

    static {
        register(WssOracle.REGISTRATION);
        register(ExplicitOracle.REGISTRATION);
        register(IsolationOracle.REGISTRATION);
        register(EquivOracle.REGISTRATION);
        register(DiffOracle.REGISTRATION);
    }

    private static void register(OracleRegistration r) {
        REGISTERED.put(r.name(), r);
    }

    private Oracles() {
    }

    public static List<String> names() {
        return List.copyOf(REGISTERED.keySet());
    }

    /** The registration of {@code name}; IllegalArgumentException naming the known ones for an unknown name. */
    public static OracleRegistration registration(String name) {
        OracleRegistration r = REGISTERED.get(name.trim());
        if (r == null) {
            throw new IllegalArgumentException("unknown oracle '" + name.trim() + "'; known: " + String.join(", ", names()));
        }
        return r;
    }

    /** The oracle that compares subjects (the first registered, when several do); empty when none does. */
    public static Optional<OracleRegistration> comparingSubjects() {
        return REGISTERED.values().stream().filter(OracleRegistration::comparesSubjects).findFirst();
    }

    /**
     * The oracle that judges row-level histories on their own (the first registered, when several do), for the commands built on
     * its judgement (check, isolation-table).
     */
    public static OracleRegistration judgingHistories() {
        return REGISTERED.values().stream().filter(r -> r.histories() != null).findFirst()
                .orElseThrow(() -> new IllegalStateException("no registered oracle judges row-level histories"));
    }

    /** Whether these oracles need cases generated with rowId/wList instrumentation (e.g. an oracle reading rows' versions). */
    public static boolean needInstrumentation(List<String> names) {
        return names.stream().map(n -> REGISTERED.get(n.trim())).anyMatch(r -> r != null && r.needsRowTracking());
    }

    /** The oracles that judge one subject and need row tracking, in registration order: those an imported case's instrumentation makes applicable. */
    public static List<String> needingRowTracking() {
        return REGISTERED.values().stream().filter(r -> r.needsRowTracking() && !r.comparesSubjects()).map(OracleRegistration::name).toList();
    }

    /** The oracles a recorded case needs when none are named (each registration says which cases it judges), in registration order. */
    public static List<String> forCase(TestCase c) {
        return REGISTERED.values().stream().filter(r -> r.judgesRecordedCase().test(c)).map(OracleRegistration::name).toList();
    }

    /** The oracles a campaign of {@code generator} runs when --oracle is not given, in registration order. */
    public static List<String> defaults(Generation.Kind generator) {
        return REGISTERED.values().stream().filter(r -> r.defaultFor().contains(generator)).map(OracleRegistration::name).toList();
    }

    /** The oracles whose verdicts on uncontrolled (concurrent) runs mean something. */
    public static List<String> judgingUncontrolledRuns() {
        return REGISTERED.values().stream().filter(OracleRegistration::judgesUncontrolledRuns).map(OracleRegistration::name).toList();
    }

    /** Every violation kind of every oracle, in registration order. */
    public static List<ViolationKind> kinds() {
        List<ViolationKind> out = new ArrayList<>();
        REGISTERED.values().forEach(r -> out.addAll(r.kinds()));
        return List.copyOf(out);
    }

    /** The kind spelled {@code label} (its one spelling, e.g. "lost-update"), of any oracle. */
    public static Optional<ViolationKind> kind(String label) {
        return kinds().stream().filter(k -> k.label().equals(label)).findFirst();
    }

    /**
     * The engine failed outside any single statement of a run (it could not open, read back or
     * replay): a finding whichever oracles run, reported by the oracle that reports engine failures.
     */
    public static Violation engineFailure(String when, Exception e) {
        return REGISTERED.values().stream().filter(r -> r.engineFailure() != null).findFirst()
                .orElseThrow(() -> new IllegalStateException("no registered oracle reports engine failures", e))
                .engineFailure().apply(when, e);
    }

    /** The oracles named, made for {@code context}; IllegalArgumentException naming the known ones for an unknown name. */
    public static OracleSet create(List<String> names, OracleContext context) {
        if (names.isEmpty()) {
            throw new IllegalArgumentException("no oracle named; known: " + String.join(", ", names()));
        }
        List<OracleRegistration> chosen = names.stream().map(Oracles::registration).toList();
        if (chosen.stream().anyMatch(OracleRegistration::comparesSubjects) && context.subjects().size() < 2) {
            throw new IllegalArgumentException("oracle " + String.join(", ", chosen.stream().filter(OracleRegistration::comparesSubjects)
                    .map(OracleRegistration::name).toList()) + " compares subjects: name two or more with --subjects");
        }
        // a comparing oracle asks each side's own verdict: the named oracles that judge one subject, else the defaults
        List<String> own = chosen.stream().filter(r -> !r.comparesSubjects()).map(OracleRegistration::name).toList();
        List<String> ownNames = own.isEmpty() ? defaults(Generation.Kind.RANDOM) : own;
        OracleContext withOwn = context.withOwnOracles(
                t -> new OracleSet(ownNames.stream().map(Oracles::registration).toList(), OracleContext.of(t, context.executor())).oracles());
        return new OracleSet(chosen, withOwn);
    }

    /** Unknown names as an IllegalArgumentException naming the known ones, before anything is made. */
    public static void check(List<String> names) {
        if (names.isEmpty()) {
            throw new IllegalArgumentException("no oracle named; known: " + String.join(", ", names()));
        }
        names.forEach(Oracles::registration);
    }
}
