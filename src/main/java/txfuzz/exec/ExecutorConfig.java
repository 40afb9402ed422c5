package txfuzz.exec;

import java.time.Duration;

/**
 * @param blockTimeout  only for targets without a lock probe: a statement that has not answered
 *                      by then counts as blocked
 * @param stallTimeout  how long every remaining transaction may wait before the executor decides the
 *                      engine will not break the cycle itself and cancels one
 * @param statementTimeout a statement that neither finishes nor waits on a lock for this long is hung
 *                      (the generated databases hold a few rows: every statement takes milliseconds)
 */
public record ExecutorConfig(Duration blockTimeout, Duration stallTimeout, Duration statementTimeout) {
    public static ExecutorConfig defaults() {
        return new ExecutorConfig(Duration.ofMillis(500), Duration.ofSeconds(2), Duration.ofSeconds(2));
    }

    /** A timeout as a report gives it: "2 s", or "250 ms" under a second. */
    static String shortText(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }
}
