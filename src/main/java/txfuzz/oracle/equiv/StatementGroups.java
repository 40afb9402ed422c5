package txfuzz.oracle.equiv;

import java.util.ArrayList;
import java.util.List;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.TrackedGroups;
import txfuzz.model.Txn;

/**
 * The statements of the user's program in an instrumented case, each with the statements the
 * instrumentation put around it ({@link TrackedGroups}, case-wide). The equiv oracle's unit: a node of the
 * statement-dependency graph, removed as a whole by decycling, replayed as a whole without
 * transactions.
 */
public record StatementGroups(List<TrackedGroups.Group> groups) {

    public StatementGroups {
        groups = List.copyOf(groups);
    }

    /** The groups of every transaction of {@code c}, transaction by transaction. */
    public static StatementGroups of(TestCase c) {
        List<TrackedGroups.Group> out = new ArrayList<>();
        for (Txn t : c.transactions()) {
            // statements that fit no group (TrackedGroups' problem) are left out: a generated case has none
            out.addAll(TrackedGroups.of(t).groups());
        }
        return new StatementGroups(out);
    }

    /** The group whose program statement is {@code main}. */
    public TrackedGroups.Group group(StmtRef main) {
        return groups.stream().filter(g -> g.main().equals(main)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no statement " + main));
    }
}
