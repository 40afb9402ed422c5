package txfuzz.oracle.pattern;

import java.util.EnumSet;
import java.util.Set;
import txfuzz.model.IsolationLevel;

/**
 * What a pattern's order shows beyond the cycles of its history: the phenomena Adya defines on
 * the schedule (the history's dependency graph cannot see that a version was still uncommitted, or
 * committed after the reader began).
 */
public enum SchedulePhenomenon {
    /** Adya 1999 §4.1 P0 (Berenson et al. 1995): a write over another transaction's uncommitted write. Every level proscribes it. */
    DIRTY_WRITE("P0 dirty write", EnumSet.allOf(IsolationLevel.class)),
    /**
     * Berenson et al. 1995 P1: a read of another transaction's uncommitted version. Proscribed from READ
     * COMMITTED up: Adya's G1a/G1b only catch it when the writer aborts or writes again, but a
     * level that promises committed reads cannot let a run read an uncommitted version at all.
     */
    DIRTY_READ("P1 dirty read", EnumSet.of(IsolationLevel.READ_COMMITTED, IsolationLevel.REPEATABLE_READ, IsolationLevel.SNAPSHOT,
            IsolationLevel.SERIALIZABLE)),
    /**
     * A read of a version committed after the reader's first operation: not the snapshot of its
     * start (Adya 1999 §4.3, PL-SI's start-ordered serialization graph: the writer's commit would
     * have to precede the reader's start). Only SNAPSHOT promises a snapshot.
     */
    NOT_A_SNAPSHOT("read of a version committed after the reader began", EnumSet.of(IsolationLevel.SNAPSHOT));

    private final String label;
    private final Set<IsolationLevel> proscribedAt;

    SchedulePhenomenon(String label, Set<IsolationLevel> proscribedAt) {
        this.label = label;
        this.proscribedAt = proscribedAt;
    }

    public String label() {
        return label;
    }

    public Set<IsolationLevel> proscribedAt() {
        return proscribedAt;
    }
}
