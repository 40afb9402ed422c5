package txfuzz.bugs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import txfuzz.bugs.BugReplay.Result;
import txfuzz.bugs.PrintedSql.Outcome;
import txfuzz.bugs.PrintedSql.Run;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;

/**
 * The DuckDB entries of docs/bugs.md (duckdb-update-delete-no-conflict, three symptoms, and
 * duckdb-update-different-columns-no-conflict): the printed SQL on 1.4.4 and 2.0.0, and
 * each symptom's case file through the oracles on the bundled DuckDB: the tests fail the day an upgrade of
 * the bundled jar fixes a bug. Each has a control, the schedule with the other kind of write, on
 * which DuckDB fails a writer as snapshot isolation must and the oracles say nothing.
 */
class DuckdbBugsTest {

    /**
     * duckdb-update-delete-no-conflict (duckdb/duckdb#17223), both printed symptoms on 1.4.4 and 2.0.0:
     * an UPDATE of a row a committed concurrent DELETE removed reports 1 row and commits; a key change
     * and a concurrent increment both commit and the increment is lost. (The controls, where DuckDB does
     * fail a writer, are in the two oracle tests.)
     */
    @Test
    void duckdbUpdateDeleteNoConflictOnEachVersion() throws Exception {
        for (String v : List.of("1.4.4.0", "2.0.0.1")) {
            try (Target duckdb = Targets.create("duckdb", TargetOptions.version(v))) {
                Run deleted = PrintedSql.of("duckdb-update-after-concurrent-delete").run(duckdb);
                assertEquals(1, deleted.of("UPDATE t SET v = v + 1 WHERE id = 1").updateCount(), deleted.toString());
                assertFalse(deleted.of("COMMIT", 2).failed(), deleted.toString());
                assertEquals(PrintedSql.rows("(2, 0)"), deleted.last().rows(), deleted.toString());

                Run keyChange = PrintedSql.of("duckdb-key-change-lost-update").run(duckdb);
                assertFalse(keyChange.of("UPDATE t SET v = v + 10").failed(), keyChange.toString());
                assertFalse(keyChange.of("COMMIT", 1).failed(), keyChange.toString());
                assertFalse(keyChange.of("COMMIT", 2).failed(), keyChange.toString());
                assertEquals(PrintedSql.rows("(a, 1)"), keyChange.last().rows(), keyChange.toString());

                Run indexed = PrintedSql.of("duckdb-indexed-column-update-lost-update").run(duckdb);
                assertEquals(1, indexed.of("UPDATE t SET a = 1 WHERE id = 1").updateCount(), indexed.toString());
                assertFalse(indexed.of("COMMIT", 2).failed(), indexed.toString());
                assertEquals(PrintedSql.rows("(1, 1, 0)"), indexed.last().rows(), "T2's b = 1 is lost: " + indexed);
                // control: the same schedule without the index keeps both writes (the different-columns entry's block)
                Run noIndex = PrintedSql.of("duckdb-update-different-columns-no-conflict").run(duckdb);
                assertEquals(PrintedSql.rows("(1, 1, 1)"), noIndex.last().rows(), noIndex.toString());
            }
        }
    }

    /**
     * duckdb-update-different-columns-no-conflict, printed, on 1.4.4 and 2.0.0: T1 updates column a of a row whose
     * column b T2 updated and committed after T1's snapshot; no conflict error, both commit, both writes kept.
     * Control (printed too): the same with the same column fails T1's UPDATE with "Conflict on update!".
     */
    @Test
    void duckdbUpdateDifferentColumnsNoConflictOnEachVersion() throws Exception {
        for (String v : List.of("1.4.4.0", "2.0.0.1")) {
            try (Target duckdb = Targets.create("duckdb", TargetOptions.version(v))) {
                Run r = PrintedSql.of("duckdb-update-different-columns-no-conflict").run(duckdb);
                assertEquals(PrintedSql.rows("(1, 0, 0)"), r.of("SELECT * FROM t").rows(), "T1's snapshot: " + r);
                assertEquals(1, r.of("UPDATE t SET a = 1 WHERE id = 1").updateCount(), r.toString());
                assertFalse(r.of("COMMIT", 2).failed(), r.toString());
                assertEquals(PrintedSql.rows("(1, 1, 1)"), r.last().rows(), r.toString());

                Run control = PrintedSql.of("duckdb-update-same-column-conflict").run(duckdb);
                Outcome conflict = control.of("UPDATE t SET a = 1 WHERE id = 1");
                assertTrue(conflict.failed(), "the same column conflicts: " + control);
                assertTrue(conflict.error().getMessage().contains("Conflict on update"), control.toString());
                assertEquals(PrintedSql.rows("(1, 2, 0)"), control.last().rows(), control.toString());
            }
        }
    }

    /** duckdb-update-after-concurrent-delete: T1 "updates" a row T2 deleted and committed, and commits. */
    @Test
    void duckdbUpdateAfterConcurrentDeleteStillShowsOnTheBundledDuckdb() throws Exception {
        TestCase c = BugReplay.corpusCase("duckdb-update-after-concurrent-delete");
        try (Target duckdb = Targets.create("duckdb")) {
            Result r = BugReplay.replay(duckdb, c, "wss", "explicit");
            assertEquals(Set.of("wss/first-committer-wins/bug-candidate", "wss/write-outcome/bug-candidate"), r.labels(), r.toString());
            assertEquals(1, r.trace().executed(new StmtRef(1, 2)).orElseThrow().result().updateCount(),
                    "the UPDATE of the deleted row reports 1 row: " + r.trace());
            assertEquals(List.of(List.of("2", "0")), r.trace().finalState().tables().get("t"), r.trace().toString());
            // control: T2 updates the row instead of deleting it; DuckDB fails T1's UPDATE, as snapshot isolation must
            Result clean = BugReplay.replay(duckdb, Cases.on("duckdb").level(IsolationLevel.SNAPSHOT).table("t")
                    .setup("CREATE TABLE t (id INT, v INT)", "INSERT INTO t (id, v) VALUES (1, 0), (2, 0)")
                    .txn("SELECT id, v FROM t", "UPDATE t SET v = v + 1 WHERE id = 1")
                    .txn("UPDATE t SET v = v + 10 WHERE id = 1")
                    .order(1, 1, 2, 2, 2, 1, 1), "wss", "explicit");
            assertEquals(Set.of(), clean.labels(), clean.toString());
        }
    }

    /** duckdb-key-change-lost-update: T1 changes the key, T2 the value of the same row; both commit, T2's write is gone. */
    @Test
    void duckdbKeyChangeLostUpdateStillShowsOnTheBundledDuckdb() throws Exception {
        TestCase c = BugReplay.corpusCase("duckdb-key-change-lost-update");
        try (Target duckdb = Targets.create("duckdb")) {
            Result r = BugReplay.replay(duckdb, c, "wss", "explicit");
            // both writers committed: first-committer-wins names the lost update too (issue 21 item 2)
            assertEquals(Set.of("wss/first-committer-wins/bug-candidate", "wss/stmt-wss/bug-candidate", "wss/tx-wss/bug-candidate"),
                    r.labels(), r.toString());
            assertEquals(List.of(List.of("a", "1")), r.trace().finalState().tables().get("t"), "the increment is lost: " + r.trace());
            // control: T1 changes the value instead of the key; one of the two writers fails
            Result clean = BugReplay.replay(duckdb, Cases.on("duckdb").level(IsolationLevel.SNAPSHOT).table("t")
                    .setup("CREATE TABLE t(k VARCHAR(10) PRIMARY KEY, v INT)", "INSERT INTO t VALUES ('e', 1)")
                    .txn("UPDATE t SET v = 5")
                    .txn("UPDATE t SET v = v + 10")
                    .order(1, 2, 1, 2, 1, 2), "wss", "explicit");
            assertEquals(Set.of(), clean.labels(), clean.toString());
        }
    }
    private static txfuzz.oracle.Violation firstCommitterWins(Result r) {
        return r.violations().stream().filter(v -> v.kind().label().equals("first-committer-wins")).findFirst()
                .orElseThrow(() -> new AssertionError("no first-committer-wins: " + r));
    }

    /**
     * Issue 21 item 2: duckdb/duckdb#17223 ("Incorrect transaction isolation between UPDATE and DELETE") shows
     * with either write first — a DELETE then a stale UPDATE (the corpus entry), or an UPDATE that commits then a
     * stale DELETE — and both are one finding: the break names both writes, so the cause is {DELETE, UPDATE}.
     */
    @Test
    void duckdbUpdateAndDeleteOfOneRowBothCommitWhicheverWritesFirstAndIsOneFinding() throws Exception {
        TestCase deleteFirst = BugReplay.corpusCase("duckdb-update-after-concurrent-delete");
        TestCase updateFirst = Cases.on("duckdb").level(IsolationLevel.SNAPSHOT).table("t")
                .setup("CREATE TABLE t (id INT, v INT)", "INSERT INTO t (id, v) VALUES (1, 0), (2, 0)")
                .txn("SELECT id, v FROM t", "DELETE FROM t WHERE id = 1")
                .autocommit("UPDATE t SET v = v + 10 WHERE id = 1")
                .order(1, 1, 2, 1, 1);
        try (Target duckdb = Targets.create("duckdb")) {
            Result a = BugReplay.replay(duckdb, deleteFirst, "wss", "explicit");
            Result b = BugReplay.replay(duckdb, updateFirst, "wss", "explicit");
            assertEquals(1, b.trace().executed(new StmtRef(1, 2)).orElseThrow().result().updateCount(),
                    "the DELETE of the row T2 updated and committed deletes it: " + b.trace());
            assertEquals(List.of(List.of("2", "0")), b.trace().finalState().tables().get("t"), b.trace().toString());
            txfuzz.report.Signature sa = txfuzz.report.Signature.of(deleteFirst, firstCommitterWins(a));
            txfuzz.report.Signature sb = txfuzz.report.Signature.of(updateFirst, firstCommitterWins(b));
            assertEquals(List.of("DELETE", "UPDATE"), sb.cause(), sb.text());
            assertTrue(sa.sameBug(sb), sa.text() + " vs " + sb.text());
        }
    }

    /**
     * Issue 21 item 2: two transactions UPDATE different columns of one row and both commit. DuckDB's concurrency
     * page says the second of two transactions that edit (update or delete) the same row fails with a conflict
     * error; it says nothing of columns. Both changes survive (no write is lost), but the documented rule is broken,
     * so this is a first-committer-wins bug candidate with its own cause (UPDATE), not #17223's. Control: the same
     * column, where DuckDB fails the second writer.
     */
    @Test
    void duckdbUpdatesOfDifferentColumnsOfOneRowBothCommit() throws Exception {
        TestCase c = Cases.on("duckdb").level(IsolationLevel.SNAPSHOT).table("t")
                .setup("CREATE TABLE t (id INT, a INT, b INT)", "INSERT INTO t VALUES (1, 0, 0)")
                .txn("UPDATE t SET a = 1 WHERE id = 1")
                .txn("UPDATE t SET b = 1 WHERE id = 1")
                .order(1, 2, 1, 2, 1, 2);
        try (Target duckdb = Targets.create("duckdb")) {
            Result r = BugReplay.replay(duckdb, c, "wss", "explicit");
            assertEquals(Set.of("wss/first-committer-wins/bug-candidate"), r.labels(), r.toString());
            assertEquals(List.of(List.of("1", "1", "1")), r.trace().finalState().tables().get("t"), "both writes kept: " + r.trace());
            assertEquals(List.of("UPDATE"), txfuzz.report.Signature.of(c, firstCommitterWins(r)).cause(), r.toString());
            Result clean = BugReplay.replay(duckdb, Cases.on("duckdb").level(IsolationLevel.SNAPSHOT).table("t")
                    .setup("CREATE TABLE t (id INT, a INT, b INT)", "INSERT INTO t VALUES (1, 0, 0)")
                    .txn("UPDATE t SET a = 1 WHERE id = 1")
                    .txn("UPDATE t SET a = 2 WHERE id = 1")
                    .order(1, 2, 1, 2, 1, 2), "wss", "explicit");
            assertEquals(Set.of(), clean.labels(), clean.toString());
        }
    }
}
