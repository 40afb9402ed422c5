package txfuzz.oracle;

import java.util.Map;
import txfuzz.exec.ConcurrentRun;
import txfuzz.exec.SessionSlot;
import txfuzz.exec.Trace;
import txfuzz.model.TestCase;

/**
 * What the executor produced for a case, as an oracle judges it: a controlled run (the case's
 * submitted order, one session per transaction) or an uncontrolled one (the transactions spread
 * over a few sessions running truly concurrently; {@code slots} gives each transaction's session
 * and position).
 *
 * @param slots null for a controlled run
 */
public record Run(TestCase testCase, Trace trace, Map<Integer, SessionSlot> slots) {
    public Run {
        slots = slots == null ? null : Map.copyOf(slots);
    }

    public static Run controlled(TestCase c, Trace trace) {
        return new Run(c, trace, null);
    }

    public static Run concurrent(TestCase c, ConcurrentRun run) {
        return new Run(c, run.trace(), run.slots());
    }

    /** The interleaving was the engine's and the threads', not the case's submitted order: it cannot be replayed as such. */
    public boolean uncontrolled() {
        return slots != null;
    }
}
