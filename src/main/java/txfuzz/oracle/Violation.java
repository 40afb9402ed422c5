package txfuzz.oracle;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One thing an oracle found wrong.
 *
 * @param kind           what kind of violation, declared by its oracle (which it names)
 * @param classification bug candidate, documented behaviour or flaky
 * @param summary        one line for listings
 * @param details        the evidence, as Markdown: expected vs. actual, differing rows
 * @param reference      for documented behaviour, where the engine documents it; else null
 * @param attachments    extra files for the finding's folder, name → content (e.g. "cycle.dot"); may be empty
 * @param evidence       the oracle's typed evidence ({@link Evidence#NONE} when it has none)
 * @param mechanism      the name of the mechanism that explained it (e.g. the wss oracle's {@code statement-snapshot-with-recheck}),
 *                       so a signature need not read it out of {@code reference}; null when nothing named explained it
 */
public record Violation(ViolationKind kind, Classification classification, String summary, String details, String reference,
                        Map<String, String> attachments, Evidence evidence, String mechanism) {
    public Violation {
        attachments = attachments == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(attachments));
        evidence = evidence == null ? Evidence.NONE : evidence;
    }

    public Violation(ViolationKind kind, Classification classification, String summary, String details, String reference) {
        this(kind, classification, summary, details, reference, Map.of(), Evidence.NONE);
    }

    public Violation(ViolationKind kind, Classification classification, String summary, String details, String reference,
                     Map<String, String> attachments, Evidence evidence) {
        this(kind, classification, summary, details, reference, attachments, evidence, null);
    }

    /** The oracle that reported it ({@code kind().oracle()}). */
    public String oracle() {
        return kind.oracle();
    }

    /** The same violation classified otherwise, for the reason {@code ref}; no mechanism named. */
    public Violation withClassification(Classification c, String ref) {
        return new Violation(kind, c, summary, details, ref, attachments, evidence, null);
    }

    /** The same violation classified as {@code c} because the mechanism named {@code explainedBy} explains it ({@code ref}: where that is written). */
    public Violation explainedBy(Classification c, String ref, String explainedBy) {
        return new Violation(kind, c, summary, details, ref, attachments, evidence, explainedBy);
    }

    /** The same violation with other typed evidence (e.g. once the oracle knows every order it tried). */
    public Violation withEvidence(Evidence e) {
        return new Violation(kind, classification, summary, details, reference, attachments, e, mechanism);
    }

    /** The report's headline: the evidence's own where it has one, else the kind's. */
    public String headline() {
        return evidence.headline().orElse(kind.headline());
    }

    /**
     * Whether {@code other}, seen in a run of a case whose statements {@code origin} names by their
     * statement in this violation's case (identity for the same case), is this violation: the same
     * oracle and kind, and where this one's evidence has an {@link Evidence#identity() identity},
     * the same statements and the same direction of the difference. Its classification is not
     * compared (callers that care compare it).
     */
    public boolean sameAs(Violation other, java.util.function.UnaryOperator<txfuzz.model.StmtRef> origin) {
        if (!kind.equals(other.kind)) {
            return false;
        }
        java.util.Optional<ViolationIdentity> mine = evidence.identity();
        if (mine.isEmpty()) {
            return true;
        }
        return other.evidence.identity().map(theirs -> theirs.mapped(origin).equals(mine.get())).orElse(false);
    }

    /** The same violation with other details and files (e.g. the evidence of the run it was first seen in). */
    public Violation withDetails(String newDetails, Map<String, String> newAttachments) {
        return new Violation(kind, classification, summary, newDetails, reference, newAttachments, evidence, mechanism);
    }
}
