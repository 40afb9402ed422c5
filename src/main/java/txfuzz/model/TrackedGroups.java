package txfuzz.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * How an instrumented transaction's statements group (docs/history-format.md): each statement of
 * the user's program with the statements row tracking put around it — its version-set reads before
 * it, a deleting write's tag-update and post-read before it, its post-reads and companion reads after
 * it. The equiv oracle's nodes, the self-check's units of comparison, the stripper's plain statements
 * and a pattern step's statements are these groups.
 *
 * @param groups  the groups, in transaction order
 * @param problem the first statement that fits no group (a tag-update without the write it tags, a
 *                companion read of no statement), or null; callers that must account for every
 *                statement refuse such a transaction, the equiv oracle leaves the statement out
 */
public record TrackedGroups(List<Group> groups, String problem) {
    /**
     * One program statement and its companions.
     *
     * @param main    the program's statement (a read or a write)
     * @param members main and its companions, in transaction order, without the version-set reads
     * @param vsrs    its version-set reads (the equiv oracle's), which come first
     * @param tag     a deleting write's tag-update (its WHERE chooses the rows), or null
     */
    public record Group(StmtRef main, List<StmtRef> members, List<StmtRef> vsrs, StmtRef tag) {
        public Group {
            members = List.copyOf(members);
            vsrs = List.copyOf(vsrs);
        }

        /** The group's first statement in its transaction (a version-set read, when it has them). */
        public StmtRef first() {
            return vsrs.isEmpty() ? members.get(0) : vsrs.get(0);
        }

        /** Every statement of the group, in transaction order, version-set reads included. */
        public List<StmtRef> all() {
            List<StmtRef> out = new ArrayList<>(vsrs);
            out.addAll(members);
            return out;
        }
    }

    public TrackedGroups {
        groups = List.copyOf(groups);
    }

    /** The groups of {@code t}'s data statements (BEGIN, COMMIT and ROLLBACK are in none). */
    public static TrackedGroups of(Txn t) {
        List<Group> out = new ArrayList<>();
        List<StmtRef> pendingVsrs = new ArrayList<>();
        List<StmtRef> pendingPrefix = new ArrayList<>();
        StmtRef pendingTag = null;
        String currentTag = null;
        String problem = null;
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
                if (pendingTag != null && problem == null) {
                    problem = pendingTag + " is a tag-update without the write it tags";
                }
                pendingTag = ref;
                pendingPrefix.add(ref);
            } else if (role == Tracking.Role.POST_READ && !(pendingPrefix.isEmpty() && tr.tag().equals(currentTag))) {
                pendingPrefix.add(ref); // not the last write's: the post-read before a deleting write, part of the next group
            } else if (role == Tracking.Role.POST_READ || role == Tracking.Role.COMPANION_READ || role == Tracking.Role.MATCH_READ) {
                if (out.isEmpty()) {
                    problem = problem != null ? problem : ref + " is a companion read of no statement";
                    continue;
                }
                Group g = out.remove(out.size() - 1);
                List<StmtRef> members = new ArrayList<>(g.members());
                members.add(ref);
                out.add(new Group(g.main(), members, g.vsrs(), g.tag()));
            } else {
                List<StmtRef> members = new ArrayList<>(pendingPrefix);
                members.add(ref);
                out.add(new Group(ref, members, pendingVsrs, pendingTag));
                currentTag = tr == null ? null : tr.tag();
                pendingPrefix.clear();
                pendingVsrs.clear();
                pendingTag = null;
            }
        }
        if (!pendingPrefix.isEmpty() && problem == null) {
            problem = pendingPrefix.get(0) + (pendingTag != null ? " is a tag-update without the write it tags" : " is a companion read of no statement");
        }
        // version-set reads left pending were taken before COMMIT: they describe no statement
        return new TrackedGroups(out, problem);
    }

    /** The group whose program statement is {@code main}. */
    public Optional<Group> group(StmtRef main) {
        return groups.stream().filter(g -> g.main().equals(main)).findFirst();
    }
}
