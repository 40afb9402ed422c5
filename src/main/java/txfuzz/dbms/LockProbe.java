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

    @Override
    void close();
}
