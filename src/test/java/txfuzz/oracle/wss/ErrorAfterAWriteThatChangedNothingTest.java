package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;

/**
 * The error judge replays a failing statement's own transaction up to it on the data the level let it see. An earlier write of
 * its own that changed no row had no effect, whatever it read: campaign h2-RU-s52-i12960, where T2's DELETE of every row
 * read T1's uncommitted deletion and deleted nothing, and after T1's rollback T2's UPDATE failed on the unique key. The replay
 * ran that DELETE on the committed rows, removed them, and the error, the data's, went unexplained. Real H2, in process.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ErrorAfterAWriteThatChangedNothingTest {
    private static final StmtRef FAILING = new StmtRef(2, 2);

    /** T1 deletes both rows and holds them; T2 deletes every row (nothing, dirty), T1 rolls back, T2 runs {@code update}. */
    static TestCase updateAfterADirtyDeleteOfNothing(String update) {
        return Cases.on("h2").level(IsolationLevel.READ_UNCOMMITTED).table("t1")
                .setup("CREATE TABLE t1 (c2 VARCHAR(10), UNIQUE (c2))", "INSERT INTO t1 (c2) VALUES ('')", "INSERT INTO t1 (c2) VALUES ('a')")
                .txn("DELETE FROM t1", "ROLLBACK")
                .txn("DELETE FROM t1", update)
                .order(1, 1, 2, 2, 1, 2, 2);
    }

    @Test
    void aKeyErrorAfterTheRollbackIsTheDatasNotABugCandidate() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            WssRun run = WssRun.of(h2, updateAfterADirtyDeleteOfNothing("UPDATE t1 SET c2 = ''"));
            assertEquals(0, run.trace().executed(new StmtRef(2, 1)).orElseThrow().result().updateCount(), "the dirty DELETE found nothing: " + run.trace());
            assertFalse(run.succeeded(FAILING), "the UPDATE fails on the unique key: " + run.trace());
            assertFalse(run.verdict().violations().isEmpty(), run.trace().toString());
            WssRun.assertNoBugCandidate(run.verdict());
        }
    }

    /**
     * The control: the run's UPDATE fails on the key where the case's, {@code SET c2 = 'z' WHERE c2 = 'a'}, breaks none
     * (injected in the run only): no replay gives the error, so it stays a bug candidate.
     */
    @Test
    void aKeyErrorTheDataDoNotGiveStaysABugCandidate() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            String harmless = "UPDATE t1 SET c2 = 'z' WHERE c2 = 'a'";
            WssRun run = WssRun.of(RewritingTarget.once(h2, harmless, "UPDATE t1 SET c2 = ''"), updateAfterADirtyDeleteOfNothing(harmless));
            assertFalse(run.succeeded(FAILING), run.trace().toString());
            run.assertBugCandidate();
        }
    }

    private static final StmtRef FAILING_INSERT = new StmtRef(2, 0);

    /**
     * A newcomer's first run, h2-RU-s1796062425617-i10: T1 deletes row 7 and holds it; T3's autocommit DELETE of every row reads
     * that deletion and deletes nothing; T1 rolls back, and T2's autocommit {@code insert} runs. A committed transaction's write
     * that changed no row is left out of the replay as the failing one's own is: replayed, T3's DELETE would remove row 7.
     */
    static TestCase insertAfterAnotherTransactionsDirtyDeleteOfNothing(String insert) {
        return Cases.on("h2").level(IsolationLevel.READ_UNCOMMITTED).table("t0")
                .setup("CREATE TABLE t0 (c0 INT, PRIMARY KEY (c0))", "INSERT INTO t0 (c0) VALUES (7)")
                .txn("DELETE FROM t0", "ROLLBACK")
                .autocommit(insert)
                .autocommit("DELETE FROM t0")
                .order(1, 1, 3, 1, 2);
    }

    @Test
    void aKeyErrorAfterAnotherTransactionsDeleteOfNothingIsTheDatasNotABugCandidate() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            WssRun run = WssRun.of(h2, insertAfterAnotherTransactionsDirtyDeleteOfNothing("INSERT INTO t0 (c0) VALUES (7)"));
            assertEquals(0, run.trace().executed(new StmtRef(3, 0)).orElseThrow().result().updateCount(), "the dirty DELETE found nothing: " + run.trace());
            assertFalse(run.succeeded(FAILING_INSERT), "the INSERT meets row 7, back after the rollback: " + run.trace());
            assertFalse(run.verdict().violations().isEmpty(), run.trace().toString());
            WssRun.assertNoBugCandidate(run.verdict());
        }
    }

    /** The control: the run's INSERT fails on key 7 where the case's inserts the free key 8 (injected in the run only). */
    @Test
    void aKeyErrorAfterAnotherTransactionsDeleteOfNothingThatTheDataDoNotGiveStaysABugCandidate() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            String free = "INSERT INTO t0 (c0) VALUES (8)";
            WssRun run = WssRun.of(RewritingTarget.once(h2, free, "INSERT INTO t0 (c0) VALUES (7)"), insertAfterAnotherTransactionsDirtyDeleteOfNothing(free));
            assertFalse(run.succeeded(FAILING_INSERT), run.trace().toString());
            run.assertBugCandidate();
        }
    }

    private static final String COPY = "INSERT INTO t2 (c0) SELECT '' FROM t1 x0 WHERE x0.c0 = 0";

    /**
     * A newcomer's first run, h2-RR-s1796063364561-i42, at REPEATABLE READ: T2's DELETE of t1 finds it empty and takes no
     * snapshot of it (H2's per-table snapshots, measured); T1 inserts two rows with c0 = 0 and commits; T2 copies them into t2,
     * whose key '' the second copy breaks. Placed after T1, T2's DELETE would remove T1's rows: it changed nothing in the run
     * and is left out of the serial positions' replays too.
     */
    static TestCase copyAfterADeleteOfNothing(String copy) {
        return Cases.on("h2").level(IsolationLevel.REPEATABLE_READ).table("t1").table("t2")
                .setup("CREATE TABLE t1 (c0 INT)", "CREATE TABLE t2 (c0 VARCHAR(10), PRIMARY KEY (c0))")
                .txn("DELETE FROM t1", copy)
                .autocommit("INSERT INTO t1 (c0) VALUES (0), (0)")
                .order(1, 1, 2, 1, 1);
    }

    @Test
    void aKeyErrorOfACopyAfterItsOwnDeleteOfNothingIsTheDatasNotABugCandidate() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            WssRun run = WssRun.of(h2, copyAfterADeleteOfNothing(COPY));
            assertFalse(run.succeeded(new StmtRef(1, 2)), "the second copy breaks t2's key: " + run.trace());
            WssRun.assertNoBugCandidate(run.verdict());
        }
    }

    /** The control: the run's copy fails on the key where the case's, one row only, breaks none (injected in the run only). */
    @Test
    void aKeyErrorOfACopyThatTheDataDoNotGiveStaysABugCandidate() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            String one = COPY + " LIMIT 1";
            WssRun run = WssRun.of(RewritingTarget.once(h2, one, COPY), copyAfterADeleteOfNothing(one));
            assertFalse(run.succeeded(new StmtRef(1, 2)), run.trace().toString());
            run.assertBugCandidate();
        }
    }
}
