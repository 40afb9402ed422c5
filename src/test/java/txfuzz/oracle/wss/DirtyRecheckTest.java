package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.exec.TxnStatus;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;

/**
 * H2 at READ UNCOMMITTED re-checks a row a waiting write waited for on what is left of it once the holder ended, while
 * the rest of the statement read the data as they were when it began, uncommitted writes included (measured; the
 * profile's STATEMENT_SNAPSHOT_WITH_RECHECK over dirty views).
 */
class DirtyRecheckTest {

    /**
     * h2-RU-s105-i15, reduced: T1's MERGE inserts rows '' and 'a'; T2's UPDATE, whose EXISTS reads them, updates the
     * committed row 'c' and waits for T1's row 'a'; T1's next UPDATE waits for T2's row 'c', a deadlock, and H2 rolls T1
     * back. T2's UPDATE then finds row 'a' gone: it changed 1 row, where alone (T1 rolled back) it changes none.
     */
    static TestCase waitingUpdateBesideADeadlockVictimsRows() {
        return Cases.on("h2").table("t0").table("t1").table("t2").level(IsolationLevel.READ_UNCOMMITTED)
                .setup("CREATE TABLE t0 (c0 INT)", "CREATE TABLE t1 (c0 INT, c1 INT, c2 VARCHAR(10))",
                        "CREATE TABLE t2 (c0 INT, c1 VARCHAR(10), c2 VARCHAR(10))", "INSERT INTO t1 (c0, c1, c2) VALUES (NULL, 0, 'c')",
                        "INSERT INTO t2 (c0, c1, c2) VALUES (0, '', '')", "INSERT INTO t2 (c0, c1, c2) VALUES (0, '', 'a')")
                .txn("MERGE INTO t1 USING t2 x0 ON (t1.c2 = x0.c2) WHEN MATCHED THEN UPDATE SET c0 = (x0.c0 - 0) WHEN NOT MATCHED AND x0.c0 BETWEEN 0 AND 0"
                        + " THEN INSERT (c0, c1, c2) VALUES (x0.c0, 0, x0.c2)", "UPDATE t1 SET c2 = ''")
                .txn("SELECT x0.c0 FROM t2 x0 UNION ALL SELECT x1.c0 FROM t0 x1", "UPDATE t1 SET c1 = t1.c0 WHERE EXISTS (SELECT 0 FROM t1 s0 WHERE s0.c2 < t1.c2)")
                .order(2, 2, 1, 1, 2, 2, 1, 1);
    }

    @Test
    void aWaitingUpdateFindsTheRowOfARolledBackHolderGone() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            WssRun run = WssRun.of(h2, waitingUpdateBesideADeadlockVictimsRows());
            assertEquals(TxnStatus.ABORTED, run.trace().outcome(1).status(), run.trace().toString());
            assertEquals(1, run.trace().executed(new StmtRef(2, 2)).orElseThrow().result().updateCount(), run.trace().toString());
            assertTrue(run.verdict().violations().stream().anyMatch(x -> x.kind() == WssKind.WRITE_OUTCOME
                    && x.classification() == Classification.NOT_PROMISED && x.reference().contains("re-check")), run.verdict().toString());
            WssRun.assertNoBugCandidate(run.verdict());
        }
    }

    /** T1 changes row 'c' and rolls back while T2's UPDATE of it waits; T2 then updates it, as if alone. */
    static TestCase waitingUpdateOfARowARolledBackHolderChanged() {
        return Cases.on("h2").table("t1").level(IsolationLevel.READ_UNCOMMITTED)
                .setup("CREATE TABLE t1 (c0 INT, c1 INT, c2 VARCHAR(10))", "INSERT INTO t1 (c0, c1, c2) VALUES (NULL, 0, 'c')")
                .txn("UPDATE t1 SET c2 = 'x' WHERE c2 = 'c'", "ROLLBACK")
                .txn("UPDATE t1 SET c1 = 9 WHERE c2 >= 'c'")
                .order(1, 1, 2, 2, 1, 2);
    }

    @Test
    void aWaitingUpdateThatSkipsTheRowItWaitedForStaysABugCandidate() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            WssRun real = WssRun.of(h2, waitingUpdateOfARowARolledBackHolderChanged());
            assertEquals(List.of(java.util.Arrays.asList(null, "9", "c")), real.trace().finalState().tables().get("t1"), real.trace().toString());
            WssRun.assertNoBugCandidate(real.verdict());
            // the control: the waiting UPDATE made to skip the row once T1 rolled back (it matches nothing, the row unchanged)
            String update = "UPDATE t1 SET c1 = 9 WHERE c2 >= 'c'";
            WssRun skipped = WssRun.of(new ReplacedBesideUncommittedWriteTarget(h2, update, update + " AND c1 <> c1"),
                    waitingUpdateOfARowARolledBackHolderChanged());
            assertEquals(List.of(java.util.Arrays.asList(null, "0", "c")), skipped.trace().finalState().tables().get("t1"), skipped.trace().toString());
            assertTrue(skipped.verdict().violations().stream().anyMatch(x -> x.classification() == Classification.BUG_CANDIDATE), skipped.verdict().toString());
        }
    }
}
