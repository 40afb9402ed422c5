package txfuzz.dbms.mariadb;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import txfuzz.dbms.DelegatingTarget;

/** A target that records the transaction control the executor sends, by session (thread id). */
final class RecordingTarget extends DelegatingTarget {
    /** "BEGIN 12", "COMMIT 12", "ROLLBACK 13" ... in the order sent. */
    final List<String> sent = new CopyOnWriteArrayList<>();

    RecordingTarget(MariadbTarget real) {
        super(real);
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
    public void close() {
        // the real target belongs to the test class
    }
}
