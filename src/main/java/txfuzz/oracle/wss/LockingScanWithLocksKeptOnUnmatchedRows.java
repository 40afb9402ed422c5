package txfuzz.oracle.wss;

import java.sql.SQLException;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.Promise;
import txfuzz.exec.SetupFailedException;

/**
 * {@link Deviation#LOCKING_SCAN_WITH_LOCKS_KEPT_ON_UNMATCHED_ROWS}: InnoDB's key-order locking scan ({@link LockingScanInKeyOrder})
 * where a blocker's statement held every row the engine reports locked after running it on the same data, not only those the
 * model derives from what it matched. Kept apart from the scan's own rule because the manual says the opposite at READ
 * COMMITTED ("Record locks for nonmatching rows are released after MySQL has evaluated the WHERE condition"): measured, not
 * documented. Where the level permits {@link Deviation#LOCKING_SCAN_WITH_ONE_SUBQUERY_SNAPSHOT}, its forms are tried after the
 * scan's own.
 */
final class LockingScanWithLocksKeptOnUnmatchedRows extends Mechanism {
    private final LockingScanInKeyOrder scan = new LockingScanInKeyOrder(false, true);
    private final LockingScanInKeyOrder withOneSubquerySnapshot = new LockingScanInKeyOrder(true, true);
    /** The form that simulated last. */
    private LockingScanInKeyOrder last = scan;

    LockingScanWithLocksKeptOnUnmatchedRows() {
        // more locks than documented make writes wait more, never read uncommitted data
        super(Deviation.LOCKING_SCAN_WITH_LOCKS_KEPT_ON_UNMATCHED_ROWS, Promise.READ_COMMITTED, "LocksKeptOnUnmatchedRowsTest");
    }

    @Override
    boolean simulate(DeviationExplainer sim, Deviation.ReadPoint readPoint) throws SQLException, SetupFailedException {
        last = scan;
        if (scan.simulate(sim, readPoint)) {
            return true;
        }
        boolean aWriteHasASubquery = sim.testCase.transactions().stream().flatMap(t -> t.statements().stream())
                .anyMatch(st -> st.kind().isWrite() && LockingScanInKeyOrder.SUBQUERY.matcher(st.sql()).find());
        if (!aWriteHasASubquery || !sim.semantics.deviations().contains(Deviation.LOCKING_SCAN_WITH_ONE_SUBQUERY_SNAPSHOT)) {
            return false;
        }
        last = withOneSubquerySnapshot;
        return withOneSubquerySnapshot.simulate(sim, readPoint);
    }

    @Override
    String describe(DeviationExplainer sim, Deviation.ReadPoint readPoint) {
        return last.describe(sim, readPoint);
    }
}
