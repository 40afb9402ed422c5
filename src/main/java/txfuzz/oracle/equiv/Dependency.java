package txfuzz.oracle.equiv;

import java.util.Objects;
import java.util.Set;
import txfuzz.model.StmtRef;

/**
 * One inferred statement dependency: {@code to} depends on {@code from} (an SDG edge from → to,
 * OSDI 2023 Definition 1).
 *
 * @param evidence the item versions whose shared appearance gave the edge
 * @param rule     which instrumentation outputs intersected, e.g. "AWR(Si) ∩ VSR(Sj)"
 */
public record Dependency(StmtRef from, StmtRef to, DepKind kind, Set<Item> evidence, String rule) {
    public Dependency {
        Objects.requireNonNull(from);
        Objects.requireNonNull(to);
        Objects.requireNonNull(kind);
        evidence = Set.copyOf(evidence);
        if (from.equals(to)) {
            throw new IllegalArgumentException("a statement does not depend on itself: " + from);
        }
    }

    @Override
    public String toString() {
        return StmtExec.label(from) + " -" + kind.label() + "-> " + StmtExec.label(to) + " " + evidence + " by " + rule;
    }
}
