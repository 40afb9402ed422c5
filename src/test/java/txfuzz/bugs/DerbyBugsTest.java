package txfuzz.bugs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import txfuzz.bugs.BugReplay.Result;
import txfuzz.bugs.PrintedSql.Outcome;
import txfuzz.bugs.PrintedSql.Run;
import txfuzz.dbms.EachVersion;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Targets;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;

/**
 * The Derby entry of docs/bugs.md: its printed SQL (ij input) on every release of the page's range, and
 * its case file through the oracles on the bundled Derby (that test fails the day an upgrade fixes it).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DerbyBugsTest {
    /** Every Derby release on Maven Central from 10.11.1.1 (MERGE's first) to the bundled 10.16.1.1 that runs on Java 17. */
    static final List<String> RELEASES = List.of("10.11.1.1", "10.12.1.1", "10.13.1.1", "10.14.1.0", "10.14.2.0", "10.15.2.0", "10.16.1.1");

    /** The printed SQL: the MERGE waits for T1 and then overwrites T1's committed + 100 (12, where serially 112). */
    @Test
    @Order(1)
    void derbyRuMergeStaleRowLostUpdateOnEachVersion() throws Exception {
        EachVersion.run(RELEASES, v -> {
            try (Target derby = Targets.create("derby", TargetOptions.version(v))) {
                Run r = PrintedSql.of("derby-ru-merge-stale-row-lost-update").inIj().run(derby);
                Outcome merge = r.of("MERGE INTO t0 USING t1 x0 ON (t0.c0 = 9 AND x0.c0 = 2) WHEN MATCHED THEN UPDATE SET c3 = t0.c3 + 1");
                assertTrue(merge.waited(), "the MERGE waits for T1's lock: " + r);
                assertEquals(1, merge.updateCount(), r.toString());
                assertEquals(PrintedSql.rows("(9, 12)"), r.last().rows(), r.toString());
            }
        });
        // the page says why 10.15.1.3 is missing from the range
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Targets.create("derby", TargetOptions.version("10.15.1.3")));
        assertTrue(e.getMessage().contains("does not load"), e.getMessage());
    }

    /**
     * derby-ru-merge-stale-row-lost-update, the rolled-back form (campaign candidate derby-RU-s33-i48): T1 rolls back
     * instead of updating again, and T2's MERGE still writes its SET from T1's uncommitted version, keeping T1's + 10.
     */
    @Test
    @Order(1)
    void derbyRuMergeKeepsRolledBackWriteOnEachVersion() throws Exception {
        EachVersion.run(RELEASES, v -> {
            try (Target derby = Targets.create("derby", TargetOptions.version(v))) {
                Run r = PrintedSql.of("derby-ru-merge-keeps-rolled-back-write").inIj().run(derby);
                Outcome merge = r.of("MERGE INTO t0 USING t1 x0 ON (t0.c0 = 9 AND x0.c0 = 2) WHEN MATCHED THEN UPDATE SET c3 = t0.c3 + 1");
                assertTrue(merge.waited(), "the MERGE waits for T1's lock: " + r);
                assertEquals(1, merge.updateCount(), r.toString());
                assertEquals(PrintedSql.rows("(9, 12)"), r.last().rows(), "T1's rolled-back + 10 stays: " + r);
            }
        });
    }

    /**
     * The same defect through an UPDATE whose subquery reads its own table (campaign candidate derby-RU-s33-i180),
     * at READ COMMITTED: T2's UPDATE reads row 1, waits for T1's lock on row 5, T1 updates row 1 at once and commits,
     * and T2 writes row 1 from the image it read before waiting (1, 1), where serially (1, 101). The control is the
     * printed SERIALIZABLE block, which keeps T1's write; and READ UNCOMMITTED (the candidate's level) loses it too.
     */
    @Test
    @Order(1)
    void derbyDeferredUpdateStaleRowLostUpdateOnEachVersion() throws Exception {
        String update = "UPDATE t SET v = v + 1 WHERE k IN (SELECT s.k FROM t s WHERE s.k = 1)";
        EachVersion.run(RELEASES, v -> {
            try (Target derby = Targets.create("derby", TargetOptions.version(v))) {
                PrintedSql lost = PrintedSql.of("derby-deferred-update-stale-row-lost-update").inIj();
                for (PrintedSql block : List.of(lost, lost.withBothSessions(List.of("SET ISOLATION UR", "AUTOCOMMIT OFF")))) {
                    Run r = block.run(derby);
                    assertTrue(r.of(update).waited(), "T2's UPDATE waits for T1: " + r);
                    assertEquals(1, r.of(update).updateCount(), r.toString());
                    assertTrue(!r.of("UPDATE t SET v = v + 100 WHERE k = 1").waited(), "T1's UPDATE of row 1 does not wait: " + r);
                    assertEquals(PrintedSql.rows("(1, 1) (5, 10)"), r.last().rows(), "T1's committed + 100 is lost: " + r);
                }
                Run control = PrintedSql.of("derby-deferred-update-serializable").inIj().run(derby);
                assertEquals(1, control.of(update).updateCount(), control.toString());
                assertEquals(PrintedSql.rows("(1, 101) (5, 10)"), control.last().rows(), "SERIALIZABLE keeps T1's write: " + control);
            }
        });
    }

    /** A check of printed SQL on one release's Derby. */
    @FunctionalInterface
    private interface OnDerby {
        void check(Target derby) throws Exception;
    }

    /** {@code check} on every release in {@link #RELEASES}, each on a Derby of its own. */
    private static void onEachRelease(OnDerby check) throws Exception {
        EachVersion.run(RELEASES, v -> {
            try (Target derby = Targets.create("derby", TargetOptions.version(v))) {
                check.check(derby);
            }
        });
    }

    /** That statement {@code sql} of {@code r} failed with SQLSTATE {@code state}. */
    private static void assertFailedWith(Run r, String sql, String state) {
        assertTrue(r.of(sql).failed(), r.toString());
        assertEquals(state, r.of(sql).error().getSQLState(), r.toString());
    }

    /** derby-coalesce-max-in-list-internal-error, printed: XJ001 on every release; without the primary key (the control) the value. */
    @Test
    @Order(1)
    void derbyCoalesceMaxInListInternalErrorOnEachVersion() throws Exception {
        String values = "VALUES COALESCE((SELECT MAX(c0) FROM t1 WHERE c0 IN (0, 1)), 0)";
        onEachRelease(derby -> {
            assertFailedWith(PrintedSql.of("derby-coalesce-max-in-list-internal-error").run(derby), values, "XJ001");
            Run control = PrintedSql.of("derby-coalesce-max-in-list-without-key").run(derby);
            assertEquals(PrintedSql.rows("(0)"), control.of(values).rows(), control.toString());
        });
    }

    /**
     * derby-two-in-subqueries-concurrent-modification, printed: XJ001 (a ConcurrentModificationException) on every release;
     * with an EXISTS in place of the correlated IN (the control), no row.
     */
    @Test
    @Order(1)
    void derbyTwoInSubqueriesConcurrentModificationOnEachVersion() throws Exception {
        String twoIns = "SELECT x.c1 FROM t0 x WHERE x.c0 IN (SELECT s1.c0 FROM t0 s1) AND x.c0 IN (SELECT s2.c0 FROM t0 s2 WHERE s2.c0 = x.c1)";
        String exists = "SELECT x.c1 FROM t0 x WHERE x.c0 IN (SELECT s1.c0 FROM t0 s1) AND EXISTS (SELECT 1 FROM t0 s2 WHERE s2.c0 = x.c0 AND s2.c0 = x.c1)";
        onEachRelease(derby -> {
            Run r = PrintedSql.of("derby-two-in-subqueries-concurrent-modification").run(derby);
            assertFailedWith(r, twoIns, "XJ001");
            assertTrue(r.of(twoIns).error().getMessage().contains("ConcurrentModificationException"), r.toString());
            Run control = PrintedSql.of("derby-two-in-subqueries-exists-control").run(derby);
            assertEquals(List.of(), control.of(exists).rows(), control.toString());
        });
    }

    /**
     * derby-merge-int-into-double-restore-error, printed: XSDA7 with six matched rows on every release; with five (the
     * control) the MERGE updates them.
     */
    @Test
    @Order(1)
    void derbyMergeIntIntoDoubleRestoreErrorOnEachVersion() throws Exception {
        String merge = "MERGE INTO t0 USING t1 ON t0.c4 = t1.c0 WHEN MATCHED THEN UPDATE SET c3 = 1";
        onEachRelease(derby -> {
            assertFailedWith(PrintedSql.of("derby-merge-int-into-double-restore-error").run(derby), merge, "XSDA7");
            Run control = PrintedSql.of("derby-merge-int-into-double-five-rows").run(derby);
            assertEquals(5, control.of(merge).updateCount(), control.toString());
            assertEquals(PrintedSql.rows("(1.0) (1.0) (1.0) (1.0) (1.0)"), control.last().rows(), control.toString());
        });
    }

    /**
     * derby-merge-leaves-stale-index-entry, printed: after the MERGE the index check fails with X0X61 and the one-row
     * UPDATE reports 2 rows, on every release; without the DEFAULT (the control) the check passes and the UPDATE counts 1.
     */
    @Test
    @Order(1)
    void derbyMergeLeavesStaleIndexEntryOnEachVersion() throws Exception {
        String check = "VALUES SYSCS_UTIL.SYSCS_CHECK_TABLE('APP', 'T1')";
        String update = "UPDATE t1 SET c4 = 2";
        onEachRelease(derby -> {
            Run r = PrintedSql.of("derby-merge-leaves-stale-index-entry").run(derby);
            assertFailedWith(r, check, "X0X61");
            assertEquals(2, r.of(update).updateCount(), r.toString());
            Run control = PrintedSql.of("derby-merge-index-without-default").run(derby);
            assertEquals(PrintedSql.rows("(1)"), control.of(check).rows(), control.toString());
            assertEquals(1, control.of(update).updateCount(), control.toString());
        });
    }

    /**
     * derby-ru-merge-stale-row-lost-update: at READ UNCOMMITTED, T2's MERGE … WHEN MATCHED THEN UPDATE
     * reads a row T1 has changed, waits for T1's lock, and after T1 changed the row again and committed
     * writes its SET over the version it read before waiting: T1's second update is lost.
     */
    @Test
    @Order(2) // after the releases' test, which runs while the replay started with the class does
    void derbyRuMergeStaleRowLostUpdateStillShowsOnTheBundledDerby() throws Throwable {
        try {
            bundledReplay.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof CompletionException c && c.getCause() != null ? c.getCause() : e.getCause();
        }
    }

    /**
     * The oracle replay on the bundled Derby, started when the class starts on a thread of its own (its own target, the
     * bundled Derby's class loader), so it runs while the releases' printed SQL waits for locks and database drops;
     * {@link #derbyRuMergeStaleRowLostUpdateStillShowsOnTheBundledDerby} waits for it and throws what it threw.
     */
    private static CompletableFuture<Void> bundledReplay;

    @BeforeAll
    static void startTheBundledReplay() {
        bundledReplay = CompletableFuture.runAsync(() -> {
            try {
                replayOnTheBundledDerby();
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, r -> {
            Thread t = new Thread(r, "derby-bundled-replay");
            t.setDaemon(true);
            t.start();
        });
    }

    private static void replayOnTheBundledDerby() throws Exception {
        TestCase c = BugReplay.testCase("derby-ru-merge-stale-row-lost-update");
        try (Target derby = Targets.create("derby")) {
            Result r = BugReplay.replay(derby, c, "wss", "explicit");
            assertEquals(Set.of("wss/stmt-wss/bug-candidate", "wss/tx-wss/bug-candidate"), r.labels(), r.toString());
            assertEquals(List.of(List.of("9", "12")), r.trace().finalState().tables().get("t0"),
                    "1 + 10 + 1: T1's committed + 100 is gone (any serial order gives 112): " + r.trace());
            // controls: the same schedule at READ COMMITTED, and at READ UNCOMMITTED with an UPDATE in place of the MERGE
            Result committed = BugReplay.replay(derby, c.withIsolation(IsolationLevel.READ_COMMITTED), "wss", "explicit");
            assertEquals(Set.of(), committed.labels(), committed.toString());
            assertEquals(List.of(List.of("9", "112")), committed.trace().finalState().tables().get("t0"), committed.trace().toString());
            Result update = BugReplay.replay(derby, withT2Statement(c, "UPDATE t0 SET c3 = c3 + 1 WHERE c0 IN (SELECT x0.c0 + 7 FROM t1 x0)"),
                    "wss", "explicit");
            assertEquals(Set.of(), update.labels(), update.toString());
            assertEquals(List.of(List.of("9", "112")), update.trace().finalState().tables().get("t0"), update.trace().toString());
        }
    }

    private static TestCase withT2Statement(TestCase c, String sql) {
        Txn t2 = c.txn(2);
        List<txfuzz.model.Stmt> stmts = new java.util.ArrayList<>(t2.statements());
        stmts.set(1, txfuzz.model.Stmt.of(txfuzz.model.StmtKind.UPDATE, sql));
        return c.withTransactions(List.of(c.txn(1), new Txn(2, stmts)), c.order());
    }
}
