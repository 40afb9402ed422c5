package txfuzz.dbms.h2;

import java.sql.SQLException;
import txfuzz.dbms.Database;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.Target;
import txfuzz.model.IsolationLevel;

/**
 * Fault injection for oracle tests: a real engine whose REPEATABLE READ sessions keep no snapshot — each statement reads the
 * newest committed rows, READ COMMITTED's visibility — while the case, the profile and every report still say REPEATABLE
 * READ. It makes the non-repeatable reads and the read skew within one table that an engine keeping its snapshots cannot
 * make, so only an oracle that does not grant REPEATABLE READ those shapes catches it.
 */
final class StatementSnapshotTarget extends DelegatingTarget {
    StatementSnapshotTarget(Target real) {
        super(real);
    }

    @Override
    public String version() {
        return real.version() + " with REPEATABLE READ reading as READ COMMITTED";
    }

    @Override
    public Database freshDatabase() throws SQLException {
        Database db = real.freshDatabase();
        return new Database() {
            @Override
            public java.sql.Connection connect(IsolationLevel level, String mode) throws SQLException {
                return db.connect(level == IsolationLevel.REPEATABLE_READ ? IsolationLevel.READ_COMMITTED : level, mode);
            }

            @Override
            public String sessionId(java.sql.Connection c) throws SQLException {
                return db.sessionId(c);
            }

            @Override
            public java.util.Optional<txfuzz.dbms.LockProbe> lockProbe() throws SQLException {
                return db.lockProbe();
            }

            @Override
            public void close() {
                db.close();
            }
        };
    }
}
