package txfuzz.oracle.diff;

import java.util.List;
import java.util.Map;

/**
 * A confirmed divergence, labelled, with the evidence behind the label.
 *
 * @param label      what it is
 * @param culprits   for a bug candidate, the subjects whose own oracles flag it or that break a promised rule (else empty)
 * @param cause      why the subjects differ, named from the traces
 * @param change     for a bug candidate between versions of one engine, "fixed in …" or "not in …"; for a behaviour change whose
 *                   version boundary was found, "changed between X and Y" ({@link VersionBoundary}); else null
 * @param evidence   sentences, each a fact txfuzz checked
 * @param references each subject's documentation of its level, by subject label
 */
public record Triaged(Label label, List<String> culprits, Cause cause, String change, List<String> evidence, Map<String, String> references) {
    public Triaged {
        culprits = List.copyOf(culprits);
        evidence = List.copyOf(evidence);
        references = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(references));
    }
}
