package txfuzz.bugs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import txfuzz.bugs.BugReplay.Result;
import txfuzz.bugs.PrintedSql.Run;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;

/**
 * The DuckDB entry of docs/bugs.md (one defect, two symptoms): the printed SQL on 1.4.4 and 2.0.0, and
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
}
