package txfuzz.oracle;

import txfuzz.model.Stmt;
import txfuzz.model.Tracking;

/**
 * The reads the row tracking adds next to a program statement: post-reads, companion reads, version-set reads and
 * match reads. They change no row and their rows only describe the run they are part of, so a replay that compares
 * nothing but its final state (or only the program's own statements) gives the same outcome without them, and on a
 * server each is a round trip (in an autocommit replay, a session) saved.
 */
public final class TrackingReads {
    private TrackingReads() {
    }

    /** Whether {@code s} is a read the tracking added (never a statement of the program, never a tag-update). */
    public static boolean isTrackingRead(Stmt s) {
        Tracking t = s.tracking();
        if (t == null || !s.kind().isRead()) {
            return false;
        }
        return switch (t.role()) {
            case POST_READ, COMPANION_READ, VERSION_SET_READ, MATCH_READ -> true;
            case READ, WRITE, TAG -> false;
        };
    }
}
