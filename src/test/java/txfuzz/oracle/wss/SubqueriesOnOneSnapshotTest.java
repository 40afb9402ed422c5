package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Target;
import txfuzz.dbms.TestServers;
import txfuzz.exec.Cases;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;

/**
 * Campaign seed 70 (mariadb-RC-s70-i257, i6509, i9105): the subqueries of a MariaDB write that waited for a row lock at READ
 * COMMITTED read one snapshot, taken by the first of them to run, before the wait or after it, while the key-order scan
 * reads the target's rows; an UPDATE with a subquery on its own table waits, as a DELETE does, on a row another transaction
 * inserted. On the real server such runs are not promised; the same runs with the write made to compute a value no snapshot
 * gives, or to skip a row its scan read, stay bug candidates.
 */
class SubqueriesOnOneSnapshotTest {
    private static final String RULE = "read one snapshot, taken before its wait or after it";
    private static final String COUNT_ALL = "UPDATE t1 SET c0 = (SELECT COUNT(*) FROM t1 s0)";

    /**
     * i257, reduced: T1 inserts (0, 1); T2's UPDATE waits on it; T1 inserts (0, 0), behind the scan, and commits. The UPDATE
     * changes (0, 1) alone, to the count its subquery read after the wait: (2, 1). With {@code committedAfter} the table
     * also holds (5, 5), which the scan reads after the wait.
     */
    private static TestCase countReadAfterTheWait(IsolationLevel level, boolean committedAfter) {
        Cases c = Cases.on("mariadb").level(level).table("t1");
        c = committedAfter ? c.setup("CREATE TABLE t1 (c0 INT, c3 INT, PRIMARY KEY (c0, c3))", "INSERT INTO t1 VALUES (5, 5)")
                : c.setup("CREATE TABLE t1 (c0 INT, c3 INT, PRIMARY KEY (c0, c3))");
        return c.txn("INSERT INTO t1 (c0, c3) VALUES (0, 1)", "INSERT INTO t1 (c0, c3) VALUES (0, 0)")
                .autocommit(COUNT_ALL)
                .order(1, 1, 2, 1, 1);
    }

    private static final String SET_WHERE_ANOTHER_DIFFERS = "UPDATE t1 SET c3 = (t1.c2 + 0) WHERE EXISTS (SELECT 0 FROM t1 s0 WHERE s0.c3 <> t1.c3)";

    /**
     * i6509, reduced: a table without a key (insertion order). T1 inserts B = (0, NULL, 1, 0); T2's UPDATE reads A = (0, NULL,
     * 0, 0) first, where its correlated subquery, run before the wait, sees no other row, then waits on B; after T1's commit it
     * runs the subquery for B on the same snapshot, which has A: B alone is changed.
     */
    private static TestCase correlatedSubqueryKeepsItsSnapshot() {
        return Cases.on("mariadb").level(IsolationLevel.READ_COMMITTED).table("t1")
                .setup("CREATE TABLE t1 (c0 INT, c2 INT, c3 INT, c4 INT)", "INSERT INTO t1 (c0, c2, c3, c4) VALUES (0, NULL, 0, 0)")
                .txn("INSERT INTO t1 (c0, c3, c4) VALUES (0, 1, 0)")
                .autocommit(SET_WHERE_ANOTHER_DIFFERS)
                .order(1, 1, 2, 1);
    }

    /**
     * i9105 as txfuzz reduced it: T2 deletes (1, 0) from a table without a key (and t1's row); T3's REPLACE waits on t1's
     * row; T1's UPDATE, whose uncorrelated EXISTS finds (1, 0) committed before the wait, waits on it; after T2's commit it
     * updates (0, NULL) with the EXISTS it kept, where a serial run after T2 and T3 updates nothing.
     */
    private static TestCase existsKeptFromBeforeTheWait() {
        return Cases.on("mariadb").level(IsolationLevel.READ_COMMITTED).table("t0").table("t1")
                .setup("CREATE TABLE t0 (c1 DOUBLE, c2 INT)", "CREATE TABLE t1 (c0 INT, c1 VARCHAR(10), c2 VARCHAR(10), PRIMARY KEY (c0))",
                        "INSERT INTO t0 (c1, c2) VALUES (1, 0)", "INSERT INTO t0 (c1, c2) VALUES (0, NULL)",
                        "INSERT INTO t1 (c0, c1, c2) VALUES (4, NULL, '')")
                .txn("UPDATE t0 SET c2 = 0 WHERE EXISTS (SELECT 0 FROM t0 s0 WHERE s0.c2 IN (0, 0))",
                        "INSERT INTO t1 (c0, c1, c2) SELECT (x0.c0 + 1), '', '' FROM t1 x0")
                .txn("DELETE FROM t1", "DELETE FROM t0 WHERE NOT (t0.c1 IN (0, 0))")
                .txn("REPLACE INTO t1 (c0, c1, c2) VALUES (4, '', '')")
                .order(1, 2, 2, 2, 3, 3, 1, 1, 2, 3, 1);
    }

    private static final String MATCH_DIRTY_VALUE = "UPDATE t0 SET c1 = 7 WHERE t0.c0 IN (SELECT s1.c1 FROM t0 s1)";

    /**
     * i2784 of seed 67's shape, at READ UNCOMMITTED: T1 inserts B = (0, 3) and holds it; T2's UPDATE of every row sets the
     * c1 of A = (3, NULL) and C = (15, 1) to 0 (it passes B: semi-consistent read); T3's UPDATE, whose IN subquery on its own
     * table read B uncommitted (values 0, 0, 3), matches A, passes C, waits on B (a multi-table update waits on any row) and,
     * after T1's rollback, has set A's c1 to 7: one row, where a serial run without T1 changes none.
     */
    private static TestCase dirtySubqueryBeforeTheWait() {
        return Cases.on("mariadb").level(IsolationLevel.READ_UNCOMMITTED).table("t0")
                .setup("CREATE TABLE t0 (c0 INT, c1 INT)", "INSERT INTO t0 (c0, c1) VALUES (3, NULL)", "INSERT INTO t0 (c0, c1) VALUES (15, 1)")
                .txn("INSERT INTO t0 (c0, c1) VALUES (0, 3)", "ROLLBACK")
                .autocommit("UPDATE t0 SET c1 = CASE WHEN (t0.c0 BETWEEN 0 AND 20) THEN 0 ELSE t0.c0 END")
                .autocommit(MATCH_DIRTY_VALUE)
                .order(1, 1, 2, 3, 1);
    }

    private static final String MAX_OF_THE_OTHERS = "UPDATE t1 SET c1 = (SELECT MAX(s0.c0) FROM t1 s0 WHERE s0.c0 <> t1.c0)";

    /**
     * Campaign mariadb-RU-s78-i9020, reduced: a table without a key holds A = (0, 0); T1 inserts B = (0, 0) (a REPLACE
     * without a key to collide on) and holds it; T2's UPDATE sets each row's c1 to the largest other c0: it reads A, whose
     * subquery sees A and B, both c0 = 0 (NULL), then waits on B; T3 inserts C = (1, 0) and commits, T1 commits; after the
     * wait B's subquery sees C (1), and C's sees A and B (0). A run after T1 and T3 gives A 1 too.
     */
    private static TestCase subqueriesOfEachRowAsTheScanReadIt() {
        return Cases.on("mariadb").level(IsolationLevel.READ_UNCOMMITTED).table("t1")
                .setup("CREATE TABLE t1 (c0 INT, c1 INT)", "INSERT INTO t1 (c0, c1) VALUES (0, 0)")
                .txn("REPLACE INTO t1 (c0, c1) VALUES (0, 0)")
                .autocommit(MAX_OF_THE_OTHERS)
                .autocommit("INSERT INTO t1 (c0, c1) VALUES (1, 0)")
                .order(1, 1, 2, 3, 1);
    }

    private static final StmtRef WAITING = new StmtRef(2, 0);

    private static List<Violation> wssViolations(Target target, TestCase c) throws Exception {
        return wssViolations(target, c, WAITING);
    }

    private static List<Violation> wssViolations(Target target, TestCase c, StmtRef waiting) throws Exception {
        WssRun r = WssRun.of(target, c);
        assertTrue(r.trace().executed(waiting).orElseThrow().blocked(), waiting + " waits for a row lock: " + r.trace());
        List<Violation> found = r.verdict().violations().stream().filter(x -> x.kind() instanceof WssKind).toList();
        assertFalse(found.isEmpty(), "the final state differs from the serial replay: " + r.verdict() + "\n" + r.trace());
        return found;
    }

    private static boolean notPromisedByTheRule(Violation v) {
        return v.classification() == Classification.NOT_PROMISED && v.reference() != null && v.reference().contains(RULE);
    }

    private static void assertNotPromisedByTheRule(List<Violation> found) {
        assertTrue(found.stream().allMatch(SubqueriesOnOneSnapshotTest::notPromisedByTheRule), found.toString());
    }

    private static void assertBugCandidateTheRuleDoesNotExplain(List<Violation> found) {
        assertTrue(found.stream().anyMatch(v -> v.classification() == Classification.BUG_CANDIDATE), found.toString());
        assertTrue(found.stream().noneMatch(v -> v.reference() != null && v.reference().contains(RULE)), found.toString());
    }

    @Test
    void aSubqueryFirstRunAfterTheWaitReadsTheDataAsResumed() throws Exception {
        try (Target mariadb = TestServers.open("mariadb")) {
            assertNotPromisedByTheRule(wssViolations(mariadb, countReadAfterTheWait(IsolationLevel.READ_COMMITTED, false)));
        }
    }

    @Test
    void aCorrelatedSubqueryRunAgainAfterTheWaitKeepsTheSnapshotOfBefore() throws Exception {
        try (Target mariadb = TestServers.open("mariadb")) {
            assertNotPromisedByTheRule(wssViolations(mariadb, correlatedSubqueryKeepsItsSnapshot()));
        }
    }

    @Test
    void anUncorrelatedExistsKeepsWhatItFoundBeforeTheWait() throws Exception {
        try (Target mariadb = TestServers.open("mariadb")) {
            assertNotPromisedByTheRule(wssViolations(mariadb, existsKeptFromBeforeTheWait(), new StmtRef(1, 1)));
        }
    }

    @Test
    void atReadUncommittedTheSubqueriesMayHaveReadAnUncommittedRow() throws Exception {
        try (Target mariadb = TestServers.open("mariadb")) {
            assertNotPromisedByTheRule(wssViolations(mariadb, dirtySubqueryBeforeTheWait(), new StmtRef(3, 0)));
        }
    }

    /** The control of the dirty read: the run's UPDATE also matches C, whose key no snapshot's subquery gives. */
    @Test
    void aMatchNoSnapshotGivesStaysABugCandidateAtReadUncommitted() throws Exception {
        try (Target mariadb = TestServers.open("mariadb")) {
            Target faulty = RewritingTarget.once(mariadb, MATCH_DIRTY_VALUE, MATCH_DIRTY_VALUE + " OR t0.c0 = 15");
            assertBugCandidateTheRuleDoesNotExplain(wssViolations(faulty, dirtySubqueryBeforeTheWait(), new StmtRef(3, 0)));
        }
    }

    /** The control of the count read after the wait: the run's UPDATE writes a count no snapshot gives (one more). */
    @Test
    void aCountNoSnapshotGivesStaysABugCandidate() throws Exception {
        try (Target mariadb = TestServers.open("mariadb")) {
            Target faulty = RewritingTarget.once(mariadb, COUNT_ALL, "UPDATE t1 SET c0 = (SELECT COUNT(*) + 1 FROM t1 s0)");
            assertBugCandidateTheRuleDoesNotExplain(wssViolations(faulty, countReadAfterTheWait(IsolationLevel.READ_COMMITTED, false)));
        }
    }

    /** The control of the scan: after the wait the run's UPDATE also skips (5, 5), a row its scan read whatever the snapshot. */
    @Test
    void anUpdateThatAlsoSkipsARowItsScanReadStaysABugCandidate() throws Exception {
        try (Target mariadb = TestServers.open("mariadb")) {
            Target faulty = RewritingTarget.once(mariadb, COUNT_ALL, COUNT_ALL + " WHERE c3 <> 5");
            assertBugCandidateTheRuleDoesNotExplain(wssViolations(faulty, countReadAfterTheWait(IsolationLevel.READ_COMMITTED, true)));
        }
    }

    /**
     * The control of the correlated subquery: the run's UPDATE changes A and not B, which no snapshot gives (as submitted B
     * alone matches, as resumed both do, and as the statement's own snapshot neither).
     */
    @Test
    void anUpdateOfTheRowNoSnapshotMatchesStaysABugCandidate() throws Exception {
        try (Target mariadb = TestServers.open("mariadb")) {
            Target faulty = RewritingTarget.once(mariadb, SET_WHERE_ANOTHER_DIFFERS, "UPDATE t1 SET c3 = (t1.c2 + 0) WHERE c3 = 0 AND EXISTS (SELECT 0 FROM t1 s0)");
            assertBugCandidateTheRuleDoesNotExplain(wssViolations(faulty, correlatedSubqueryKeepsItsSnapshot()));
        }
    }

    @Test
    void atReadUncommittedEachRowsSubqueryReadsTheDataAsTheScanReadThatRow() throws Exception {
        try (Target mariadb = TestServers.open("mariadb")) {
            List<Violation> found = wssViolations(mariadb, subqueriesOfEachRowAsTheScanReadIt());
            assertNotPromisedByTheRule(found);
            assertTrue(found.stream().allMatch(v -> v.reference().contains("as when the scan read each row")), found.toString());
        }
    }

    /** The control of each row's read: the run's UPDATE gives A 7, which no data it could read gives (NULL or 1). */
    @Test
    void aValueNoRowsDataGivesStaysABugCandidateAtReadUncommitted() throws Exception {
        try (Target mariadb = TestServers.open("mariadb")) {
            Target faulty = RewritingTarget.once(mariadb, MAX_OF_THE_OTHERS,
                    "UPDATE t1 SET c1 = COALESCE((SELECT MAX(s0.c0) FROM t1 s0 WHERE s0.c0 <> t1.c0), 7)");
            assertBugCandidateTheRuleDoesNotExplain(wssViolations(faulty, subqueriesOfEachRowAsTheScanReadIt()));
        }
    }
}
