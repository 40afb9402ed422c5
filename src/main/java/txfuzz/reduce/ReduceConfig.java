package txfuzz.reduce;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * @param budget how long one reduction may take: a hard limit. No candidate run starts that the
 *               longest run seen so far says cannot finish in time, so the budget is exceeded by at
 *               most one run (the first run of the case as given, whose length nothing predicts).
 *               When it runs out, reduction stops with the best confirmed case found so far.
 * @param stop   asked between runs; true stops the reduction at once as interrupted (Ctrl-C)
 */
public record ReduceConfig(Duration budget, BooleanSupplier stop) {
    public ReduceConfig {
        stop = stop == null ? () -> false : stop;
    }

    public ReduceConfig(Duration budget) {
        this(budget, null);
    }

    public static ReduceConfig defaults() {
        return new ReduceConfig(Duration.ofSeconds(30));
    }
}
