package txfuzz.reduce;

import java.time.Duration;

/** @param budget how long one reduction may take; reduction stops with the best case found so far when it runs out */
public record ReduceConfig(Duration budget) {
    public static ReduceConfig defaults() {
        return new ReduceConfig(Duration.ofSeconds(30));
    }
}
