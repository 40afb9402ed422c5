package txfuzz.oracle.equiv;

import java.util.ArrayList;
import java.util.List;
import txfuzz.model.Stmt;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Tracking;
import txfuzz.model.Txn;

/**
 * The statements of the user's program in an instrumented case, each with the statements the
 * instrumentation put around it: its version-set reads before it, and the tag-update and post-reads
 * that carry its tag or the companion reads of its subqueries. The equiv oracle's unit: a node of the
 * statement-dependency graph, removed as a whole by decycling, replayed as a whole without
 * transactions.
 */
public record StatementGroups(List<Group> groups) {

    /**
     * @param main    the program's statement (a read or a write)
     * @param members main and its companions, in transaction order, without the version-set reads
     * @param vsrs    its version-set reads, one per table of the case
     */
    public record Group(StmtRef main, List<StmtRef> members, List<StmtRef> vsrs) {
        public Group {
            members = List.copyOf(members);
            vsrs = List.copyOf(vsrs);
        }

        /** The group's first statement in its transaction (a version-set read, when it has them). */
        public StmtRef first() {
            return vsrs.isEmpty() ? members.get(0) : vsrs.get(0);
        }

        /** Every statement of the group, version-set reads included. */
        public List<StmtRef> all() {
            List<StmtRef> out = new ArrayList<>(vsrs);
            out.addAll(members);
            return out;
        }
    }

    public StatementGroups {
        groups = List.copyOf(groups);
    }

    /** The groups of every transaction of {@code c}, transaction by transaction. */
    public static StatementGroups of(TestCase c) {
        List<Group> out = new ArrayList<>();
        for (Txn t : c.transactions()) {
            out.addAll(of(t));
        }
        return new StatementGroups(out);
    }

    private static List<Group> of(Txn t) {
        List<Group> out = new ArrayList<>();
        List<StmtRef> pendingVsrs = new ArrayList<>();
        List<StmtRef> pendingPrefix = new ArrayList<>();
        String currentTag = null;
        for (int k = 0; k < t.statements().size(); k++) {
            Stmt s = t.statements().get(k);
            if (s.kind().isControl()) {
                continue;
            }
            StmtRef ref = new StmtRef(t.id(), k);
            Tracking tr = s.tracking();
            Tracking.Role role = tr == null ? null : tr.role();
            if (role == Tracking.Role.VERSION_SET_READ) {
                pendingVsrs.add(ref);
            } else if (role == Tracking.Role.TAG) {
                pendingPrefix.add(ref);
            } else if (role == Tracking.Role.POST_READ && !(pendingPrefix.isEmpty() && tr.tag().equals(currentTag))) {
                pendingPrefix.add(ref); // not the last write's: the post-read before a deleting write, part of the next group
            } else if ((role == Tracking.Role.POST_READ || role == Tracking.Role.COMPANION_READ) && !out.isEmpty()) {
                Group g = out.remove(out.size() - 1);
                List<StmtRef> members = new ArrayList<>(g.members());
                members.add(ref);
                out.add(new Group(g.main(), members, g.vsrs()));
            } else {
                List<StmtRef> members = new ArrayList<>(pendingPrefix);
                members.add(ref);
                out.add(new Group(ref, members, pendingVsrs));
                currentTag = tr == null ? null : tr.tag();
                pendingPrefix.clear();
                pendingVsrs.clear();
            }
        }
        return out;
    }

    /** The group whose program statement is {@code main}. */
    public Group group(StmtRef main) {
        return groups.stream().filter(g -> g.main().equals(main)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no statement " + main));
    }
}
