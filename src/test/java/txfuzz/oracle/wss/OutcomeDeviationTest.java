package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.exec.StmtResult;
import txfuzz.model.StmtRef;

/** A headline says what the statement did against what it does serially, in words that never contradict themselves. */
@Tag("unit")
class OutcomeDeviationTest {
    @Test
    void aWriteSaysHowManyRowsItChangedAndHowManyItChangesSerially() {
        OutcomeDeviation d = new OutcomeDeviation(new StmtRef(2, 0), "UPDATE t0 SET c3 = NULL", StmtResult.ofCount(0), StmtResult.ofCount(1),
                List.of(1), true, List.of(1), List.of());
        assertEquals("T2's `UPDATE t0 SET c3 = NULL` changed 0 rows after waiting for T1, where run after T1 it changes 1 row", d.sentence());
    }

    @Test
    void aQueryWithAsManyRowsAsSeriallySaysItsRowsDifferNotTheirNumber() {
        OutcomeDeviation d = new OutcomeDeviation(new StmtRef(3, 2), "SELECT v FROM t", StmtResult.ofRows(List.of(List.of("1"))),
                StmtResult.ofRows(List.of(List.of("2"))), List.of(1, 2), false, List.of(), List.of());
        assertEquals("T3's `SELECT v FROM t` returned other rows than it returns run after T1 and T2", d.sentence());
    }

    @Test
    void aStatementOfTheFirstTransactionInTheSerialOrderSaysSo() {
        OutcomeDeviation d = new OutcomeDeviation(new StmtRef(2, 1), "DELETE FROM t", StmtResult.ofCount(0), StmtResult.ofCount(1),
                List.of(), false, List.of(), List.of());
        assertEquals("T2's `DELETE FROM t` changed 0 rows, where run first it changes 1 row", d.sentence());
    }

    /** A write issued while the statement waited had not run when it started: it is not called "not yet committed" then. */
    @Test
    void aWriteIssuedWhileTheStatementWaitedIsNotCalledUncommittedWhenItStarted() {
        OutcomeDeviation d = new OutcomeDeviation(new StmtRef(2, 0), "UPDATE t0 SET c3 = NULL", StmtResult.ofCount(0), StmtResult.ofCount(1),
                List.of(1), true, List.of(1), List.of("T1.1 `DELETE FROM t0`"), List.of("T1.2 `INSERT INTO t0 VALUES (1)`"));
        String text = d.explanation(null);
        assertEquals(true, text.contains("when it started, this write to its table was not yet committed: T1.1 `DELETE FROM t0`"), text);
        assertEquals(true, text.contains("and this write to its table was issued while it waited: T1.2 `INSERT INTO t0 VALUES (1)`"), text);
        assertEquals(false, text.contains("not yet committed: T1.1 `DELETE FROM t0`, T1.2"), text);
    }
}
