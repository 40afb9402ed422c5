package txfuzz.target.mariadb;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import txfuzz.model.IsolationLevel;
import txfuzz.target.AbortScope;
import txfuzz.target.Database;
import txfuzz.target.Dialect;
import txfuzz.target.ErrorClass;
import txfuzz.target.Profile;
import txfuzz.target.Target;

/** A target that records the transaction control the executor sends, by session (thread id). */
final class RecordingTarget implements Target {
    private final MariadbTarget real;
    /** "BEGIN 12", "COMMIT 12", "ROLLBACK 13" ... in the order sent. */
    final List<String> sent = new CopyOnWriteArrayList<>();

    RecordingTarget(MariadbTarget real) {
        this.real = real;
    }

    private static String id(Connection c) {
        try (var s = c.createStatement(); var rs = s.executeQuery("SELECT CONNECTION_ID()")) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            return "?";
        }
    }

    @Override
    public String name() {
        return real.name();
    }

    @Override
    public String version() {
        return real.version();
    }

    @Override
    public List<IsolationLevel> isolationLevels() {
        return real.isolationLevels();
    }

    @Override
    public Dialect dialect() {
        return real.dialect();
    }

    @Override
    public Profile profile() {
        return real.profile();
    }

    @Override
    public Database freshDatabase() throws SQLException {
        return real.freshDatabase();
    }

    @Override
    public ErrorClass classify(SQLException e) {
        return real.classify(e);
    }

    @Override
    public AbortScope abortScope(ErrorClass c) {
        return real.abortScope(c);
    }

    @Override
    public void begin(Connection c) throws SQLException {
        sent.add("BEGIN " + id(c));
        real.begin(c);
    }

    @Override
    public void commit(Connection c) throws SQLException {
        sent.add("COMMIT " + id(c));
        real.commit(c);
    }

    @Override
    public void rollback(Connection c) throws SQLException {
        sent.add("ROLLBACK " + id(c));
        real.rollback(c);
    }

    @Override
    public List<String> sessionSetupSql(IsolationLevel level, String mode) {
        return real.sessionSetupSql(level, mode);
    }

    @Override
    public String quote(String identifier) {
        return real.quote(identifier);
    }

    @Override
    public void close() {
        // the real target belongs to the test class
    }
}
