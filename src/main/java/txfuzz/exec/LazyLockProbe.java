package txfuzz.exec;

import java.sql.SQLException;
import txfuzz.dbms.Database;
import txfuzz.dbms.LockProbe;

/**
 * A database's lock probe, opened when a statement first fails to answer at once: most runs (every
 * serial replay, most concurrent runs) never need one, and opening it costs a connection and a
 * prepared query per run.
 */
final class LazyLockProbe implements AutoCloseable {
    private final Database db;
    private boolean asked;
    private LockProbe probe;

    LazyLockProbe(Database db) {
        this.db = db;
    }

    /** The probe, opened on the first call; null when the engine has none. */
    LockProbe get() throws SQLException {
        if (!asked) {
            asked = true;
            probe = db.lockProbe().orElse(null);
        }
        return probe;
    }

    @Override
    public void close() {
        if (probe != null) {
            probe.close();
        }
    }
}
