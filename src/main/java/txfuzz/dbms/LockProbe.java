package txfuzz.dbms;

import java.sql.SQLException;
import java.util.Optional;
import java.util.Set;

/**
 * Asks the engine whether a session waits on a lock, instead of guessing from a timeout.
 * Sessions are named by the engine's own id for them (see {@link Target#sessionId}).
 */
public interface LockProbe extends AutoCloseable {
    /**
     * Empty when {@code sessionId} is not waiting for a lock. Otherwise the ids of the sessions it
     * waits for; an empty set when the engine says it waits but not for whom.
     */
    Optional<Set<String>> waitsFor(String sessionId) throws SQLException;

    /**
     * What the engine's process list says session {@code sessionId} is doing (MariaDB
     * {@code information_schema.PROCESSLIST.STATE}); empty when the engine has no such view. Asked
     * rarely (before a statement is called hung), so it may cost a query.
     */
    default Optional<String> activity(String sessionId) throws SQLException {
        return Optional.empty();
    }

    /**
     * The engine's own view of its sessions, as text for a report, when txfuzz is about to call a
     * statement of {@code sessionId} hung: what a maintainer would ask for first (PostgreSQL's
     * {@code pg_stat_activity}, MariaDB's process list and InnoDB's transactions). Empty when the
     * engine has no such view. Asked once per hang, so it may cost queries.
     */
    default Optional<String> engineState(String sessionId) throws SQLException {
        return Optional.empty();
    }

    /** Whether {@code activity} (from {@link #activity}) is a wait for a lock: then the session waits, it does not hang. */
    default boolean activityWaits(String activity) {
        return false;
    }

    @Override
    void close();
}
