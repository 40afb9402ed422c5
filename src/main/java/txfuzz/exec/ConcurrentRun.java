package txfuzz.exec;

import java.util.Map;

/**
 * The result of a concurrent run (see {@link ConcurrentRunner}).
 *
 * @param trace what happened, in the same form the controlled executor records (the differences are
 *              documented on {@link ConcurrentRunner})
 * @param slots for every transaction of the case (by id): the session it was assigned to and its
 *              position among that session's transactions. The session order of IsoRel's history.
 */
public record ConcurrentRun(Trace trace, Map<Integer, SessionSlot> slots) {
    public ConcurrentRun {
        slots = Map.copyOf(slots);
    }
}
