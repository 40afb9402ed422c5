package txfuzz.bugs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import txfuzz.bugs.BugReplay.Result;
import txfuzz.bugs.PrintedSql.Outcome;
import txfuzz.bugs.PrintedSql.Run;
import txfuzz.dbms.EachVersion;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;

/**
 * The H2 entries of docs/bugs.md. The {@code …OnEachVersion} tests run each printed block of the page
 * (read from the page, {@link PrintedSql}) with plain JDBC on every H2 release from 2.1.210 to the
 * bundled one, asserting the buggy rows on the versions the page names and the right rows on the
 * others. The other tests replay the entries' case files through the oracles. A bug H2 still has is asserted on the bundled H2 (no version
 * option), so the test fails the day an upgrade of the bundled jar fixes it and docs/bugs.md must
 * say so; a fixed one is asserted on the newest version that has it. Each also runs a control the
 * oracle must call clean (READ COMMITTED, or the schedule without the triggering write), so the
 * assertion cannot pass by the oracle flagging everything.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class H2BugsTest {
    /** H2's error code for "Timeout trying to lock table" (ErrorCode.LOCK_TIMEOUT_1). */
    private static final int LOCK_TIMEOUT = 50200;
    /** H2's "Referential integrity constraint violation" for a parent row still referenced (ErrorCode.REFERENTIAL_INTEGRITY_VIOLATED_CHILD_EXISTS_1). */
    private static final int PARENT_REFERENCED = 23503;
    /** H2's "Deadlock detected" (ErrorCode.DEADLOCK_1) and "General error" (ErrorCode.GENERAL_ERROR_1). */
    private static final int DEADLOCK = 40001;
    private static final int DUPLICATE_KEY = 23505;
    private static final int GENERAL_ERROR = 50000;

    /**
     * Two oracle replays spend nearly all their time waiting, not working: the executor gives the statement H2 never ends
     * its statement timeout, then its cancel and abort their grace periods, and dropping the database waits for the
     * statement's thread (about 15 s each, of which well under a second is work). They start when the class does, each on
     * a thread and a target of its own, and their tests wait for them and rethrow what they threw (their assertions are
     * the replays' own), so the other tests of the class run while they wait.
     */
    private static Future<?> deadlockVictimReplay;
    private static Future<?> maxAfterKeyChangeReplay;
    private static ExecutorService replays;

    @BeforeAll
    static void startTheWaitingReplays() {
        replays = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "h2-bugs-waiting-replay");
            t.setDaemon(true);
            return t;
        });
        deadlockVictimReplay = replays.submit(() -> {
            deadlockVictimKeepsWaitersOnTheBundledH2();
            return null;
        });
        maxAfterKeyChangeReplay = replays.submit(() -> {
            maxAfterKeyChangeHangOnTheBundledH2();
            return null;
        });
    }

    @AfterAll
    static void stopTheWaitingReplays() {
        replays.shutdownNow();
    }

    /** Waits for a replay started by {@link #startTheWaitingReplays} and throws what it threw. */
    private static void await(Future<?> replay) throws Throwable {
        try {
            replay.get();
        } catch (ExecutionException e) {
            throw e.getCause();
        }
    }

    /** Every H2 release on Maven Central from 2.1.210 to the bundled 2.5.252; the page's ranges are over these. */
    static final List<String> RELEASES = List.of("2.1.210", "2.1.212", "2.1.214", "2.2.220", "2.2.222", "2.2.224",
            "2.3.230", "2.3.232", "2.4.240", "2.5.250", "2.5.252");

    /**
     * h2-rr-descending-scan-own-write: a read from an index's high end returns the committed versions of
     * rows the transaction changed — descending scans since 2.3.230, MAX on every release — while the
     * ascending reads of the same transactions are right (the control).
     */
    @Test
    void h2RrDescendingScanOwnWriteOnEachVersion() throws Exception {
        EachVersion.run(RELEASES, v -> {
            boolean descendingScanBug = PrintedSql.atLeast(v, "2.3.230");
            try (Target h2 = Targets.create("h2", TargetOptions.version(v))) {
                Run shift = PrintedSql.of("h2-rr-descending-scan-own-write").run(h2);
                assertEquals(rows(descendingScanBug ? "(9) (2) (0) (11) (4) (2)" : "(11) (4) (2)"),
                        shift.of("SELECT c0 FROM t0 ORDER BY c0 DESC").rows(), shift.toString());
                assertEquals(rows("(2) (4) (11)"), shift.of("SELECT c0 FROM t0 ORDER BY c0").rows(), shift.toString());
                assertEquals(rows("(9)"), shift.of("SELECT MAX(c0) FROM t0").rows(), shift.toString());

                Run keyChange = PrintedSql.of("h2-rr-key-change-both-versions").run(h2);
                assertEquals(rows(descendingScanBug ? "(0, 2) (1, 1) (-1, 2)" : "(1, 1) (-1, 2)"),
                        keyChange.of("SELECT k, v FROM t ORDER BY k DESC").rows(), keyChange.toString());
                assertEquals(rows("(-1, 2) (1, 1)"), keyChange.of("SELECT k, v FROM t ORDER BY k").rows(), keyChange.toString());

                Run oldMax = PrintedSql.of("h2-rr-shifted-keys-old-max").run(h2);
                assertEquals(rows("(9)"), oldMax.of("SELECT MAX(c0) FROM t0").rows(), oldMax.toString());
                assertEquals(List.of(), oldMax.of("SELECT c0 FROM t0 WHERE c0 = (SELECT MAX(s.c0) FROM t0 s)").rows(), oldMax.toString());

                Run twice = PrintedSql.of("h2-rr-descending-index-row-twice").run(h2);
                List<List<String>> descending = twice.of("SELECT c0, c1 FROM t1 ORDER BY c1 DESC").rows();
                if (PrintedSql.atLeast(v, "2.5.250")) {
                    assertEquals(rows("(3, ee) (6, ee) (3, ee)"), descending, twice.toString());
                } else {
                    assertEquals(Set.copyOf(rows("(3, ee) (6, ee)")), Set.copyOf(descending), twice.toString());
                    assertEquals(2, descending.size(), twice.toString());
                }
                assertEquals(rows("(3, ee) (6, ee)"), twice.of("SELECT c0, c1 FROM t1 ORDER BY c1").rows(), twice.toString());

                Run deleted = PrintedSql.of("h2-rr-descending-scan-deleted-row").run(h2);
                assertEquals(rows(descendingScanBug ? "(5) (-1)" : "(5)"),
                        deleted.of("SELECT c0 FROM t0 ORDER BY c0 DESC").rows(), deleted.toString());
                assertEquals(rows("(5)"), deleted.of("SELECT c0 FROM t0 ORDER BY c0").rows(), deleted.toString());
                Outcome selfJoin = deleted.of("SELECT x0.c0 FROM t0 x0 LEFT JOIN t0 x1 ON x0.c1 = x1.c1 ORDER BY x0.c0 DESC");
                assertFalse(selfJoin.waited(), "no other session holds a lock: " + deleted);
                if (descendingScanBug) {
                    // H2 re-ran the statement, taking "row not found in primary index" for a concurrent change,
                    // until the block's lock timeout, though no session held a lock against it
                    assertTrue(selfJoin.failed(), deleted.toString());
                    assertEquals(LOCK_TIMEOUT, selfJoin.error().getErrorCode(), deleted.toString());
                } else {
                    assertEquals(rows("(5)"), selfJoin.rows(), deleted.toString());
                }

                Run maxAfterKeyChange = PrintedSql.of("h2-rr-max-after-key-change-never-returns").run(h2);
                Outcome max = maxAfterKeyChange.of("SELECT MAX(c4) FROM t0");
                assertFalse(max.waited(), "no other session holds a lock: " + maxAfterKeyChange);
                // every release: H2 re-runs the MAX on "row not found in primary index" until the lock timeout
                assertTrue(max.failed(), maxAfterKeyChange.toString());
                assertEquals(LOCK_TIMEOUT, max.error().getErrorCode(), maxAfterKeyChange.toString());
                assertEquals(rows(descendingScanBug ? "(7) (5) (7)" : "(7) (5)"),
                        maxAfterKeyChange.of("SELECT c4 FROM t0 ORDER BY c4 DESC").rows(), maxAfterKeyChange.toString());
                assertEquals(rows("(5) (7)"), maxAfterKeyChange.of("SELECT c4 FROM t0 ORDER BY c4").rows(), maxAfterKeyChange.toString());

                Run ownInsert = PrintedSql.of("h2-rr-max-after-own-insert-below").run(h2);
                assertEquals(rows("(0)"), ownInsert.of("SELECT MAX(c2) FROM t0").rows(), ownInsert.toString()); // every release
                assertEquals(rows(descendingScanBug ? "(0) (1) (0)" : "(1) (0)"), ownInsert.of("SELECT c2 FROM t0 ORDER BY c2 DESC").rows(),
                        ownInsert.toString());
                assertEquals(rows("(0) (1)"), ownInsert.of("SELECT c2 FROM t0 ORDER BY c2").rows(), ownInsert.toString());

                Run ownLock = PrintedSql.of("h2-rr-max-after-own-lock-below").run(h2);
                assertEquals(rows("(0)"), ownLock.of("SELECT MAX(c0) FROM t0").rows(), ownLock.toString()); // every release
                assertEquals(rows(descendingScanBug ? "(0) (1) (0)" : "(1) (0)"), ownLock.of("SELECT c0 FROM t0 ORDER BY c0 DESC").rows(),
                        ownLock.toString());
                assertEquals(rows("(0) (1)"), ownLock.of("SELECT c0 FROM t0 ORDER BY c0").rows(), ownLock.toString());
            }
        });
    }

    /**
     * h2-rc-waiting-update-skips-rekeyed-row: on every release the waiting UPDATE skips the row T2 moved
     * to a new INT key; with a NUMERIC(10) key (the control) it updates it.
     */
    @Test
    void h2RcWaitingUpdateSkipsRekeyedRowOnEachVersion() throws Exception {
        EachVersion.run(RELEASES, v -> {
            try (Target h2 = Targets.create("h2", TargetOptions.version(v))) {
                Run intKey = PrintedSql.of("h2-rc-waiting-update-skips-rekeyed-row").run(h2);
                Outcome update = intKey.of("UPDATE t0 SET c1 = c1 - 3");
                assertTrue(update.waited(), "the UPDATE waits for T2: " + intKey);
                assertEquals(1, update.updateCount(), intKey.toString());
                assertEquals(rows("(1, 7) (7, 20)"), intKey.last().rows(), intKey.toString());

                Run numericKey = PrintedSql.of("h2-rc-waiting-update-numeric-key").run(h2);
                assertTrue(numericKey.of("UPDATE t0 SET c1 = c1 - 3").waited(), numericKey.toString());
                assertEquals(2, numericKey.of("UPDATE t0 SET c1 = c1 - 3").updateCount(), numericKey.toString());
                assertEquals(rows("(1, 7) (7, 17)"), numericKey.last().rows(), numericKey.toString());
            }
        });
    }

    /**
     * h2-rc-waiting-update-skips-rekeyed-row, second symptom: the waiting UPDATE updates the row T2
     * inserted under the deleted row's key and not the other row T2 inserted with it.
     */
    @Test
    void h2RcWaitingUpdateReinsertedKeyOnEachVersion() throws Exception {
        EachVersion.run(RELEASES, v -> {
            try (Target h2 = Targets.create("h2", TargetOptions.version(v))) {
                Run r = PrintedSql.of("h2-rc-waiting-update-reinserted-key").run(h2);
                Outcome update = r.of("UPDATE t0 SET c3 = 'x'");
                assertTrue(update.waited(), "the UPDATE waits for T2: " + r);
                assertEquals(1, update.updateCount(), r.toString());
                assertEquals(rows("(0, x) (1, NULL)"), r.last().rows(), r.toString());
            }
        });
    }

    /**
     * h2-rc-waiting-update-skips-rekeyed-row, DELETE symptom: the waiting DELETE deletes 0 rows of a table whose only
     * row T2 moved to a new INT key; with a NUMERIC(10) key (the control) it deletes the row.
     */
    @Test
    void h2RcWaitingDeleteSkipsRekeyedRowOnEachVersion() throws Exception {
        EachVersion.run(RELEASES, v -> {
            try (Target h2 = Targets.create("h2", TargetOptions.version(v))) {
                Run intKey = PrintedSql.of("h2-rc-waiting-delete-skips-rekeyed-row").run(h2);
                Outcome delete = intKey.of("DELETE FROM t0");
                assertTrue(delete.waited(), "the DELETE waits for T2: " + intKey);
                assertEquals(0, delete.updateCount(), intKey.toString());
                assertEquals(rows("(1)"), intKey.last().rows(), intKey.toString());

                Run numericKey = PrintedSql.of("h2-rc-waiting-delete-numeric-key").run(h2);
                Outcome deleted = numericKey.of("DELETE FROM t0");
                assertTrue(deleted.waited(), numericKey.toString());
                assertEquals(1, deleted.updateCount(), numericKey.toString());
                assertEquals(List.of(), numericKey.last().rows(), numericKey.toString());
            }
        });
    }

    /**
     * h2-fk-check-does-not-lock-parent: at READ COMMITTED a DELETE of a parent row another transaction's uncommitted
     * child references, and an INSERT of a child of a parent another transaction deleted, neither wait nor fail, and
     * both transactions commit a child without its parent, on every release; at READ UNCOMMITTED (the control) the
     * check sees the uncommitted child and the DELETE fails.
     */
    @Test
    void h2FkCheckDoesNotLockParentOnEachVersion() throws Exception {
        EachVersion.run(RELEASES, v -> {
            try (Target h2 = Targets.create("h2", TargetOptions.version(v))) {
                Run childFirst = PrintedSql.of("h2-fk-check-does-not-lock-parent").run(h2);
                Outcome delete = childFirst.of("DELETE FROM t0 WHERE c0 = -2");
                assertFalse(delete.waited() || delete.failed(), childFirst.toString());
                assertEquals(1, delete.updateCount(), childFirst.toString());
                assertEquals(rows("(1, -2)"), childFirst.last().rows(), "an orphan: " + childFirst);

                Run parentFirst = PrintedSql.of("h2-fk-check-does-not-lock-deleted-parent").run(h2);
                Outcome insert = parentFirst.of("INSERT INTO t1 VALUES (1, -2)");
                assertFalse(insert.waited() || insert.failed(), parentFirst.toString());
                assertEquals(1, insert.updateCount(), parentFirst.toString());
                assertEquals(rows("(1, -2)"), parentFirst.last().rows(), "an orphan: " + parentFirst);

                // the page's words on the other levels: both blocks, with the level changed, leave the same orphan
                for (String level : List.of("REPEATABLE READ", "SNAPSHOT", "SERIALIZABLE")) {
                    List<String> atLevel = List.of("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL " + level, "SET AUTOCOMMIT OFF");
                    for (String block : List.of("h2-fk-check-does-not-lock-parent", "h2-fk-check-does-not-lock-deleted-parent")) {
                        Run r = PrintedSql.of(block).withBothSessions(atLevel).run(h2);
                        assertTrue(r.outcomes().stream().noneMatch(o -> o.waited() || o.failed()), level + ": " + r);
                        assertEquals(rows("(1, -2)"), r.last().rows(), level + ", an orphan: " + r);
                    }
                }

                // READ UNCOMMITTED: a child takes a parent another transaction has not committed, without waiting for it
                Run uncommittedParent = PrintedSql.of("h2-fk-child-of-uncommitted-parent").run(h2);
                Outcome update = uncommittedParent.of("UPDATE t1 SET c1 = 5 WHERE c0 = 1");
                assertFalse(update.waited() || update.failed(), uncommittedParent.toString());
                assertEquals(1, update.updateCount(), uncommittedParent.toString());
                assertEquals(rows("(1, 5)"), uncommittedParent.last().rows(), "an orphan: " + uncommittedParent);

                Run control = PrintedSql.of("h2-fk-uncommitted-child-read-uncommitted").run(h2);
                Outcome refused = control.of("DELETE FROM t0 WHERE c0 = -2");
                assertTrue(refused.failed(), control.toString());
                assertEquals(PARENT_REFERENCED, refused.error().getErrorCode(), control.toString());
                assertEquals(List.of(), control.last().rows(), control.toString());
            }
        });
    }

    /** h2-rr-rewritten-key-row-twice: the printed SQL shows it on 2.3.230 – 2.4.240 only. */
    @Test
    void h2RrRewrittenKeyRowTwiceOnEachVersion() throws Exception {
        EachVersion.run(RELEASES, v -> {
            boolean affected = PrintedSql.atLeast(v, "2.3.230") && !PrintedSql.atLeast(v, "2.5.250");
            try (Target h2 = Targets.create("h2", TargetOptions.version(v))) {
                Run r = PrintedSql.of("h2-rr-rewritten-key-row-twice").run(h2);
                assertEquals(rows(affected ? "(9, 8) (7, 12) (9, 8)" : "(7, 12) (9, 8)"),
                        r.of("SELECT c0, c3 FROM t1 ORDER BY c3 DESC").rows(), r.toString());
            }
        });
    }

    /** h2-merge-hang-read-uncommitted: the lone MERGE times out on a lock up to 2.3.232 and inserts 3 rows from 2.4.240. */
    @Test
    void h2MergeHangReadUncommittedOnEachVersion() throws Exception {
        EachVersion.run(RELEASES, v -> {
            try (Target h2 = Targets.create("h2", TargetOptions.version(v))) {
                Run r = PrintedSql.of("h2-merge-hang-read-uncommitted").run(h2);
                Outcome merge = r.last();
                if (PrintedSql.atLeast(v, "2.4.240")) {
                    assertEquals(3, merge.updateCount(), r.toString());
                } else {
                    assertTrue(merge.failed(), r.toString());
                    assertEquals(LOCK_TIMEOUT, merge.error().getErrorCode(), "Timeout trying to lock table: " + r);
                }
            }
        });
    }

    /**
     * h2-for-update-deadlock-victim-keeps-waiters: an autocommit SELECT … FOR UPDATE that H2 ends as a deadlock
     * victim leaves the other transaction waiting for it until the lock timeout, on every release; with an UPDATE
     * in its place (the control) the other transaction's UPDATE returns at once.
     */
    @Test
    void h2ForUpdateDeadlockVictimKeepsWaitersOnEachVersion() throws Exception {
        EachVersion.run(RELEASES, v -> {
            try (Target h2 = Targets.create("h2", TargetOptions.version(v))) {
                Run r = PrintedSql.of("h2-for-update-deadlock-victim-keeps-waiters").run(h2);
                Outcome victim = r.of("SELECT * FROM t ORDER BY id FOR UPDATE");
                assertTrue(victim.waited() && victim.failed(), r.toString());
                // 2.5.250 names the deadlock; before, the victim's rollback itself failed ("General error")
                assertEquals(PrintedSql.atLeast(v, "2.5.250") ? DEADLOCK : GENERAL_ERROR, victim.error().getErrorCode(), r.toString());
                Outcome survivor = r.of("UPDATE t SET v = 2 WHERE id = 1");
                assertTrue(survivor.waited() && survivor.failed(), r.toString());
                assertEquals(LOCK_TIMEOUT, survivor.error().getErrorCode(), "waited for the ended victim until the lock timeout: " + r);
                assertEquals(rows("(1, 0) (2, 2)"), r.last().rows(), r.toString());

                Run control = PrintedSql.of("h2-deadlock-update-victim-releases-waiters").run(h2);
                Outcome other = control.of("UPDATE t SET v = 2 WHERE id = 1");
                assertFalse(other.failed(), control.toString());
                assertEquals(1, other.updateCount(), control.toString());
            }
        });
    }

    /**
     * h2-for-update-deadlock-victim-keeps-waiters through the oracles: the statements left waiting for the ended victim
     * are the explicit oracle's waits-for-ended bug candidates; the same deadlock with the victim in an explicit
     * transaction, which txfuzz rolls back after the error, wakes the other transaction, and nothing is found.
     */
    @Test
    @Order(Integer.MAX_VALUE) // last: the other tests run while its replay, started with the class, waits
    void h2ForUpdateDeadlockVictimKeepsWaitersStillShowsOnTheBundledH2() throws Throwable {
        await(deadlockVictimReplay);
    }

    /** The body of {@link #h2ForUpdateDeadlockVictimKeepsWaitersStillShowsOnTheBundledH2}, started by {@link #startTheWaitingReplays}. */
    private static void deadlockVictimKeepsWaitersOnTheBundledH2() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            Result stuck = BugReplay.replay(h2, BugReplay.testCase("h2-for-update-deadlock-victim-keeps-waiters"), "explicit");
            assertEquals(Set.of("explicit/waits-for-ended/bug-candidate"), stuck.labels(), stuck.toString());
            Result rolledBack = BugReplay.replay(h2, BugReplay.testCase("h2-for-update-deadlock-victim-rolled-back"), "explicit");
            assertEquals(Set.of(), rolledBack.labels(), rolledBack.toString());
        }
    }

    /**
     * h2-ru-waiting-write-retries-until-lock-timeout: at READ UNCOMMITTED an UPDATE that waited for T2 and reads through an
     * index (its own scan, or its subquery's) into which T2 then inserted a row of its range fails with a lock timeout
     * after T2's commit, on every release; with T2's row outside the range (the control) it returns at once. A DELETE whose
     * subquery reads through an index a row its blocker deleted spins the same way once the blocker rolled back; without
     * the index (the control) it returns at once.
     */
    @Test
    void h2RuWaitingWriteRetriesUntilLockTimeoutOnEachVersion() throws Exception {
        EachVersion.run(RELEASES, v -> {
            try (Target h2 = Targets.create("h2", TargetOptions.version(v))) {
                Run r = PrintedSql.of("h2-ru-waiting-write-retries-until-lock-timeout").run(h2);
                Outcome update = r.of("UPDATE t SET a = 1 WHERE b IN (1, 3)");
                assertTrue(update.waited() && update.failed(), r.toString());
                assertEquals(LOCK_TIMEOUT, update.error().getErrorCode(), "spun after T2's commit until the lock timeout: " + r);
                assertEquals(rows("(NULL, 1) (NULL, 3)"), r.last().rows(), r.toString());

                Run sub = PrintedSql.of("h2-ru-waiting-write-subquery-retries-until-lock-timeout").run(h2);
                Outcome subUpdate = sub.of("UPDATE u SET x = (SELECT MIN(a) FROM t WHERE b = 1)");
                assertTrue(subUpdate.waited() && subUpdate.failed(), sub.toString());
                assertEquals(LOCK_TIMEOUT, subUpdate.error().getErrorCode(), sub.toString());

                Run control = PrintedSql.of("h2-ru-waiting-write-insert-outside-its-range").run(h2);
                Outcome controlUpdate = control.of("UPDATE t SET a = 1 WHERE b IN (1, 3)");
                assertTrue(controlUpdate.waited(), control.toString());
                assertFalse(controlUpdate.failed(), control.toString());
                assertEquals(1, controlUpdate.updateCount(), control.toString());
                assertEquals(rows("(1, 1) (NULL, 5)"), control.last().rows(), control.toString());

                // the blocker rolls back a delete whose row the waiting DELETE's subquery reads through the index
                String delete = "DELETE FROM t0 WHERE c0 IN (SELECT s0.c0 FROM t0 s0 WHERE s0.c1 >= 0)";
                Run rolledBack = PrintedSql.of("h2-ru-waiting-write-subquery-spins-after-blocker-rollback").run(h2);
                Outcome spinning = rolledBack.of(delete);
                assertTrue(spinning.waited() && spinning.failed(), rolledBack.toString());
                assertEquals(LOCK_TIMEOUT, spinning.error().getErrorCode(), "spun after T1's rollback until the lock timeout: " + rolledBack);
                assertEquals(rows("(0, 0) (0, 1)"), rolledBack.last().rows(), rolledBack.toString());
                Run withoutIndex = PrintedSql.of("h2-ru-waiting-write-subquery-without-index-after-blocker-rollback").run(h2);
                Outcome returned = withoutIndex.of(delete);
                assertTrue(returned.waited(), withoutIndex.toString());
                assertFalse(returned.failed(), withoutIndex.toString());
                // 1 row, or (once under load, on 2.4.240) 0: whether the subquery runs again after the wait is timing; the
                // control pins the return without an error, and that the rows left are what the count says
                assertTrue(returned.updateCount() == 1 || returned.updateCount() == 0, withoutIndex.toString());
                assertEquals(rows(returned.updateCount() == 1 ? "(0, 0)" : "(0, 0) (0, 1)"), withoutIndex.last().rows(), withoutIndex.toString());
            }
        });
    }

    /**
     * h2-ru-waiting-write-retries-until-lock-timeout through the oracles: the UPDATE that spins after its blocker
     * committed is the explicit oracle's hang (the lock probe rightly says it waits for nothing); the control, whose
     * UPDATE returns once T2 commits, has nothing.
     */
    @Test
    void h2RuWaitingWriteRetriesUntilLockTimeoutStillShowsOnTheBundledH2() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            Result spinning = BugReplay.replay(h2, BugReplay.testCase("h2-ru-waiting-write-retries-until-lock-timeout"), "explicit");
            assertEquals(Set.of("explicit/hang/bug-candidate"), spinning.labels(), spinning.toString());
            Result control = BugReplay.replay(h2, BugReplay.testCase("h2-ru-waiting-write-insert-outside-its-range"), "explicit");
            assertEquals(Set.of(), control.labels(), control.toString());
        }
    }

    /** h2-rr-key-change-both-versions: a transaction reads both versions of rows whose key it changed. */
    @Test
    void h2RrKeyChangeBothVersionsStillShowsOnTheBundledH2() throws Exception {
        TestCase c = BugReplay.corpusCase("h2-rr-key-change-both-versions");
        try (Target h2 = Targets.create("h2")) {
            Result rr = BugReplay.replay(h2, c, "isolation");
            assertEquals(Set.of("isolation/internal/bug-candidate"), rr.labels(), rr.toString());
            // the two-row table read back as three rows: row 2 before and after the transaction's own write
            assertEquals(3, rows(rr, 1, 3).size(), rr.trace().toString());
            Result rc = BugReplay.replay(h2, c.withIsolation(IsolationLevel.READ_COMMITTED), "isolation");
            assertEquals(Set.of(), rc.labels(), rc.toString());
        }
    }

    /** h2-rr-shifted-keys-old-max: after shifting every key, MAX(key) still sees an old key, so no row matches. */
    @Test
    void h2RrShiftedKeysOldMaxStillShowsOnTheBundledH2() throws Exception {
        TestCase c = BugReplay.corpusCase("h2-rr-shifted-keys-old-max");
        try (Target h2 = Targets.create("h2")) {
            Result rr = BugReplay.replay(h2, c, "equiv");
            assertEquals(Set.of("equiv/equiv-result/bug-candidate"), rr.labels(), rr.toString());
            assertEquals(List.of(), rows(rr, 1, 3), "the row with the largest key (11) is not found");
            Result rc = BugReplay.replay(h2, c.withIsolation(IsolationLevel.READ_COMMITTED), "equiv");
            assertEquals(Set.of(), rc.labels(), rc.toString());
        }
    }

    /** h2-rr-descending-index-row-twice: a read ordered by an index column the transaction just set returns a row twice. */
    @Test
    void h2RrDescendingIndexRowTwiceStillShowsOnTheBundledH2() throws Exception {
        TestCase c = BugReplay.testCase("h2-rr-descending-index-row-twice");
        try (Target h2 = Targets.create("h2")) {
            Result rr = BugReplay.replay(h2, c, "equiv");
            assertEquals(Set.of("equiv/equiv-result/bug-candidate"), rr.labels(), rr.toString());
            assertEquals(3, rows(rr, 1, 3).size(), "two rows, one of them twice: " + rr.trace());
            Result rc = BugReplay.replay(h2, c.withIsolation(IsolationLevel.READ_COMMITTED), "equiv");
            assertEquals(Set.of(), rc.labels(), rc.toString());
        }
    }

    /**
     * h2-rc-waiting-update-skips-rekeyed-row: T1's UPDATE without WHERE waits for T2, which moved a
     * row to a new key; once T2 commits, T1 updates only the other row.
     */
    @Test
    void h2RcWaitingUpdateSkipsRekeyedRowStillShowsOnTheBundledH2() throws Exception {
        TestCase c = BugReplay.testCase("h2-rc-waiting-update-skips-rekeyed-row");
        try (Target h2 = Targets.create("h2")) {
            Result r = BugReplay.replay(h2, c, "wss", "explicit");
            assertTrue(r.trace().executed(new StmtRef(1, 1)).orElseThrow().blocked(), "T1's UPDATE waited for T2: " + r.trace());
            assertEquals(List.of(List.of("1", "7"), List.of("7", "20")), r.trace().finalState().tables().get("t0"),
                    "row 7 kept c1 = 20: " + r.trace());
            assertTrue(r.labels().contains("wss/write-outcome/bug-candidate"), r.toString());
            // control: T2 changes a non-key column instead; T1 waits, then updates both rows
            TestCase control = Cases.on("h2").level(IsolationLevel.READ_COMMITTED).table("t0")
                    .setup("CREATE TABLE t0 (c0 INT PRIMARY KEY, c1 INT)", "INSERT INTO t0 (c0, c1) VALUES (1, 10), (2, 20)")
                    .txn("UPDATE t0 SET c1 = c1 - 3").txn("UPDATE t0 SET c1 = 70 WHERE c0 = 2").order(2, 2, 1, 1, 2, 1);
            Result clean = BugReplay.replay(h2, control, "wss", "explicit");
            assertEquals(Set.of(), clean.labels(), clean.toString());
            assertEquals(List.of(List.of("1", "7"), List.of("2", "67")), clean.trace().finalState().tables().get("t0"));
        }
    }

    /**
     * h2-fk-check-does-not-lock-parent through the wss oracle, on the soak's case (h2-RC-s1-i57336): T4 deletes the
     * parent of the child T2's uncommitted MERGE inserted, both commit, and no serial order leaves that child; the
     * oracle calls it a bug candidate. The control is the same case without the FOREIGN KEY: the engine does the same,
     * but a child without a parent breaks nothing, and the oracle's READ COMMITTED simulation (each write sees what was
     * committed when it began) explains the run, so nothing is left a bug candidate — the verdict rests on the key.
     */
    @Test
    void h2FkCheckDoesNotLockParentStillShowsOnTheBundledH2() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            Result orphan = BugReplay.replay(h2, BugReplay.testCase("h2-fk-check-does-not-lock-parent"), "wss", "explicit");
            assertEquals(Set.of("wss/stmt-wss/bug-candidate", "wss/tx-wss/bug-candidate", "wss/write-outcome/bug-candidate"),
                    orphan.labels(), orphan.toString());
            assertEquals(List.of(List.of("-2", "-2")), orphan.trace().finalState().tables().get("t1"), orphan.trace().toString());

            Result withoutKey = BugReplay.replay(h2, BugReplay.testCase("h2-fk-check-does-not-lock-parent-without-key"), "wss", "explicit");
            assertTrue(withoutKey.labels().stream().noneMatch(l -> l.endsWith("/bug-candidate")), withoutKey.toString());
            assertEquals(orphan.trace().finalState().tables(), withoutKey.trace().finalState().tables(),
                    "the engine did the same without the key: " + withoutKey.trace());
        }
    }

    /**
     * h2-savepoint-undo-strands-waiter: the printed block and its control run as printed (T3 waits for T2 and, once T2 is gone,
     * changes its row); whether T3 is left waiting depends on a race, so the schedule is also run in plain JDBC until the
     * engine shows T3 still waiting right after the savepoint undo (up to 40 runs, 3 such runs wanted): in those runs T2's
     * ROLLBACK leaves T3 waiting until its lock timeout on 2.5.250 and later (in at least one of them: a woken waiter that has
     * not run yet also shows its blocker), and wakes it in every one on the earlier releases; a version where the race never set
     * up is not judged, and the test is aborted (not passed) when neither affected version was; with an
     * earlier write of T2 (the control) it wakes it on every release but 2.5.250 (#4391 itself).
     */
    @Test
    void h2SavepointUndoStrandsWaiterOnEachVersion() throws Exception {
        java.util.Set<String> judgedAffected = java.util.concurrent.ConcurrentHashMap.newKeySet();
        EachVersion.run(RELEASES, v -> {
            try (Target h2 = Targets.create("h2", TargetOptions.version(v))) {
                for (String block : List.of("h2-savepoint-undo-strands-waiter", "h2-savepoint-undo-earlier-write-wakes-waiter")) {
                    Run r = PrintedSql.of(block).run(h2);
                    Outcome waiter = r.of("UPDATE t SET v = 3 WHERE id = 1");
                    assertTrue(waiter.waited() && !waiter.failed() && waiter.updateCount() == 1, r.toString());
                }
                boolean affected = PrintedSql.atLeast(v, "2.5.250");
                for (boolean earlierWrite : List.of(false, true)) {
                    if (earlierWrite && v.equals("2.5.250")) {
                        continue; // #4391: there the end of a transaction with changes left does not wake its waiters either
                    }
                    int judged = 0;
                    int stranded = 0;
                    for (int i = 0; i < 40 && judged < 3; i++) {
                        java.util.Optional<Boolean> run = H2SavepointUndoRace.strandedGivenStillWaiting(h2, earlierWrite);
                        if (run.isPresent()) {
                            judged++;
                            stranded += run.get() ? 1 : 0;
                        }
                    }
                    // the race's first step (T3 still waiting after the undo) is rare on a starved machine: a version where it
                    // never came up is not judged. A woken waiter whose thread has not run yet also shows its blocker, so where
                    // the defect is, one judged run shows it; where it is not, T2's end wakes T3 in every judged run.
                    if (judged > 0 && affected && !earlierWrite) {
                        assertTrue(stranded > 0, "T2's end woke T3 in each of " + judged + " runs where T3 was still waiting");
                        judgedAffected.add(v);
                    } else {
                        assertEquals(0, stranded, (earlierWrite ? "control: " : "") + "T2's end left T3 waiting in a judged run");
                    }
                }
            }
        });
        org.junit.jupiter.api.Assumptions.assumeFalse(judgedAffected.isEmpty(),
                "the race never set up on 2.5.250 or 2.5.252 in 40 runs each: this machine is too busy to judge it");
    }

    /**
     * h2-multi-row-insert-own-row-duplicate: a multi-row INSERT whose second row meets another transaction's uncommitted
     * key fails at once with a unique violation on its own first row, on every release; against a committed key (the
     * control) the same INSERT fails naming that key.
     */
    @Test
    void h2MultiRowInsertOwnRowDuplicateOnEachVersion() throws Exception {
        EachVersion.run(RELEASES, v -> {
            try (Target h2 = Targets.create("h2", TargetOptions.version(v))) {
                // which of T2's rows H2 retries after T1's rollback is a race: a run in which T2's INSERT succeeds shows
                // no defect (seen once in a full suite on a busy machine), so the block runs up to five times and one
                // run must show the defect whole
                Run r = null;
                for (int attempt = 0; attempt < 5 && (r == null || !r.of("INSERT INTO t0 VALUES (4), (0)").failed()); attempt++) {
                    r = PrintedSql.of("h2-multi-row-insert-own-row-duplicate").run(h2);
                }
                Outcome insert = r.of("INSERT INTO t0 VALUES (4), (0)");
                assertTrue(insert.failed(), "in five runs T2's INSERT never failed; the last: " + r);
                assertEquals(DUPLICATE_KEY, insert.error().getErrorCode(), r.toString());
                assertTrue(insert.error().getMessage().contains("VALUES ( /* 2 */ 4 )"), "names its own row 4: " + r);
                assertEquals(List.of(), r.last().rows(), r.toString());

                Run control = PrintedSql.of("h2-multi-row-insert-committed-key").run(h2);
                Outcome refused = control.of("INSERT INTO t0 VALUES (4), (0)");
                assertTrue(refused.failed(), control.toString());
                assertTrue(refused.error().getMessage().contains("VALUES ( /* 1 */ 0 )"), "names the committed row 0: " + control);
                assertEquals(rows("(0)"), control.last().rows(), control.toString());
            }
        });
    }

    /**
     * h2-rr-merge-lock-npe: at REPEATABLE READ a MERGE that moves a matched row and whose inserted row meets another
     * transaction's uncommitted unique value fails with "General error", on every release (in most runs: a race); at READ
     * COMMITTED (the control) the same MERGE waits for that transaction and, once it commits, fails with the unique violation.
     */
    @Test
    void h2RrMergeLockNpeOnEachVersion() throws Exception {
        String merge = "MERGE INTO t1 USING t0 x0 ON (t1.c1 = x0.c0) WHEN MATCHED THEN UPDATE SET c0 = 7 WHEN NOT MATCHED THEN INSERT (c0, c1)"
                + " VALUES (x0.c0, x0.c0)";
        EachVersion.run(RELEASES, v -> {
            try (Target h2 = Targets.create("h2", TargetOptions.version(v))) {
                // a race: in about one run of ten the MERGE waits for T1 and fails with the unique violation, as at READ
                // COMMITTED, so the block runs up to five times and one run must show the General error
                Run r = null;
                for (int attempt = 0; attempt < 5 && (r == null || !r.of(merge).failed() || r.of(merge).error().getErrorCode() != GENERAL_ERROR);
                        attempt++) {
                    r = PrintedSql.of("h2-rr-merge-lock-npe").run(h2);
                }
                Outcome failed = r.of(merge);
                assertTrue(failed.failed(), r.toString());
                assertEquals(GENERAL_ERROR, failed.error().getErrorCode(), "in five runs never the General error; the last: " + r);
                assertTrue(failed.error().getMessage().contains("NullPointerException"), r.toString());
                assertEquals(rows("(0, NULL, 0) (1, 4, 1)"), r.last().rows(), r.toString());

                Run control = PrintedSql.of("h2-rr-merge-lock-npe-read-committed").run(h2);
                Outcome refused = control.of(merge);
                assertTrue(refused.waited() && refused.failed(), "it waits for T1, then fails: " + control);
                assertEquals(DUPLICATE_KEY, refused.error().getErrorCode(), control.toString());
                assertEquals(rows("(0, NULL, 0) (1, 4, 1)"), control.last().rows(), control.toString());
            }
        });
    }

    /** h2-rr-merge-lock-npe through the explicit oracle: the campaign's reduced case (SERIALIZABLE) is an engine-error bug candidate. */
    @Test
    void h2RrMergeLockNpeStillShowsOnTheBundledH2() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            Result r = BugReplay.replay(h2, BugReplay.testCase("h2-rr-merge-lock-npe"), "wss", "explicit");
            assertTrue(r.labels().contains("explicit/engine-error/bug-candidate"), r.toString());
        }
    }

    /**
     * h2-multi-row-insert-own-row-duplicate through the wss oracle: the INSERT's error is explained by no serial order
     * (T1 rolled back, so T2 alone inserts both rows) and is a bug candidate; with T1 committing (the control) the
     * order T1 → T2 raises the error too, and nothing is a bug candidate. At READ UNCOMMITTED too, where the dirty-read
     * simulation runs the failed INSERT on the committed data its key check met and not on T1's uncommitted key (a real bug
     * kept from hiding behind that rule, DeviationExplainer#reproducedFailure).
     */
    @ParameterizedTest
    @EnumSource(value = IsolationLevel.class, names = {"READ_COMMITTED", "READ_UNCOMMITTED"})
    void h2MultiRowInsertOwnRowDuplicateStillShowsOnTheBundledH2(IsolationLevel level) throws Exception {
        try (Target h2 = Targets.create("h2")) {
            Result r = BugReplay.replay(h2, BugReplay.testCase("h2-multi-row-insert-own-row-duplicate").withIsolation(level), "wss", "explicit");
            assertTrue(r.labels().contains("wss/write-outcome/bug-candidate"), r.toString());
            Result committed = BugReplay.replay(h2, BugReplay.testCase("h2-multi-row-insert-own-row-duplicate-committed").withIsolation(level),
                    "wss", "explicit");
            assertTrue(committed.labels().stream().noneMatch(l -> l.endsWith("/bug-candidate")), committed.toString());
        }
    }

    /**
     * h2-rc-waiting-update-skips-rekeyed-row, DELETE symptom, through the wss oracle (the soak's h2-RC-s1-i47706 as
     * reduced): T2's autocommit DELETE waits for T1's key change and deletes nothing; with a NUMERIC(10) key (the
     * control) it deletes the row, and the oracle finds nothing.
     */
    @Test
    void h2RcWaitingDeleteSkipsRekeyedRowStillShowsOnTheBundledH2() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            Result r = BugReplay.replay(h2, waitingDelete("INT"), "wss", "explicit");
            assertTrue(r.trace().executed(new StmtRef(2, 0)).orElseThrow().blocked(), "the DELETE waited for T1: " + r.trace());
            assertEquals(List.of(List.of("1")), r.trace().finalState().tables().get("t0"), "the row outlived the DELETE: " + r.trace());
            assertEquals(Set.of("wss/stmt-wss/bug-candidate", "wss/tx-wss/bug-candidate", "wss/write-outcome/bug-candidate"),
                    r.labels(), r.toString());
            Result clean = BugReplay.replay(h2, waitingDelete("NUMERIC(10)"), "wss", "explicit");
            assertEquals(Set.of(), clean.labels(), clean.toString());
            assertEquals(List.of(), clean.trace().finalState().tables().get("t0"), clean.trace().toString());
        }
    }

    private static TestCase waitingDelete(String keyType) {
        return Cases.on("h2").level(IsolationLevel.READ_COMMITTED).table("t0")
                .setup("CREATE TABLE t0 (c0 " + keyType + ", PRIMARY KEY (c0))", "INSERT INTO t0 (c0) VALUES (0)")
                .txn("UPDATE t0 SET c0 = (t0.c0 + 1)").autocommit("DELETE FROM t0").order(1, 1, 2, 1);
    }

    /** h2-rr-rewritten-key-row-twice: fixed in 2.5.250; 2.4.240 is the newest release that has it. */
    @Test
    void h2RrRewrittenKeyRowTwiceIsCaughtOn2_4_240AndGoneFromTheBundledH2() throws Exception {
        TestCase c = BugReplay.corpusCase("h2-rr-rewritten-key-row-twice");
        try (Target h2 = Targets.create("h2", TargetOptions.version("2.4.240"))) {
            Result r = BugReplay.replay(h2, c, "equiv");
            assertEquals(Set.of("equiv/equiv-result/bug-candidate"), r.labels(), r.toString());
            assertEquals(3, rows(r, 1, 3).size(), "two rows, one of them twice: " + r.trace());
        }
        try (Target h2 = Targets.create("h2")) {
            Result r = BugReplay.replay(h2, c, "equiv");
            assertEquals(Set.of(), r.labels(), r.toString());
        }
    }

    /** h2-merge-hang-read-uncommitted: fixed in 2.4.240; 2.3.232 is the newest release that has it. */
    @Test
    void h2MergeHangReadUncommittedIsCaughtOn2_3_232() throws Exception {
        TestCase c = BugReplay.corpusCase("h2-merge-hang-read-uncommitted");
        try (Target h2 = Targets.create("h2", TargetOptions.version("2.3.232"))) {
            Result r = BugReplay.replay(h2, c, "wss", "explicit");
            assertEquals(Set.of("explicit/hang/bug-candidate"), r.labels(), r.toString());
            Result rc = BugReplay.replay(h2, c.withIsolation(IsolationLevel.READ_COMMITTED), "wss", "explicit");
            assertEquals(Set.of(), rc.labels(), "at READ COMMITTED the MERGE returns: " + rc);
        }
    }

    /**
     * h2-rr-descending-scan-own-write, symptom h2-rr-descending-scan-deleted-row: after the transaction's
     * DELETE, a self-join read through the two-column key, descending, neither returns nor waits on a
     * lock; at READ COMMITTED, and on 2.2.224 (before the descending reads broke), it returns the one
     * row left (the controls).
     */
    @Test
    void h2RrDescendingScanDeletedRowHangStillShowsOnTheBundledH2() throws Exception {
        TestCase c = BugReplay.corpusCase("h2-rr-descending-scan-deleted-row-hang");
        try (Target h2 = Targets.create("h2")) {
            Result rr = BugReplay.replay(h2, c, "wss", "explicit", "isolation");
            assertEquals(Set.of("explicit/hang/bug-candidate"), rr.labels(), rr.toString());
            Result rc = BugReplay.replay(h2, c.withIsolation(IsolationLevel.READ_COMMITTED), "wss", "explicit", "isolation");
            assertEquals(Set.of(), rc.labels(), rc.toString());
            assertEquals(rows("(5)"), rows(rc, 1, 2), rc.trace().toString());
        }
        try (Target h2 = Targets.create("h2", TargetOptions.version("2.2.224"))) {
            Result before = BugReplay.replay(h2, c, "wss", "explicit", "isolation");
            assertEquals(Set.of(), before.labels(), before.toString());
            assertEquals(rows("(5)"), rows(before, 1, 2), before.trace().toString());
        }
    }

    /**
     * h2-rr-descending-scan-own-write, symptom h2-rr-max-after-key-change-never-returns: after the transaction moves
     * a row to a new key, MAX over a unique column neither returns nor waits for a lock, which the explicit oracle
     * calls a hang; at READ COMMITTED (the control) it returns the row's value.
     */
    @Test
    @Order(Integer.MAX_VALUE) // last: the other tests run while its replay, started with the class, waits
    void h2RrMaxAfterKeyChangeHangStillShowsOnTheBundledH2() throws Throwable {
        await(maxAfterKeyChangeReplay);
    }

    /** The body of {@link #h2RrMaxAfterKeyChangeHangStillShowsOnTheBundledH2}, started by {@link #startTheWaitingReplays}. */
    private static void maxAfterKeyChangeHangOnTheBundledH2() throws Exception {
        TestCase c = Cases.on("h2").level(IsolationLevel.REPEATABLE_READ).table("t0")
                .setup("CREATE TABLE t0 (c0 INT NOT NULL PRIMARY KEY, c4 INT UNIQUE)", "INSERT INTO t0 (c0, c4) VALUES (2, 5), (4, 7)")
                .txn("UPDATE t0 SET c0 = 7 WHERE c0 = 4", "SELECT MAX(c4) FROM t0").order(1, 1, 1, 1);
        try (Target h2 = Targets.create("h2")) {
            Result rr = BugReplay.replay(h2, c, "wss", "explicit");
            assertEquals(Set.of("explicit/hang/bug-candidate"), rr.labels(), rr.toString());
            Result rc = BugReplay.replay(h2, c.withIsolation(IsolationLevel.READ_COMMITTED), "wss", "explicit");
            assertEquals(Set.of(), rc.labels(), rc.toString());
            assertEquals(rows("(7)"), rows(rc, 1, 2), rc.trace().toString());
        }
    }

    private static List<List<String>> rows(String printed) {
        return PrintedSql.rows(printed);
    }

    private static List<List<String>> rows(Result r, int txn, int stmt) {
        return r.trace().executed(new StmtRef(txn, stmt)).orElseThrow().result().rows();
    }
}
