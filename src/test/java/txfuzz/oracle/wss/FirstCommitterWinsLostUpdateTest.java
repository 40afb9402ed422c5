package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;

/**
 * First-committer-wins is checked for what it protects: a bug candidate only where an update was lost. H2 (2.5.252, real
 * engine) lets a write through when the row another transaction changed and committed has the values the writer's
 * snapshot shows (its conflict check compares values: h2database PR #2374, issue #2167), and at REPEATABLE READ when a
 * waiting {@code UPDATE ... SET c = constant} is the transaction's first statement on the table. In each the run equals
 * the serial order in which the other transaction comes first: not a bug candidate (the soak's reduced cases 28498 and
 * 25454, and 13687's schedule). A write that conflicts over a real change, let through by an injected fault, stays one.
 */
class FirstCommitterWinsLostUpdateTest {
    private static final List<IsolationLevel> SNAPSHOT_LEVELS = List.of(IsolationLevel.REPEATABLE_READ, IsolationLevel.SNAPSHOT,
            IsolationLevel.SERIALIZABLE);
    private static Target h2;

    @BeforeAll
    static void start() throws Exception {
        h2 = Targets.create("h2");
    }

    @AfterAll
    static void stop() throws Exception {
        if (h2 != null) {
            h2.close();
        }
    }

    private static WssRun judge(Target target, TestCase c) throws Exception {
        return WssRun.of(target, c);
    }

    private static void assertNoBugCandidate(Verdict v) {
        WssRun.assertNoBugCandidate(v);
    }

    private static Violation firstCommitterWinsCandidate(Verdict v) {
        List<Violation> fcw = v.violations().stream().filter(x -> x.kind() == WssKind.FIRST_COMMITTER_WINS).toList();
        assertEquals(1, fcw.size(), v.toString());
        assertEquals(Classification.BUG_CANDIDATE, fcw.get(0).classification());
        return fcw.get(0);
    }

    /** Soak seed 1, i28498, reduced (SNAPSHOT): T2 adds 3 to the row's c1 and takes it off again, commits; T1's DELETE of the row. */
    private static TestCase restoredRow(IsolationLevel level, String t2Second) {
        return Cases.on("h2").table("t0").level(level)
                .setup("CREATE TABLE t0 (c0 DOUBLE PRECISION, c1 INT)", "INSERT INTO t0 (c0, c1) VALUES (1.0, 19)")
                .txn("UPDATE t0 SET c1 = (t0.c1 + 0) WHERE t0.c0 >= 4.75", "DELETE FROM t0 WHERE t0.c0 < 2.5")
                .txn("UPDATE t0 SET c1 = (t0.c1 + 3)", t2Second)
                .order(1, 1, 2, 2, 2, 2, 1, 1);
    }

    @Test
    void aRowTheOtherWriterRestoredIsNoLostUpdate() throws Exception {
        for (IsolationLevel level : SNAPSHOT_LEVELS) {
            WssRun j = judge(h2, restoredRow(level, "UPDATE t0 SET c1 = (t0.c1 - 3) WHERE t0.c0 <= t0.c1"));
            // H2 compares values: the DELETE of the row T2 changed and restored succeeds, and both commit (the rule as
            // written broken), at every level
            assertTrue(j.succeeded(new StmtRef(1, 2)) && j.committed(1) && j.committed(2), level + ": " + j.trace());
            assertNoBugCandidate(j.verdict());
        }
    }

    @Test
    void aRowTheOtherWriterReallyChangedStillConflicts() throws Exception {
        // the same schedule with T2's change kept: H2 fails the DELETE (a 40001 "deadlock"), which is no violation
        for (IsolationLevel level : SNAPSHOT_LEVELS) {
            WssRun j = judge(h2, restoredRow(level, "UPDATE t0 SET c0 = c0 WHERE c0 > 100"));
            assertFalse(j.succeeded(new StmtRef(1, 2)) && j.committed(1), level + ": " + j.trace());
            assertTrue(j.verdict().violations().stream().noneMatch(x -> x.kind() == WssKind.FIRST_COMMITTER_WINS), j.verdict().toString());
        }
    }

    /** Soak seed 1, i25454, reduced (SERIALIZABLE): T1 sets t1.c1 to 2.5 and back to NULL on rows T2's waiting UPDATE changes. */
    private static TestCase valueSetBack(IsolationLevel level) {
        return Cases.on("h2").table("t0").table("t1").level(level)
                .setup("CREATE TABLE t0 (c0 INT NOT NULL, c1 VARCHAR(10), PRIMARY KEY (c0))",
                        "CREATE TABLE t1 (c0 INT NOT NULL CHECK (c0 >= 0), c1 DOUBLE PRECISION)",
                        "INSERT INTO t0 (c0, c1) VALUES (2, 'c')", "INSERT INTO t0 (c0, c1) VALUES (7, 'c')",
                        "INSERT INTO t0 (c0, c1) VALUES (0, 'c')", "INSERT INTO t0 (c0, c1) VALUES (9, 'c')",
                        "INSERT INTO t1 (c0, c1) VALUES (2, NULL)")
                .txn("MERGE INTO t1 USING t0 x0 ON (t1.c0 = x0.c0) WHEN MATCHED AND t1.c0 IN (7, 9) THEN UPDATE SET c1 = 2.5"
                                + " WHEN NOT MATCHED AND x0.c0 IS NULL THEN INSERT (c0, c1) VALUES (x0.c0, 4.0)",
                        "MERGE INTO t1 USING t0 x0 ON (t1.c0 = x0.c0) WHEN MATCHED THEN UPDATE SET c1 = NULL"
                                + " WHEN NOT MATCHED AND x0.c1 LIKE '%a' THEN INSERT (c0) VALUES (x0.c0)")
                .txn("INSERT INTO t0 (c0, c1) VALUES (9, 'abd')", "UPDATE t1 SET c0 = 9 WHERE t1.c0 NOT BETWEEN 5 AND 6",
                        "UPDATE t0 SET c0 = (t0.c0 + 2), c1 = NULL WHERE t0.c0 IS NOT NULL",
                        "SELECT x0.c0 FROM t1 x0 WHERE x0.c0 <> x0.c1 FOR UPDATE", "UPDATE t0 SET c0 = 3 WHERE t0.c1 BETWEEN 'c' AND 'e'")
                .autocommit("MERGE INTO t1 USING t0 x0 ON (t1.c0 = x0.c0) WHEN MATCHED THEN UPDATE SET c1 = (t1.c1 + 1.75)"
                        + " WHEN NOT MATCHED THEN INSERT (c0) VALUES (x0.c0)")
                .order(2, 1, 3, 2, 1, 2, 2, 1, 2, 2, 1, 2);
    }

    @Test
    void aValueSetAndSetBackIsNoLostUpdate() throws Exception {
        for (IsolationLevel level : SNAPSHOT_LEVELS) {
            WssRun j = judge(h2, valueSetBack(level));
            assertTrue(j.verdict().violations().stream().noneMatch(x -> x.kind() == WssKind.FIRST_COMMITTER_WINS),
                    level + ": " + j.verdict());
        }
    }

    /** Soak seed 1, i13687's shape: T1's first statement on t0, an UPDATE of every row, waits for T2's change of row 4. */
    private static TestCase waitingFirstUpdate(IsolationLevel level, String set, boolean readFirst) {
        Cases c = Cases.on("h2").table("t0").table("t1").level(level)
                .setup("CREATE TABLE t0 (c0 INT PRIMARY KEY, c1 INT)", "CREATE TABLE t1 (c0 INT PRIMARY KEY)",
                        "INSERT INTO t0 VALUES (1, 3), (4, 3)");
        return readFirst
                ? c.txn("INSERT INTO t1 VALUES (9)", "SELECT * FROM t0", "UPDATE t0 SET " + set).txn("UPDATE t0 SET c1 = 4 WHERE c0 = 4")
                        .order(1, 1, 1, 2, 2, 1, 2, 1)
                : c.txn("INSERT INTO t1 VALUES (9)", "UPDATE t0 SET " + set).txn("UPDATE t0 SET c1 = 4 WHERE c0 = 4")
                        .order(1, 1, 2, 2, 1, 2, 1);
    }

    @Test
    void aWaitingFirstUpdateToAConstantIsNoLostUpdate() throws Exception {
        for (IsolationLevel level : SNAPSHOT_LEVELS) {
            WssRun j = judge(h2, waitingFirstUpdate(level, "c1 = 9", false));
            // measured: at REPEATABLE READ H2 updates both rows, T2's committed version of row 4 included, and T1 commits; at
            // SNAPSHOT and SERIALIZABLE (one snapshot, from T1's INSERT) the UPDATE fails
            assertEquals(level == IsolationLevel.REPEATABLE_READ, j.succeeded(new StmtRef(1, 2)) && j.committed(1), level + ": " + j.trace());
            assertNoBugCandidate(j.verdict());
        }
    }

    @Test
    void theSameUpdateOverARowTheTransactionReadIsALostUpdateWhenLetThrough() throws Exception {
        // T1 read row 4 as (4, 3) before T2 changed it; H2 fails T1's UPDATE (40001). Let through by the injected fault (T1
        // starts over on the newest data, unreported), the run's read is not the one of T2 → T1: a bug candidate.
        for (IsolationLevel level : SNAPSHOT_LEVELS) {
            TestCase c = waitingFirstUpdate(level, "c1 = c1 + 10", true);
            WssRun real = judge(h2, c);
            assertFalse(real.committed(1) && real.succeeded(new StmtRef(1, 3)), level + ": " + real.trace());
            assertTrue(real.verdict().violations().stream().noneMatch(x -> x.kind() == WssKind.FIRST_COMMITTER_WINS), real.verdict().toString());
            Violation v = firstCommitterWinsCandidate(judge(new SerializationSwallowingTarget(h2), c).verdict());
            assertTrue(v.details().contains("Nothing shows the break harmless: no serial order of the committed transactions in which T1 follows T2"),
                    v.details());
        }
    }

    /**
     * Campaign h2-SER-s52-i12019, reduced: T2 reads both rows (its snapshot); T1 deletes them, inserts (6, 3) again and
     * commits; T2's UPDATE of row 6. H2 stores the rows of a table whose primary key is one integer column under that key,
     * and finds the row T2's snapshot shows there with the same values: no conflict, as for a row changed and changed back.
     */
    private static TestCase rowInsertedAgain(IsolationLevel level, String keyType, String insertedAgain) {
        return Cases.on("h2").table("t0").level(level)
                .setup("CREATE TABLE t0 (c0 " + keyType + ", c1 INT, PRIMARY KEY (c0))", "INSERT INTO t0 VALUES (8, 0)", "INSERT INTO t0 VALUES (6, 3)")
                .txn("DELETE FROM t0", "INSERT INTO t0 (c0, c1) VALUES " + insertedAgain)
                .txn("SELECT c1 FROM t0", "UPDATE t0 SET c0 = c0 + 1 WHERE c0 BETWEEN 0 AND 6")
                .order(2, 2, 1, 1, 1, 1, 2, 2);
    }

    @Test
    void aRowDeletedAndInsertedAgainAsItWasUnderItsIntegerKeyIsNoLostUpdate() throws Exception {
        for (IsolationLevel level : SNAPSHOT_LEVELS) {
            WssRun j = judge(h2, rowInsertedAgain(level, "INT", "(6, 3)"));
            assertTrue(j.succeeded(new StmtRef(2, 2)) && j.committed(1) && j.committed(2), level + ": " + j.trace());
            assertNoBugCandidate(j.verdict());
        }
    }

    /**
     * The negative controls: inserted again with another value, or under a key H2 does not store the rows by (NUMERIC), H2
     * fails T2's UPDATE (40001); let through by the injected fault, each is a bug candidate.
     */
    @Test
    void aRowInsertedAgainOtherwiseConflictsAndIsALostUpdateWhenLetThrough() throws Exception {
        for (IsolationLevel level : SNAPSHOT_LEVELS) {
            for (TestCase c : List.of(rowInsertedAgain(level, "INT", "(6, 4)"), rowInsertedAgain(level, "NUMERIC(10)", "(6, 3)"))) {
                WssRun real = judge(h2, c);
                assertFalse(real.succeeded(new StmtRef(2, 2)) && real.committed(2), level + ": " + real.trace());
                assertTrue(real.verdict().violations().stream().noneMatch(x -> x.kind() == WssKind.FIRST_COMMITTER_WINS), real.verdict().toString());
                firstCommitterWinsCandidate(judge(new SerializationSwallowingTarget(h2), c).verdict());
            }
        }
    }

    @Test
    void serialOrdersKeepTheWriterAfterTheOtherTransaction() {
        assertEquals(List.of(List.of(2, 1, 3), List.of(2, 3, 1), List.of(3, 2, 1)), WssOracle.writerAfter(List.of(2, 1, 3), 1, Set.of(2), 24));
        assertEquals(List.of(List.of(1, 2, 3), List.of(1, 3, 2)), WssOracle.writerAfter(List.of(1, 2, 3), 2, Set.of(1), 2));
    }
}
