package txfuzz.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import txfuzz.model.DbState;
import txfuzz.model.StmtRef;

/**
 * The recordings a run could equally have had: statements found finished in one sweep in each order no named wait rules
 * out, the transactions they ended following them in the end order.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class SweepRecordingsTest {

    /** An autocommit statement of its own transaction (which it ends), in sweep {@code sweep}, last seen waiting for {@code waitedFor}. */
    private static ExecutedStmt autocommit(int txn, int sweep, Integer... waitedFor) {
        return new ExecutedStmt(new StmtRef(txn, 0), StmtResult.ofCount(1), sweep >= 0, txn, 0, sweep, List.of(waitedFor));
    }

    private static Trace trace(ExecutedStmt... schedule) {
        Map<Integer, TxnOutcome> outcomes = new HashMap<>();
        List<Integer> endOrder = new ArrayList<>();
        for (ExecutedStmt e : schedule) {
            outcomes.put(e.ref().txn(), new TxnOutcome(TxnStatus.COMMITTED, e.ref(), "autocommit"));
            endOrder.add(e.ref().txn());
        }
        return new Trace(List.of(schedule), outcomes, endOrder, new DbState(Map.of()), 0, List.of());
    }

    private static List<List<Integer>> endOrders(List<Trace> recordings) {
        return recordings.stream().map(Trace::endOrder).toList();
    }

    private static List<List<Integer>> schedules(List<Trace> recordings) {
        return recordings.stream().map(t -> t.schedule().stream().map(e -> e.ref().txn()).toList()).toList();
    }

    @Test
    void twoStatementsOfOneSweepAreRecordedEitherWayAndTheirTransactionsEndSo() {
        List<Trace> recordings = trace(autocommit(1, -1), autocommit(3, 0, 1), autocommit(2, 0, 1), autocommit(4, -1)).possibleRecordings(24);
        assertEquals(List.of(List.of(1, 3, 2, 4), List.of(1, 2, 3, 4)), schedules(recordings));
        assertEquals(List.of(List.of(1, 3, 2, 4), List.of(1, 2, 3, 4)), endOrders(recordings));
    }

    @Test
    void aStatementSeenWaitingForATransactionEndedInItsSweepStaysAfterIt() {
        // T3 waited for T2, whose statement ended it: T3 finished after it in the engine, whatever its client saw
        List<Trace> recordings = trace(autocommit(2, 0, 1), autocommit(3, 0, 2)).possibleRecordings(24);
        assertEquals(List.of(List.of(2, 3)), schedules(recordings));
        // it waited for a transaction outside the sweep: both orders
        assertEquals(2, trace(autocommit(2, 0, 1), autocommit(3, 0, 1)).possibleRecordings(24).size());
    }

    @Test
    void statementsOfDifferentSweepsOrStatementsResumedAloneKeepTheirPlaces() {
        assertEquals(1, trace(autocommit(1, -1), autocommit(2, -1), autocommit(3, 0), autocommit(4, 1)).possibleRecordings(24).size());
    }

    @Test
    void sweepsMultiplyAndTheLimitHolds() {
        Trace t = trace(autocommit(1, 0), autocommit(2, 0), autocommit(3, 1), autocommit(4, 1), autocommit(5, 1));
        assertEquals(12, t.possibleRecordings(24).size());
        assertEquals(5, t.possibleRecordings(5).size());
        assertEquals(List.of(1, 2, 3, 4, 5), schedules(t.possibleRecordings(5)).get(0));
    }
}
