package txfuzz.dbms.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import txfuzz.exec.Cases;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.exec.TxnStatus;
import txfuzz.model.ExecutionMode;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.dbms.ErrorClass;

/** The execution protocol on a real PostgreSQL server: its traces for blocking, deadlocks, conflicts and aborts. */
class PostgresExecutorTest {
    private static Executor executor;

    @BeforeAll
    static void start() {
        executor = new Executor(SharedServer.target(), ExecutorConfig.defaults());
    }

    @AfterAll
    static void stop() {
        executor.close();
    }

    static List<String> scheduleOf(Trace trace) {
        return trace.schedule().stream().map(e -> e.ref() + (e.blocked() ? "*" : "")).toList();
    }

    static ExecutedStmt at(Trace trace, int txn, int stmt) {
        return trace.executed(new StmtRef(txn, stmt)).orElseThrow(() -> new AssertionError("T" + txn + "." + stmt + " never ran: " + trace));
    }

    private static List<List<String>> table(Trace trace, String t) {
        return trace.finalState().tables().get(t).stream().sorted((a, b) -> String.join(",", a).compareTo(String.join(",", b))).toList();
    }

    @Test
    void aWriterWaitsForTheUncommittedWriterOfItsRowAndTheProbeSaysSo() throws Exception {
        TestCase c = Cases.on("postgres").table("t")
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)")
                .txn("UPDATE t SET v = v + 1 WHERE id = 1")
                .txn("UPDATE t SET v = v + 10 WHERE id = 1")
                .order(1, 2, 1, 2, 1, 2);
        Trace trace = executor.run(c);
        // T2.1 waits for T1's row lock; T1's COMMIT releases it and T2.1 re-reads the row (v = 1) before adding 10
        assertEquals(List.of("T1.0", "T2.0", "T1.1", "T1.2", "T2.1*", "T2.2"), scheduleOf(trace));
        assertEquals(List.of(1, 2), trace.endOrder());
        assertEquals(List.of(List.of("1", "11")), trace.finalState().tables().get("t"));
        assertEquals(0, trace.stalls());
    }

    /**
     * Crossing updates. PostgreSQL checks for a deadlock only in the session whose deadlock_timeout runs
     * out first; txfuzz gives T1's session 200 ms, T2's 300 ms, so T1 is the victim whoever waits first.
     */
    private static TestCase crossingUpdates(Integer... order) {
        return Cases.on("postgres").table("t")
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                .txn("UPDATE t SET v = 1 WHERE id = 1", "UPDATE t SET v = 1 WHERE id = 2")
                .txn("UPDATE t SET v = 2 WHERE id = 2", "UPDATE t SET v = 2 WHERE id = 1")
                .order(order.length > 0 ? order : new Integer[] {1, 2, 1, 2, 1, 2, 1, 2});
    }

    @Test
    void aDeadlockAbortsTheLowestNumberedTransactionOfTheCycleAndTheOtherGoesOn() throws Exception {
        long start = System.nanoTime();
        Trace trace = executor.run(crossingUpdates());
        long ms = (System.nanoTime() - start) / 1_000_000;
        // T1.2 waits for T2's row 2; T2.2 closes the cycle a few ms later. T1's 200 ms deadlock_timeout runs out
        // first, so T1 runs the check and is the victim (H2 instead aborts the session that closes the cycle).
        ExecutedStmt t12 = at(trace, 1, 2);
        assertEquals(ErrorClass.DEADLOCK, t12.result().errorClass(), trace.toString());
        assertEquals("40P01", t12.result().error().sqlState());
        assertTrue(t12.blocked());
        assertEquals(TxnStatus.ABORTED, trace.outcome(1).status());
        assertFalse(trace.executed(new StmtRef(1, 3)).isPresent(), "the victim's COMMIT never runs; ROLLBACK is sent instead");
        assertTrue(at(trace, 2, 2).blocked());
        assertTrue(trace.outcome(2).status().committed());
        assertEquals(List.of(1, 2), trace.endOrder());
        assertEquals(List.of(List.of("1", "2"), List.of("2", "2")), table(trace, "t"));
        assertEquals(0, trace.stalls());
        assertTrue(ms < 1000, "deadlock case took " + ms + " ms");
    }

    @Test
    void theVictimIsTheLowestNumberedTransactionAlsoWhenItClosesTheCycle() throws Exception {
        // T2 waits first (T2.2 on row 1), T1.2 closes the cycle: T1's shorter deadlock_timeout still runs out first.
        Trace trace = executor.run(crossingUpdates(1, 2, 1, 2, 2, 1, 1, 2));
        assertEquals(ErrorClass.DEADLOCK, at(trace, 1, 2).result().errorClass(), trace.toString());
        assertTrue(at(trace, 2, 2).blocked());
        assertTrue(trace.outcome(2).status().committed());
        assertEquals(List.of(List.of("1", "2"), List.of("2", "2")), table(trace, "t"));
    }

    /** Each statement's outcome, in statement order: what ran, whether it waited, and what it returned. */
    static List<String> outcomesOf(Trace trace) {
        return trace.schedule().stream().map(e -> e.ref() + (e.blocked() ? "* " : " ") + e.result().summary()).sorted().toList();
    }

    @Test
    void theSameCaseGivesTheSameTraceEveryTime() throws Exception {
        // The victim's error and the other session's resumption come back at the same moment (PostgreSQL
        // releases the victim's locks as it raises the error), so their order in the schedule is a tie the
        // executor breaks by clock; everything else must be the same on every run, the victim included.
        TestCase c = crossingUpdates();
        Trace first = executor.run(c);
        for (int i = 0; i < 8; i++) {
            Trace again = executor.run(c);
            assertEquals(outcomesOf(first), outcomesOf(again));
            assertEquals(first.outcomes(), again.outcomes());
            assertEquals(first.endOrder(), again.endOrder());
            assertEquals(first.finalState(), again.finalState());
        }
    }

    @Test
    void atRepeatableReadTheSecondUpdaterOfARowFailsWhenTheFirstCommits() throws Exception {
        TestCase c = Cases.on("postgres").table("t").level(IsolationLevel.REPEATABLE_READ)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)")
                .txn("UPDATE t SET v = v + 1 WHERE id = 1")
                .txn("UPDATE t SET v = v + 10 WHERE id = 1")
                .order(1, 1, 2, 2, 1, 2);
        Trace trace = executor.run(c);
        // T2.1 waits for T1; when T1 commits, the row T2 wanted changed after T2's snapshot: 40001
        assertEquals(List.of("T1.0", "T1.1", "T2.0", "T1.2", "T2.1*"), scheduleOf(trace));
        assertEquals(ErrorClass.SERIALIZATION, at(trace, 2, 1).result().errorClass());
        assertEquals("40001", at(trace, 2, 1).result().error().sqlState());
        assertEquals(TxnStatus.ABORTED, trace.outcome(2).status());
        assertEquals(List.of(List.of("1", "1")), trace.finalState().tables().get("t"));

        // the same without waiting: T1's snapshot predates T2's committed update
        TestCase late = Cases.on("postgres").table("t").level(IsolationLevel.REPEATABLE_READ)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)")
                .txn("SELECT v FROM t WHERE id = 1", "UPDATE t SET v = v + 1 WHERE id = 1")
                .txn("UPDATE t SET v = v + 10 WHERE id = 1")
                .order(1, 1, 2, 2, 2, 1, 1);
        Trace t2 = executor.run(late);
        assertEquals(ErrorClass.SERIALIZATION, at(t2, 1, 2).result().errorClass());
        assertFalse(at(t2, 1, 2).blocked());
        assertEquals(TxnStatus.ABORTED, t2.outcome(1).status());
        assertEquals(List.of(List.of("1", "10")), t2.finalState().tables().get("t"));
    }

    /** Write skew: each transaction reads both rows and writes one. */
    static TestCase writeSkew(IsolationLevel level) {
        return Cases.on("postgres").table("t").level(level)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                .txn("SELECT sum(v) FROM t", "UPDATE t SET v = 1 WHERE id = 1")
                .txn("SELECT sum(v) FROM t", "UPDATE t SET v = 1 WHERE id = 2")
                .order(1, 1, 2, 2, 1, 2, 1, 2);
    }

    @Test
    void serializableAbortsOneTransactionOfAWriteSkewAndRepeatableReadCommitsBoth() throws Exception {
        Trace ser = executor.run(writeSkew(IsolationLevel.SERIALIZABLE));
        assertTrue(ser.outcome(1).status().committed(), ser.toString());
        assertEquals(TxnStatus.ABORTED, ser.outcome(2).status(), ser.toString());
        // SSI notices the dangerous structure when T2 commits after T1 did
        assertEquals(new StmtRef(2, 3), ser.outcome(2).cause());
        assertEquals(ErrorClass.SERIALIZATION, at(ser, 2, 3).result().errorClass());
        assertEquals(List.of(List.of("1", "1"), List.of("2", "0")), table(ser, "t"));

        Trace rr = executor.run(writeSkew(IsolationLevel.REPEATABLE_READ));
        assertTrue(rr.outcome(1).status().committed() && rr.outcome(2).status().committed(), rr.toString());
        assertEquals(List.of(List.of("1", "1"), List.of("2", "1")), table(rr, "t"));
    }

    @Test
    void anErrorAbortsTheTransactionAndTheExecutorRollsItBack() throws Exception {
        TestCase c = Cases.on("postgres").table("t")
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                .txn("UPDATE t SET v = 5 WHERE id = 1", "INSERT INTO t VALUES (2, 9)", "UPDATE t SET v = 6 WHERE id = 2")
                .txn("UPDATE t SET v = 7 WHERE id = 1")
                .autocommit("INSERT INTO t VALUES (1, 1)")
                .order(1, 1, 1, 2, 2, 1, 3, 1, 2);
        Trace trace = executor.run(c);
        // T1.2 hits the primary key: PostgreSQL aborts the whole transaction, so T1.1's update is undone
        // and T1.3 / COMMIT never run (they would get 25P02). The ROLLBACK releases T1's lock on row 1:
        // T2.1 runs without waiting.
        assertEquals(ErrorClass.CONSTRAINT, at(trace, 1, 2).result().errorClass());
        assertEquals(TxnStatus.ABORTED, trace.outcome(1).status());
        assertTrue(trace.outcome(1).reason().contains("CONSTRAINT"), trace.outcome(1).reason());
        assertFalse(trace.executed(new StmtRef(1, 3)).isPresent());
        assertFalse(trace.executed(new StmtRef(1, 4)).isPresent());
        assertFalse(at(trace, 2, 1).blocked());
        // an autocommit statement's error ends only itself
        assertEquals(ErrorClass.CONSTRAINT, at(trace, 3, 0).result().errorClass());
        assertEquals(TxnStatus.COMMITTED, trace.outcome(3).status());
        assertEquals(List.of(List.of("1", "7"), List.of("2", "0")), table(trace, "t"));
        assertTrue(trace.schedule().stream().noneMatch(e -> e.result().failed()
                && e.result().errorClass() == ErrorClass.IN_FAILED_TRANSACTION), "no statement ran in the failed transaction");
    }

    @Test
    void preparedStatementsSurviveTablesChangingShapeBetweenCases() throws Exception {
        // pgjdbc prepares a statement on the server after five uses of its text on one session; pooled
        // sessions carry that count across cases, in which the same text means another table.
        for (int i = 0; i < 12; i++) {
            String type = i % 2 == 0 ? "INT" : "VARCHAR(10)";
            String value = i % 2 == 0 ? "7" : "'x'";
            TestCase c = Cases.on("postgres").table("t")
                    .setup("CREATE TABLE t(id INT PRIMARY KEY, v " + type + ")", "INSERT INTO t VALUES (1, " + value + ")")
                    .txn("SELECT v FROM t", "UPDATE t SET v = v WHERE id = 1")
                    .order(1, 1, 1, 1)
                    .withExecution(ExecutionMode.PREPARED);
            Trace trace = executor.run(c);
            assertTrue(trace.outcome(1).status().committed(), i + ": " + trace);
            assertEquals(List.of(List.of(i % 2 == 0 ? "7" : "x")), at(trace, 1, 1).result().rows());
        }
    }
}
