package txfuzz.oracle.equiv;

import java.util.List;
import java.util.Set;
import txfuzz.model.StmtRef;

/**
 * A plain-text account of one failed order check, in the step-by-step style of txfuzz's other
 * explanations: which order was replayed, why every dependency allows it, and what differed.
 */
public final class Explanation {

    private Explanation() {
    }

    public static String of(StatementDependencyGraph g, EquivCheck.OrderCheck check) {
        StringBuilder sb = new StringBuilder();
        sb.append("The committed statements were replayed one by one without transactions, in the order\n  ");
        List<StmtRef> order = check.order();
        for (int i = 0; i < order.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(StmtExec.label(order.get(i)));
        }
        sb.append("\n");
        if (g.links().isEmpty()) {
            sb.append("No statement depends on another, so any order must give the transactional results.\n");
        } else {
            sb.append("That order keeps every dependency of the transactional run:\n");
            g.links().forEach((l, kinds) -> sb.append("  ").append(StmtExec.label(l.from())).append(" before ")
                    .append(StmtExec.label(l.to())).append(" (").append(names(kinds)).append(")\n"));
        }
        sb.append("so every statement must give the same result and the final state must be the same")
                .append(" (TxCheck, OSDI 2023, Theorem 1).\n");
        if (check.differences().isEmpty()) {
            sb.append("They are.\n");
        } else {
            sb.append("However:\n");
            check.differences().forEach(d -> sb.append("  ").append(d.describe()).append('\n'));
        }
        return sb.toString();
    }

    private static String names(Set<DepKind> kinds) {
        StringBuilder sb = new StringBuilder();
        for (DepKind k : kinds) {
            sb.append(sb.length() == 0 ? "" : ", ").append(k.label());
        }
        return sb.toString();
    }
}
