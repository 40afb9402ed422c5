package txfuzz.dbms.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static txfuzz.dbms.postgres.PostgresExecutorTest.at;
import static txfuzz.dbms.postgres.PostgresExecutorTest.scheduleOf;

import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.exec.TxnStatus;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.CommitDroppingTarget;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;
import txfuzz.oracle.wss.WssOracle;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Target;

/**
 * The wss oracle on a real PostgreSQL server, both ways, and the paper listings that fit
 * PostgreSQL replayed on it: WriteCheck Listings 5 and 6 and Figure 5, DT2 Figures 1 and 3 and
 * Listing 2. Each test says what PostgreSQL does with the listing and why txfuzz's verdict is right.
 */
class PostgresWssTest {
    private static final WssOracle WSS = new WssOracle();
    private static Executor executor;

    @BeforeAll
    static void start() {
        executor = new Executor(SharedServer.target(), ExecutorConfig.defaults());
    }

    @AfterAll
    static void stop() {
        executor.close();
    }

    private record Judged(Trace trace, Verdict verdict) {
    }

    private static Judged judge(TestCase c) throws Exception {
        Trace trace = executor.run(c);
        return new Judged(trace, WSS.judge(c, trace, executor));
    }

    private static Verdict judge(Target target, TestCase c) throws Exception {
        try (Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            return WSS.judge(c, trace, ex);
        }
    }

    private static List<List<String>> table(Trace trace, String t) {
        return trace.finalState().tables().get(t).stream().sorted(Comparator.comparing((List<String> r) -> String.join(",", r))).toList();
    }

    private static void assertAllDocumented(Verdict v, String because) {
        assertFalse(v.violations().isEmpty(), "expected a violation: " + v);
        for (Violation x : v.violations()) {
            assertEquals(Classification.DOCUMENTED, x.classification(), x.summary() + "\n" + v);
            // the manual of the server's own major release (PostgresManualVersionTest pins which)
            assertTrue(x.reference().matches(".*postgresql\\.org/docs/\\d+/transaction-iso\\.html.*"), x.reference());
            assertTrue(x.reference().contains(because), x.reference());
        }
    }

    /** Two writers on different rows, overlapping in time, plus a blocked writer on a shared row. */
    private static TestCase overlappingWriters(IsolationLevel level) {
        return Cases.on("postgres").table("t").level(level)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0), (3, 0)")
                .txn("UPDATE t SET v = v + 1 WHERE id = 1", "UPDATE t SET v = v + 1 WHERE id = 3")
                .txn("UPDATE t SET v = v + 10 WHERE id = 2", "UPDATE t SET v = v * 2 WHERE id = 3")
                .autocommit("DELETE FROM t WHERE v = 0")
                .order(1, 2, 1, 2, 1, 2, 3, 1, 2);
    }

    @Test
    void aCorrectRunIsCleanAtEveryLevel() throws Exception {
        for (IsolationLevel level : SharedServer.target().isolationLevels()) {
            Judged j = judge(overlappingWriters(level));
            assertTrue(j.verdict().isClean(), level + ": " + j.verdict() + "\n" + j.trace());
        }
    }

    @Test
    void aCommitThatSilentlyDropsItsWritesIsCaught() throws Exception {
        // CommitDroppingTarget rolls back a transaction that overlapped another while reporting success
        Verdict v = judge(new CommitDroppingTarget(SharedServer.target()), overlappingWriters(IsolationLevel.READ_COMMITTED));
        List<String> kinds = v.violations().stream().map(vi -> vi.kind().label()).toList();
        assertTrue(kinds.contains("tx-wss") && kinds.contains("stmt-wss"), v.toString());
        for (Violation x : v.violations()) {
            assertEquals(Classification.BUG_CANDIDATE, x.classification(), x.summary());
        }
        // at REPEATABLE READ the lost writes are not explained by snapshot isolation either
        Verdict rr = judge(new CommitDroppingTarget(SharedServer.target()), overlappingWriters(IsolationLevel.REPEATABLE_READ));
        assertTrue(rr.violations().stream().anyMatch(x -> x.classification() == Classification.BUG_CANDIDATE), rr.toString());
    }

    @Test
    void writeSkewLeavesTheSerialStateAtRepeatableReadAndIsAbortedAtSerializable() throws Exception {
        Judged rr = judge(PostgresExecutorTest.writeSkew(IsolationLevel.REPEATABLE_READ));
        // FCRFS replays T1 then T2 and gets the same state: both wrote different rows. WSS judges writes,
        // so PostgreSQL's documented write skew is no violation at all here.
        assertTrue(rr.verdict().isClean(), rr.verdict().toString());
        Judged ser = judge(PostgresExecutorTest.writeSkew(IsolationLevel.SERIALIZABLE));
        assertTrue(ser.verdict().isClean(), ser.verdict().toString());
    }

    /** WriteCheck Listing 6: a range DELETE takes no gap lock, a concurrent INSERT slips in, the later UPDATE sees it. */
    private static TestCase listing6(IsolationLevel level) {
        return Cases.on("postgres").table("t").level(level)
                .setup("CREATE TABLE t(c1 INT)", "INSERT INTO t(c1) VALUES (3)")
                .txn("DELETE FROM t WHERE c1 BETWEEN 1 AND 10", "UPDATE t SET c1 = c1 + 1")
                .txn("INSERT INTO t(c1) VALUES (5)")
                .order(1, 1, 2, 2, 2, 1, 1);
    }

    @Test
    void writeCheckListing6_readCommittedHasNoGapLocks_theUpdateSeesTheNewRow_documented() throws Exception {
        // As in TiDB: T2's INSERT does not wait (PostgreSQL has no gap locks), T1's UPDATE, a new statement
        // at READ COMMITTED, sees the committed 5 and makes it 6. FCRFS order T2 → T1 leaves {}.
        Judged j = judge(listing6(IsolationLevel.READ_COMMITTED));
        assertEquals(List.of("T1.0", "T1.1", "T2.0", "T2.1", "T2.2", "T1.2", "T1.3"), scheduleOf(j.trace()));
        assertEquals(List.of(List.of("6")), table(j.trace(), "t"));
        assertTrue(j.verdict().violations().stream().anyMatch(x -> x.kind().label().equals("tx-wss")), j.verdict().toString());
        assertAllDocumented(j.verdict(), "statement snapshot with re-check");
    }

    @Test
    void writeCheckListing6_repeatableRead_theUpdateWorksOnItsSnapshot_documented() throws Exception {
        // T1's snapshot (taken at its DELETE) does not hold the 5: its UPDATE changes nothing, 5 stays.
        Judged j = judge(listing6(IsolationLevel.REPEATABLE_READ));
        assertEquals(List.of(List.of("5")), table(j.trace(), "t"));
        assertEquals(0, at(j.trace(), 1, 2).result().updateCount());
        assertAllDocumented(j.verdict(), "snapshot isolation");
    }

    @Test
    void writeCheckListing6_serializable_equivalentToT1BeforeT2NotToCommitOrder_documented() throws Exception {
        // SSI sees only T1 →rw T2 (T1 read the range T2 inserted into): no cycle, both commit. The state {5}
        // is the serial order T1 → T2, though T2 committed first (WriteCheck footnote 4).
        Judged j = judge(listing6(IsolationLevel.SERIALIZABLE));
        assertTrue(j.trace().outcome(1).status().committed() && j.trace().outcome(2).status().committed(), j.trace().toString());
        assertEquals(List.of(List.of("5")), table(j.trace(), "t"));
        assertAllDocumented(j.verdict(), "serializable in an order other than commit order: T1 → T2");
    }

    @Test
    void writeCheckListing5_readCommitted_eachUpdateFiltersOnItsOwnSnapshot_documented() throws Exception {
        // MySQL's semi-consistent read in WriteCheck; PostgreSQL gets the same state by plain statement
        // snapshots: T2's UPDATE ... WHERE c1 = 5 sees (1,'') and (5,''), not T1's uncommitted (5,'tx1'),
        // so it changes only (5,'') and never waits for T1. FCRFS T1 → T2 would change both rows.
        TestCase c = Cases.on("postgres").table("t").level(IsolationLevel.READ_COMMITTED)
                .setup("CREATE TABLE t(c1 INT, c2 VARCHAR(5))", "INSERT INTO t(c1, c2) VALUES (1, ''), (5, '')")
                .txn("UPDATE t SET c1 = 5, c2 = 'tx1' WHERE c1 = 1")
                .txn("UPDATE t SET c1 = 1, c2 = 'tx2' WHERE c1 = 5")
                .order(1, 1, 2, 2, 1, 2);
        Judged j = judge(c);
        assertEquals(0, j.trace().blockedCount(), j.trace().toString());
        assertEquals(List.of(List.of("1", "tx2"), List.of("5", "tx1")), table(j.trace(), "t"));
        assertTrue(j.verdict().violations().stream().anyMatch(x -> x.kind().label().equals("tx-wss")), j.verdict().toString());
        assertAllDocumented(j.verdict(), "statement snapshot with re-check");
    }

    @Test
    void writeCheckFigure5_anUncommittedInsertIsInvisibleToUpdateAndDeleteAlike_documented() throws Exception {
        // MariaDB#30835: there the UPDATE skipped T1's uncommitted row (semi-consistent read) while a DELETE
        // waited for it. PostgreSQL treats both the same: neither sees nor waits for an uncommitted insert.
        for (String write : List.of("UPDATE t SET c1 = 3.0 WHERE c1 = 2.0", "DELETE FROM t WHERE c1 = 2.0")) {
            TestCase c = Cases.on("postgres").table("t").level(IsolationLevel.READ_COMMITTED)
                    .setup("CREATE TABLE t(c1 DOUBLE PRECISION)", "INSERT INTO t VALUES (1.0)")
                    .txn("INSERT INTO t VALUES (2.0)")
                    .txn(write)
                    .order(1, 1, 2, 2, 1, 2);
            Judged j = judge(c);
            assertEquals(0, j.trace().blockedCount(), write + ": " + j.trace());
            assertEquals(0, at(j.trace(), 2, 1).result().updateCount(), write);
            assertEquals(List.of(List.of("1"), List.of("2")), table(j.trace(), "t"), write);
            assertAllDocumented(j.verdict(), "statement snapshot with re-check");
        }
    }

    /** DT2 Figure 1 (MariaDB MDEV-27922): the statements after a transaction's deadlock must not run in it, nor outside it. */
    private static TestCase dt2Figure1(IsolationLevel level) {
        return Cases.on("postgres").table("t").level(level)
                .setup("CREATE TABLE t(c1 INT PRIMARY KEY)", "INSERT INTO t(c1) VALUES (3)")
                .txn("UPDATE t SET c1 = 5", "INSERT INTO t(c1) VALUES (2)")
                .txn("DELETE FROM t", "INSERT INTO t(c1) VALUES (1)", "ROLLBACK")
                .order(1, 1, 2, 2, 1, 1, 2, 2);
    }

    @Test
    void dt2Figure1_repeatableRead_noGapLockSoNoDeadlock_theDeleteFailsWith40001AndTheRestNeverRuns() throws Exception {
        // MySQL/MariaDB deadlock on the gap lock at T1's INSERT; PostgreSQL has none: the INSERT runs, T2's
        // DELETE waits only for the row T1 updated, and when T1 commits that row has changed since T2's
        // snapshot: 40001. The executor rolls T2 back; T2's INSERT and ROLLBACK never run (PostgreSQL would
        // refuse them with 25P02 anyway), so nothing can leak out of the aborted transaction.
        Judged j = judge(dt2Figure1(IsolationLevel.REPEATABLE_READ));
        assertEquals(List.of("T1.0", "T1.1", "T2.0", "T1.2", "T1.3", "T2.1*"), scheduleOf(j.trace()));
        assertEquals(ErrorClass.SERIALIZATION, at(j.trace(), 2, 1).result().errorClass());
        assertEquals(TxnStatus.ABORTED, j.trace().outcome(2).status());
        assertEquals(List.of(List.of("2"), List.of("5")), table(j.trace(), "t"));
        assertTrue(j.verdict().isClean(), j.verdict().toString());
    }

    @Test
    void dt2Figure1_readCommitted_theDeleteRechecksTheNewestRowVersion_thenTheRollbackUndoesIt() throws Exception {
        // At READ COMMITTED the waiting DELETE re-checks T1's newest version of the row (5) and deletes it,
        // but not T1's inserted 2, which its statement snapshot does not hold; T2's ROLLBACK undoes it all.
        Judged j = judge(dt2Figure1(IsolationLevel.READ_COMMITTED));
        assertEquals(1, at(j.trace(), 2, 1).result().updateCount());
        assertTrue(at(j.trace(), 2, 1).blocked());
        assertEquals(TxnStatus.ROLLED_BACK, j.trace().outcome(2).status());
        assertEquals(List.of(List.of("2"), List.of("5")), table(j.trace(), "t"));
        assertTrue(j.verdict().isClean(), j.verdict().toString());
    }

    /** DT2 Figure 3 (MariaDB MDEV-27992): a DELETE waits for a transaction that updates the primary key twice. */
    private static TestCase dt2Figure3(IsolationLevel level) {
        return Cases.on("postgres").table("t").level(level)
                .setup("CREATE TABLE t(c1 INT PRIMARY KEY)", "INSERT INTO t(c1) VALUES (3)")
                .txn("UPDATE t SET c1 = 2", "UPDATE t SET c1 = 1")
                .txn("DELETE FROM t", "SELECT * FROM t FOR UPDATE")
                .order(1, 1, 2, 2, 1, 1, 2, 2);
    }

    @Test
    void dt2Figure3_readCommitted_theWaitingDeleteFollowsTheUpdateChain_andDeletesTheRow() throws Exception {
        // MariaDB returned [(1)] (it did not update the key atomically); PostgreSQL follows the row's update
        // chain to its newest version (1) after T1 commits and deletes it: the SELECT sees nothing.
        Judged j = judge(dt2Figure3(IsolationLevel.READ_COMMITTED));
        assertTrue(at(j.trace(), 2, 1).blocked());
        assertEquals(1, at(j.trace(), 2, 1).result().updateCount());
        assertEquals(List.of(), at(j.trace(), 2, 2).result().rows());
        assertEquals(List.of(), table(j.trace(), "t"));
        assertTrue(j.verdict().isClean(), j.verdict().toString());
    }

    @Test
    void dt2Figure3_repeatableRead_theWaitingDeleteFailsWith40001() throws Exception {
        Judged j = judge(dt2Figure3(IsolationLevel.REPEATABLE_READ));
        assertEquals(ErrorClass.SERIALIZATION, at(j.trace(), 2, 1).result().errorClass());
        assertFalse(j.trace().executed(new StmtRef(2, 2)).isPresent());
        assertEquals(List.of(List.of("1")), table(j.trace(), "t"));
        assertTrue(j.verdict().isClean(), j.verdict().toString());
    }

    @Test
    void dt2Listing2_serializable_readsTakeNoLocks_soTheDeleteDoesNotWait_andTheLaterDeleteFailsWith40001() throws Exception {
        // MySQL#106655: MySQL's SERIALIZABLE turns T1's SELECT into shared locks, T2's DELETE waits and
        // T1's DELETE deadlocks. PostgreSQL's SSI reads take no locks: T2's DELETE runs at once; T1's DELETE
        // waits for T2's row lock, and when T2 commits the row it wanted is gone: 40001, T1 is rolled back.
        TestCase c = Cases.on("postgres").table("t").level(IsolationLevel.SERIALIZABLE)
                .setup("CREATE TABLE t(c1 INT PRIMARY KEY, c2 INT)", "INSERT INTO t(c1, c2) VALUES (1, 1), (2, 2)")
                .txn("SELECT * FROM t", "DELETE FROM t")
                .txn("DELETE FROM t WHERE c1 = 1")
                .order(1, 1, 2, 2, 1, 1, 2);
        Judged j = judge(c);
        assertEquals(List.of("T1.0", "T1.1", "T2.0", "T2.1", "T2.2", "T1.2*"), scheduleOf(j.trace()));
        assertEquals(ErrorClass.SERIALIZATION, at(j.trace(), 1, 2).result().errorClass());
        assertEquals(TxnStatus.ABORTED, j.trace().outcome(1).status());
        assertEquals(List.of(List.of("2", "2")), table(j.trace(), "t"));
        assertTrue(j.verdict().isClean(), j.verdict().toString());
    }
}
