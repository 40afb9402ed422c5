package txfuzz.dbms;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import txfuzz.model.IsolationLevel;

/** A fresh private database of one target, for one run of one test case. Closing drops it. */
public interface Database extends AutoCloseable {
    /** A new session, in autocommit mode, set to {@code level} and {@code mode}. */
    Connection connect(IsolationLevel level, String mode) throws SQLException;

    /** The engine's id for this session, as the lock probe names it. */
    String sessionId(Connection c) throws SQLException;

    /** The engine's lock-wait probe, or empty where the engine never waits or cannot be asked. */
    Optional<LockProbe> lockProbe() throws SQLException;

    @Override
    void close();
}
