package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;

/**
 * duckdb-SI-s31-i244, reduced: T1's {@code INSERT … SELECT} copies the rows of its snapshot, one of which a concurrent
 * upsert (T2) changed and committed meanwhile, and T1 commits. DuckDB checks its unique index against the newest data,
 * where the copied value is free again, as snapshot isolation allows. The snapshot simulation kept the keys for every
 * statement of a case with an upsert, so it checked the index against the snapshot, failed, and the run was a bug
 * candidate. A simulation now keeps the keys only for a statement whose effect depends on them (in a case without a foreign
 * key: {@code H2BugsTest.h2FkCheckDoesNotLockParentStillShowsOnTheBundledH2} holds that side), and DuckDB's simulations
 * drop its unique indexes. Real DuckDB, in process.
 */
class KeysPerStatementTest {
    private static final String COPY = "INSERT INTO t0 (c0, c1) SELECT c1 + 1, c1 + 3 FROM t0";

    /** t0 holds (11, 4) and (0, 7), c1 unique; T1 reads (its snapshot), T2 sets row 0's c1 to 0, T1 copies every row. */
    private static TestCase copyBesideAnUpsert() {
        return Cases.on("duckdb").level(IsolationLevel.SNAPSHOT).table("t0")
                .setup("CREATE TABLE t0 (c0 INT, c1 INT DEFAULT 4, PRIMARY KEY (c0))", "CREATE UNIQUE INDEX i0 ON t0 (c1)",
                        "INSERT INTO t0 (c0) VALUES (11)", "INSERT INTO t0 (c0, c1) VALUES (0, 7)")
                .txn("SELECT COUNT(*) FROM t0", COPY)
                .autocommit("INSERT INTO t0 (c0) VALUES (0) ON CONFLICT (c0) DO UPDATE SET c1 = 0")
                .order(1, 1, 2, 1, 1);
    }

    private static Set<List<String>> rows(WssRun run) {
        return new HashSet<>(run.trace().finalState().tables().get("t0"));
    }

    @Test
    void aCopyOfItsSnapshotCheckedAgainstTheNewestKeysIsNoBugCandidate() throws Exception {
        try (Target duckdb = Targets.create("duckdb")) {
            WssRun run = WssRun.of(duckdb, copyBesideAnUpsert());
            assertEquals(Set.of(List.of("0", "0"), List.of("11", "4"), List.of("5", "7"), List.of("8", "10")), rows(run), run.trace().toString());
            assertFalse(run.verdict().violations().isEmpty(), "no serial order gives the run: " + run.verdict());
            assertTrue(run.verdict().violations().stream().anyMatch(v -> v.classification() == Classification.NOT_PROMISED), run.verdict().toString());
            WssRun.assertNoBugCandidate(run.verdict());
        }
    }

    /**
     * The negative control: the same schedule where T1's copy, in the run only, leaves out the row T2 changed. Dropping the
     * index in the simulation explains the copy of both rows, not of one, so the run stays a bug candidate.
     */
    @Test
    void aCopyThatLeavesARowOutStaysABugCandidate() throws Exception {
        try (Target duckdb = Targets.create("duckdb")) {
            WssRun run = WssRun.of(RewritingTarget.once(duckdb, COPY, COPY + " WHERE c0 <> 0"), copyBesideAnUpsert());
            assertEquals(Set.of(List.of("0", "0"), List.of("11", "4"), List.of("5", "7")), rows(run), run.trace().toString());
            assertTrue(run.verdict().violations().stream().anyMatch(v -> v.classification() == Classification.BUG_CANDIDATE), run.verdict().toString());
        }
    }

    private static final String COPY_T1 = "INSERT INTO t0 (c1, c2) SELECT x0.c1, 0 FROM t1 x0";

    /**
     * duckdb-SI-s56-i161, reduced: T2 copies t1's row 0 (its snapshot), a concurrent DELETE of that row commits, and T2
     * inserts key 0 into t1 again. DuckDB checks t1's PRIMARY KEY against the newest data, where 0 is free; the snapshot
     * simulation could not drop a DuckDB PRIMARY KEY, failed the insert on its snapshot's row 0, and the run was a bug
     * candidate. DuckDB's simulations now make the keyed tables again without their keys.
     */
    private static TestCase reinsertBesideADelete() {
        return Cases.on("duckdb").level(IsolationLevel.SNAPSHOT).table("t0").table("t1")
                .setup("CREATE TABLE t0 (c1 INT, c2 INT)", "CREATE TABLE t1 (c0 INT, c1 INT, PRIMARY KEY (c0))", "INSERT INTO t1 VALUES (0, 0)")
                .txn(COPY_T1, "INSERT INTO t1 (c0) VALUES (0)")
                .autocommit("DELETE FROM t1")
                .order(1, 1, 2, 1, 1);
    }

    @Test
    void anInsertOfAKeyItsSnapshotHoldsButANewerDeleteFreedIsNoBugCandidate() throws Exception {
        try (Target duckdb = Targets.create("duckdb")) {
            WssRun run = WssRun.of(duckdb, reinsertBesideADelete());
            assertTrue(run.committed(1) && run.committed(2), run.trace().toString());
            assertFalse(run.verdict().violations().isEmpty(), "after the DELETE, T2 copies nothing: " + run.verdict());
            WssRun.assertNoBugCandidate(run.verdict());
        }
    }

    /** The negative control: the same run with T2's copy, in the run only, writing another value stays a bug candidate. */
    @Test
    void aCopyThatWritesAnotherValueBesideTheDeleteStaysABugCandidate() throws Exception {
        try (Target duckdb = Targets.create("duckdb")) {
            WssRun run = WssRun.of(RewritingTarget.once(duckdb, COPY_T1, COPY_T1.replace("x0.c1, 0", "x0.c1 + 1, 0")), reinsertBesideADelete());
            assertTrue(run.verdict().violations().stream().anyMatch(v -> v.classification() == Classification.BUG_CANDIDATE), run.verdict().toString());
        }
    }

    /** Which statements' simulations keep the keys: those whose effect depends on them, whatever else the case holds. */
    @Test
    void onlyAStatementWhoseEffectDependsOnTheKeysKeepsThem() {
        for (String keyed : List.of("INSERT INTO t0 (c0) VALUES (0) ON CONFLICT (c0) DO UPDATE SET c1 = 0", "INSERT INTO t0 VALUES (1, 2) ON CONFLICT DO NOTHING",
                "INSERT INTO t0 VALUES (1, 2) ON DUPLICATE KEY UPDATE c1 = 3", "REPLACE INTO t0 VALUES (1, 2)", "INSERT IGNORE INTO t0 VALUES (1, 2)",
                "insert or ignore into t0 values (1, 2)", "INSERT OR REPLACE INTO t0 VALUES (1, 2)", "MERGE INTO t0 USING t1 ON t0.c0 = t1.c0 WHEN MATCHED THEN DELETE")) {
            assertTrue(DeviationExplainer.dependsOnKeys(txfuzz.model.Stmt.of(Cases.kindOf(keyed), keyed)), keyed);
        }
        for (String plain : List.of(COPY, "INSERT INTO t0 VALUES (1, 2)", "UPDATE t0 SET c1 = 2", "DELETE FROM t0 WHERE c0 = 1", "SELECT * FROM t0")) {
            assertFalse(DeviationExplainer.dependsOnKeys(txfuzz.model.Stmt.of(Cases.kindOf(plain), plain)), plain);
        }
    }
}
