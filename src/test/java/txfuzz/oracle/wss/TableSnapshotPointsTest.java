package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Database;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;

/**
 * Where H2's REPEATABLE READ takes a table's snapshot ({@link SnapshotPoints.Rule#PER_TABLE_AT_FIRST_READ}), on the real
 * engine (2.5.252): at the first statement that reads the table, not one that only names it (an INSERT ... VALUES, even
 * one failing on a key), and together with the tables it reads when it has a foreign key to one of them. Each rule is
 * proven both ways: a run H2 gets right is no bug candidate (the triage's 18947 and 7927, false bug candidates before),
 * and the same schedule with H2's serialization failure swallowed breaks first-committer-wins where the snapshot points
 * say — a bug candidate where a read of the writer shows the lost update (H2's rule is measured, so a break that loses
 * nothing is not reported).
 */
class TableSnapshotPointsTest {
    private static final WssOracle WSS = new WssOracle();
    private static Target h2;

    @BeforeAll
    static void start() throws Exception {
        h2 = Targets.create("h2");
    }

    @AfterAll
    static void stop() throws Exception {
        if (h2 != null) {
            h2.close();
        }
    }

    private static WssRun judge(Target target, TestCase c) throws Exception {
        return WssRun.of(target, c);
    }

    private static void assertNoBugCandidate(WssRun j) {
        j.assertNoBugCandidate();
    }

    private static void assertFirstCommitterWinsBroken(WssRun j, String write) {
        List<Violation> fcw = j.verdict().violations().stream().filter(x -> x.kind() == WssKind.FIRST_COMMITTER_WINS).toList();
        assertEquals(1, fcw.size(), j.verdict() + "\n" + j.trace());
        assertEquals(Classification.BUG_CANDIDATE, fcw.get(0).classification());
        assertTrue(fcw.get(0).summary().startsWith("first-committer-wins broken at " + write), fcw.get(0).summary());
    }

    /**
     * The injected fault's run breaks the rule at {@code write}, as the snapshot points place it (the explainer's check);
     * H2's rule is measured, so the verdict calls it a bug candidate only where the run's reads show an update lost
     * ({@code lostInReads}); else the fault's outcome is the serial order's with T2 first, and nothing is reported.
     */
    private static void assertRuleBrokenAt(Target target, TestCase c, String write, boolean lostInReads) throws Exception {
        try (Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            Optional<DeviationExplainer.RuleBreak> broken;
            try (DeviationExplainer explainer = new DeviationExplainer(c, trace, ex)) {
                broken = explainer.firstCommitterWinsBroken();
            }
            assertTrue(broken.isPresent() && broken.get().summary().startsWith("first-committer-wins broken at " + write), broken + "\n" + trace);
            WssRun j = new WssRun(trace, WSS.judge(c, trace, ex));
            if (lostInReads) {
                assertFirstCommitterWinsBroken(j, write);
            } else {
                assertNoBugCandidate(j);
            }
        }
    }

    private static StmtRef at(int txn, int index) {
        return new StmtRef(txn, index);
    }

    /** T1's first statement on t, then T2 changes row 1 and commits, then T1 changes row 1 and commits. */
    private static TestCase firstStatementThenConcurrentUpdate(IsolationLevel level, String first) {
        return Cases.on("h2").table("t").level(level)
                .setup("CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                .txn(first, "UPDATE t SET v = v + 1 WHERE id = 1")
                .autocommit("UPDATE t SET v = v + 10 WHERE id = 1")
                .order(1, 1, 2, 1, 1);
    }

    @Test
    void aStatementThatReadsNothingTakesNoSnapshotSoTheLaterUpdateReadsTheCommittedRow() throws Exception {
        // The triage's 18947 (FcwInsertFirst): H2 lets T1's UPDATE change T2's committed version, no lost update
        // (v = 11, serial T2 → T1). Before, the INSERT's naming of t counted as t's snapshot: a false first-committer-wins.
        for (String first : List.of("INSERT INTO t VALUES (7, 0)", "INSERT INTO t VALUES (2, 5)", "INSERT INTO t (id) VALUES (8)")) {
            WssRun j = judge(h2, firstStatementThenConcurrentUpdate(IsolationLevel.REPEATABLE_READ, first));
            assertEquals(first.equals("INSERT INTO t VALUES (2, 5)"), j.trace().executed(at(1, 1)).orElseThrow().result().failed(),
                    j.trace().toString());
            assertTrue(!j.trace().executed(at(1, 2)).orElseThrow().result().failed(), j.trace().toString());
            assertNoBugCandidate(j);
        }
        // SNAPSHOT takes one snapshot of every table at the first statement, INSERT or not: the UPDATE fails.
        for (IsolationLevel level : List.of(IsolationLevel.SNAPSHOT, IsolationLevel.SERIALIZABLE)) {
            WssRun j = judge(h2, firstStatementThenConcurrentUpdate(level, "INSERT INTO t VALUES (7, 0)"));
            assertTrue(j.trace().executed(at(1, 2)).orElseThrow().result().errorClass().isConcurrencyConflict(), j.trace().toString());
            assertNoBugCandidate(j);
        }
    }

    @Test
    void aStatementThatReadsTheTableTakesItsSnapshotAndASwallowedFailureBreaksTheRule() throws Exception {
        for (String first : List.of("SELECT * FROM t WHERE id = 99", "DELETE FROM t WHERE id = 99", "UPDATE t SET v = v + 0 WHERE id = 2",
                "INSERT INTO t SELECT id + 10, v FROM t WHERE id = 99", "SELECT * FROM t WHERE id = 2 FOR UPDATE", "SELECT * FROM t WHERE id = 1")) {
            TestCase c = firstStatementThenConcurrentUpdate(IsolationLevel.REPEATABLE_READ, first);
            WssRun real = judge(h2, c);
            assertTrue(real.trace().executed(at(1, 2)).orElseThrow().result().errorClass() != null
                    && real.trace().executed(at(1, 2)).orElseThrow().result().errorClass().isConcurrencyConflict(), real.trace().toString());
            assertNoBugCandidate(real);
            // only the read of row 1 shows T1 working from the version T2 then replaced
            assertRuleBrokenAt(new SerializationSwallowingTarget(h2), c, "T1.2", first.endsWith("id = 1"));
        }
    }

    /** T1 reads {@code parent}; T2 commits a change to {@code child}; T1 then writes {@code child}. */
    private static TestCase readParentThenWriteChild(String childKey, String t2, String t1) {
        return Cases.on("h2").table("p").table("c").table("g").level(IsolationLevel.REPEATABLE_READ)
                .setup("CREATE TABLE p (id INT PRIMARY KEY, v INT)",
                        "CREATE TABLE c (id INT PRIMARY KEY, v INT, pid INT" + childKey + ")",
                        "CREATE TABLE g (id INT, v INT, cid INT" + (childKey.isEmpty() ? "" : " REFERENCES c (id)") + ")",
                        "INSERT INTO p VALUES (1, 0)", "INSERT INTO c VALUES (1, 0, 1)", "INSERT INTO g VALUES (1, 0, 1)")
                .txn("SELECT * FROM p", t1)
                .autocommit(t2)
                .order(1, 1, 2, 1, 1);
    }

    @Test
    void readingATableTakesTheSnapshotOfTheTablesWithAForeignKeyToIt() throws Exception {
        // The triage's 7927: T2's row in the child (and the grandchild) is invisible to T1's DELETE, whose table's
        // snapshot T1's read of the parent took. Before, the child's snapshot was taken at the DELETE: a false bug candidate.
        for (String table : List.of("c", "g")) {
            TestCase c = readParentThenWriteChild(" REFERENCES p (id)", "INSERT INTO " + table + " VALUES (5, 0, 1)",
                    "DELETE FROM " + table + " WHERE id = 5");
            WssRun j = judge(h2, c);
            assertEquals(0, j.trace().executed(at(1, 2)).orElseThrow().result().updateCount(), j.trace().toString());
            assertNoBugCandidate(j);
            assertTrue(j.verdict().violations().stream().allMatch(x -> x.reference().contains("per-table snapshots")), j.verdict().toString());
            // without the foreign keys the row is visible and deleted: serial T2 → T1, nothing to explain
            WssRun plain = judge(h2, readParentThenWriteChild("", "INSERT INTO " + table + " VALUES (5, 0, 1)",
                    "DELETE FROM " + table + " WHERE id = 5"));
            assertEquals(1, plain.trace().executed(at(1, 2)).orElseThrow().result().updateCount(), plain.trace().toString());
            assertTrue(plain.verdict().isClean(), plain.verdict().toString());
        }
    }

    @Test
    void aSwallowedFailureOnATableWhoseSnapshotAForeignKeyTookBreaksTheRule() throws Exception {
        // H2 fails T1's UPDATE of the child row T2 changed after T1 read the parent; swallowed, the final state is serial
        // T2 → T1's and only first-committer-wins, on the child's snapshot taken at T1's read of the parent, sees the break
        // (no read of T1 shows a lost update, so H2's measured rule reports nothing).
        TestCase c = readParentThenWriteChild(" REFERENCES p (id)", "UPDATE c SET v = v + 10 WHERE id = 1", "UPDATE c SET v = v + 1 WHERE id = 1");
        WssRun real = judge(h2, c);
        // H2 reports it as 40001 "Deadlock detected", a concurrency conflict either way
        assertTrue(real.trace().executed(at(1, 2)).orElseThrow().result().errorClass().isConcurrencyConflict(), real.trace().toString());
        assertNoBugCandidate(real);
        assertRuleBrokenAt(new SerializationSwallowingTarget(h2), c, "T1.2", false);
    }

    @Test
    void h2TakesTheSnapshotsOfTheTablesThatReferenceTheOneReadTransitivelyNeverOfTheOneReferenced() throws Exception {
        try (Database db = h2.freshDatabase(); Connection conn = db.connect(IsolationLevel.REPEATABLE_READ, "default");
             Statement s = conn.createStatement()) {
            s.execute("CREATE TABLE p (id INT PRIMARY KEY)");
            s.execute("CREATE TABLE c (id INT PRIMARY KEY, pid INT REFERENCES p (id))");
            s.execute("CREATE TABLE g (id INT, cid INT, FOREIGN KEY (cid) REFERENCES c (id))");
            s.execute("CREATE TABLE sibling (id INT, pid INT)");
            s.execute("ALTER TABLE sibling ADD CONSTRAINT late FOREIGN KEY (pid) REFERENCES p (id)");
            s.execute("CREATE TABLE indexed (id INT UNIQUE, pid INT)");
            s.execute("CREATE INDEX ip ON indexed (pid)");
            Map<String, Set<String>> with = h2.engine().snapshotsTakenWith(conn);
            assertEquals(Map.of("p", Set.of("c", "g", "sibling"), "c", Set.of("g")), with);
        }
    }
}
