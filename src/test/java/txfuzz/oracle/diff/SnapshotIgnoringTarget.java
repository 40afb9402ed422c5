package txfuzz.oracle.diff;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import txfuzz.dbms.Database;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.LockProbe;
import txfuzz.dbms.Target;
import txfuzz.model.IsolationLevel;

/**
 * Fault injection for the diff oracle's promised rules: a real engine whose sessions asked for SNAPSHOT run at READ
 * COMMITTED, as an engine that ignored the level would. Its second writer of a row waits for the first and then
 * commits too, where snapshot isolation's first-committer-wins fails it. Everything it reports about itself (levels,
 * promises, profile) is the real engine's. The wrapped target is closed with this one.
 */
final class SnapshotIgnoringTarget extends DelegatingTarget {
    SnapshotIgnoringTarget(Target real) {
        super(real);
    }

    @Override
    public String version() {
        return real.version() + " with SNAPSHOT run as READ COMMITTED";
    }

    @Override
    public Database freshDatabase() throws SQLException {
        Database db = real.freshDatabase();
        return new Database() {
            @Override
            public Connection connect(IsolationLevel level, String mode) throws SQLException {
                return db.connect(level == IsolationLevel.SNAPSHOT ? IsolationLevel.READ_COMMITTED : level, mode);
            }

            @Override
            public String sessionId(Connection c) throws SQLException {
                return db.sessionId(c);
            }

            @Override
            public Optional<LockProbe> lockProbe() throws SQLException {
                return db.lockProbe();
            }

            @Override
            public void close() {
                db.close();
            }
        };
    }
}
