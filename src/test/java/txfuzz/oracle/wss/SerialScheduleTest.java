package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.StmtResult;
import txfuzz.exec.Trace;
import txfuzz.exec.TxnOutcome;
import txfuzz.exec.TxnStatus;
import txfuzz.model.DbState;
import txfuzz.model.StmtRef;

@Tag("unit")
class SerialScheduleTest {
    private static ExecutedStmt ended(int txn, int sweep) {
        return new ExecutedStmt(new StmtRef(txn, 0), StmtResult.ok(), sweep >= 0, txn, 0, sweep);
    }

    private static Trace trace(ExecutedStmt... ends) {
        Map<Integer, TxnOutcome> outcomes = new java.util.HashMap<>();
        List<Integer> order = new java.util.ArrayList<>();
        for (ExecutedStmt e : ends) {
            outcomes.put(e.ref().txn(), new TxnOutcome(TxnStatus.COMMITTED, e.ref(), "autocommit"));
            order.add(e.ref().txn());
        }
        return new Trace(List.of(ends), outcomes, order, new DbState(Map.of()), 0, List.of());
    }

    @Test
    void transactionsThatResumedTogetherMayHaveEndedInEitherOrder() {
        // T1 ended alone; T3 and T2 were both released by one COMMIT and finished in the same sweep.
        Trace t = trace(ended(1, -1), ended(3, 7), ended(2, 7), ended(4, -1));
        assertEquals(List.of(List.of(1, 3, 2, 4), List.of(1, 2, 3, 4)), SerialSchedule.possibleOrders(t, 24));
    }

    @Test
    void aRunWithoutSimultaneousResumesHasOneOrder() {
        Trace t = trace(ended(2, -1), ended(1, -1), ended(3, 4));
        assertEquals(List.of(List.of(2, 1, 3)), SerialSchedule.possibleOrders(t, 24));
    }
}
