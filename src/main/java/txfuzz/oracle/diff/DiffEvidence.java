package txfuzz.oracle.diff;

import java.util.List;
import java.util.Optional;
import txfuzz.oracle.Evidence;
import txfuzz.oracle.ViolationIdentity;

/**
 * A diff finding's typed evidence: the divergence, its triage, its signature and what it cost (its consequence).
 * Its identity — what a reduction keeps — is the divergent statement, kind, cause and consequence: a study's scenario
 * is kind × cause × consequence, so a reduced example shows the scenario it stands for.
 */
public record DiffEvidence(Divergence divergence, Triaged triaged, DiffSignature signature, String sql, Consequence consequence) implements Evidence {
    @Override
    public Optional<String> shape() {
        return Optional.of(signature.toString());
    }

    @Override
    public List<String> deviatingSql() {
        return sql == null ? List.of() : List.of(sql);
    }

    @Override
    public Optional<ViolationIdentity> identity() {
        return Optional.of(ViolationIdentity.of(divergence.at(), divergence.kind().label() + " " + triaged.cause().label() + ", " + consequence.words()));
    }

    @Override
    public Optional<String> headline() {
        String where = divergence.at() == null ? "the final state" : divergence.at() + (sql == null ? "" : " `" + sql + "`");
        return Optional.of(signature.pair() + " first differ at " + where + ": " + divergence.left() + " vs " + divergence.right()
                + " (" + triaged.label().label() + (triaged.culprits().isEmpty() ? "" : " of " + String.join(", ", triaged.culprits()))
                + (triaged.change() == null ? "" : "; behaviour change: " + triaged.change()) + ")");
    }

    @Override
    public Optional<String> explanation() {
        return Optional.of(String.join("\n", triaged.evidence().stream().map(s -> "- " + s).toList()));
    }
}
