package txfuzz.dbms;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import txfuzz.model.IsolationLevel;

/**
 * One DBMS, live: started (or connected), with its exact version, fresh private databases,
 * sessions and the lock probe. What is known without starting it — levels, modes, dialect,
 * profile, error classification, session setup — is its {@link Engine}; the default methods here
 * delegate to it, so callers ask the target and need not care which part answers.
 */
public interface Target extends AutoCloseable {
    /** The static description this target was opened from. */
    Engine engine();

    /** Short name used on the command line, e.g. "h2". */
    default String name() {
        return engine().name();
    }

    /** Engine name and version as the engine reports it, e.g. "H2 2.3.232 (2024-08-11)". */
    String version();

    /** Levels the engine offers, weakest first. */
    default List<IsolationLevel> isolationLevels() {
        return engine().isolationLevels();
    }

    default IsolationLevel defaultIsolationLevel() {
        return engine().defaultIsolationLevel();
    }

    /** Concurrency-control modes; the first is the default. Most engines have only "default". */
    default List<String> modes() {
        return engine().modes();
    }

    default Dialect dialect() {
        return engine().dialect();
    }

    default Profile profile() {
        return engine().profile();
    }

    /** What the engine documents in {@code mode}. */
    default Profile profile(String mode) {
        return engine().profile(mode);
    }

    /** See {@link Engine#sessionMode}. */
    default String sessionMode(String mode, List<String> settings) {
        return engine().sessionMode(mode, settings);
    }

    /**
     * A fresh, empty, private database for one test case; closing it drops it. (Engines may hand out a
     * database of an earlier run, reset and checked to be as a new one: {@link ReusedDatabases}.)
     */
    Database freshDatabase() throws SQLException;

    /** How many databases were created, reused after a checked reset, and discarded by the check. */
    default ReusedDatabases.Counts databaseReuse() {
        return ReusedDatabases.Counts.NONE;
    }

    default ErrorClass classify(SQLException e) {
        return engine().classify(e);
    }

    /** What an error of class {@code c} did to its transaction; the executor sends ROLLBACK for TRANSACTION. */
    default AbortScope abortScope(ErrorClass c) {
        return engine().abortScope(c);
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
        engine().dropKeyConstraints(c);
    }

    /** The engine settings it was opened with ({@link TargetOptions#settings()}, in the engine's spellings); none by default. */
    default java.util.Map<String, String> settings() {
        return java.util.Map.of();
    }

    /** The promise {@code level} keeps here: the engine's ({@link Engine#promise}), unless this target's settings change it. */
    default LevelPromise promise(IsolationLevel level, String mode) {
        return engine().promise(level, mode);
    }

    /** SQL a user runs in the engine's own client to set up a session like ours (for reproduce.sql). */
    default List<String> sessionSetupSql(IsolationLevel level, String mode) {
        return engine().sessionSetupSql(level, mode);
    }

    /** See {@link Engine#beginVariants()}. */
    default List<String> beginVariants() {
        return engine().beginVariants();
    }

    /** See {@link Engine#inOpenTransaction(String)}. */
    default String inOpenTransaction(String variant) {
        return engine().inOpenTransaction(variant);
    }

    /** How BEGIN is spelt in the engine's own client. */
    default String beginSql() {
        return engine().beginSql();
    }

    /** How BEGIN is spelt in the engine's own client in {@code mode}. */
    default String beginSql(String mode) {
        return engine().beginSql(mode);
    }

    /** Quotes an identifier if needed; generated identifiers are plain lower case. */
    default String quote(String identifier) {
        return engine().quote(identifier);
    }

    @Override
    void close();
}
