package txfuzz.oracle.wss;

import java.sql.SQLException;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.Promise;
import txfuzz.exec.SetupFailedException;

/**
 * {@link Deviation#LOCKING_SCAN_WITH_ONE_SUBQUERY_SNAPSHOT}: InnoDB's key-order locking scan ({@link LockingScanInKeyOrder})
 * where the subqueries of a write that waited read one snapshot, taken before the wait or after it, and an UPDATE with a
 * subquery on its own table waits as a DELETE does. Kept apart from the scan's own rule because the manual describes the
 * scan, not when a waiting write's subqueries take their snapshot: what it explains is not promised, never documented.
 */
final class LockingScanWithOneSubquerySnapshot extends Mechanism {
    private final LockingScanInKeyOrder scan = new LockingScanInKeyOrder(true, false);

    LockingScanWithOneSubquerySnapshot() {
        // the subqueries read committed data only: no dirty read
        super(Deviation.LOCKING_SCAN_WITH_ONE_SUBQUERY_SNAPSHOT, Promise.READ_COMMITTED, "SubqueriesOnOneSnapshotTest");
    }

    @Override
    boolean simulate(DeviationExplainer sim, Deviation.ReadPoint readPoint) throws SQLException, SetupFailedException {
        return scan.simulate(sim, readPoint);
    }

    @Override
    String describe(DeviationExplainer sim, Deviation.ReadPoint readPoint) {
        return scan.describe(sim, readPoint);
    }
}
