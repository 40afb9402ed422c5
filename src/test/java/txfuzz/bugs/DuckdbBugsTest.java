package txfuzz.bugs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import txfuzz.bugs.BugReplay.Result;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;

/**
 * The DuckDB entries of docs/bugs.md, on the bundled DuckDB: the tests fail the day an upgrade of
 * the bundled jar fixes a bug. The oracle's clean verdict on the same schedules with the writes
 * ordered one after the other is pinned in FirstCommitterWinsTest.
 */
class DuckdbBugsTest {

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
        }
    }

    /** duckdb-key-change-lost-update: T1 changes the key, T2 the value of the same row; both commit, T2's write is gone. */
    @Test
    void duckdbKeyChangeLostUpdateStillShowsOnTheBundledDuckdb() throws Exception {
        TestCase c = BugReplay.corpusCase("duckdb-key-change-lost-update");
        try (Target duckdb = Targets.create("duckdb")) {
            Result r = BugReplay.replay(duckdb, c, "wss", "explicit");
            assertEquals(Set.of("wss/stmt-wss/bug-candidate", "wss/tx-wss/bug-candidate"), r.labels(), r.toString());
            assertEquals(List.of(List.of("a", "1")), r.trace().finalState().tables().get("t"), "the increment is lost: " + r.trace());
        }
    }
}
