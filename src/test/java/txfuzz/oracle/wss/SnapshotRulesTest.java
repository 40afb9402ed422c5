package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;

/**
 * Issue 21 items 1 and 2 on real engines. H2's REPEATABLE READ reads each table from the snapshot
 * taken when the transaction first touches it (measured, not in its manual): a run that rule explains breaks no promise
 * (not promised), naming it,
 * while a lost update at that level is a bug candidate. First-committer-wins is about commit: two
 * overlapping transactions that both changed one row version cannot both commit, whoever committed
 * first and whenever the writes ran (DuckDB #17223, delete first); writers of different rows pass.
 */
class SnapshotRulesTest {

    private static WssRun judge(Target target, TestCase c) throws Exception {
        return WssRun.of(target, c);
    }

    private static void assertNoBugCandidate(Verdict v) {
        WssRun.assertNoBugCandidate(v);
    }

    /** Issue 21 item 1, as reduced from h2-RR-…-i232: T1's UPDATE reads t2 in the snapshot T1 took when its SELECT first touched t2. */
    static TestCase h2SubqueryReadsTheTablesSnapshot(IsolationLevel level) {
        return subqueryReadsTheSnapshot("h2", level);
    }

    static TestCase subqueryReadsTheSnapshot(String dbms, IsolationLevel level) {
        return Cases.on(dbms).table("t0").table("t2").level(level)
                .setup("CREATE TABLE t0 (c0 INT, c1 INT, c2 VARCHAR(10))", "CREATE TABLE t2 (c1 INT, c2 INT)",
                        "INSERT INTO t0 VALUES (0, 0, '')", "INSERT INTO t2 VALUES (0, 1)")
                .txn("SELECT 0 FROM t2 x0", "UPDATE t0 SET c2 = '' WHERE t0.c1 IN (SELECT s0.c1 FROM t2 s0)")
                .autocommit("UPDATE t2 SET c1 = t2.c2")
                .order(1, 1, 2, 1, 1);
    }

    @Test
    void h2RepeatableReadSubqueryOnTheTablesSnapshotIsExplainedByThePerTableRule() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            WssRun rr = judge(h2, h2SubqueryReadsTheTablesSnapshot(IsolationLevel.REPEATABLE_READ));
            assertEquals(1, rr.trace().executed(new StmtRef(1, 2)).orElseThrow().result().updateCount(), rr.trace().toString());
            List<Violation> outcome = rr.verdict().violations().stream().filter(x -> x.kind() == WssKind.WRITE_OUTCOME).toList();
            assertEquals(1, outcome.size(), rr.verdict().toString());
            assertEquals(Classification.NOT_PROMISED, outcome.get(0).classification(), rr.verdict().toString());
            assertTrue(outcome.get(0).reference().contains("per-table snapshots"), outcome.get(0).reference());
            assertNoBugCandidate(rr.verdict());
            // the stronger levels take one snapshot for the whole transaction: snapshot isolation
            for (IsolationLevel level : List.of(IsolationLevel.SNAPSHOT, IsolationLevel.SERIALIZABLE)) {
                Verdict v = judge(h2, h2SubqueryReadsTheTablesSnapshot(level)).verdict();
                assertNoBugCandidate(v);
                assertTrue(v.violations().stream().allMatch(x -> x.reference().contains("snapshot isolation")), v.toString());
            }
        }
        // DuckDB's one snapshot per transaction explains the same run
        try (Target duckdb = Targets.create("duckdb")) {
            WssRun j = judge(duckdb, subqueryReadsTheSnapshot("duckdb", IsolationLevel.SNAPSHOT));
            assertEquals(1, j.trace().executed(new StmtRef(1, 2)).orElseThrow().result().updateCount(), j.trace().toString());
            assertTrue(j.verdict().violations().stream().anyMatch(x -> x.kind() == WssKind.WRITE_OUTCOME), j.verdict().toString());
            assertNoBugCandidate(j.verdict());
        }
    }

    /**
     * T1 first touches t0; T2 then changes t0 and T3 changes t2, both autocommit; T1 copies both into t1.
     * H2's REPEATABLE READ reads t0 from T1's first statement and t2 from the INSERT: (0, 1), a row
     * neither a whole-transaction snapshot (0, 0) nor statement visibility (1, 1) gives.
     */
    static TestCase h2ReadsTwoTablesFromTwoSnapshots(IsolationLevel level) {
        return Cases.on("h2").table("t0").table("t1").table("t2").level(level)
                .setup("CREATE TABLE t0 (c1 INT)", "CREATE TABLE t1 (a INT, b INT)", "CREATE TABLE t2 (c1 INT)",
                        "INSERT INTO t0 VALUES (0)", "INSERT INTO t2 VALUES (0)")
                .txn("SELECT c1 FROM t0", "INSERT INTO t1 SELECT t0.c1, t2.c1 FROM t0, t2")
                .autocommit("UPDATE t0 SET c1 = 1")
                .autocommit("UPDATE t2 SET c1 = 1")
                .order(1, 1, 2, 3, 1, 1);
    }

    @Test
    void h2RepeatableReadTakesEachTablesSnapshotAtItsFirstTouch() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            WssRun rr = judge(h2, h2ReadsTwoTablesFromTwoSnapshots(IsolationLevel.REPEATABLE_READ));
            assertEquals(List.of(List.of("0", "1")), rr.trace().finalState().tables().get("t1"), "H2's rule itself: " + rr.trace());
            assertTrue(rr.verdict().violations().stream().anyMatch(x -> x.kind() == WssKind.TX_WSS), rr.verdict().toString());
            for (Violation x : rr.verdict().violations()) {
                assertEquals(Classification.NOT_PROMISED, x.classification(), x.summary());
                assertTrue(x.reference().contains("per-table snapshots"), x.reference());
            }
            WssRun snapshot = judge(h2, h2ReadsTwoTablesFromTwoSnapshots(IsolationLevel.SNAPSHOT));
            assertEquals(List.of(List.of("0", "0")), snapshot.trace().finalState().tables().get("t1"), snapshot.trace().toString());
            assertNoBugCandidate(snapshot.verdict());
        }
    }

    /** T1 reads table {@code first}; T2 changes row 1 of t and commits; T1 then writes row 1 of t. */
    private static TestCase writeAfterConcurrentCommit(String dbms, IsolationLevel level, String first, String t1Write) {
        return Cases.on(dbms).table("t").table("s").level(level)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "CREATE TABLE s(n INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                .txn("SELECT * FROM " + first, t1Write)
                .txn("UPDATE t SET v = v + 10 WHERE id = 1")
                .order(1, 1, 2, 2, 2, 1, 1);
    }

    @Test
    void h2RepeatableReadLostUpdateIsABugCandidateAndAWriteAfterTheTablesSnapshotIsNot() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            for (String write : List.of("UPDATE t SET v = v + 1 WHERE id = 1", "DELETE FROM t WHERE id = 1")) {
                // T1's snapshot of t predates T2's commit: H2 fails T1's write, as first-committer-wins requires
                TestCase c = writeAfterConcurrentCommit("h2", IsolationLevel.REPEATABLE_READ, "t", write);
                WssRun real = judge(h2, c);
                assertTrue(real.trace().executed(new StmtRef(1, 2)).orElseThrow().result().failed(), real.trace().toString());
                assertTrue(real.verdict().isClean(), real.verdict().toString());
                // the same with the failure swallowed (the later writer wins): a lost update, a bug candidate
                Verdict lost = judge(new SerializationSwallowingTarget(h2), c).verdict();
                List<Violation> fcw = lost.violations().stream().filter(x -> x.kind() == WssKind.FIRST_COMMITTER_WINS).toList();
                assertEquals(1, fcw.size(), lost.toString());
                assertEquals(Classification.BUG_CANDIDATE, fcw.get(0).classification());
                assertTrue(fcw.get(0).summary().startsWith("first-committer-wins broken at T1.2: it and T2.1 of T2"), fcw.get(0).summary());
                // T1 touched only s before T2 committed: its snapshot of t is newer than T2's commit, so H2 lets the
                // write through, which the per-table rule allows
                WssRun later = judge(h2, writeAfterConcurrentCommit("h2", IsolationLevel.REPEATABLE_READ, "s", write));
                assertTrue(later.trace().executed(new StmtRef(1, 2)).orElseThrow().result().failed() == false, later.trace().toString());
                assertNoBugCandidate(later.verdict());
            }
        }
    }

    /**
     * T2 deletes the row; T1's DELETE of it waits for T2, which commits. From seed 2 (h2-RR-s2-i252):
     * autocommit, T1's DELETE resumes on the newest data and deletes nothing, as if T1 began after T2
     * committed — nothing T1 did before could tell, so that is no lost update. With a read before it,
     * T1's snapshot is fixed: H2 fails the DELETE, and the same run with the failure swallowed (the
     * DELETE re-run on the newest data) breaks first-committer-wins.
     */
    static TestCase deleteWaitingForAConcurrentDelete(boolean readFirst) {
        Cases c = Cases.on("h2").table("t0").level(IsolationLevel.REPEATABLE_READ)
                .setup("CREATE TABLE t0 (c2 INT)", "INSERT INTO t0 (c2) VALUES (NULL)");
        return readFirst
                ? c.txn("SELECT * FROM t0", "DELETE FROM t0").txn("DELETE FROM t0").order(1, 1, 2, 2, 1, 2, 1)
                : c.autocommit("DELETE FROM t0").txn("DELETE FROM t0").order(2, 2, 1, 2);
    }

    @Test
    void aWaitingFirstStatementMayRestartAfterTheWaitButAStatementAfterAReadMayNot() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            WssRun autocommit = judge(h2, deleteWaitingForAConcurrentDelete(false));
            assertTrue(autocommit.trace().executed(new StmtRef(1, 0)).orElseThrow().blocked(), autocommit.trace().toString());
            assertEquals(0, autocommit.trace().executed(new StmtRef(1, 0)).orElseThrow().result().updateCount(), autocommit.trace().toString());
            assertTrue(autocommit.verdict().isClean(), autocommit.verdict().toString());
            TestCase afterRead = deleteWaitingForAConcurrentDelete(true);
            WssRun real = judge(h2, afterRead);
            assertTrue(real.trace().executed(new StmtRef(1, 2)).orElseThrow().result().failed(), real.trace().toString());
            assertTrue(real.verdict().isClean(), real.verdict().toString());
            Verdict swallowed = judge(new SerializationSwallowingTarget(h2), afterRead).verdict();
            assertTrue(swallowed.violations().stream().anyMatch(x -> x.kind() == WssKind.FIRST_COMMITTER_WINS
                    && x.classification() == Classification.BUG_CANDIDATE && x.summary().startsWith("first-committer-wins broken at T1.2")),
                    swallowed.toString());
        }
    }

    /**
     * h2-RR-s1795965722168-i252 (a newcomer's `./txfuzz run`, 2026-11-29), reduced: T3 reads t0, T2 inserts a row into t0
     * and commits, and T3's UPDATE of t0 misses it (H2's per-table snapshots, measured). Meanwhile T1's autocommit
     * {@code t1Write} on t2 waits for T2's update of t2's row. The serial replays differ from the run, so the run is
     * simulated: T1's DELETE deleted the version T2 committed, as a transaction begun after T2's commit would.
     */
    static TestCase writeWaitingBesideATableSnapshot(String t1Write) {
        return Cases.on("h2").table("t0").table("t2").level(IsolationLevel.REPEATABLE_READ)
                .setup("CREATE TABLE t0 (c1 VARCHAR(10))", "CREATE TABLE t2 (c3 DOUBLE PRECISION)", "INSERT INTO t2 (c3) VALUES (1)")
                .autocommit(t1Write)
                .txn("UPDATE t2 SET c3 = 0", "INSERT INTO t0 (c1) VALUES ('')")
                .txn("SELECT c1 FROM t0", "UPDATE t0 SET c1 = 'e'")
                .order(2, 2, 3, 3, 1, 2, 2, 3, 3);
    }

    @Test
    void aWaitingFirstStatementIsSimulatedOnTheSnapshotOfItsResumption() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            WssRun run = judge(h2, writeWaitingBesideATableSnapshot("DELETE FROM t2"));
            assertTrue(run.trace().executed(new StmtRef(1, 0)).orElseThrow().blocked(), run.trace().toString());
            assertEquals(1, run.trace().executed(new StmtRef(1, 0)).orElseThrow().result().updateCount(), run.trace().toString());
            assertEquals(0, run.trace().executed(new StmtRef(3, 2)).orElseThrow().result().updateCount(), run.trace().toString());
            assertTrue(run.verdict().violations().stream().anyMatch(x -> x.kind() == WssKind.WRITE_OUTCOME
                    && x.classification() == Classification.NOT_PROMISED && x.reference().contains("per-table snapshots")), run.verdict().toString());
            assertNoBugCandidate(run.verdict());
            // the control: H2 fails T1's UPDATE computed from the row (40001); made to land on the value it had before its
            // wait, it loses T2's committed 0, and that stays a bug candidate
            String increment = "UPDATE t2 SET c3 = c3 + 1";
            WssRun real = judge(h2, writeWaitingBesideATableSnapshot(increment));
            assertTrue(real.trace().executed(new StmtRef(1, 0)).orElseThrow().result().failed(), real.trace().toString());
            assertNoBugCandidate(real.verdict());
            WssRun lost = judge(new StaleRetryTarget(h2, increment, "UPDATE t2 SET c3 = 2"), writeWaitingBesideATableSnapshot(increment));
            assertEquals(List.of(List.of("2")), lost.trace().finalState().tables().get("t2"), lost.trace().toString());
            assertTrue(lost.verdict().violations().stream().anyMatch(x -> x.classification() == Classification.BUG_CANDIDATE), lost.verdict().toString());
        }
    }

    /**
     * h2-RR-s105-i167 (a run of seed 105, 2026-11-29), reduced: T1 copies t0's one row (INSERT ... SELECT) and updates both
     * rows' c2; T2's autocommit UPDATE t0 SET c3 = 'd', sent meanwhile, waits for T1, and once T1 commits updates T1's
     * version of the old row (c2 = 0 kept) but not T1's new row, which its snapshot of t0, taken when it was sent, does not
     * show. The run is the serial order T2 → T1, not the commit order; H2's manual says nothing of it (measured).
     */
    static TestCase waitingConstantUpdateBesideACopiedRow() {
        return Cases.on("h2").table("t0").level(IsolationLevel.REPEATABLE_READ)
                .setup("CREATE TABLE t0 (c0 INT, c1 INT, c2 DOUBLE PRECISION, c3 VARCHAR(10))", "INSERT INTO t0 (c0, c1, c2, c3) VALUES (0, 0, 1, '')")
                .txn("INSERT INTO t0 (c0, c1, c2, c3) SELECT (x0.c1 + 0), x0.c0, 0, '' FROM t0 x0", "UPDATE t0 SET c2 = 0")
                .autocommit("UPDATE t0 SET c3 = 'd'")
                .order(1, 1, 1, 2, 1);
    }

    @Test
    void aWaitingWriteOfATableItTookNoSnapshotOfWritesTheNewestVersionsOfTheRowsItsSnapshotShows() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            WssRun run = judge(h2, waitingConstantUpdateBesideACopiedRow());
            assertTrue(run.trace().executed(new StmtRef(2, 0)).orElseThrow().blocked(), run.trace().toString());
            assertEquals(1, run.trace().executed(new StmtRef(2, 0)).orElseThrow().result().updateCount(), run.trace().toString());
            assertTrue(run.verdict().violations().stream().anyMatch(x -> x.kind() == WssKind.WRITE_OUTCOME
                    && x.classification() == Classification.NOT_PROMISED && x.reference().contains("per-table snapshots")), run.verdict().toString());
            assertNoBugCandidate(run.verdict());
            // the control: the waiting UPDATE also writes back the c2 its snapshot shows (1), losing T1's committed 0
            WssRun lost = judge(new ReplacedBesideUncommittedWriteTarget(h2, "UPDATE t0 SET c3 = 'd'", "UPDATE t0 SET c3 = 'd', c2 = 1"),
                    waitingConstantUpdateBesideACopiedRow());
            assertTrue(lost.trace().finalState().tables().get("t0").contains(List.of("0", "0", "1", "d")), lost.trace().toString());
            assertTrue(lost.verdict().violations().stream().anyMatch(x -> x.classification() == Classification.BUG_CANDIDATE), lost.verdict().toString());
        }
    }

    /** DuckDB #17223, delete first: T1 deletes a row, T2 updates it before T1 commits; both commit, T2's update is lost. */
    static TestCase deleteThenConcurrentUpdate(String dbms, String t2Where) {
        return Cases.on(dbms).table("test").level(IsolationLevel.SNAPSHOT)
                .setup("CREATE TABLE test (a INT)", "INSERT INTO test VALUES (1), (2), (3)")
                .txn("SELECT * FROM test", "DELETE FROM test WHERE a = 3")
                .txn("SELECT * FROM test", "UPDATE test SET a = 4 WHERE " + t2Where)
                .order(1, 2, 1, 2, 1, 2, 1, 2);
    }

    @Test
    void duckdbDeleteFirstLostUpdateBreaksFirstCommitterWinsNamingBothWritesAndCommits() throws Exception {
        for (TargetOptions version : List.of(TargetOptions.none(), TargetOptions.version("1.4.4.0"))) {
            try (Target duckdb = Targets.create("duckdb", version)) {
                WssRun j = judge(duckdb, deleteThenConcurrentUpdate("duckdb", "a = 3"));
                assertEquals(1, j.trace().executed(new StmtRef(2, 2)).orElseThrow().result().updateCount(), j.trace().toString());
                assertTrue(j.trace().outcome(1).status() == txfuzz.exec.TxnStatus.COMMITTED && j.trace().outcome(2).status() == txfuzz.exec.TxnStatus.COMMITTED, j.trace().toString());
                List<Violation> fcw = j.verdict().violations().stream().filter(x -> x.kind() == WssKind.FIRST_COMMITTER_WINS).toList();
                assertEquals(1, fcw.size(), duckdb.version() + ": " + j.verdict());
                Violation v = fcw.get(0);
                assertEquals(Classification.BUG_CANDIDATE, v.classification());
                assertTrue(v.summary().startsWith("first-committer-wins broken at T2.2: it and T1.2 of T1"), v.summary());
                assertTrue(v.summary().contains("T1.3 COMMIT, then T2.3 COMMIT"), v.summary());
                for (String named : List.of("DELETE FROM test WHERE a = 3", "UPDATE test SET a = 4 WHERE a = 3", "T1.3", "T2.3")) {
                    assertTrue(v.details().contains(named), named + " in " + v.details());
                }
                // the writers change different rows: snapshot isolation allows it
                WssRun apart = judge(duckdb, deleteThenConcurrentUpdate("duckdb", "a = 2"));
                assertTrue(apart.trace().outcome(2).status() == txfuzz.exec.TxnStatus.COMMITTED, apart.trace().toString());
                assertTrue(apart.verdict().isClean(), apart.verdict().toString());
            }
        }
    }

    @Test
    void h2SnapshotMakesTheSecondWriterOfTheDeletedRowFail() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            WssRun same = judge(h2, deleteThenConcurrentUpdate("h2", "a = 3"));
            assertTrue(same.trace().executed(new StmtRef(2, 2)).orElseThrow().result().failed(), same.trace().toString());
            assertTrue(same.verdict().isClean(), same.verdict().toString());
            WssRun apart = judge(h2, deleteThenConcurrentUpdate("h2", "a = 2"));
            assertTrue(apart.trace().outcome(2).status() == txfuzz.exec.TxnStatus.COMMITTED, apart.trace().toString());
            assertTrue(apart.verdict().isClean(), apart.verdict().toString());
        }
    }
}
