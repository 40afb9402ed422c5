package txfuzz.campaign;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where a campaign's cases spend their time, by phase (generation, the run, each oracle's judging, confirmation,
 * the self-check, filing): the clock time of every thread that timed a phase, summed, for {@code bench}'s cost table.
 * A phase timed inside another counts as the outer one (an oracle judging a confirmation's run is confirmation), so
 * every nanosecond is counted once and the phases add up. Safe for several workers at once.
 */
public final class CaseCosts {
    public static final String GENERATION = "generation";
    public static final String RUN = "run";
    public static final String CONFIRMATION = "confirmation";
    public static final String SELF_CHECK = "self-check";
    /** Filing a finding (and reducing it) on the worker, or handing it to the filer when there are several workers. */
    public static final String FILING = "filing";
    /** Filing and reducing on the filer thread of several workers: beside the workers' time, not part of it. */
    public static final String FILER = "filer";

    /** Times nothing: for judges outside a campaign. */
    public static final CaseCosts NONE = new CaseCosts(false);

    /** The phase an oracle's judging of a case's first run is timed as. */
    public static String oracle(String name) {
        return "oracle " + name;
    }

    /** One phase's clock time and how often it was entered (as the outermost phase). */
    public record Phase(String name, long nanos, long times) {
    }

    /** Stops timing its phase when closed. */
    public interface Timing extends AutoCloseable {
        @Override
        void close();
    }

    private static final Timing NOTHING = () -> { };

    private final boolean enabled;
    private final Map<String, Tally> tallies = new ConcurrentHashMap<>();
    /** How many phases this thread is inside: only the outermost is counted. */
    private final ThreadLocal<int[]> depth = ThreadLocal.withInitial(() -> new int[1]);

    public CaseCosts() {
        this(true);
    }

    private CaseCosts(boolean enabled) {
        this.enabled = enabled;
    }

    /** Starts timing {@code phase} on this thread; close it when the phase ends (try-with-resources). */
    public Timing time(String phase) {
        if (!enabled) {
            return NOTHING;
        }
        int[] d = depth.get();
        d[0]++;
        if (d[0] > 1) {
            return () -> d[0]--;
        }
        long start = System.nanoTime();
        return () -> {
            d[0]--;
            Tally t = tallies.computeIfAbsent(phase, k -> new Tally(new LongAdder(), new LongAdder()));
            t.nanos().add(System.nanoTime() - start);
            t.times().increment();
        };
    }

    /** Every phase timed so far, in no particular order. */
    public List<Phase> phases() {
        List<Phase> out = new ArrayList<>();
        tallies.forEach((name, t) -> out.add(new Phase(name, t.nanos().sum(), t.times().sum())));
        return out;
    }

    /** The clock time of {@code phase} so far, in nanoseconds (0 if it never ran). */
    public long nanos(String phase) {
        Tally t = tallies.get(phase);
        return t == null ? 0 : t.nanos().sum();
    }

    private record Tally(LongAdder nanos, LongAdder times) {
    }
}
