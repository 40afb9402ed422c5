package txfuzz.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import txfuzz.dbms.ErrorClass;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.StmtResult;
import txfuzz.exec.Trace;
import txfuzz.exec.TxnOutcome;
import txfuzz.exec.TxnStatus;
import txfuzz.model.DbState;
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Tracking;
import txfuzz.model.Txn;

/**
 * The self-check's waiting, around a deadlock: T1 and T2 update rows 1 and 2 in opposite orders, T2 waits for row 1,
 * T1's update of row 2 closes the cycle and the engine makes T2 its victim. Whether the client sees T1's update wait
 * before T2's locks are gone is timing (Derby showed it both ways for the same twin), so a twin where it waited and one
 * where it did not agree. A wait with no deadlock resolved during it still differs, and so does another victim.
 * The runs are written out by hand: an engine cannot be made to lose this race on demand.
 */
@Timeout(10)
class DeadlockWaitSelfCheckTest {
    private static final StmtResult ONE = StmtResult.ofCount(1);
    private static final StmtResult DEADLOCK = StmtResult.failed(new StmtResult.EngineError(ErrorClass.DEADLOCK, "40001", 30000, "deadlock"));

    private static TestCase plain() {
        return new TestCase(TestCase.FORMAT_VERSION, "derby", 0, 0, IsolationLevel.READ_COMMITTED, "default", null, List.of("t"),
                List.of("CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)"),
                List.of(new Txn(1, List.of(Stmt.begin(), update(1, 1), update(2, 1), Stmt.commit())),
                        new Txn(2, List.of(Stmt.begin(), update(2, 2), update(1, 2), Stmt.commit()))),
                List.of(1, 1, 2, 2, 2, 1, 1, 2));
    }

    private static TestCase tracked() {
        return new TestCase(TestCase.FORMAT_VERSION, "derby", 0, 0, IsolationLevel.READ_COMMITTED, "default", null, List.of("t"),
                List.of("CREATE TABLE t (id INT PRIMARY KEY, v INT, rid VARCHAR(100), wl VARCHAR(1000))",
                        "INSERT INTO t VALUES (1, 0, '1', ',0'), (2, 0, '2', ',0')"),
                List.of(new Txn(1, List.of(Stmt.begin(), write(1, 1, "1.1"), postRead("1.1"), write(2, 1, "1.2"), postRead("1.2"), Stmt.commit())),
                        new Txn(2, List.of(Stmt.begin(), write(2, 2, "2.1"), postRead("2.1"), write(1, 2, "2.2"), postRead("2.2"), Stmt.commit()))),
                List.of(1, 1, 1, 2, 2, 2, 2, 1, 1, 1, 2, 2));
    }

    private static Stmt update(int id, int v) {
        return Stmt.of(StmtKind.UPDATE, "UPDATE t SET v = " + v + " WHERE id = " + id);
    }

    private static Stmt write(int id, int v, String tag) {
        return Stmt.of(StmtKind.UPDATE, "UPDATE t SET v = " + v + ", wl = wl || '," + tag + "' WHERE id = " + id,
                Tracking.write("t", tag, List.of(), false));
    }

    private static Stmt postRead(String tag) {
        return Stmt.of(StmtKind.SELECT, "SELECT rid, wl FROM t WHERE wl LIKE '%," + tag + "'", Tracking.postRead("t", tag));
    }

    /** A schedule in completion order: {ref's txn, ref's index, blocked 0/1, sent when this many had completed, sweep}. */
    private static List<ExecutedStmt> schedule(List<StmtResult> results, int[]... rows) {
        List<ExecutedStmt> out = new ArrayList<>();
        for (int i = 0; i < rows.length; i++) {
            int[] r = rows[i];
            out.add(new ExecutedStmt(new StmtRef(r[0], r[1]), results.get(i), r[2] == 1, i, r[3], r[4]));
        }
        return out;
    }

    private static Trace run(List<ExecutedStmt> schedule, int victim, int committer, DbState end) {
        Map<Integer, TxnOutcome> outcomes = Map.of(
                victim, new TxnOutcome(TxnStatus.ABORTED, schedule.stream().filter(e -> e.result().failed()).findFirst().orElseThrow().ref(), "deadlock"),
                committer, new TxnOutcome(TxnStatus.COMMITTED, schedule.get(schedule.size() - 1).ref(), "COMMIT"));
        return new Trace(schedule, outcomes, List.of(victim, committer), end, 0, List.of());
    }

    private static final DbState PLAIN_END = new DbState(Map.of("t", List.of(List.of("1", "1"), List.of("2", "1"))));
    private static final DbState TRACKED_END = new DbState(Map.of("t", List.of(List.of("1", "1", "1", ",0,1.1"), List.of("2", "1", "2", ",0,1.2"))));

    /** T1's update of row 2 does not wait: T2, waiting for row 1, is the victim the moment it is sent. */
    private static Trace trackedWithoutWaiting() {
        StmtResult rows = StmtResult.ofRows(List.of(List.of("1", ",0,1.1")));
        return run(schedule(List.of(StmtResult.ok(), ONE, rows, StmtResult.ok(), ONE, rows, DEADLOCK, ONE, rows, StmtResult.ok()),
                new int[] {1, 0, 0, 0, -1}, new int[] {1, 1, 0, 1, -1}, new int[] {1, 2, 0, 2, -1},
                new int[] {2, 0, 0, 3, -1}, new int[] {2, 1, 0, 4, -1}, new int[] {2, 2, 0, 5, -1},
                new int[] {2, 3, 1, 6, -1}, // waited from its send for row 1, then the victim
                new int[] {1, 3, 0, 7, -1}, new int[] {1, 4, 0, 8, -1}, new int[] {1, 5, 0, 9, -1}), 2, 1, TRACKED_END);
    }

    /** The plain twin's T1 update of row 2 is seen waiting, and resumes in the sweep that brings T2's deadlock error. */
    private static Trace plainWaitingThroughTheDeadlock() {
        return run(schedule(List.of(StmtResult.ok(), ONE, StmtResult.ok(), ONE, DEADLOCK, ONE, StmtResult.ok()),
                new int[] {1, 0, 0, 0, -1}, new int[] {1, 1, 0, 1, -1}, new int[] {2, 0, 0, 2, -1}, new int[] {2, 1, 0, 3, -1},
                new int[] {2, 2, 1, 4, 0}, new int[] {1, 2, 1, 4, 0}, new int[] {1, 3, 0, 6, -1}), 2, 1, PLAIN_END);
    }

    @Test
    void aWaitTheDeadlocksResolutionEndedAgreesWithNoWait() {
        Trace plain = plainWaitingThroughTheDeadlock();
        assertTrue(InstrumentationSelfCheck.waitEndedByADeadlock(plain, plain.schedule().get(5)));
        InstrumentationSelfCheck.Result r = InstrumentationSelfCheck.compare(tracked(), trackedWithoutWaiting(), plain(), plain);
        assertTrue(r.comparable());
        assertTrue(r.agrees(), r.differences().toString());
    }

    @Test
    void aWaitAfterTheDeadlockWasResolvedStillDiffers() {
        // T2's deadlock error came before T1's update was sent (4 completed, the error among them), and T1's update then
        // waited alone: nothing of the deadlock ended that wait, so it is a difference
        Trace plain = run(schedule(List.of(StmtResult.ok(), ONE, StmtResult.ok(), ONE, DEADLOCK, ONE, StmtResult.ok()),
                new int[] {1, 0, 0, 0, -1}, new int[] {1, 1, 0, 1, -1}, new int[] {2, 0, 0, 2, -1}, new int[] {2, 1, 0, 3, -1},
                new int[] {2, 2, 1, 4, -1}, new int[] {1, 2, 1, 5, -1}, new int[] {1, 3, 0, 6, -1}), 2, 1, PLAIN_END);
        assertFalse(InstrumentationSelfCheck.waitEndedByADeadlock(plain, plain.schedule().get(5)));
        InstrumentationSelfCheck.Result r = InstrumentationSelfCheck.compare(tracked(), trackedWithoutWaiting(), plain(), plain);
        assertFalse(r.agrees());
        assertEquals(List.of("T1.2 `UPDATE t SET v = 1 WHERE id = 2`: waited without tracking, did not wait with it"), r.differences());
    }

    @Test
    void anotherVictimStillDiffers() {
        // the plain twin's engine chose T1: its update of row 2 fails, T2's of row 1 goes through
        Trace plain = new Trace(schedule(List.of(StmtResult.ok(), ONE, StmtResult.ok(), ONE, DEADLOCK, ONE, StmtResult.ok()),
                        new int[] {1, 0, 0, 0, -1}, new int[] {1, 1, 0, 1, -1}, new int[] {2, 0, 0, 2, -1}, new int[] {2, 1, 0, 3, -1},
                        new int[] {1, 2, 1, 4, 0}, new int[] {2, 2, 1, 4, 0}, new int[] {2, 3, 0, 6, -1}),
                Map.of(1, new TxnOutcome(TxnStatus.ABORTED, new StmtRef(1, 2), "deadlock"), 2, new TxnOutcome(TxnStatus.COMMITTED, new StmtRef(2, 3), "COMMIT")),
                List.of(1, 2), new DbState(Map.of("t", List.of(List.of("1", "2"), List.of("2", "2")))), 0, List.of());
        InstrumentationSelfCheck.Result r = InstrumentationSelfCheck.compare(tracked(), trackedWithoutWaiting(), plain(), plain);
        assertFalse(r.agrees());
        assertTrue(r.differences().stream().anyMatch(d -> d.startsWith("T1.2 ") && d.contains("failed with DEADLOCK without tracking")), r.differences().toString());
    }
}
