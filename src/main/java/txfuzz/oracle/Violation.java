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
 * @param attachments    extra files for the finding's folder, name → content (e.g. "cycle.dot"); may be empty
 */
public record Violation(String oracle, String kind, Classification classification, String summary, String details,
                        String reference, java.util.Map<String, String> attachments) {
    public Violation {
        attachments = attachments == null ? java.util.Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(attachments));
    }

    public Violation(String oracle, String kind, Classification classification, String summary, String details, String reference) {
        this(oracle, kind, classification, summary, details, reference, java.util.Map.of());
    }

    public Violation withClassification(Classification c, String ref) {
        return new Violation(oracle, kind, c, summary, details, ref, attachments);
    }
}
