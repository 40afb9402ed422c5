package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.Target;
import txfuzz.dbms.TestServers;
import txfuzz.exec.Cases;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;

/**
 * Issue 21 (MariaDB seed 22 i453, seed 11 i14, seed 22 i633): InnoDB's locking scans at READ COMMITTED
 * walk the clustered index in key order (the PRIMARY KEY, else the UNIQUE NOT NULL key InnoDB clusters by)
 * with no gap locks; a DELETE that waited on a row goes on
 * from it with the newest committed versions and misses a row another transaction inserted or moved
 * before that row meanwhile. {@link Deviation#LOCKING_SCAN_IN_KEY_ORDER} documents it — and only it:
 * the same schedule with the DELETE skipping one more row (an injected fault) stays a bug candidate,
 * and REPEATABLE READ does not get the rule. Runs on the real MariaDB server.
 */
class LockingScanInKeyOrderTest {
    private static final WssOracle WSS = new WssOracle();
    private static final String RULE = "locking scan in key order";

    /**
     * T1 holds row (0, 1); T2's DELETE of every v = 1 waits on it; T3 inserts (0, 0) with v = 1 and commits;
     * T1 sets v = 1 and commits; the DELETE resumes at (0, 1): (0, 0), behind it, survives. i453's shape.
     */
    private static TestCase insertedBehind(IsolationLevel level) {
        return Cases.on("mariadb").table("t").level(level)
                .setup("CREATE TABLE t (c1 INT NOT NULL, c2 INT NOT NULL, v INT, PRIMARY KEY (c1, c2))",
                        "INSERT INTO t VALUES (0, 1, 0), (0, 5, 1)")
                .txn("UPDATE t SET v = 1 WHERE c1 = 0 AND c2 = 1")
                .txn(DELETE_INSERTED_BEHIND)
                .autocommit("INSERT INTO t VALUES (0, 0, 1)")
                .order(1, 1, 2, 2, 3, 1, 2);
    }

    private static final String DELETE_INSERTED_BEHIND = "DELETE FROM t WHERE v = 1";

    /** T1 holds key 1; T2's DELETE of every row waits on it; T3 moves the row at key 2 to key 0 and commits: it survives. i14's shape. */
    private static TestCase movedBehind(IsolationLevel level) {
        return Cases.on("mariadb").table("t").level(level)
                .setup("CREATE TABLE t (k INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0), (5, 0)")
                .txn("UPDATE t SET v = 1 WHERE k = 1")
                .txn(DELETE_ALL)
                .autocommit("UPDATE t SET k = 0 WHERE k = 2")
                .order(1, 1, 2, 2, 3, 1, 2);
    }

    private static final String DELETE_ALL = "DELETE FROM t";

    /**
     * Seed 11 i14 as txfuzz reduced it: T2 inserts key 1; T1 moves it to key 0 and holds both records; T3's
     * UPDATE of every row passes key 0 (its semi-consistent read skips a row with no committed version),
     * waits on key 1, and after T1's commit finds it deleted: it updates nothing.
     */
    private static TestCase updateMissesMovedRow(IsolationLevel level) {
        return Cases.on("mariadb").table("t0").level(level)
                .setup("CREATE TABLE t0 (c0 INT, c1 DOUBLE, c2 DOUBLE, PRIMARY KEY (c0))")
                .txn("UPDATE t0 SET c0 = 0")
                .autocommit("INSERT INTO t0 (c0, c1, c2) VALUES (1, 1, 0) ON DUPLICATE KEY UPDATE c1 = (t0.c2 + 0)")
                .autocommit("UPDATE t0 SET c1 = 0")
                .order(1, 2, 1, 3, 1);
    }

    /**
     * Seed 22 i633's shape: t has no PRIMARY KEY, a nullable {@code UNIQUE (c2)} and {@code UNIQUE (c3)} on a NOT
     * NULL column, so InnoDB clusters its rows by c3. T1 moves the row at c3 = 9 to c3 = 0 and holds it; T2's
     * UPDATE of every row with c0 <= c1 waits on it (the plan: {@code type=index key=c3}, a full scan of that
     * index), and after T1's commit goes on from c3 = 9: it updates the row at 17 and never meets the one at 0.
     * With {@code c3NotNull} false nothing is clustered by a key (a hidden row id: insertion order).
     */
    private static TestCase movedBehindUniqueKey(IsolationLevel level, boolean c3NotNull) {
        return Cases.on("mariadb").table("t").level(level)
                .setup("CREATE TABLE t (c0 INT, c1 INT, c2 INT, c3 INT" + (c3NotNull ? " NOT NULL" : "") + ", UNIQUE (c2), UNIQUE (c3))",
                        "INSERT INTO t VALUES (1, 8, 2, 9), (3, 8, NULL, 17)")
                .txn("UPDATE t SET c3 = 0 WHERE c3 = 9")
                .txn(UPDATE_WHERE_C0_LE_C1)
                .order(1, 1, 2, 2, 1, 2);
    }

    private static final String UPDATE_WHERE_C0_LE_C1 = "UPDATE t SET c1 = NULL WHERE c0 <= c1";

    /**
     * The injected fault: inside a transaction (auto-commit off), {@code from} runs as {@code to} — a write
     * that also skips a row (after the waited-for key, or where a key-order scan would have missed it). The simulations run their statements in autocommit,
     * as the engine would, so only the run (and the serial replays) carry the fault.
     */
    private static Verdict judge(Target target, TestCase c) throws Exception {
        return judge(target, c, new txfuzz.model.StmtRef(2, 1));
    }

    private static Verdict judge(Target target, TestCase c, txfuzz.model.StmtRef waiting) throws Exception {
        try (Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            assertTrue(trace.executed(waiting).orElseThrow().blocked(), waiting + " waits for T1's row lock: " + trace);
            return WSS.judge(c, trace, ex);
        }
    }

    private static List<Violation> wssViolations(Verdict v) {
        List<Violation> found = v.violations().stream().filter(x -> x.kind() instanceof WssKind).toList();
        assertFalse(found.isEmpty(), "the final state differs from the serial replay: " + v);
        return found;
    }

    /** At READ COMMITTED and READ UNCOMMITTED, every wss violation of {@code shape}'s run is documented by the rule. */
    private static void assertDocumentedAtBothLevels(Target maria,
            java.util.function.Function<IsolationLevel, TestCase> shape, txfuzz.model.StmtRef waiting) throws Exception {
        for (IsolationLevel level : List.of(IsolationLevel.READ_COMMITTED, IsolationLevel.READ_UNCOMMITTED)) {
            List<Violation> found = wssViolations(judge(maria, shape.apply(level), waiting));
            assertTrue(found.stream().allMatch(LockingScanInKeyOrderTest::documentedByTheRule), level + ": " + found);
        }
    }

    /** A negative control's run: some violation is a bug candidate, and the rule documents none. */
    private static void assertBugCandidateTheRuleDoesNotDocument(String context, List<Violation> found) {
        assertTrue(found.stream().anyMatch(v -> v.classification() == Classification.BUG_CANDIDATE), context + found);
        assertTrue(found.stream().noneMatch(LockingScanInKeyOrderTest::documentedByTheRule), context + found);
    }

    /**
     * A negative control: {@code statement} run as {@code skipping}, which also skips a row, in the run only ({@link
     * RewritingTarget#once}): {@code c}'s run, where {@code waiting} waits, is a bug candidate the rule does not document.
     */
    private static void assertSkippingStaysABugCandidate(Target maria, String statement, String skipping, TestCase c,
                                                         txfuzz.model.StmtRef waiting, String context) throws Exception {
        Target faulty = RewritingTarget.once(maria, statement, skipping);
        assertBugCandidateTheRuleDoesNotDocument(context, wssViolations(judge(faulty, c, waiting)));
    }

    private static boolean documentedByTheRule(Violation v) {
        return v.classification() == Classification.DOCUMENTED && v.reference() != null && v.reference().contains(RULE);
    }

    @Test
    void aRowInsertedBehindTheWaitingScanIsDocumented() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            List<Violation> found = wssViolations(judge(maria, insertedBehind(IsolationLevel.READ_COMMITTED)));
            assertTrue(found.stream().allMatch(LockingScanInKeyOrderTest::documentedByTheRule), found.toString());
        }
    }

    @Test
    void anUpdateThatMissesARowMovedBehindItsWaitIsDocumented() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            List<Violation> found = wssViolations(judge(maria, updateMissesMovedRow(IsolationLevel.READ_COMMITTED), new txfuzz.model.StmtRef(3, 0)));
            assertTrue(found.stream().allMatch(LockingScanInKeyOrderTest::documentedByTheRule), found.toString());
        }
    }

    /** At READ UNCOMMITTED the inserted row's case is already explained by dirty reads; the moved row's is not. */
    @Test
    void aRowMovedBehindTheWaitingScanIsDocumentedAtReadCommittedAndReadUncommitted() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            for (IsolationLevel level : List.of(IsolationLevel.READ_COMMITTED, IsolationLevel.READ_UNCOMMITTED)) {
                List<Violation> found = wssViolations(judge(maria, movedBehind(level)));
                assertTrue(found.stream().allMatch(LockingScanInKeyOrderTest::documentedByTheRule), level + ": " + found);
            }
        }
    }

    @Test
    void aDeleteThatAlsoSkipsARowAfterTheWaitedKeyStaysABugCandidate() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            Target inserted = RewritingTarget.inTransactions(maria, DELETE_INSERTED_BEHIND, DELETE_INSERTED_BEHIND + " AND c2 <> 5");
            List<Violation> found = wssViolations(judge(inserted, insertedBehind(IsolationLevel.READ_COMMITTED)));
            assertBugCandidateTheRuleDoesNotDocument("", found);

            Target moved = RewritingTarget.inTransactions(maria, DELETE_ALL, DELETE_ALL + " WHERE k <> 5");
            found = wssViolations(judge(moved, movedBehind(IsolationLevel.READ_COMMITTED)));
            assertBugCandidateTheRuleDoesNotDocument("", found);
        }
    }

    /**
     * REPEATABLE READ has no such rule: the READ COMMITTED run of the moved row, judged as REPEATABLE READ
     * (the same statements, the same trace), stays a bug candidate; and run at REPEATABLE READ, nothing in
     * either schedule is documented by the rule (on 11.4.5 both runs match the serial order there).
     */
    @Test
    void repeatableReadDoesNotHaveTheRule() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            assertFalse(maria.profile().at(IsolationLevel.REPEATABLE_READ).deviations().contains(Deviation.LOCKING_SCAN_IN_KEY_ORDER));
            try (Executor ex = new Executor(maria, ExecutorConfig.defaults())) {
                Trace readCommitted = ex.run(movedBehind(IsolationLevel.READ_COMMITTED));
                List<Violation> found = wssViolations(WSS.judge(movedBehind(IsolationLevel.REPEATABLE_READ), readCommitted, ex));
                assertTrue(found.stream().allMatch(v -> v.classification() == Classification.BUG_CANDIDATE), found.toString());
            }
            for (TestCase c : List.of(insertedBehind(IsolationLevel.REPEATABLE_READ), movedBehind(IsolationLevel.REPEATABLE_READ))) {
                try (Executor ex = new Executor(maria, ExecutorConfig.defaults())) {
                    Verdict v = WSS.judge(c, ex.run(c), ex);
                    assertTrue(v.violations().stream().noneMatch(LockingScanInKeyOrderTest::documentedByTheRule), v.toString());
                }
            }
        }
    }

    @Test
    void aRowMovedBehindTheScanOfAUniqueNotNullClusteredKeyIsDocumented() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            List<Violation> found = wssViolations(judge(maria, movedBehindUniqueKey(IsolationLevel.READ_COMMITTED, true)));
            assertTrue(found.stream().allMatch(LockingScanInKeyOrderTest::documentedByTheRule), found.toString());
        }
    }

    @Test
    void anUpdateThatAlsoSkipsARowAfterTheWaitedUniqueKeyStaysABugCandidate() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            Target faulty = RewritingTarget.inTransactions(maria, UPDATE_WHERE_C0_LE_C1, UPDATE_WHERE_C0_LE_C1 + " AND c3 <> 17");
            List<Violation> found = wssViolations(judge(faulty, movedBehindUniqueKey(IsolationLevel.READ_COMMITTED, true)));
            assertBugCandidateTheRuleDoesNotDocument("", found);
        }
    }

    /**
     * Without a PRIMARY KEY or a UNIQUE NOT NULL key InnoDB orders rows by a hidden row id, in insertion order: the
     * same schedule with c3 nullable, whose UPDATE misses the moved row as a c3-order scan would (an injected
     * fault), stays a bug candidate (in insertion order the moved row is the one it waited on, read after the wait);
     * run as it is, nothing is documented by the rule.
     */
    @Test
    void aTableWithoutAClusteredKeyDoesNotGetTheRule() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            Target faulty = RewritingTarget.inTransactions(maria, UPDATE_WHERE_C0_LE_C1, UPDATE_WHERE_C0_LE_C1 + " AND c3 <> 0");
            List<Violation> found = wssViolations(judge(faulty, movedBehindUniqueKey(IsolationLevel.READ_COMMITTED, false)));
            assertBugCandidateTheRuleDoesNotDocument("", found);

            Verdict v = judge(maria, movedBehindUniqueKey(IsolationLevel.READ_COMMITTED, false));
            assertTrue(v.violations().stream().noneMatch(LockingScanInKeyOrderTest::documentedByTheRule), v.toString());
        }
    }

    /**
     * MDEV-26643's schedule as its report gives it: t has no key, so InnoDB scans it in insertion order. T2's UPDATE
     * passes (NULL, 1), locked by T1, on its last committed version (a semi-consistent read: no match), waits on
     * (2, 2), and after T1's commit reads the rest as T1 left them: the rows after it whose a was NULL are updated,
     * the one before it is not. The rule, with the hidden row id's order, documents it at READ COMMITTED and READ
     * UNCOMMITTED; an UPDATE that also skips a row after the one it waited on (an injected fault) stays a bug candidate.
     */
    private static TestCase mdev26643(IsolationLevel level) {
        return Cases.on("mariadb").table("t").level(level)
                .setup("CREATE TABLE t (a INT, b INT)", "INSERT INTO t VALUES (NULL, 1), (2, 2), (NULL, NULL), (NULL, 3), (4, NULL)")
                .txn("UPDATE t SET a = 10 WHERE 1")
                .txn(MDEV_26643_UPDATE)
                .order(1, 1, 2, 2, 1, 2);
    }

    private static final String MDEV_26643_UPDATE = "UPDATE t SET b = 20 WHERE a";

    @Test
    void mdev26643sUpdateOfATableWithoutAKeyIsDocumentedInInsertionOrder() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            for (IsolationLevel level : List.of(IsolationLevel.READ_COMMITTED, IsolationLevel.READ_UNCOMMITTED)) {
                List<Violation> found = wssViolations(judge(maria, mdev26643(level)));
                assertTrue(found.stream().allMatch(LockingScanInKeyOrderTest::documentedByTheRule), level + ": " + found);
            }
            Target faulty = RewritingTarget.inTransactions(maria, MDEV_26643_UPDATE, MDEV_26643_UPDATE + " AND b <> 3");
            List<Violation> found = wssViolations(judge(faulty, mdev26643(IsolationLevel.READ_COMMITTED)));
            assertBugCandidateTheRuleDoesNotDocument("", found);
        }
    }

    /**
     * What txfuzz reduced MDEV-26643's schedule to: T1's UPDATE matches all three rows but changes only the two whose
     * a was NULL — InnoDB leaves (1, 0) unwritten, yet locked. T2's UPDATE passes (NULL, 1) on its committed version,
     * waits on (1, 0), the row T1 matched without changing, and after T1's commit updates the third row. The rule
     * counts the rows a holder matched, not only those it changed (before it did, this was a bug candidate). No
     * injected fault is checked here: an UPDATE that skips more rows ends as statement visibility documents, and
     * one that skips fewer as the serial order does — the faults above show the rule explains no more than it says.
     */
    @Test
    void aRowTheHolderMatchedWithoutChangingItIsWhereTheScanWaits() throws Exception {
        String update = "UPDATE t SET b = 0 WHERE a";
        TestCase c = Cases.on("mariadb").table("t").level(IsolationLevel.READ_COMMITTED)
                .setup("CREATE TABLE t (a INT, b INT)", "INSERT INTO t VALUES (NULL, 1), (1, 0), (NULL, 1)")
                .txn("UPDATE t SET a = 1")
                .txn(update)
                .order(1, 1, 2, 2, 1, 2);
        try (Target maria = TestServers.open("mariadb")) {
            List<Violation> found = wssViolations(judge(maria, c));
            assertTrue(found.stream().allMatch(LockingScanInKeyOrderTest::documentedByTheRule), found.toString());
        }
    }

    private static final String DELETE_EVERY_T1_ROW = "DELETE FROM t1";

    /**
     * Campaign mariadb-RC-s21-i1401, reduced: T4's DELETE of every t1 row (in a transaction, so that a fault can tell its run
     * from the simulations) waits on T1's uncommitted rows (0, 0) and (0, 1). T2's {@code DELETE FROM t0 WHERE EXISTS
     * (SELECT … FROM t1 …)} reads t1's row (19, 0) with a shared lock, then waits for T3's row of t0. T1 commits, and the
     * scan goes on in key order to (19, 0), where it waits for T2. T3 commits; T2's REPLACE inserts (0, 5), behind the scan
     * (no gap locks), and T2 commits. The DELETE resumes and deletes 3 rows; (0, 5) stays.
     */
    private static TestCase waitsAgainOnARowASubqueryRead() {
        return Cases.on("mariadb").table("t0").table("t1").level(IsolationLevel.READ_COMMITTED)
                .setup("CREATE TABLE t0 (c0 DOUBLE, c3 DOUBLE)", "CREATE TABLE t1 (c0 INT, c1 INT, PRIMARY KEY (c0, c1))",
                        "INSERT INTO t0 (c0, c3) VALUES (0, 0)", "INSERT INTO t1 (c0, c1) VALUES (19, 0)")
                .txn("INSERT INTO t1 (c0, c1) VALUES (0, 0), (0, 1)")
                .txn("DELETE FROM t0 WHERE EXISTS (SELECT 0 FROM t1 s0 WHERE s0.c0 = 19)", "REPLACE INTO t1 (c0, c1) VALUES (0, 5)")
                .txn("INSERT INTO t0 (c0, c3) VALUES (0, 0)")
                .txn(DELETE_EVERY_T1_ROW)
                .order(1, 1, 2, 3, 3, 4, 4, 2, 2, 2, 1, 3, 4);
    }

    @Test
    void aScanThatWaitsAgainOnARowAnotherWritesSubqueryReadIsDocumented() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            Verdict v = judge(maria, waitsAgainOnARowASubqueryRead(), new txfuzz.model.StmtRef(4, 1));
            List<Violation> found = wssViolations(v);
            assertTrue(found.stream().allMatch(LockingScanInKeyOrderTest::documentedByTheRule), found.toString());
            assertTrue(found.stream().allMatch(x -> x.reference().contains("then on t1 row (19, 0), which T2.1 had read with locks")), found.toString());
        }
    }

    /**
     * Negative control: the same schedule with T4's DELETE also skipping row (0, 1), which is in every view the rule allows
     * (before the second wait it reads the rows as T1 committed them), stays a bug candidate. With the fault off the run is
     * documented (the test above), so the fault is what it catches.
     */
    @Test
    void aScanThatWaitsAgainAndAlsoSkipsARowStaysABugCandidate() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            Target skipping = RewritingTarget.inTransactions(maria, DELETE_EVERY_T1_ROW, DELETE_EVERY_T1_ROW + " WHERE c1 <> 1");
            List<Violation> found = wssViolations(judge(skipping, waitsAgainOnARowASubqueryRead(), new txfuzz.model.StmtRef(4, 1)));
            assertBugCandidateTheRuleDoesNotDocument("", found);
        }
    }

    private static final String DELETE_BEHIND_FAILED_UPDATE = "DELETE FROM t0";

    /**
     * Campaign mariadb-RC-s62-i6073's shape: T1's UPDATE of rows 0 and 1 to key 0 fails on the duplicate key and keeps the
     * locks it took ("Locks are not released in a rollback of a single SQL statement", MySQL manual, InnoDB Error Handling);
     * T2's DELETE of every row waits on row 0; T3 moves row 5 to key -5 and commits; T1 commits and the DELETE goes on from
     * row 0: the moved row, behind it, survives. Neither view of the DELETE alone (as submitted, as resumed, re-checked)
     * leaves it.
     */
    private static TestCase deleteBehindAFailedUpdate() {
        return Cases.on("mariadb").table("t0").level(IsolationLevel.READ_COMMITTED)
                .setup("CREATE TABLE t0 (c0 INT, PRIMARY KEY (c0))", "INSERT INTO t0 VALUES (0), (1), (5)")
                .txn("UPDATE t0 SET c0 = 0 WHERE c0 < 2")
                .autocommit(DELETE_BEHIND_FAILED_UPDATE)
                .autocommit("UPDATE t0 SET c0 = -5 WHERE c0 = 5")
                .order(1, 1, 2, 3, 1);
    }

    @Test
    void aScanWaitingOnTheLocksOfAFailedUpdateIsDocumented() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            List<Violation> found = wssViolations(judge(maria, deleteBehindAFailedUpdate(), new txfuzz.model.StmtRef(2, 0)));
            assertTrue(found.stream().allMatch(LockingScanInKeyOrderTest::documentedByTheRule), found.toString());
        }
    }

    /** The control: after the same wait the DELETE also skips row 1, which is not behind its scan: a bug candidate. */
    @Test
    void aDeleteBehindAFailedUpdateThatAlsoSkipsARowAfterTheWaitedKeyStaysABugCandidate() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            assertSkippingStaysABugCandidate(maria, DELETE_BEHIND_FAILED_UPDATE, DELETE_BEHIND_FAILED_UPDATE + " WHERE c0 <> 1",
                    deleteBehindAFailedUpdate(), new txfuzz.model.StmtRef(2, 0), "");
        }
    }

    private static final String DELETE_RELEASED_WITH_ANOTHER = "DELETE FROM t0";

    /**
     * Campaign mariadb-RC-s62-i6073 as found: T1's UPDATE of every row to key 0 fails on the duplicate key and keeps its
     * locks; T2's UPDATE of every row to c0 - 1 and T3's DELETE of every row both wait on row 0. T1's COMMIT releases them:
     * T2 goes first (T3 then waits on it), moving row 0 to -1, behind T3's scan, and row 1 to 0, which T3 deletes. The two
     * reach their clients in either order, so the run is recorded either way.
     */
    private static TestCase twoWritesOneCommitReleases() {
        return Cases.on("mariadb").table("t0").level(IsolationLevel.READ_COMMITTED)
                .setup("CREATE TABLE t0 (c0 INT, PRIMARY KEY (c0))", "INSERT INTO t0 VALUES (0), (1)")
                .txn("UPDATE t0 SET c0 = 0")
                .autocommit("UPDATE t0 SET c0 = (t0.c0 - 1)")
                .autocommit(DELETE_RELEASED_WITH_ANOTHER)
                .order(1, 1, 2, 3, 1);
    }

    /** Every recording of the run in which T2.0 and T3.0, released by one COMMIT, are found finished together: both orders. */
    private static List<Trace> bothRecordings(Executor ex, TestCase c) throws Exception {
        Trace trace = ex.run(c);
        List<ExecutedStmt> schedule = new java.util.ArrayList<>(trace.schedule());
        int n = schedule.size();
        java.util.Set<txfuzz.model.StmtRef> last = java.util.Set.of(schedule.get(n - 2).ref(), schedule.get(n - 1).ref());
        assertTrue(last.equals(java.util.Set.of(new txfuzz.model.StmtRef(2, 0), new txfuzz.model.StmtRef(3, 0))), "both finish after T1's COMMIT: " + trace);
        for (int i = n - 2; i < n; i++) {
            ExecutedStmt e = schedule.get(i);
            assertTrue(e.blocked(), e + " waited: " + trace);
            // as the executor records statements it finds finished in one sweep
            schedule.set(i, new ExecutedStmt(e.ref(), e.result(), true, e.submitSeq(), e.completedBefore(), 0, e.waitedFor()));
        }
        Trace together = new Trace(schedule, trace.outcomes(), trace.endOrder(), trace.finalState(), trace.stalls(), trace.hung());
        List<Trace> recordings = together.possibleRecordings(24);
        assertTrue(recordings.size() == 2, "T2.0 and T3.0 in either order: " + recordings);
        return recordings;
    }

    @Test
    void twoWritesOneCommitReleasedAreJudgedAsTheSameRunInEitherRecordedOrder() throws Exception {
        try (Target maria = TestServers.open("mariadb"); Executor ex = new Executor(maria, ExecutorConfig.defaults())) {
            TestCase c = twoWritesOneCommitReleases();
            for (Trace recording : bothRecordings(ex, c)) {
                List<Violation> found = wssViolations(WSS.judge(c, recording, ex));
                assertTrue(found.stream().allMatch(LockingScanInKeyOrderTest::documentedByTheRule), recording.schedule() + ": " + found);
            }
        }
    }

    /** The control: the DELETE that also skips the row it reaches after its wait stays a bug candidate in either recorded order. */
    @Test
    void aDeleteReleasedWithAnotherWriteThatSkipsARowStaysABugCandidateInEitherRecordedOrder() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            Target faulty = RewritingTarget.once(maria, DELETE_RELEASED_WITH_ANOTHER, DELETE_RELEASED_WITH_ANOTHER + " WHERE c0 <> 0");
            try (Executor ex = new Executor(faulty, ExecutorConfig.defaults())) {
                TestCase c = twoWritesOneCommitReleases();
                for (Trace recording : bothRecordings(ex, c)) {
                    List<Violation> found = wssViolations(WSS.judge(c, recording, ex));
                    assertTrue(found.stream().anyMatch(v -> v.classification() == Classification.BUG_CANDIDATE), recording.schedule() + ": " + found);
                }
            }
        }
    }

    private static final String DELETE_BEHIND_LOCKING_READ = "DELETE FROM t1";

    /**
     * Campaign mariadb-RU-s62-i5396's shape, reduced: T1 reads row 1 with {@code LOCK IN SHARE MODE} (or {@code FOR UPDATE}),
     * which holds a lock on it until T1 ends; T2's DELETE of every row waits on it; T3 inserts row 9, ahead of the DELETE's
     * scan, and row 0, behind it, and commits; T1 commits and the DELETE goes on from row 1: it deletes rows 1 and 9, and
     * row 0 survives. Neither the data as submitted (row 1 alone) nor as resumed (all three) gives that.
     */
    private static TestCase deleteBehindALockingRead(IsolationLevel level, String lockingRead) {
        return Cases.on("mariadb").table("t1").level(level)
                .setup("CREATE TABLE t1 (c1 INT, c2 INT, PRIMARY KEY (c1))", "INSERT INTO t1 VALUES (1, 0)")
                .txn(lockingRead)
                .autocommit(DELETE_BEHIND_LOCKING_READ)
                .autocommit("INSERT INTO t1 (c1, c2) VALUES (9, 0), (0, 0)")
                .order(1, 1, 2, 3, 1);
    }

    /** MariaDB 11.4 has no {@code FOR SHARE} (a syntax error); {@code FOR UPDATE} holds the row as well. */
    private static final List<String> LOCKING_READS = List.of("SELECT x0.c1 FROM t1 x0 LOCK IN SHARE MODE",
            "SELECT x0.c1 FROM t1 x0 WHERE x0.c2 = 0 FOR UPDATE");

    @Test
    void aScanWaitingOnARowAnotherTransactionReadWithLocksIsDocumented() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            for (IsolationLevel level : List.of(IsolationLevel.READ_COMMITTED, IsolationLevel.READ_UNCOMMITTED)) {
                for (String read : LOCKING_READS) {
                    List<Violation> found = wssViolations(judge(maria, deleteBehindALockingRead(level, read), new txfuzz.model.StmtRef(2, 0)));
                    assertTrue(found.stream().allMatch(LockingScanInKeyOrderTest::documentedByTheRule), level + ", " + read + ": " + found);
                }
            }
        }
    }

    /** The control: after the same wait the DELETE also skips row 1, the row it waited on: a bug candidate. */
    @Test
    void aDeleteBehindALockingReadThatAlsoSkipsTheRowItWaitedOnStaysABugCandidate() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            for (String read : LOCKING_READS) {
                assertSkippingStaysABugCandidate(maria, DELETE_BEHIND_LOCKING_READ, DELETE_BEHIND_LOCKING_READ + " WHERE c1 <> 1",
                        deleteBehindALockingRead(IsolationLevel.READ_COMMITTED, read), new txfuzz.model.StmtRef(2, 0), read + ": ");
            }
        }
    }

    private static final String DELETE_BEHIND_LOCKED_THEN_MOVED = "DELETE FROM t2";

    /**
     * Campaign mariadb-RU-s66-i1160's shape: T1 locks rows 5 and 9 with {@code SELECT … FOR UPDATE}; T2's DELETE of every
     * row waits on row 5; T1 then moves row 5 to key 0, behind the DELETE's scan, and commits: the DELETE deletes row 9 and
     * misses row 0. The rows T1's SELECT locked are the rows as it read them, before its own later UPDATE.
     */
    private static TestCase deleteBehindARowLockedThenMoved(IsolationLevel level) {
        return Cases.on("mariadb").table("t2").level(level)
                .setup("CREATE TABLE t2 (c0 INT, PRIMARY KEY (c0))", "INSERT INTO t2 VALUES (5), (9)")
                .txn("SELECT x0.c0 FROM t2 x0 FOR UPDATE", "UPDATE t2 SET c0 = 0 WHERE c0 = 5")
                .autocommit(DELETE_BEHIND_LOCKED_THEN_MOVED)
                .order(1, 1, 2, 1, 1);
    }

    @Test
    void aScanWaitingOnARowItsLockerMovedBehindItIsDocumented() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            assertDocumentedAtBothLevels(maria, LockingScanInKeyOrderTest::deleteBehindARowLockedThenMoved,
                    new txfuzz.model.StmtRef(2, 0));
        }
    }

    /** The control: after the same wait the DELETE also skips row 9, which is after the row it waited on: a bug candidate. */
    @Test
    void aDeleteBehindARowLockedThenMovedThatAlsoSkipsARowAfterItStaysABugCandidate() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            assertSkippingStaysABugCandidate(maria, DELETE_BEHIND_LOCKED_THEN_MOVED, DELETE_BEHIND_LOCKED_THEN_MOVED + " WHERE c0 <> 9",
                    deleteBehindARowLockedThenMoved(IsolationLevel.READ_UNCOMMITTED), new txfuzz.model.StmtRef(2, 0), "");
        }
    }

    private static final String DELETE_THROUGH_AN_INDEX = "DELETE FROM t0 WHERE t0.c0 <> 1";

    /**
     * Campaign mariadb-RU-s67-i3728's shape: t0 has no key and an index on (c0, c1), which the DELETE's plan reads (a range
     * scan of c0 <> 1). T1 locks row (0, 1) with {@code SELECT … FOR UPDATE}; T2's DELETE waits on it; T1 inserts (9, 0)
     * and (0, 0) and commits. In the index's order (0, 0) lies before the waited row, behind the scan: the DELETE deletes
     * (0, 1) and (9, 0) and misses (0, 0). In the clustered order (the hidden row id's, insertion order) it lies after.
     */
    private static TestCase deleteThroughASecondaryIndex(IsolationLevel level) {
        return Cases.on("mariadb").table("t0").level(level)
                .setup("CREATE TABLE t0 (c0 INT, c1 INT)", "CREATE INDEX i0 ON t0 (c0, c1)", "INSERT INTO t0 VALUES (0, 1)")
                .txn("SELECT x0.c1 FROM t0 x0 FOR UPDATE", "INSERT INTO t0 (c0, c1) VALUES (9, 0), (0, 0)")
                .autocommit(DELETE_THROUGH_AN_INDEX)
                .order(1, 1, 2, 1, 1);
    }

    @Test
    void aScanThroughASecondaryIndexFollowsTheIndexsOrder() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            assertDocumentedAtBothLevels(maria, LockingScanInKeyOrderTest::deleteThroughASecondaryIndex,
                    new txfuzz.model.StmtRef(2, 0));
        }
    }

    /**
     * The control: after the same wait the DELETE also skips (0, 1), the row it waited on, which every view the rules allow
     * holds and its WHERE matches: a bug candidate. (Skipping (9, 0) instead is what a DELETE reading the data as submitted
     * does, which statement visibility explains.)
     */
    @Test
    void aScanThroughASecondaryIndexThatAlsoSkipsTheRowItWaitedOnStaysABugCandidate() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            assertSkippingStaysABugCandidate(maria, DELETE_THROUGH_AN_INDEX, DELETE_THROUGH_AN_INDEX + " AND t0.c1 <> 1",
                    deleteThroughASecondaryIndex(IsolationLevel.READ_UNCOMMITTED), new txfuzz.model.StmtRef(2, 0), "");
        }
    }

    private static final String UPDATE_BEHIND_A_FAILED_INSERT = "UPDATE t0 SET c3 = NULL";

    /**
     * Campaign mariadb-RU-s68-i2584's shape: T1's INSERT of key 4 fails on the duplicate key and keeps a shared lock on row
     * 4 ("If a duplicate-key error occurs, a shared lock on the duplicate index record is set", MySQL manual, locks set by
     * InnoDB statements); T2's UPDATE of every row waits on it; T1 moves row 4 to key 3, behind the scan, and commits: the
     * UPDATE changes row 9 and misses row 3. Run after T1 it changes both.
     */
    private static TestCase updateBehindAFailedInsert(IsolationLevel level) {
        return Cases.on("mariadb").table("t0").level(level)
                .setup("CREATE TABLE t0 (c0 INT, c2 INT, c3 INT, PRIMARY KEY (c0))", "INSERT INTO t0 VALUES (4, 0, 0), (9, 0, 0)")
                .txn("INSERT INTO t0 (c0, c2) VALUES (4, 0)", "UPDATE t0 SET c0 = (t0.c0 - 1) WHERE c0 = 4")
                .autocommit(UPDATE_BEHIND_A_FAILED_INSERT)
                .order(1, 1, 2, 1, 1);
    }

    @Test
    void aScanWaitingOnTheLockOfAFailedInsertIsDocumented() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            assertDocumentedAtBothLevels(maria, LockingScanInKeyOrderTest::updateBehindAFailedInsert,
                    new txfuzz.model.StmtRef(2, 0));
        }
    }

    /** The control: after the same wait the UPDATE also skips row 9, after the row it waited on: a bug candidate. */
    @Test
    void anUpdateBehindAFailedInsertThatAlsoSkipsARowAfterItStaysABugCandidate() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            assertSkippingStaysABugCandidate(maria, UPDATE_BEHIND_A_FAILED_INSERT, UPDATE_BEHIND_A_FAILED_INSERT + " WHERE c0 <> 9",
                    updateBehindAFailedInsert(IsolationLevel.READ_UNCOMMITTED), new txfuzz.model.StmtRef(2, 0), "");
        }
    }

    private static final String UPDATE_BEHIND_A_FAILED_WHERE = "UPDATE t0 SET c0 = (t0.c2 + 1)";

    /**
     * Campaign mariadb-RU-s74-i2824's shape: T1's UPDATE fails on row 0, in strict mode, as its WHERE compares the VARCHAR ''
     * with 0; InnoDB locked the row before the WHERE read it and keeps the lock ("Locks are not released in a rollback of a
     * single SQL statement"). T2's UPDATE of every row waits on it; T1 moves row 0 to key -1, behind the scan, and row 5 to
     * key 4, and commits: the UPDATE changes row 4 and misses row -1. Run after T1 it changes both.
     */
    private static TestCase updateBehindAFailedWhere(IsolationLevel level) {
        return Cases.on("mariadb").table("t0").level(level)
                .setup("CREATE TABLE t0 (c0 INT, c1 VARCHAR(10), c2 INT, PRIMARY KEY (c0))", "INSERT INTO t0 VALUES (0, '', 0), (5, '', 5)")
                .txn("UPDATE t0 SET c1 = '' WHERE t0.c1 IN (0)", "UPDATE t0 SET c2 = (t0.c0 - 1), c0 = t0.c2")
                .autocommit(UPDATE_BEHIND_A_FAILED_WHERE)
                .order(1, 1, 2, 1, 1);
    }

    @Test
    void aScanWaitingOnARowWhoseWhereFailedAnotherUpdateIsDocumented() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            assertDocumentedAtBothLevels(maria, LockingScanInKeyOrderTest::updateBehindAFailedWhere, new txfuzz.model.StmtRef(2, 0));
        }
    }

    /** The control: after the same wait the UPDATE also skips row 4, after the row it waited on: a bug candidate. */
    @Test
    void anUpdateBehindAFailedWhereThatAlsoSkipsARowAfterItStaysABugCandidate() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            assertSkippingStaysABugCandidate(maria, UPDATE_BEHIND_A_FAILED_WHERE, UPDATE_BEHIND_A_FAILED_WHERE + " WHERE c0 <> 4",
                    updateBehindAFailedWhere(IsolationLevel.READ_COMMITTED), new txfuzz.model.StmtRef(2, 0), "");
        }
    }

    private static final String DELETE_EVERY_ROW = "DELETE FROM t0";

    /**
     * Campaign mariadb-RU-s74-i2360's shape, with a committed row 'z': T3 inserts '' and 'dac' and holds them; T1's DELETE of
     * every row waits on ''; T2 inserts 'e'; T3 rolls back, and the DELETE goes on to 'e' and waits on T2; T2 inserts '',
     * behind the scan, and commits: the DELETE deletes 'e' and 'z'. Run after T2 it deletes all three.
     */
    private static TestCase deleteWaitingOnARolledBackRowThenOnAnInsertedOne(IsolationLevel level) {
        return Cases.on("mariadb").table("t0").level(level)
                .setup("CREATE TABLE t0 (c0 VARCHAR(10), PRIMARY KEY (c0))", "INSERT INTO t0 VALUES ('z')")
                .autocommit(DELETE_EVERY_ROW)
                .txn("REPLACE INTO t0 (c0) VALUES ('e')", "INSERT INTO t0 (c0) VALUES ('')")
                .txn("INSERT INTO t0 (c0) VALUES (''), ('dac')", "ROLLBACK")
                .order(3, 3, 2, 1, 2, 3, 2, 2);
    }

    @Test
    void aScanThatWaitedOnARolledBackRowThenOnOneInsertedMeanwhileIsDocumented() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            assertDocumentedAtBothLevels(maria, LockingScanInKeyOrderTest::deleteWaitingOnARolledBackRowThenOnAnInsertedOne,
                    new txfuzz.model.StmtRef(1, 0));
        }
    }

    /** The control: after the second wait the DELETE also leaves 'z', after the row it waited on: a bug candidate. */
    @Test
    void aDeleteAfterTwoWaitsThatAlsoSkipsARowAfterThemStaysABugCandidate() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            assertSkippingStaysABugCandidate(maria, DELETE_EVERY_ROW, DELETE_EVERY_ROW + " WHERE c0 <> 'z'",
                    deleteWaitingOnARolledBackRowThenOnAnInsertedOne(IsolationLevel.READ_COMMITTED), new txfuzz.model.StmtRef(1, 0), "");
        }
    }

    private static final String UPDATE_KEY_COLUMN = "UPDATE t0 SET c1 = 0";

    /**
     * Campaign mariadb-RU-s62-i6180's shape: T1 moves (9, 9) to (0, 9) and holds it; T2's UPDATE of every row's c1 to 0 — on
     * the rows as submitted it would move (9, 9) onto (9, 0)'s key and fail — matches (9, 0), waits on (9, 9), and after T1's
     * commit finds it moved behind its scan: it matched one row and changed none. Run after T1 it changes (0, 9) too.
     */
    private static TestCase updateWhoseSetCollidesOnlyWithARowMovedBehind(IsolationLevel level) {
        return Cases.on("mariadb").table("t0").level(level)
                .setup("CREATE TABLE t0 (c0 INT, c1 INT, PRIMARY KEY (c0, c1))", "INSERT INTO t0 VALUES (9, 0), (9, 9)")
                .txn("UPDATE t0 SET c0 = 0 WHERE t0.c0 <= t0.c1")
                .autocommit(UPDATE_KEY_COLUMN)
                .order(1, 1, 2, 1);
    }

    @Test
    void anUpdateThatWouldCollideOnTheRowsAsSubmittedIsSplitAtTheRowItWaitedOn() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            assertDocumentedAtBothLevels(maria, LockingScanInKeyOrderTest::updateWhoseSetCollidesOnlyWithARowMovedBehind,
                    new txfuzz.model.StmtRef(2, 0));
        }
    }

    /** The control: after the same wait the UPDATE has also skipped (9, 0), which its WHERE matched before the waited row: a bug candidate. */
    @Test
    void anUpdateThatAlsoSkipsTheRowBeforeItsWaitStaysABugCandidate() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            Target faulty = RewritingTarget.once(maria, UPDATE_KEY_COLUMN, UPDATE_KEY_COLUMN + " WHERE c1 <> 0");
            List<Violation> found = wssViolations(judge(faulty, updateWhoseSetCollidesOnlyWithARowMovedBehind(IsolationLevel.READ_COMMITTED),
                    new txfuzz.model.StmtRef(2, 0)));
            assertTrue(found.stream().anyMatch(v -> v.classification() == Classification.BUG_CANDIDATE), found.toString());
        }
    }

    private static final String INSERT_SELECT_FROM_T0 = "INSERT INTO t1 (c0, c1) SELECT (x0.c1 + 2), '' FROM t0 x0";

    /**
     * Campaign mariadb-RC-s75-i2453, reduced: T1 moves t1's (8, '') to (9, '') and inserts (0, 0) into t0, and holds both;
     * T2's DELETE of the t1 rows its own subquery finds waits on (8, ''); T3's INSERT … SELECT reads t0 as a consistent read,
     * (0, 6) alone, and waits on t1's key 8, which T1 deleted. After T1's commit the DELETE removes (9, '') and the INSERT
     * adds (8, ''): one row, where run after T1 it adds (8, '') and (2, '').
     */
    private static TestCase insertSelectWaitingOnAKey() {
        return Cases.on("mariadb").table("t0").table("t1").level(IsolationLevel.READ_COMMITTED)
                .setup("CREATE TABLE t0 (c0 DOUBLE, c1 INT)", "CREATE TABLE t1 (c0 INT, c1 VARCHAR(10), PRIMARY KEY (c0))",
                        "INSERT INTO t0 (c0, c1) VALUES (0, 6)", "INSERT INTO t1 (c0, c1) VALUES (8, '')")
                .txn("UPDATE t1 SET c0 = (t1.c0 + 1)", "INSERT INTO t0 (c0, c1) VALUES (0, 0)")
                .autocommit("DELETE FROM t1 WHERE t1.c0 IN (SELECT s0.c0 FROM t1 s0)")
                .autocommit(INSERT_SELECT_FROM_T0)
                .order(1, 1, 1, 2, 3, 1);
    }

    @Test
    void anInsertSelectThatWaitedReadItsSelectAsItBeganAtReadCommitted() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            List<Violation> found = wssViolations(judge(maria, insertSelectWaitingOnAKey(), new txfuzz.model.StmtRef(3, 0)));
            assertTrue(found.stream().allMatch(v -> documentedByTheRule(v) && v.reference().contains("T3.0 searched before its wait")),
                    found.toString());
        }
    }

    /** The control: after the same wait the INSERT … SELECT writes (8, 'x'), which no snapshot of t0 gives: a bug candidate. */
    @Test
    void anInsertSelectThatWritesAValueNoSnapshotGivesStaysABugCandidate() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            assertSkippingStaysABugCandidate(maria, INSERT_SELECT_FROM_T0, INSERT_SELECT_FROM_T0.replace("''", "'x'"),
                    insertSelectWaitingOnAKey(), new txfuzz.model.StmtRef(3, 0), "");
        }
    }

    private static final String UPDATE_EVERY_C2 = "UPDATE t0 SET c2 = (t0.c2 + 1)";

    /**
     * Campaign mariadb-RC-s79-i3917's shape: t0 holds (1, 1) and (5, 5). T1 inserts (8, 0) and holds it; T2's DELETE of every
     * row but (5, 5) deletes (1, 1), passes (5, 5), and waits on (8, 0); T3's UPDATE of every row waits on (1, 1), which the
     * waiting DELETE holds; T1 commits, the DELETE ends, T2 inserts (1, 0) and commits. T3 goes on from (1, 1), changes
     * (5, 5), and misses (1, 0), behind it: one row, where run after T1 and T2 it changes two.
     */
    private static TestCase updateWaitingOnARowAWaitingDeleteDeleted(IsolationLevel level) {
        return Cases.on("mariadb").table("t0").level(level)
                .setup("CREATE TABLE t0 (c0 INT, c2 INT, PRIMARY KEY (c0, c2))", "INSERT INTO t0 (c0, c2) VALUES (1, 1), (5, 5)")
                .txn("INSERT INTO t0 (c0, c2) VALUES (8, 0)")
                .txn("DELETE FROM t0 WHERE t0.c0 <> 5", "INSERT INTO t0 (c0, c2) VALUES (1, 0)")
                .autocommit(UPDATE_EVERY_C2)
                .order(1, 1, 2, 2, 3, 1, 2, 2);
    }

    /** At READ UNCOMMITTED, dirty visibility, tried first, explains the same run: not promised there. */
    @Test
    void anUpdateWaitingOnARowAWaitingDeleteHadDeletedIsDocumentedAtReadCommitted() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            List<Violation> found = wssViolations(judge(maria, updateWaitingOnARowAWaitingDeleteDeleted(IsolationLevel.READ_COMMITTED),
                    new txfuzz.model.StmtRef(3, 0)));
            assertTrue(found.stream().allMatch(v -> documentedByTheRule(v) && v.reference().contains("T3.0 waited on t0 row (1, 1)")),
                    found.toString());
        }
    }

    /** The control: after the same wait the UPDATE also skips (5, 5), which it met after the row it waited on. */
    @Test
    void anUpdateBehindAWaitingDeleteThatAlsoSkipsARowStaysABugCandidate() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            assertSkippingStaysABugCandidate(maria, UPDATE_EVERY_C2, UPDATE_EVERY_C2 + " WHERE t0.c0 <> 5",
                    updateWaitingOnARowAWaitingDeleteDeleted(IsolationLevel.READ_COMMITTED), new txfuzz.model.StmtRef(3, 0), "");
        }
    }

    private static final String INSERT_SELECT_FROM_ITSELF = "INSERT INTO t0 (c0, c1, c2) SELECT (x0.c0 + 0), COALESCE(x0.c1, ''), (x0.c2 - 0) FROM t0 x0";

    /**
     * Campaign mariadb-RC-s80-i10729, reduced: t0 holds (0, '', NULL); T1 deletes it and holds the key; T2's INSERT … SELECT
     * of t0 into itself reads (0, '', NULL) as a consistent read and waits on key 0; T3's UPDATE of every row waits on the
     * same row; T1 commits: T2 inserts (0, '', NULL), and T3, going on from key 0, changes it. Run after T1 both change nothing.
     */
    private static TestCase insertSelectOfItsOwnTableWaitingOnADeletedKey() {
        return Cases.on("mariadb").table("t0").level(IsolationLevel.READ_COMMITTED)
                .setup("CREATE TABLE t0 (c0 INT, c1 VARCHAR(10), c2 DOUBLE, PRIMARY KEY (c0))", "INSERT INTO t0 (c0, c1, c2) VALUES (0, '', NULL)")
                .txn("DELETE FROM t0")
                .autocommit(INSERT_SELECT_FROM_ITSELF)
                .autocommit("UPDATE t0 SET c2 = 0")
                .order(1, 1, 2, 3, 1);
    }

    @Test
    void anInsertSelectOfItsOwnTableThatWaitedReadItsSelectAsItBeganAtReadCommitted() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            List<Violation> found = wssViolations(judge(maria, insertSelectOfItsOwnTableWaitingOnADeletedKey(), new txfuzz.model.StmtRef(2, 0)));
            assertTrue(found.stream().allMatch(v -> documentedByTheRule(v) && v.reference().contains("T2.0 searched before its wait")),
                    found.toString());
        }
    }

    /** The control: after the same wait the INSERT … SELECT writes 'x', which its search did not read: a bug candidate. */
    @Test
    void anInsertSelectOfItsOwnTableThatWritesAValueNoSnapshotGivesStaysABugCandidate() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            assertSkippingStaysABugCandidate(maria, INSERT_SELECT_FROM_ITSELF, INSERT_SELECT_FROM_ITSELF.replace("COALESCE(x0.c1, '')", "'x'"),
                    insertSelectOfItsOwnTableWaitingOnADeletedKey(), new txfuzz.model.StmtRef(2, 0), "");
        }
    }

    private static final String ADD_TEN = "UPDATE t0 SET c2 = (t0.c2 + 10)";

    /**
     * The failed form of the INSERT … SELECT of its own table: t0 holds (5, '', 0) and (9, '', 0); T1 updates (5, …), inserts
     * (1, '', 0) and holds both; T2's INSERT … SELECT of t0 into itself reads (5, …) and (9, …) and waits on key 5; T3's UPDATE
     * of every row waits on (5, …) too; T1 sets (9, …) to 5, inserts (7, '', 0) and commits: T2 fails on the duplicate key 5
     * and inserts nothing;
     * and (7, '', 0), then commits: T3 goes on from (5, …), changes (7, …) and (9, '', 5) as T1 left them, and misses
     * (1, '', 0), behind it. Only the key-order scan explains T3 (a re-check of the rows chosen before the wait would miss
     * (7, …)), and only with T2 simulated as inserting nothing (campaign mariadb-RC-s77-i3233 became a bug candidate
     * while a failed T2 was taken to insert its rows).
     */
    private static TestCase failedInsertSelectOfItsOwnTableBesideAWaitingUpdate() {
        return Cases.on("mariadb").table("t0").level(IsolationLevel.READ_COMMITTED)
                .setup("CREATE TABLE t0 (c0 INT, c1 VARCHAR(10), c2 DOUBLE, PRIMARY KEY (c0))", "INSERT INTO t0 (c0, c1, c2) VALUES (5, '', 0), (9, '', 0)")
                .txn("UPDATE t0 SET c2 = 1 WHERE t0.c0 = 5", "INSERT INTO t0 (c0, c1, c2) VALUES (1, '', 0)", "UPDATE t0 SET c2 = 5 WHERE t0.c0 = 9",
                        "INSERT INTO t0 (c0, c1, c2) VALUES (7, '', 0)")
                .autocommit(INSERT_SELECT_FROM_ITSELF)
                .autocommit(ADD_TEN)
                .order(1, 1, 1, 2, 3, 1, 1, 1);
    }

    @Test
    void aFailedInsertSelectOfItsOwnTableThatWaitedInsertedNothing() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            Verdict v = judge(maria, failedInsertSelectOfItsOwnTableBesideAWaitingUpdate(), new txfuzz.model.StmtRef(3, 0));
            assertTrue(wssViolations(v).stream().allMatch(LockingScanInKeyOrderTest::documentedByTheRule), v.toString());
        }
    }
}
