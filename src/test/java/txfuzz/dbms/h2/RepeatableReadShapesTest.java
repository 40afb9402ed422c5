package txfuzz.dbms.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.TrackedCases;
import txfuzz.exec.Trace;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Oracle;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.isolation.IsolationOracle;
import txfuzz.oracle.wss.WssOracle;

/**
 * Issue 33 rules 1 and 3 on real H2 with a fault injected ({@link StatementSnapshotTarget}: REPEATABLE READ sessions read
 * as READ COMMITTED). H2's REPEATABLE READ keeps each table's snapshot from its first read, so a statement reading a table
 * again from its newest rows, and read skew within one table, are bugs of that engine: both oracles file them as bug
 * candidates, while the same cases on plain H2 pass and read skew across tables (the per-table snapshots) stays documented.
 */
class RepeatableReadShapesTest {
    private static Verdict judge(Oracle oracle, Target target, TestCase c) throws Exception {
        try (Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            return oracle.judge(c, trace, ex);
        }
    }

    private static List<String> kinds(Verdict v) {
        return v.violations().stream().map(x -> x.kind().label() + "/" + x.classification().label()).toList();
    }

    /** T1 copies row 1 of a, T2 adds 1 to both rows and commits, T1 copies row 2: (0, 0) in one snapshot, (0, 1) without one. */
    static TestCase copiesBeforeAndAfterAnUpdate() {
        return Cases.on("h2").table("a").table("l").level(IsolationLevel.REPEATABLE_READ)
                .setup("CREATE TABLE a (k INT PRIMARY KEY, v INT)", "CREATE TABLE l (k INT PRIMARY KEY, v INT)",
                        "INSERT INTO a VALUES (1, 0)", "INSERT INTO a VALUES (2, 0)")
                .txn("INSERT INTO l SELECT k, v FROM a WHERE k = 1", "INSERT INTO l SELECT k, v FROM a WHERE k = 2")
                .autocommit("UPDATE a SET v = v + 1")
                .order(1, 1, 2, 1, 1);
    }

    /** T1 reads row 1 of {@code first} and row 2 of {@code second}; between the two T2 updates both tables' rows and commits. */
    static TestCase readSkew(String first, String second) {
        TrackedCases b = TrackedCases.on("h2").level(IsolationLevel.REPEATABLE_READ).table("a").table("b")
                .setup("CREATE TABLE a (k INT PRIMARY KEY, v INT, rid VARCHAR(100), wl VARCHAR(100))",
                        "CREATE TABLE b (k INT PRIMARY KEY, v INT, rid VARCHAR(100), wl VARCHAR(100))",
                        "INSERT INTO a (k, v, rid, wl) VALUES (1, 0, '1', ',0')", "INSERT INTO a (k, v, rid, wl) VALUES (2, 0, '2', ',0')",
                        "INSERT INTO b (k, v, rid, wl) VALUES (1, 0, '3', ',0')", "INSERT INTO b (k, v, rid, wl) VALUES (2, 0, '4', ',0')");
        b.begin().read("SELECT x.rid, x.wl, x.v FROM " + first + " x WHERE x.k = 1", "k = 1", false, first)
                .read("SELECT x.rid, x.wl, x.v FROM " + second + " x WHERE x.k = 2", "k = 2", false, second).commit();
        b.begin().write("UPDATE a SET v = 1, wl = wl || ',2.1'", "a", "2.1", List.of(), false).postRead("a", "2.1")
                .write("UPDATE b SET v = 1, wl = wl || ',2.3'", "b", "2.3", List.of(), false).postRead("b", "2.3").commit();
        return b.order(1, 1, 2, 2, 2, 2, 2, 2, 1, 1);
    }

    /** Rule 1: statement visibility is READ COMMITTED's; at REPEATABLE READ a write computed from it is a bug candidate. */
    @Test
    void aWriteComputedFromANonRepeatableReadIsABugCandidate() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            Verdict plain = judge(new WssOracle(), h2, copiesBeforeAndAfterAnUpdate());
            assertTrue(plain.violations().stream().noneMatch(v -> v.classification() == Classification.BUG_CANDIDATE), plain.toString());
            Verdict faulty = judge(new WssOracle(), new StatementSnapshotTarget(h2), copiesBeforeAndAfterAnUpdate());
            assertTrue(faulty.violations().stream().anyMatch(v -> v.classification() == Classification.BUG_CANDIDATE), faulty.toString());
            assertTrue(faulty.violations().stream().noneMatch(v -> v.classification() == Classification.DOCUMENTED), faulty.toString());
        }
    }

    /** Rule 3: read skew within one table is a bug candidate; across tables it is not promised (per-table snapshots, measured). */
    @Test
    void readSkewWithinOneTableIsABugCandidateAndAcrossTablesNotPromised() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            assertEquals(List.of(), kinds(judge(new IsolationOracle(), h2, readSkew("a", "a"))), "one snapshot of a serves both reads");
            assertEquals(List.of("read-skew/bug-candidate"), kinds(judge(new IsolationOracle(), new StatementSnapshotTarget(h2), readSkew("a", "a"))));
            assertEquals(List.of("read-skew/not-promised"), kinds(judge(new IsolationOracle(), h2, readSkew("a", "b"))));
            assertEquals(List.of("read-skew/not-promised"), kinds(judge(new IsolationOracle(), new StatementSnapshotTarget(h2), readSkew("a", "b"))));
        }
    }

    /**
     * Campaign h2-RR-s59-i1542 as reduced: T2's uncommitted MERGE inserts rows into t0; T1 deletes through {@code where},
     * inserts a row, and after T2's commit deletes again with a subquery over t0. H2 takes t0's snapshot at the first
     * statement that uses a column of t0, so with an uncorrelated EXISTS the second DELETE sees T2's rows.
     */
    static TestCase deleteThenDeleteAfterTheMergesCommit(String where) {
        return Cases.on("h2").table("t0").table("t1").level(IsolationLevel.REPEATABLE_READ)
                .setup("CREATE TABLE t0 (c0 INT, c1 INT)", "CREATE TABLE t1 (c0 INT, c1 INT, c2 INT)",
                        "INSERT INTO t1 (c0, c1, c2) VALUES (0, 0, 1)", "INSERT INTO t1 (c0, c1, c2) VALUES (0, 0, 3)")
                .txn("DELETE FROM t0 WHERE " + where, "INSERT INTO t0 (c1) VALUES (1)",
                        "DELETE FROM t0 WHERE NOT ((t0.c0 IN (SELECT s0.c1 FROM t0 s0)))")
                .txn("MERGE INTO t0 USING t1 x0 ON (t0.c0 = x0.c2) WHEN MATCHED THEN UPDATE SET c1 = (x0.c1 + 0) "
                        + "WHEN NOT MATCHED AND x0.c2 <> 0 THEN INSERT (c0, c1) VALUES (x0.c2, 0)")
                .order(2, 2, 1, 1, 1, 2, 1, 1);
    }

    /**
     * An UPDATE's or DELETE's WHERE whose only columns are an uncorrelated subquery's takes no snapshot of the target
     * (measured, SnapshotReadsTest): the reduced campaign case is not a bug candidate. Negative control: the same
     * schedule whose first DELETE is correlated with t0 takes t0's snapshot there, and a session that reads t0 from its
     * newest rows afterwards ({@link StatementSnapshotTarget}) is caught.
     */
    @Test
    void aSubqueryOfItsOwnTakesNoSnapshotOfTheTargetAndACorrelatedOneDoes() throws Exception {
        String uncorrelated = "EXISTS (SELECT 0 FROM t1 s0)";
        String correlated = "EXISTS (SELECT 0 FROM t1 s0 WHERE s0.c2 <> t0.c1)";
        try (Target h2 = Targets.create("h2")) {
            Verdict plain = judge(new WssOracle(), h2, deleteThenDeleteAfterTheMergesCommit(uncorrelated));
            assertTrue(plain.violations().stream().noneMatch(v -> v.classification() == Classification.BUG_CANDIDATE), plain.toString());
            assertTrue(plain.violations().stream().anyMatch(v -> v.classification() == Classification.NOT_PROMISED), plain.toString());
            Verdict correlatedPlain = judge(new WssOracle(), h2, deleteThenDeleteAfterTheMergesCommit(correlated));
            assertTrue(correlatedPlain.violations().stream().noneMatch(v -> v.classification() == Classification.BUG_CANDIDATE),
                    correlatedPlain.toString());
            Verdict faulty = judge(new WssOracle(), new StatementSnapshotTarget(h2), deleteThenDeleteAfterTheMergesCommit(correlated));
            assertTrue(faulty.violations().stream().anyMatch(v -> v.classification() == Classification.BUG_CANDIDATE), faulty.toString());
        }
    }
}
