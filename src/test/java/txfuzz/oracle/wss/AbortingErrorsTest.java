package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.ErrorClass;
import txfuzz.exec.Cases;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.StmtResult;
import txfuzz.exec.Trace;
import txfuzz.exec.TxnOutcome;
import txfuzz.exec.TxnStatus;
import txfuzz.model.DbState;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;

/** Which errors the unexplained-error rule judges, and in which serial positions it replays them (hand-built traces). */
@Tag("unit")
class AbortingErrorsTest {
    private static final StmtResult.EngineError DUPLICATE = new StmtResult.EngineError(ErrorClass.CONSTRAINT, "23505", 23505, "duplicate");
    private static final StmtResult.EngineError DEADLOCK = new StmtResult.EngineError(ErrorClass.DEADLOCK, "40001", 40001, "deadlock");

    /** Builds a trace statement by statement, in completion order; each statement is submitted when the one before completed. */
    private static final class Run {
        final List<ExecutedStmt> schedule = new ArrayList<>();
        final Map<Integer, TxnOutcome> outcomes = new HashMap<>();
        final List<Integer> endOrder = new ArrayList<>();

        Run ok(int txn, int index) {
            return ran(txn, index, StmtResult.ok(), schedule.size());
        }

        /** A statement submitted when {@code completedBefore} statements had completed (it waited meanwhile). */
        Run ran(int txn, int index, StmtResult result, int completedBefore) {
            schedule.add(new ExecutedStmt(new StmtRef(txn, index), result, completedBefore < schedule.size(), schedule.size(), completedBefore, -1));
            return this;
        }

        Run end(int txn, TxnStatus status, String reason) {
            outcomes.put(txn, new TxnOutcome(status, schedule.get(schedule.size() - 1).ref(), reason));
            endOrder.add(txn);
            return this;
        }

        Run commit(int txn, int index) {
            return ok(txn, index).end(txn, TxnStatus.COMMITTED, "COMMIT");
        }

        Run fail(int txn, int index, StmtResult.EngineError e, int completedBefore) {
            return ran(txn, index, StmtResult.failed(e), completedBefore).end(txn, TxnStatus.ABORTED, e.errorClass() + " at T" + txn + "." + index);
        }

        Trace trace() {
            return new Trace(schedule, outcomes, endOrder, new DbState(Map.of()), 0, List.of());
        }
    }

    private static AbortingErrors.AbortingError failure(int txn, int index) {
        return new AbortingErrors.AbortingError(new StmtRef(txn, index), StmtResult.failed(DUPLICATE));
    }

    @Test
    void aConstraintErrorThatAbortedItsTransactionIsJudged() {
        Trace t = new Run().ok(1, 0).ok(1, 1).ok(2, 0).fail(2, 1, DUPLICATE, 3).commit(1, 2).trace();
        assertEquals(List.of(new StmtRef(2, 1)), AbortingErrors.toJudge(TWO_UPDATES, t).stream().map(AbortingErrors.AbortingError::statement).toList());
    }

    @Test
    void aDeadlockVictimAndTheCasesOwnRollbackAreNot() {
        Trace t = new Run().ok(1, 0).ok(1, 1).ok(2, 0).ok(2, 1).fail(2, 2, DEADLOCK, 4).commit(1, 2)
                .ok(3, 0).ok(3, 1).end(3, TxnStatus.ROLLED_BACK, "ROLLBACK").trace();
        assertEquals(List.of(), AbortingErrors.toJudge(TWO_UPDATES, t));
    }

    /** Two transactions of one UPDATE each, as txfuzz generates them: no statement can start another command. */
    private static final TestCase TWO_UPDATES = Cases.on("postgres").table("t")
            .setup("CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 1)")
            .txn("UPDATE t SET v = v + 1 WHERE id = 1").txn("UPDATE t SET v = v * 2 WHERE id = 1").order(1, 1, 2, 2, 1, 2);

    /** eval-plan-qual.spec's shape: T2's data-modifying WITH calls a function the setup creates, which updates the WITH's row. */
    private static final TestCase UPDATE_THROUGH_A_FUNCTION = Cases.on("postgres").table("accounts")
            .setup("CREATE TABLE accounts (accountid text PRIMARY KEY, balance numeric not null)",
                    "INSERT INTO accounts VALUES ('checking', 600), ('savings', 600)",
                    "CREATE FUNCTION update_checking(int) RETURNS bool LANGUAGE sql AS $$\n"
                            + "     UPDATE accounts SET balance = balance + 1 WHERE accountid = 'checking'; SELECT true;$$")
            .txn("UPDATE accounts SET balance = balance + 100 WHERE accountid = 'checking'")
            .txn("WITH doup AS (UPDATE accounts SET balance = balance + 1100 WHERE accountid = 'checking' RETURNING *, update_checking(999))"
                    + " UPDATE accounts a SET balance = doup.balance + 100 FROM doup RETURNING *")
            .order(1, 1, 2, 2, 1, 2);

    private static final StmtResult.EngineError TWICE = new StmtResult.EngineError(ErrorClass.OTHER, "27000", 0,
            "tuple to be updated was already modified by an operation triggered by the current command");

    /**
     * A triggered data change violation (27000) of a statement that calls a function the case creates is the statement's own
     * order of changes, no serial order's: not judged; a 23505 beside it still is.
     */
    @Test
    void aStatementThatChangedARowTwiceThroughAFunctionIsNotJudgedButAKeyErrorIs() {
        Trace t = new Run().ok(1, 0).ok(1, 1).ok(2, 0).fail(2, 1, TWICE, 3).commit(1, 2).trace();
        assertEquals(List.of(), AbortingErrors.toJudge(UPDATE_THROUGH_A_FUNCTION, t));
        Trace keys = new Run().ok(1, 0).ok(1, 1).ok(2, 0).fail(2, 1, DUPLICATE, 3).commit(1, 2).trace();
        assertEquals(1, AbortingErrors.toJudge(UPDATE_THROUGH_A_FUNCTION, keys).size());
    }

    /** The same 27000 from a plain UPDATE, which starts no other command: nothing explains it beforehand, so it is judged. */
    @Test
    void aPlainUpdateThatFailsWithClass27IsJudged() {
        Trace t = new Run().ok(1, 0).ok(1, 1).ok(2, 0).fail(2, 1, TWICE, 3).commit(1, 2).trace();
        assertEquals(List.of(new StmtRef(2, 1)), AbortingErrors.toJudge(TWO_UPDATES, t).stream().map(AbortingErrors.AbortingError::statement).toList());
    }

    /** What can start another command of its own: a function the statement or the setup names, a trigger or rule; not a WITH alone. */
    @Test
    void whatCanStartAnotherCommand() {
        String with = UPDATE_THROUGH_A_FUNCTION.txn(2).statements().get(1).sql();
        assertTrue(AbortingErrors.startsOtherCommands(UPDATE_THROUGH_A_FUNCTION, with));
        assertFalse(AbortingErrors.startsOtherCommands(UPDATE_THROUGH_A_FUNCTION, with.replace(", update_checking(999)", "")),
                "a data-modifying WITH alone: one of the two changes takes place, no error");
        assertFalse(AbortingErrors.startsOtherCommands(TWO_UPDATES, "UPDATE t SET v = v * 2 WHERE id = 1"));
        TestCase triggered = Cases.on("postgres").table("t")
                .setup("CREATE TABLE t (id INT PRIMARY KEY, v INT)", "CREATE FUNCTION bump() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                        + " UPDATE t SET v = v + 1 WHERE id = 2; RETURN NEW; END $$",
                        "-- the trigger\nCREATE TRIGGER bumping BEFORE UPDATE ON t FOR EACH ROW EXECUTE FUNCTION bump()")
                .txn("UPDATE t SET v = 0").order(1, 1, 1);
        assertTrue(AbortingErrors.startsOtherCommands(triggered, "UPDATE t SET v = 0"));
    }

    @Test
    void aStatementThatWaitedForTheOtherInsertIsReplayedAfterItFirstThenBefore() {
        // T1 inserts a key; T2's INSERT of it waits until T1 commits, then fails: FCRFS puts T1 first
        Trace t = new Run().ok(1, 0).ok(1, 1).ok(2, 0).commit(1, 2).fail(2, 1, DUPLICATE, 3).trace();
        assertEquals(List.of(1, 0), AbortingErrors.positions(t, List.of(1), failure(2, 1)));
    }

    @Test
    void aTransactionThatEndedBeforeTheAbortedOneBeganComesFirst() {
        Trace t = new Run().ok(1, 0).ok(1, 1).commit(1, 2).ok(2, 0).fail(2, 1, DUPLICATE, 4).trace();
        assertEquals(List.of(1), AbortingErrors.positions(t, List.of(1), failure(2, 1)));
    }

    @Test
    void aTransactionThatBeganAfterTheErrorNeverComesFirst() {
        // T3 starts after T2's INSERT failed; only T2 before everything explains nothing T3 did
        Trace t = new Run().ok(1, 0).ok(1, 1).ok(2, 0).fail(2, 1, DUPLICATE, 3).ok(3, 0).end(3, TxnStatus.COMMITTED, "autocommit")
                .commit(1, 2).trace();
        assertEquals(List.of(0), AbortingErrors.positions(t, List.of(3, 1), failure(2, 1)));
    }
}
