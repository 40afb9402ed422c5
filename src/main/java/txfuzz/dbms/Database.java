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

    /**
     * Asked by a case's setup before anything else, with the setup's DDL (every statement before its first INSERT): true
     * when this database already holds exactly the tables those statements make, emptied and checked to be as right
     * after they ran on a new database; the setup then adds only its rows. Default: never (the setup runs whole).
     */
    default boolean hasTablesOf(java.util.List<String> ddl) throws SQLException {
        return false;
    }

    /**
     * Told by a case's setup right after {@code ddl} ran on this database (and before any row was added), so that a
     * later run of a setup with the same DDL may get these tables back, emptied ({@link #hasTablesOf}). Default: nothing.
     */
    default void madeTablesOf(java.util.List<String> ddl) throws SQLException {
    }

    /**
     * Told by a case's setup before it connects, with the case it is about to run: an engine that hands a run the
     * sessions an earlier run closed does so only for a run it was told of, and only when nothing the case sends could
     * tell such a session from a new one. Default: nothing.
     */
    default void willRun(txfuzz.model.TestCase testCase) throws SQLException {
    }

    @Override
    void close();
}
