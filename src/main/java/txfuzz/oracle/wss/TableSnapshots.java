package txfuzz.oracle.wss;

import java.sql.SQLException;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.Promise;
import txfuzz.exec.SetupFailedException;

/**
 * {@link Deviation#TABLE_SNAPSHOTS}: {@link TransactionSnapshot} with each table read from its own snapshot, taken when the
 * transaction first reads it or a table the engine snapshots with it.
 */
final class TableSnapshots extends Mechanism {
    TableSnapshots() {
        // committed reads; two tables read from snapshots taken at different times give read skew across them (G2-item)
        super(Deviation.TABLE_SNAPSHOTS, Promise.READ_COMMITTED, "TableSnapshotPointsTest");
    }

    @Override
    String describe(DeviationExplainer sim, Deviation.ReadPoint readPoint) {
        return "per-table snapshots: each transaction read every table from the snapshot taken when it first"
                + " read that table (or a table the engine snapshots with it), and concurrent writers changed different rows";
    }

    @Override
    boolean simulate(DeviationExplainer sim, Deviation.ReadPoint readPoint) throws SQLException, SetupFailedException {
        return sim.transactionSnapshot(SnapshotPoints.Rule.PER_TABLE_AT_FIRST_READ);
    }

}
