package txfuzz.model;

import java.util.ArrayList;
import java.util.List;

/**
 * How an instrumented transaction's statements group (docs/history-format.md): each statement of
 * the user's program with the companions row tracking put around it — a version-set read before it,
 * a deleting write's tag-update and its post-read before it, post-reads and companion reads after
 * it. The self-check compares group by group, the stripper turns each group back into one
 * statement, and a pattern step waits when any statement of its group waits.
 */
public final class TrackedGroups {
    private TrackedGroups() {
    }

    /**
     * One program statement and its companions.
     *
     * @param refs its statements, in order
     * @param main the statement that does the program's work (the READ or WRITE one)
     * @param tag  a deleting write's tag-update (its WHERE chooses the rows), or null
     */
    public record Group(List<StmtRef> refs, StmtRef main, StmtRef tag) {
        public Group {
            refs = List.copyOf(refs);
        }
    }

    /** The statements do not group: the message says which one is out of place. */
    public static final class NotGrouped extends Exception {
        NotGrouped(String message) {
            super(message);
        }
    }

    /** The groups of {@code t}'s data statements, in order (BEGIN, COMMIT and ROLLBACK are in none). */
    public static List<Group> of(Txn t) throws NotGrouped {
        List<Group> out = new ArrayList<>();
        List<StmtRef> pending = new ArrayList<>();
        StmtRef tag = null;
        for (int k = 0; k < t.statements().size(); k++) {
            Stmt s = t.statements().get(k);
            if (s.kind().isControl()) {
                continue;
            }
            StmtRef ref = new StmtRef(t.id(), k);
            Tracking.Role role = s.tracking() == null ? null : s.tracking().role();
            if (role == Tracking.Role.VERSION_SET_READ) {
                pending.add(ref);
            } else if (role == Tracking.Role.TAG) {
                if (tag != null) {
                    throw new NotGrouped(tag + " is a tag-update without the write it tags");
                }
                tag = ref;
                pending.add(ref);
            } else if (role == Tracking.Role.POST_READ || role == Tracking.Role.COMPANION_READ) {
                if (tag != null) {
                    pending.add(ref); // the tag-update's post-read, before the delete by tag
                } else if (out.isEmpty()) {
                    throw new NotGrouped(ref + " is a companion read of no statement");
                } else {
                    Group last = out.remove(out.size() - 1);
                    List<StmtRef> refs = new ArrayList<>(last.refs());
                    refs.add(ref);
                    out.add(new Group(refs, last.main(), last.tag()));
                }
            } else {
                pending.add(ref);
                out.add(new Group(pending, ref, tag));
                pending = new ArrayList<>();
                tag = null;
            }
        }
        if (tag != null) {
            throw new NotGrouped(tag + " is a tag-update without the write it tags");
        }
        return out; // version-set reads left pending were taken before COMMIT: they describe no statement
    }

    /** The group whose main statement is {@code main}, if the transaction groups and has it. */
    public static java.util.Optional<Group> of(Txn t, StmtRef main) {
        try {
            return of(t).stream().filter(g -> g.main().equals(main)).findFirst();
        } catch (NotGrouped e) {
            return java.util.Optional.empty();
        }
    }
}
