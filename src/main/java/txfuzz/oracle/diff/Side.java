package txfuzz.oracle.diff;

import java.util.List;
import txfuzz.model.IsolationLevel;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;

/**
 * What triage knows of one subject in one comparison: who it is, the level it ran at, where its manual
 * documents that level, and what its own oracles said of its (first) run.
 *
 * @param label     the subject as the user named it: {@code engine@1.2}
 * @param engine    the engine's name (as the target names it); two subjects of one engine differ in version or settings
 * @param version   the version the engine reported
 * @param settings  everything else that makes the subject (mode, execution style, server options), in words
 * @param reference where the engine documents the level (its profile's reference)
 * @param own       its own oracles' verdicts on its run
 */
public record Side(String label, String engine, String version, String settings, IsolationLevel level, String reference,
                   List<Verdict> own) {
    public Side {
        own = List.copyOf(own);
    }

    public List<Violation> bugCandidates() {
        return own.stream().flatMap(v -> v.violations().stream()).filter(v -> v.classification() == Classification.BUG_CANDIDATE).toList();
    }
}
