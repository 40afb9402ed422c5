package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.CommitDroppingTarget;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;
import txfuzz.dbms.Target;
import txfuzz.dbms.h2.H2Target;

class WssOracleTest {
    private static final WssOracle WSS = new WssOracle();

    private static Verdict judge(Target target, TestCase c) throws Exception {
        try (Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            return WSS.judge(c, trace, ex);
        }
    }

    /** Two writers on different rows, overlapping in time, plus a blocked writer on a shared row. */
    private static TestCase overlappingWriters(IsolationLevel level) {
        return Cases.on("h2").table("t").level(level)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0), (3, 0)")
                .txn("UPDATE t SET v = v + 1 WHERE id = 1", "UPDATE t SET v = v + 1 WHERE id = 3")
                .txn("UPDATE t SET v = v + 10 WHERE id = 2", "UPDATE t SET v = v * 2 WHERE id = 3")
                .autocommit("DELETE FROM t WHERE v = 0")
                .order(1, 2, 1, 2, 1, 2, 3, 1, 2);
    }

    @Test
    void aCorrectEngineHasNoBugCandidateAtAnyLevel() throws Exception {
        H2Target h2 = new H2Target();
        for (IsolationLevel level : h2.isolationLevels()) {
            Verdict v = judge(h2, overlappingWriters(level));
            assertTrue(v.violations().stream().noneMatch(x -> x.classification() == Classification.BUG_CANDIDATE), level + ": " + v);
            if (level != IsolationLevel.READ_UNCOMMITTED) {
                assertTrue(v.isClean(), level + ": " + v);
            }
        }
    }

    @Test
    void dirtyReadsAtReadUncommittedAreDocumentedBehaviour() throws Exception {
        // T3's DELETE ... WHERE v = 0 sees T1's and T2's uncommitted increments, deletes nothing and
        // ends first, so FCRFS puts it first, where it would have deleted every row.
        Verdict v = judge(new H2Target(), overlappingWriters(IsolationLevel.READ_UNCOMMITTED));
        assertTrue(v.violations().stream().anyMatch(x -> x.kind().label().equals("tx-wss")), v.toString());
        for (Violation x : v.violations()) {
            assertEquals(Classification.DOCUMENTED, x.classification(), x.summary());
            assertTrue(x.reference().contains("dirty reads"), x.reference());
        }
    }

    @Test
    void aCommitThatSilentlyDropsItsWritesIsABugCandidate() throws Exception {
        Verdict v = judge(new CommitDroppingTarget(new H2Target()), overlappingWriters(IsolationLevel.READ_COMMITTED));
        List<String> kinds = v.violations().stream().map(vi -> vi.kind().label()).toList();
        assertTrue(kinds.contains("tx-wss"), kinds.toString());
        assertTrue(kinds.contains("stmt-wss"), kinds.toString());
        for (Violation x : v.violations()) {
            assertEquals(Classification.BUG_CANDIDATE, x.classification(), x.summary());
        }
    }

    @Test
    void aLostUpdateAtSnapshotIsNotExplainedBySnapshotIsolation() throws Exception {
        // Snapshot isolation forbids two committed concurrent writers of one row; dropping the first
        // writer's commit looks like a lost update, so the snapshot explanation must not apply.
        Verdict v = judge(new CommitDroppingTarget(new H2Target()), overlappingWriters(IsolationLevel.SNAPSHOT));
        assertTrue(v.violations().stream().anyMatch(x -> x.classification() == Classification.BUG_CANDIDATE), v.toString());
    }

    /** WriteCheck Listing 6: a range DELETE takes no gap lock, a concurrent INSERT slips in, the later UPDATE sees it. */
    private static TestCase listing6(IsolationLevel level) {
        return Cases.on("h2").table("t").level(level)
                .setup("CREATE TABLE t(c1 INT)", "INSERT INTO t VALUES (3)")
                .txn("DELETE FROM t WHERE c1 BETWEEN 1 AND 10", "UPDATE t SET c1 = c1 + 1")
                .txn("INSERT INTO t VALUES (5)")
                .order(1, 1, 2, 2, 2, 1, 1);
    }

    @Test
    void missingGapLocksAtReadCommittedBreakNoPromise() throws Exception {
        Verdict v = judge(new H2Target(), listing6(IsolationLevel.READ_COMMITTED));
        assertTrue(v.violations().stream().anyMatch(x -> x.kind().label().equals("tx-wss")), v.toString());
        for (Violation x : v.violations()) {
            assertEquals(Classification.NOT_PROMISED, x.classification(), x.summary());
            assertTrue(x.reference().contains("statement-level visibility"), x.reference());
        }
    }

    @Test
    void anUpdateThatWaitedReChecksOnlyTheRowsItChoseAndThatBreaksNoPromise() throws Exception {
        // T2's UPDATE waits for T1's lock on row 1; T1 moves row 1 out of the predicate and inserts a
        // new matching row 3. H2, like PostgreSQL, re-checks row 1 only and does not see row 3.
        TestCase c = Cases.on("h2").table("t")
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT, w INT)", "INSERT INTO t VALUES (1, 1, 0), (2, 5, 0)")
                .txn("UPDATE t SET v = 2 WHERE id = 1", "INSERT INTO t VALUES (3, 1, 0)")
                .txn("UPDATE t SET w = 1 WHERE v = 1")
                .order(1, 1, 2, 2, 1, 1, 2);
        Verdict v = judge(new H2Target(), c);
        assertTrue(v.violations().stream().anyMatch(x -> x.kind().label().equals("tx-wss")), v.toString());
        for (Violation x : v.violations()) {
            assertEquals(Classification.NOT_PROMISED, x.classification(), x.summary());
            assertTrue(x.reference().contains("re-checked their newest versions"), x.reference());
        }
    }

    @Test
    void phantomWritesAtSnapshotBreakNoPromise() throws Exception {
        Verdict v = judge(new H2Target(), listing6(IsolationLevel.SNAPSHOT));
        assertTrue(v.violations().stream().anyMatch(x -> x.kind().label().equals("tx-wss")), v.toString());
        for (Violation x : v.violations()) {
            assertEquals(Classification.NOT_PROMISED, x.classification(), x.summary());
            assertTrue(x.reference().contains("snapshot"), x.reference());
        }
    }
}
