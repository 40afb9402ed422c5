package txfuzz.dbms;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import txfuzz.model.IsolationLevel;

/**
 * One DBMS under test: how to get a fresh private database, how to set isolation levels, run
 * transaction control, classify errors and what the engine documents. One small class per DBMS.
 */
public interface Target extends AutoCloseable {
    /** Short name used on the command line, e.g. "h2". */
    String name();

    /** Engine name and version as the engine reports it, e.g. "H2 2.3.232 (2024-08-11)". */
    String version();

    /** Levels the engine offers, weakest first. */
    List<IsolationLevel> isolationLevels();

    default IsolationLevel defaultIsolationLevel() {
        return isolationLevels().contains(IsolationLevel.READ_COMMITTED) ? IsolationLevel.READ_COMMITTED : isolationLevels().get(0);
    }

    /** Concurrency-control modes; the first is the default. Most engines have only "default". */
    default List<String> modes() {
        return List.of("default");
    }

    Dialect dialect();

    Profile profile();

    /** What the engine documents in {@code mode}; engines whose semantics depend on the mode override this. */
    default Profile profile(String mode) {
        return profile();
    }

    /** A fresh, empty, private database for one test case; closing it drops it. */
    Database freshDatabase() throws SQLException;

    ErrorClass classify(SQLException e);

    /** What an error of class {@code c} did to its transaction; the executor sends ROLLBACK for TRANSACTION. */
    default AbortScope abortScope(ErrorClass c) {
        return switch (c) {
            case DEADLOCK, SERIALIZATION, BUSY, IN_FAILED_TRANSACTION, CONNECTION_LOST, INTERNAL -> AbortScope.TRANSACTION;
            default -> AbortScope.STATEMENT;
        };
    }

    /** Opens a transaction on a connection configured by {@link Database#connect}. */
    default void begin(Connection c) throws SQLException {
        c.setAutoCommit(false);
    }

    default void commit(Connection c) throws SQLException {
        try {
            c.commit();
        } catch (SQLException e) {
            restoreAutoCommit(c, e);
            throw e;
        }
        c.setAutoCommit(true);
    }

    default void rollback(Connection c) throws SQLException {
        try {
            c.rollback();
        } catch (SQLException e) {
            restoreAutoCommit(c, e);
            throw e;
        }
        c.setAutoCommit(true);
    }

    /** Back to autocommit after a failed COMMIT/ROLLBACK, without letting a second error hide the first. */
    private static void restoreAutoCommit(Connection c, SQLException first) {
        try {
            c.setAutoCommit(true);
        } catch (SQLException | RuntimeException second) {
            first.addSuppressed(second);
        }
    }

    /**
     * Drops the primary-key, unique and foreign-key constraints (and unique indexes) of the tables
     * in the current namespace, on a database txfuzz created for a simulation. Engines check those
     * against the newest committed data, not against the data a statement reads, so a simulation
     * that loads a statement's (older) view must not check them. Default: the engine keeps them.
     */
    default void dropKeyConstraints(Connection c) throws SQLException {
    }

    /** SQL a user runs in the engine's own client to set up a session like ours (for reproduce.sql). */
    List<String> sessionSetupSql(IsolationLevel level, String mode);

    /** How BEGIN is spelt in the engine's own client. */
    default String beginSql() {
        return "BEGIN";
    }

    /** How BEGIN is spelt in the engine's own client in {@code mode}. */
    default String beginSql(String mode) {
        return beginSql();
    }

    /** Quotes an identifier if needed; generated identifiers are plain lower case. */
    default String quote(String identifier) {
        return identifier;
    }

    @Override
    void close();
}
