package txfuzz.exec;

/**
 * Where a transaction ran: on which session (connection), as which of that session's
 * transactions (0, 1, 2 ...). The controlled executor gives every transaction a session of its
 * own; the concurrent runner runs many transactions one after another per session, and the
 * isolation checker derives session order from it.
 */
public record SessionSlot(int session, int seq) {
    public SessionSlot {
        if (session < 0 || seq < 0) {
            throw new IllegalArgumentException("session and seq must be >= 0");
        }
    }
}
