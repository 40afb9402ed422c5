package txfuzz.oracle.wss;

import java.sql.SQLException;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.Promise;
import txfuzz.exec.SetupFailedException;

/**
 * {@link Deviation#TRANSACTION_SNAPSHOT}: snapshot isolation; every statement of a transaction reads the snapshot taken at
 * its first statement (or at BEGIN), and concurrent writers change different rows.
 */
final class TransactionSnapshot extends Mechanism {
    TransactionSnapshot() {
        super(Deviation.TRANSACTION_SNAPSHOT, Promise.SNAPSHOT_ISOLATION, "SnapshotRulesTest, FirstCommitterWinsTest");
    }

    @Override
    String describe(DeviationExplainer sim, Deviation.ReadPoint readPoint) {
        return "snapshot isolation: each transaction's writes were computed from the snapshot taken at its"
                + " first statement, and concurrent writers changed different rows";
    }

    @Override
    boolean simulate(DeviationExplainer sim, Deviation.ReadPoint readPoint) throws SQLException, SetupFailedException {
        return sim.transactionSnapshot(SnapshotPoints.Rule.AT_FIRST_STATEMENT) || sim.transactionSnapshot(SnapshotPoints.Rule.AT_BEGIN);
    }

}
