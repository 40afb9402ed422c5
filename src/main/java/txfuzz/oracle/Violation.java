package txfuzz.oracle;

/**
 * One thing an oracle found wrong.
 *
 * @param oracle         which oracle, e.g. "wss"
 * @param kind           what kind of violation, e.g. "tx-wss", "write-outcome", "engine-error"
 * @param classification bug candidate, documented behaviour or flaky
 * @param summary        one line for listings
 * @param details        the evidence, as Markdown: expected vs. actual, differing rows
 * @param reference      for documented behaviour, where the engine documents it; else null
 */
public record Violation(String oracle, String kind, Classification classification, String summary, String details,
                        String reference) {
    public Violation withClassification(Classification c, String ref) {
        return new Violation(oracle, kind, c, summary, details, ref);
    }
}
