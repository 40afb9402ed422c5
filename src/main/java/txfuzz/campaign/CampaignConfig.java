package txfuzz.campaign;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import txfuzz.exec.ExecutorConfig;
import txfuzz.gen.GenConfig;
import txfuzz.gen.Generation;
import txfuzz.model.IsolationLevel;
import txfuzz.reduce.ReduceConfig;

/**
 * @param levels    isolation levels to test, in rotation (case i runs at levels[i % n])
 * @param modes     concurrency modes to rotate through (case i runs at modes[(i / levels) % n]); empty for the target's default
 * @param tests     stop after this many cases (null: no limit)
 * @param time      stop after this long (null: no limit)
 * @param progressEvery how often to print a progress line (null: never)
 * @param execution how statements reach the engine: plain text, prepared statements, or alternating
 * @param reduceTime how long reducing one finding may take; zero turns reduction off
 * @param sessions  0: each case runs in its submitted order through the executor; 2..5: the isolation
 *                  oracle's concurrent mode (IsoRel): larger cases whose transactions that many
 *                  sessions run truly concurrently
 * @param selfCheckEvery instrumented cases only: besides every case with a violation, every this-many-th
 *                  case also runs its plain twin to measure how often row tracking changes the engine's
 *                  behaviour (0: only cases with a violation)
 * @param generation how cases are made: at random, from anomaly patterns, or both in turn
 * @param reduceDocumented whether findings other than bug candidates (documented, not promised) are reduced too, once no
 *                  case waits for a core; when false they are filed as found, status {@code on-request}, for {@code txfuzz reduce}
 */
public record CampaignConfig(List<IsolationLevel> levels, List<String> modes, List<String> oracles, Integer tests, Duration time, long seed,
                            Path out, GenConfig gen, ExecutorConfig executor, Duration progressEvery, Execution execution,
                            Duration reduceTime, int sessions, int selfCheckEvery, Generation generation, boolean reduceDocumented) {
    /** Every tenth case: the disagreement rate at a tenth of the extra runs. */
    public static final int DEFAULT_SELF_CHECK_EVERY = 10;

    /** PLAIN or PREPARED for every case, or MIXED: every other case prepared. */
    public enum Execution { PLAIN, PREPARED, MIXED }

    public CampaignConfig {
        levels = List.copyOf(levels);
        modes = List.copyOf(modes);
        oracles = List.copyOf(oracles);
        reduceTime = reduceTime == null ? ReduceConfig.defaults().budget() : reduceTime;
        if (reduceTime.isNegative()) {
            throw new IllegalArgumentException("the reduction time must not be negative");
        }
        if (sessions != 0 && (sessions < 2 || sessions > 5)) {
            throw new IllegalArgumentException("sessions must be 0 (controlled runs) or 2 to 5, not " + sessions);
        }
        generation = generation == null ? Generation.random() : generation;
        if (generation.kind() != Generation.Kind.RANDOM && sessions != 0) {
            throw new IllegalArgumentException("pattern cases run in their pattern's order: concurrent sessions do not apply to them");
        }
        if (selfCheckEvery < 0) {
            throw new IllegalArgumentException("the self-check interval must not be negative");
        }
    }

    /** Every finding reducible is reduced (documented ones once no case waits for a core). */
    public CampaignConfig(List<IsolationLevel> levels, List<String> modes, List<String> oracles, Integer tests, Duration time, long seed,
                          Path out, GenConfig gen, ExecutorConfig executor, Duration progressEvery, Execution execution, Duration reduceTime,
                          int sessions, int selfCheckEvery, Generation generation) {
        this(levels, modes, oracles, tests, time, seed, out, gen, executor, progressEvery, execution, reduceTime, sessions, selfCheckEvery, generation,
                true);
    }

    /** Random cases. */
    public CampaignConfig(List<IsolationLevel> levels, List<String> modes, List<String> oracles, Integer tests, Duration time, long seed,
                          Path out, GenConfig gen, ExecutorConfig executor, Duration progressEvery, Execution execution, Duration reduceTime,
                          int sessions, int selfCheckEvery) {
        this(levels, modes, oracles, tests, time, seed, out, gen, executor, progressEvery, execution, reduceTime, sessions, selfCheckEvery, null);
    }

    /** With the default self-check interval. */
    public CampaignConfig(List<IsolationLevel> levels, List<String> modes, List<String> oracles, Integer tests, Duration time, long seed,
                          Path out, GenConfig gen, ExecutorConfig executor, Duration progressEvery, Execution execution, Duration reduceTime,
                          int sessions) {
        this(levels, modes, oracles, tests, time, seed, out, gen, executor, progressEvery, execution, reduceTime, sessions, DEFAULT_SELF_CHECK_EVERY, null);
    }

    /** Controlled runs. */
    public CampaignConfig(List<IsolationLevel> levels, List<String> modes, List<String> oracles, Integer tests, Duration time, long seed,
                          Path out, GenConfig gen, ExecutorConfig executor, Duration progressEvery, Execution execution, Duration reduceTime) {
        this(levels, modes, oracles, tests, time, seed, out, gen, executor, progressEvery, execution, reduceTime, 0, DEFAULT_SELF_CHECK_EVERY, null);
    }

    /** With the default reduction budget ({@link ReduceConfig#defaults()}). */
    public CampaignConfig(List<IsolationLevel> levels, List<String> modes, List<String> oracles, Integer tests, Duration time, long seed,
                          Path out, GenConfig gen, ExecutorConfig executor, Duration progressEvery, Execution execution) {
        this(levels, modes, oracles, tests, time, seed, out, gen, executor, progressEvery, execution, null, 0, DEFAULT_SELF_CHECK_EVERY, null);
    }

    public boolean reduces() {
        return !reduceTime.isZero();
    }

    public CampaignConfig withReduceTime(Duration d) {
        return new CampaignConfig(levels, modes, oracles, tests, time, seed, out, gen, executor, progressEvery, execution, d, sessions, selfCheckEvery, generation, reduceDocumented);
    }

    public CampaignConfig withSessions(int n) {
        return new CampaignConfig(levels, modes, oracles, tests, time, seed, out, gen, executor, progressEvery, execution, reduceTime, n, selfCheckEvery, generation, reduceDocumented);
    }

    public CampaignConfig withSelfCheckEvery(int n) {
        return new CampaignConfig(levels, modes, oracles, tests, time, seed, out, gen, executor, progressEvery, execution, reduceTime, sessions, n, generation, reduceDocumented);
    }

    public CampaignConfig withGeneration(Generation g) {
        return new CampaignConfig(levels, modes, oracles, tests, time, seed, out, gen, executor, progressEvery, execution, reduceTime, sessions, selfCheckEvery, g, reduceDocumented);
    }

    public boolean concurrent() {
        return sessions > 0;
    }
}
