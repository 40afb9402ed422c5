package txfuzz.bugs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import txfuzz.bugs.BugReplay.Result;
import txfuzz.bugs.PrintedSql.Outcome;
import txfuzz.bugs.PrintedSql.Run;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.EachVersion;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.exec.StmtResult;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;

/**
 * The HSQLDB entries of docs/bugs.md: their printed SQL on every release of the page's range, and their case
 * files through the oracles on the bundled HSQLDB (that test fails the day an upgrade fixes it).
 */
class HsqldbBugsTest {
    /** Every HSQLDB release on Maven Central from 2.3.6 to the bundled 2.7.4 (2.5.2 reports itself as 2.6.0). */
    static final List<String> RELEASES = List.of("2.3.6", "2.4.0", "2.4.1", "2.5.0", "2.5.1", "2.5.2", "2.6.0", "2.6.1", "2.7.0",
            "2.7.1", "2.7.2", "2.7.3", "2.7.4");

    /**
     * The printed SQL, as a SQL client sends it: the MERGE updates the deleted row, the text COMMIT fails
     * with S1000 / -458 ("General error"; 2.3.6 – 2.4.1 name the NullPointerException), the failed transaction keeps a reader in a third session waiting
     * until its ROLLBACK, and its INSERT is there afterwards. (The MVCC control is in the oracle test.)
     */
    @Test
    void hsqldbMvlocksMergeDeletedRowCommitNpeOnEachVersion() throws Exception {
        EachVersion.run(RELEASES, v -> {
            try (Target hsqldb = Targets.create("hsqldb", TargetOptions.version(v))) {
                Run r = PrintedSql.of("hsqldb-mvlocks-merge-deleted-row-commit-npe").run(hsqldb);
                assertEquals(1, r.of("MERGE INTO t1 USING t0 x0 ON (t1.c0 = x0.c1) WHEN MATCHED THEN UPDATE SET v = 2").updateCount(), r.toString());
                Outcome commit = r.of("COMMIT", 2);
                assertEquals("T2", commit.step().session(), r.toString());
                assertTrue(commit.failed(), r.toString());
                assertEquals("S1000", commit.error().getSQLState(), r.toString());
                assertEquals(-458, commit.error().getErrorCode(), r.toString());
                Outcome blockedRead = r.of("SELECT * FROM t0", 1);
                assertTrue(blockedRead.waited(), "T3's read waits for the failed transaction: " + r);
                assertFalse(r.of("ROLLBACK").failed(), r.toString());
                assertEquals(PrintedSql.rows("(13) (NULL)"), blockedRead.rows(), r.toString());
                assertEquals(PrintedSql.rows("(13) (NULL)"), r.of("SELECT * FROM t0", 2).rows(), "the rolled-back INSERT stays: " + r);
            }
        });
    }

    /**
     * hsqldb-mvlocks-writer-reads-start-snapshot, printed: at SERIALIZABLE in MVLOCKS mode T1 copies COUNT(t0)
     * into t1 from the snapshot of its first statement, after T2 added to t0 and committed: neither serial
     * order gives the final state. And an UPDATE that waited for T2's lock on t1 misses the row T2 committed
     * before it got the lock. (The LOCKS-mode controls are in the oracle tests below.)
     */
    @Test
    void hsqldbMvlocksWriterReadsStartSnapshotOnEachVersion() throws Exception {
        EachVersion.run(RELEASES, v -> {
            try (Target hsqldb = Targets.create("hsqldb", TargetOptions.version(v))) {
                Run skew = PrintedSql.of("hsqldb-mvlocks-writer-reads-start-snapshot").run(hsqldb);
                assertEquals(PrintedSql.rows("(0)"), skew.of("SELECT COUNT(*) FROM t2").rows(), skew.toString());
                assertEquals(PrintedSql.rows("(0) (1)"), sorted(skew.of("SELECT * FROM t0").rows()), skew.toString());
                assertEquals(PrintedSql.rows("(1)"), skew.of("SELECT * FROM t1").rows(), "T1 counted its snapshot of t0: " + skew);

                Run update = PrintedSql.of("hsqldb-mvlocks-writer-update-after-wait").run(hsqldb);
                Outcome waited = update.of("UPDATE t1 SET v = 5");
                assertTrue(waited.waited(), "the UPDATE waits for T2's lock: " + update);
                assertEquals(1, waited.updateCount(), "it misses the row committed before it got the lock: " + update);
                assertEquals(PrintedSql.rows("(1, 5) (2, 0)"), sorted(update.last().rows()), update.toString());

                // the seed-33 campaign's write skews, cut down: T2's read waited for T1's lock and returns T2's snapshot
                Run skew2 = PrintedSql.of("hsqldb-mvlocks-write-skew-after-wait").run(hsqldb);
                Outcome waitedRead = skew2.of("SELECT * FROM t2");
                assertTrue(waitedRead.waited(), "T2's read waits for T1's lock: " + skew2);
                assertEquals(PrintedSql.rows("(0, 0)"), waitedRead.rows(), "without T1's committed write: " + skew2);
                assertEquals(1, skew2.of("UPDATE t0 SET v = 2").updateCount(), skew2.toString());
                assertEquals(PrintedSql.rows("(0, 0)"), skew2.of("SELECT * FROM t2", 2).rows(), skew2.toString());
                assertFalse(skew2.last().failed(), "T2 commits: " + skew2);
                // control: LOCKS mode reads T1's commit once it has the lock
                Run locks = PrintedSql.of("hsqldb-locks-read-after-wait").run(hsqldb);
                assertTrue(locks.of("SELECT * FROM t2").waited(), locks.toString());
                assertEquals(PrintedSql.rows("(0, 1)"), locks.of("SELECT * FROM t2").rows(), locks.toString());
                assertEquals(PrintedSql.rows("(0, 1)"), locks.of("SELECT * FROM t2", 2).rows(), locks.toString());
            }
        });
    }

    /**
     * hsqldb-mvlocks-merge-deleted-row-commit-npe, widened: a plain UPDATE of a row another transaction
     * updated and committed after T1's snapshot reports 1 row, T1 then reads both versions, its COMMIT
     * fails with S1000 / -458 (2.3.6 – 2.4.1 say NullPointerException, later ones "General error"), it keeps
     * its locks, and its INSERT is there after its ROLLBACK.
     */
    @Test
    void hsqldbMvlocksUpdateOfUpdatedRowCommitFailsOnEachVersion() throws Exception {
        EachVersion.run(RELEASES, v -> {
            try (Target hsqldb = Targets.create("hsqldb", TargetOptions.version(v))) {
                Run r = PrintedSql.of("hsqldb-mvlocks-update-updated-row-commit-fails").run(hsqldb);
                assertEquals(1, r.of("UPDATE t1 SET v = v + 10").updateCount(), r.toString());
                assertEquals(PrintedSql.rows("(1, 0) (1, 10)"), sorted(r.of("SELECT * FROM t1").rows()), "both versions of the row: " + r);
                Outcome commit = r.of("COMMIT", 2);
                assertEquals("T1", commit.step().session(), r.toString());
                assertTrue(commit.failed(), r.toString());
                assertEquals("S1000", commit.error().getSQLState(), r.toString());
                assertEquals(-458, commit.error().getErrorCode(), r.toString());
                Outcome blockedRead = r.of("SELECT * FROM t0");
                assertTrue(blockedRead.waited(), "T2's read waits for the failed transaction: " + r);
                assertFalse(r.of("ROLLBACK").failed(), r.toString());
                assertEquals(PrintedSql.rows("(2)"), blockedRead.rows(), "the rolled-back INSERT stays: " + r);
                assertEquals(PrintedSql.rows("(1, 1)"), r.of("SELECT * FROM t1", 2).rows(), r.toString());
            }
        });
    }

    /**
     * hsqldb-2pl-failed-statement-releases-read-lock, printed, in LOCKS and MVLOCKS mode: after T1's DELETE
     * fails on t2's row, T2's DELETE of that row runs at once. Control (printed too): after a SELECT of t2
     * that succeeds, T2's DELETE waits for T1's COMMIT.
     */
    @Test
    void hsqldbFailedStatementReleasesReadLockOnEachVersion() throws Exception {
        EachVersion.run(RELEASES, v -> {
            try (Target hsqldb = Targets.create("hsqldb", TargetOptions.version(v))) {
                for (String block : List.of("hsqldb-2pl-failed-statement-releases-read-lock", "hsqldb-2pl-failed-statement-releases-read-lock-mvlocks")) {
                    Run r = PrintedSql.of(block).run(hsqldb);
                    assertEquals("23504", r.of("DELETE FROM t1").error().getSQLState(), r.toString());
                    Outcome child = r.of("DELETE FROM t2");
                    assertFalse(child.waited(), "T1 kept no lock on t2: " + r);
                    assertEquals(1, child.updateCount(), r.toString());
                    assertFalse(r.last().failed(), r.toString());
                }
                Run control = PrintedSql.of("hsqldb-2pl-read-keeps-read-lock").run(hsqldb);
                assertTrue(control.of("DELETE FROM t2").waited(), "a read that succeeded keeps its lock: " + control);
                assertEquals(1, control.of("DELETE FROM t2").updateCount(), control.toString());
            }
        });
    }

    /**
     * hsqldb-mvcc-fk-check-ignores-uncommitted-child, printed: in MVCC mode T2's DELETE of the parent runs at once, both commit,
     * and the child is left without its parent. Control (printed too): in LOCKS mode the DELETE fails at once on the
     * uncommitted child.
     */
    @Test
    void hsqldbMvccFkCheckIgnoresUncommittedChildOnEachVersion() throws Exception {
        EachVersion.run(RELEASES, v -> {
            try (Target hsqldb = Targets.create("hsqldb", TargetOptions.version(v))) {
                Run r = PrintedSql.of("hsqldb-mvcc-fk-check-ignores-uncommitted-child").run(hsqldb);
                Outcome delete = r.of("DELETE FROM t0");
                assertFalse(delete.waited(), "T2's DELETE does not wait for T1's child: " + r);
                assertEquals(1, delete.updateCount(), r.toString());
                assertFalse(r.of("COMMIT", 2).failed(), "T1 commits its child: " + r);
                assertEquals(PrintedSql.rows("(7, 5)"), r.of("SELECT * FROM t1").rows(), r.toString());
                assertEquals(PrintedSql.rows(""), r.of("SELECT * FROM t0").rows(), "the parent is gone: " + r);

                Run control = PrintedSql.of("hsqldb-locks-fk-check-refuses-uncommitted-child").run(hsqldb);
                Outcome refused = control.of("DELETE FROM t0");
                assertTrue(refused.failed(), "in LOCKS mode the DELETE sees T1's child: " + control);
                assertEquals("23504", refused.error().getSQLState(), control.toString());
                assertEquals(PrintedSql.rows("(5)"), control.of("SELECT * FROM t0").rows(), control.toString());
            }
        });
    }

    /**
     * hsqldb-mvcc-fk-check-ignores-uncommitted-child through the oracles: T1's INSERT of a child, T2's autocommit DELETE of
     * its parent, T1's COMMIT, at READ COMMITTED in MVCC mode, is a wss bug candidate (the final state breaks the declared
     * key); the same case without the FOREIGN KEY, where the engine does the same and the orphan breaks nothing, is clean.
     */
    @Test
    void hsqldbMvccFkCheckIgnoresUncommittedChildStillShowsOnTheBundledHsqldb() throws Exception {
        candidateAndCleanControl("wss/tx-wss/bug-candidate", parentDeletedUnderChild("FOREIGN KEY (c1) REFERENCES t0 (c0)"),
                parentDeletedUnderChild("CHECK (c1 IS NOT NULL)"), "wss", "explicit");
    }

    /** On the bundled HSQLDB, {@code bug} is judged with {@code label} among its violations and {@code control} is clean. */
    private static void candidateAndCleanControl(String label, TestCase bug, TestCase control, String... oracles) throws Exception {
        try (Target hsqldb = Targets.create("hsqldb")) {
            Result shown = BugReplay.replay(hsqldb, bug, oracles);
            assertTrue(shown.labels().contains(label), shown.toString());
            Result clean = BugReplay.replay(hsqldb, control, oracles);
            assertEquals(Set.of(), clean.labels(), clean.toString());
        }
    }

    private static TestCase parentDeletedUnderChild(String constraint) {
        return Cases.on("hsqldb").mode("mvcc").level(IsolationLevel.READ_COMMITTED).table("t0").table("t1")
                .setup("CREATE TABLE t0 (c0 INT PRIMARY KEY)", "CREATE TABLE t1 (c0 INT, c1 INT, " + constraint + ")", "INSERT INTO t0 VALUES (5)")
                .txn("INSERT INTO t1 VALUES (7, 5)").autocommit("DELETE FROM t0").order(1, 1, 2, 1);
    }

    /**
     * hsqldb-left-join-range-and-like-general-error, printed: the lone SELECT fails with S1000 / -458 on every release.
     * Control (printed too): without the index on t0.c1 it returns its row.
     */
    @Test
    void hsqldbLeftJoinRangeAndLikeGeneralErrorOnEachVersion() throws Exception {
        generalErrorOnEachVersion("hsqldb-left-join-range-and-like-general-error", "hsqldb-left-join-range-and-like-without-index",
                LEFT_JOIN_RANGE_AND_LIKE, "()");
    }

    /**
     * hsqldb-left-join-range-and-like-general-error through the oracles: the reduced case (one autocommit SELECT) is an
     * explicit engine-error bug candidate; the same case without the index is clean.
     */
    @Test
    void hsqldbLeftJoinRangeAndLikeGeneralErrorStillShowsOnTheBundledHsqldb() throws Exception {
        candidateAndCleanControl("explicit/engine-error/bug-candidate", leftJoinRangeAndLike(true), leftJoinRangeAndLike(false), "explicit");
    }

    private static final String LEFT_JOIN_RANGE_AND_LIKE = "SELECT x0.c2 FROM t1 x0 LEFT JOIN t0 x1 ON (x0.c1 BETWEEN 0 AND 0 AND x1.c1 LIKE 'a%')";

    private static TestCase leftJoinRangeAndLike(boolean index) {
        return loneSelect(LEFT_JOIN_RANGE_AND_LIKE, List.of("t0", "t1"), "CREATE TABLE t0 (c1 VARCHAR(10))", index ? "CREATE INDEX i1 ON t0 (c1)" : null,
                "CREATE TABLE t1 (c1 DOUBLE PRECISION, c2 VARCHAR(10))", "INSERT INTO t0 VALUES ('')", "INSERT INTO t1 VALUES (0, '')");
    }

    /**
     * hsqldb-distinct-ordered-by-other-index-general-error, printed: the DISTINCT over the key's columns ordered by the other
     * index's column fails with S1000 / -458 on every release; without that index (the control) it returns the row.
     */
    @Test
    void hsqldbDistinctOrderedByOtherIndexGeneralErrorOnEachVersion() throws Exception {
        generalErrorOnEachVersion("hsqldb-distinct-ordered-by-other-index-general-error", "hsqldb-distinct-ordered-by-other-index-without-index",
                DISTINCT_ORDERED_BY_OTHER_INDEX, "(1, 2)");
    }

    /** hsqldb-distinct-ordered-by-other-index-general-error through the oracles: an explicit engine-error bug candidate; without the index, clean. */
    @Test
    void hsqldbDistinctOrderedByOtherIndexGeneralErrorStillShowsOnTheBundledHsqldb() throws Exception {
        candidateAndCleanControl("explicit/engine-error/bug-candidate", distinctOrderedByOtherIndex(true), distinctOrderedByOtherIndex(false), "explicit");
    }

    private static final String DISTINCT_ORDERED_BY_OTHER_INDEX = "SELECT DISTINCT c0, c1 FROM t0 ORDER BY c1";

    private static TestCase distinctOrderedByOtherIndex(boolean index) {
        return loneSelect(DISTINCT_ORDERED_BY_OTHER_INDEX, List.of("t0"), "CREATE TABLE t0 (c0 INT, c1 INT, PRIMARY KEY (c0, c1))",
                index ? "CREATE INDEX i0 ON t0 (c1)" : null, "INSERT INTO t0 VALUES (1, 2)");
    }

    /** A printed block's {@code select} fails with HSQLDB's S1000 / -458 "General error" on every release; its control's gives {@code controlRows}. */
    private static void generalErrorOnEachVersion(String block, String control, String select, String controlRows) throws Exception {
        EachVersion.run(RELEASES, v -> {
            try (Target hsqldb = Targets.create("hsqldb", TargetOptions.version(v))) {
                Run r = PrintedSql.of(block).run(hsqldb);
                Outcome failed = r.of(select);
                assertTrue(failed.failed(), r.toString());
                assertEquals("S1000", failed.error().getSQLState(), r.toString());
                assertEquals(-458, failed.error().getErrorCode(), r.toString());
                Run clean = PrintedSql.of(control).run(hsqldb);
                assertEquals(PrintedSql.rows(controlRows), clean.of(select).rows(), clean.toString());
            }
        });
    }

    /** One autocommit {@code select} (MVCC, REPEATABLE READ) after {@code setup}, whose null entries are left out. */
    private static TestCase loneSelect(String select, List<String> tables, String... setup) {
        Cases c = Cases.on("hsqldb").mode("mvcc").level(IsolationLevel.REPEATABLE_READ);
        tables.forEach(c::table);
        return c.setup(java.util.Arrays.stream(setup).filter(java.util.Objects::nonNull).toArray(String[]::new)).autocommit(select).order(1);
    }

    /** The releases before the one that brought hsqldb-mvcc-fk-rewritten-parent-key-refuses-child. */
    private static final Set<String> BEFORE_2_5_0 = Set.of("2.3.6", "2.4.0", "2.4.1");

    /**
     * hsqldb-mvcc-fk-rewritten-parent-key-refuses-child, printed: T2's autocommit INSERT of a child fails at once with 23503
     * while T1 has set the parent's key to itself, from 2.5.0 on; before 2.5.0 (the control) it inserts the row.
     */
    @Test
    void hsqldbMvccFkRewrittenParentKeyRefusesChildOnEachVersion() throws Exception {
        EachVersion.run(RELEASES, v -> {
            try (Target hsqldb = Targets.create("hsqldb", TargetOptions.version(v))) {
                Run r = PrintedSql.of("hsqldb-mvcc-fk-rewritten-parent-key-refuses-child").run(hsqldb);
                Outcome insert = r.of("INSERT INTO t1 VALUES (0, 0)");
                assertFalse(insert.waited(), r.toString());
                if (BEFORE_2_5_0.contains(v)) {
                    assertEquals(1, insert.updateCount(), "before 2.5.0 the child is inserted: " + r);
                } else {
                    assertEquals("23503", insert.failed() ? insert.error().getSQLState() : null, "the INSERT finds no parent: " + r);
                }
                assertEquals(PrintedSql.rows("(0, 0)"), r.of("SELECT * FROM t0").rows(), "the parent was there all along: " + r);
            }
        });
    }

    /**
     * hsqldb-mvcc-fk-rewritten-parent-key-refuses-child through the oracles: a wss write-outcome bug candidate; the same
     * schedule updating the parent's other column, where the INSERT succeeds, is clean.
     */
    @Test
    void hsqldbMvccFkRewrittenParentKeyRefusesChildStillShowsOnTheBundledHsqldb() throws Exception {
        candidateAndCleanControl("wss/write-outcome/bug-candidate", childInsertedUnder("UPDATE t0 SET c0 = t0.c0 + 0"),
                childInsertedUnder("UPDATE t0 SET c2 = 1"), "wss", "explicit");
    }

    private static TestCase childInsertedUnder(String parentUpdate) {
        return Cases.on("hsqldb").mode("mvcc").level(IsolationLevel.REPEATABLE_READ).table("t0").table("t1")
                .setup("CREATE TABLE t0 (c0 INT PRIMARY KEY, c2 INT)", "CREATE TABLE t1 (c0 INT, c2 INT, FOREIGN KEY (c2) REFERENCES t0 (c0))",
                        "INSERT INTO t0 VALUES (0, 0)")
                .txn(parentUpdate).autocommit("INSERT INTO t1 VALUES (0, 0)").order(1, 1, 2, 1);
    }

    private static final String[] TWO_TABLES = {"CREATE TABLE t0 (k INT)", "CREATE TABLE t1 (k INT, v INT)", "INSERT INTO t0 VALUES (1)",
        "INSERT INTO t1 VALUES (1, 0)"};

    /** T1 reads t0 (its first statement), an autocommit INSERT into t1 commits, then T1 runs {@code second} on t1. */
    private static TestCase afterACommittedInsert(String mode, String second) {
        return Cases.on("hsqldb").mode(mode).level(IsolationLevel.SERIALIZABLE).table("t0").table("t1").setup(TWO_TABLES)
                .txn("SELECT k FROM t0", second).autocommit("INSERT INTO t1 VALUES (2, 0)").order(1, 1, 2, 1, 1);
    }

    /**
     * hsqldb-mvlocks-writer-reads-start-snapshot: the guide says MVLOCKS "works the same way as normal
     * 2PL as far as updates are concerned" and gives SNAPSHOT ISOLATION to "read-only transactions". At
     * SERIALIZABLE a transaction that writes reads its snapshot too: its UPDATE of t1, after an INSERT
     * into t1 committed, updates only the row that was there at its first statement. Controls: a
     * transaction that only reads sees its snapshot and is clean (what the guide documents); in LOCKS mode
     * the same UPDATE updates both rows.
     */
    @Test
    void hsqldbMvlocksWriterReadsItsStartSnapshotStillShowsOnTheBundledHsqldb() throws Exception {
        try (Target hsqldb = Targets.create("hsqldb")) {
            Result writer = BugReplay.replay(hsqldb, afterACommittedInsert("mvlocks", "UPDATE t1 SET v = 5"), "wss", "explicit");
            assertEquals(1, writer.trace().executed(new StmtRef(1, 2)).orElseThrow().result().updateCount(), writer.trace().toString());
            assertEquals(List.of(List.of("1", "5"), List.of("2", "0")), sorted(writer.trace().finalState().tables().get("t1")), writer.trace().toString());
            assertTrue(writer.labels().contains("wss/tx-wss/bug-candidate"), writer.toString());

            Result reader = BugReplay.replay(hsqldb, afterACommittedInsert("mvlocks", "SELECT k, v FROM t1"), "wss", "explicit");
            assertEquals(List.of(List.of("1", "0")), reader.trace().executed(new StmtRef(1, 2)).orElseThrow().result().rows(),
                    "the reader sees its snapshot: " + reader.trace());
            assertEquals(Set.of(), reader.labels(), reader.toString());

            Result locks = BugReplay.replay(hsqldb, afterACommittedInsert("locks", "UPDATE t1 SET v = 5"), "wss", "explicit");
            assertEquals(2, locks.trace().executed(new StmtRef(1, 2)).orElseThrow().result().updateCount(), locks.trace().toString());
            assertEquals(Set.of(), locks.labels(), locks.toString());
        }
    }

    /**
     * The same defect makes SERIALIZABLE non-serializable (write skew across tables): T1 starts on t2,
     * T2 copies COUNT(t1) into t0 and commits, T1 copies COUNT(t0) into t1 from its snapshot. The final
     * state is neither serial order's; in LOCKS mode it is T2 → T1's.
     */
    @Test
    void hsqldbMvlocksSerializableWriteSkewStillShowsOnTheBundledHsqldb() throws Exception {
        try (Target hsqldb = Targets.create("hsqldb")) {
            Result skew = BugReplay.replay(hsqldb, writeSkew("mvlocks", 1, 1, 2, 2, 2, 1, 1), "wss", "explicit");
            Map<String, List<List<String>>> actual = skew.trace().finalState().tables();
            Map<String, List<List<String>>> t1First = BugReplay.replay(hsqldb, writeSkew("mvlocks", 1, 1, 1, 1, 2, 2, 2), "wss").trace().finalState().tables();
            Map<String, List<List<String>>> t2First = BugReplay.replay(hsqldb, writeSkew("mvlocks", 2, 2, 2, 1, 1, 1, 1), "wss").trace().finalState().tables();
            assertTrue(!sortedTables(actual).equals(sortedTables(t1First)) && !sortedTables(actual).equals(sortedTables(t2First)),
                    "actual " + actual + ", serial T1 → T2 " + t1First + ", serial T2 → T1 " + t2First);
            assertTrue(skew.labels().contains("wss/tx-wss/bug-candidate"), skew.toString());

            Result locks = BugReplay.replay(hsqldb, writeSkew("locks", 1, 1, 2, 2, 2, 1, 1), "wss", "explicit");
            assertEquals(sortedTables(t2First), sortedTables(locks.trace().finalState().tables()), locks.trace().toString());
            assertEquals(Set.of(), locks.labels(), locks.toString());
        }
    }

    private static TestCase writeSkew(String mode, Integer... order) {
        return Cases.on("hsqldb").mode(mode).level(IsolationLevel.SERIALIZABLE).table("t0").table("t1").table("t2")
                .setup("CREATE TABLE t0 (k INT)", "CREATE TABLE t1 (k INT)", "CREATE TABLE t2 (k INT)", "INSERT INTO t0 VALUES (1)")
                .txn("SELECT COUNT(*) FROM t2", "INSERT INTO t1 SELECT COUNT(*) FROM t0")
                .txn("INSERT INTO t0 SELECT COUNT(*) FROM t1")
                .order(order);
    }

    /**
     * The COMMIT failure of hsqldb-mvlocks-merge-deleted-row-commit-npe needs no MERGE: a plain UPDATE of
     * a row another transaction updated and committed after T1's first statement succeeds, T1 then reads
     * both versions of the row, its COMMIT fails with an internal error, and T1's INSERT stays; with a
     * primary key the UPDATE fails instead with a unique violation. Control: at READ COMMITTED the UPDATE
     * applies to the committed version and T1 commits.
     */
    @Test
    void hsqldbMvlocksUpdateOfARowUpdatedSinceFailsAtCommitStillShowsOnTheBundledHsqldb() throws Exception {
        try (Target hsqldb = Targets.create("hsqldb")) {
            Result r = BugReplay.replay(hsqldb, updateAfterConcurrentUpdate(IsolationLevel.SERIALIZABLE), "wss", "explicit");
            assertEquals(1, r.trace().executed(new StmtRef(1, 2)).orElseThrow().result().updateCount(), r.trace().toString());
            assertEquals(List.of(List.of("1", "0"), List.of("1", "10")), sorted(r.trace().executed(new StmtRef(1, 3)).orElseThrow().result().rows()),
                    "T1 reads the row twice: " + r.trace());
            assertEquals(ErrorClass.INTERNAL, r.trace().executed(new StmtRef(1, 4)).orElseThrow().result().errorClass(), r.trace().toString());
            assertEquals(List.of(List.of("1"), List.of("2")), sorted(r.trace().finalState().tables().get("t0")),
                    "the failed transaction's INSERT stays: " + r.trace());
            assertTrue(r.labels().contains("explicit/engine-error/bug-candidate"), r.toString());

            Result rc = BugReplay.replay(hsqldb, updateAfterConcurrentUpdate(IsolationLevel.READ_COMMITTED), "wss", "explicit");
            assertEquals(List.of(List.of("1", "11")), rc.trace().finalState().tables().get("t1"), rc.trace().toString());
            assertEquals(Set.of(), rc.labels(), rc.toString());

            // with a primary key on t1 the same UPDATE fails at once, with a unique violation on a one-row table
            TestCase keyed = Cases.on("hsqldb").mode("mvlocks").level(IsolationLevel.SERIALIZABLE).table("t0").table("t1")
                    .setup("CREATE TABLE t0 (k INT)", "CREATE TABLE t1 (k INT PRIMARY KEY, v INT)", "INSERT INTO t1 VALUES (1, 0)")
                    .txn("SELECT k FROM t0", "UPDATE t1 SET v = v + 10").autocommit("UPDATE t1 SET v = v + 1").order(1, 1, 2, 1, 1);
            Result pk = BugReplay.replay(hsqldb, keyed, "wss", "explicit");
            assertEquals(ErrorClass.CONSTRAINT, pk.trace().executed(new StmtRef(1, 2)).orElseThrow().result().errorClass(), pk.trace().toString());
            assertTrue(pk.labels().contains("wss/write-outcome/bug-candidate"), pk.toString());
        }
    }

    private static TestCase updateAfterConcurrentUpdate(IsolationLevel level) {
        return Cases.on("hsqldb").mode("mvlocks").level(level).table("t0").table("t1").setup(TWO_TABLES)
                .txn("INSERT INTO t0 VALUES (2)", "UPDATE t1 SET v = v + 10", "SELECT k, v FROM t1")
                .autocommit("UPDATE t1 SET v = v + 1").order(1, 1, 2, 1, 1, 1);
    }

    /**
     * hsqldb-2pl-failed-statement-releases-read-lock: "[REPEATABLE READ and SERIALIZABLE] keep both read
     * and write locks on tables until commit", but a statement that fails keeps none. T1's DELETE of a
     * parent row fails on the child row in t2; an autocommit DELETE of that child then runs at once and
     * commits before T1 does, so T1's failure contradicts the commit order (LOCKS and MVLOCKS alike).
     * Control: when T1 reads t2 with a statement that succeeds, the DELETE waits for T1's COMMIT.
     */
    @Test
    void hsqldbFailedStatementReleasesItsReadLockStillShowsOnTheBundledHsqldb() throws Exception {
        try (Target hsqldb = Targets.create("hsqldb")) {
            for (String mode : List.of("locks", "mvlocks")) {
                Result failed = BugReplay.replay(hsqldb, childDeletedAfter(mode, "DELETE FROM t1"), "wss", "explicit");
                assertEquals(ErrorClass.CONSTRAINT, failed.trace().executed(new StmtRef(1, 1)).orElseThrow().result().errorClass(), failed.trace().toString());
                assertTrue(!failed.trace().executed(new StmtRef(2, 0)).orElseThrow().blocked(), "the child's DELETE did not wait: " + failed.trace());
                assertTrue(failed.labels().contains("wss/write-outcome/bug-candidate"), mode + ": " + failed);

                Result read = BugReplay.replay(hsqldb, childDeletedAfter(mode, "SELECT COUNT(*) FROM t2"), "wss", "explicit");
                assertTrue(read.trace().executed(new StmtRef(2, 0)).orElseThrow().blocked(), "the child's DELETE waits for T1: " + read.trace());
                assertEquals(Set.of(), read.labels(), mode + ": " + read);
            }
        }
    }

    private static TestCase childDeletedAfter(String mode, String first) {
        return Cases.on("hsqldb").mode(mode).level(IsolationLevel.SERIALIZABLE).table("t1").table("t2")
                .setup("CREATE TABLE t1 (c0 INT PRIMARY KEY)", "CREATE TABLE t2 (c0 INT, c3 INT, FOREIGN KEY (c3) REFERENCES t1 (c0))",
                        "INSERT INTO t1 VALUES (9)", "INSERT INTO t2 VALUES (0, 9)")
                .txn(first).autocommit("DELETE FROM t2").order(1, 1, 2, 1);
    }

    private static List<List<String>> sorted(List<List<String>> rows) {
        return rows.stream().sorted(Comparator.comparing(Object::toString)).toList();
    }

    private static Map<String, List<List<String>>> sortedTables(Map<String, List<List<String>>> tables) {
        Map<String, List<List<String>>> out = new TreeMap<>();
        tables.forEach((t, rows) -> out.put(t, sorted(rows)));
        return out;
    }

    /**
     * hsqldb-mvlocks-merge-deleted-row-commit-npe: at REPEATABLE READ in MVLOCKS mode, T2's MERGE
     * updates a row T1 deleted and committed, T2's COMMIT then throws a NullPointerException, and
     * T2's earlier INSERT is in the database anyway.
     */
    @Test
    void hsqldbMvlocksMergeDeletedRowCommitNpeStillShowsOnTheBundledHsqldb() throws Exception {
        TestCase c = BugReplay.testCase("hsqldb-mvlocks-merge-deleted-row-commit-npe");
        try (Target hsqldb = Targets.create("hsqldb")) {
            Result r = BugReplay.replay(hsqldb, c, "wss", "explicit");
            assertEquals(1, r.trace().executed(new StmtRef(2, 2)).orElseThrow().result().updateCount(),
                    "the MERGE updates the deleted row: " + r.trace());
            StmtResult commit = r.trace().executed(new StmtRef(2, 3)).orElseThrow().result();
            assertEquals(ErrorClass.INTERNAL, commit.errorClass(), r.trace().toString());
            assertTrue(commit.error().message().contains("NullPointerException"), commit.error().message());
            // the failed transaction's INSERT stayed: atomicity broken, not only an error
            List<List<String>> t0 = r.trace().finalState().tables().get("t0");
            assertEquals(2, t0.size(), r.trace().toString());
            assertTrue(t0.contains(java.util.Collections.singletonList((String) null)), "T2's row (NULL) is there: " + t0);
            assertTrue(r.labels().containsAll(Set.of("explicit/engine-error/bug-candidate", "wss/tx-wss/bug-candidate")), r.toString());
            // control: MVCC mode, same schedule; the MERGE fails with a serialization failure and nothing is wrong
            TestCase mvcc = Cases.on("hsqldb").mode("mvcc").level(IsolationLevel.REPEATABLE_READ).table("t0").table("t1")
                    .setup("CREATE TABLE t0 (c1 INT)", "CREATE TABLE t1 (c0 INT, v INT)", "INSERT INTO t0 VALUES (13)", "INSERT INTO t1 VALUES (13, 0)")
                    .txn("DELETE FROM t1 WHERE c0 = 13")
                    .txn("INSERT INTO t0 VALUES (NULL)", "MERGE INTO t1 USING t0 x0 ON (t1.c0 = x0.c1) WHEN MATCHED THEN UPDATE SET v = 2")
                    .order(2, 2, 1, 1, 1, 2, 2);
            Result clean = BugReplay.replay(hsqldb, mvcc, "wss", "explicit");
            assertEquals(ErrorClass.SERIALIZATION, clean.trace().executed(new StmtRef(2, 2)).orElseThrow().result().errorClass(), clean.trace().toString());
            assertEquals(Set.of(), clean.labels(), clean.toString());
        }
    }
}
