package txfuzz.oracle.equiv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.SharedServers;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.Dialect;
import txfuzz.dbms.Feature;
import txfuzz.dbms.Target;
import txfuzz.dbms.TestServers;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.TrackedCases;
import txfuzz.gen.CaseGenerator;
import txfuzz.gen.GenConfig;
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.TestCase;
import txfuzz.model.Tracking;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;

/**
 * Issue 21 item 6 on real MariaDB servers: InnoDB's locking reads and DML read the newest committed
 * versions (MySQL manual, "Consistent Nonlocking Reads"), while a version-set read, a plain SELECT,
 * reads the REPEATABLE READ snapshot. The two shapes a seed-12 campaign filed as equiv-result bug
 * candidates — a locking SELECT after a concurrent DELETE committed, an UPDATE whose NOT EXISTS
 * subquery sees a concurrent UPDATE that committed — are correct behaviour: the capture cannot place
 * what those statements read, so they are not compared. Without the rule (the same server with
 * {@link Feature#CURRENT_READS} taken from its dialect) both are still filed, so the tests can fail;
 * and an injected miscount of UPDATEs inside transactions is still caught at REPEATABLE READ.
 */
class CurrentReadsTest {
    private static final EquivOracle EQUIV = new EquivOracle();

    /** i207: T1 deletes the row T2's later locking read would match; T2's plain read fixed its snapshot before T1 committed. */
    static TestCase lockingReadAfterCommittedDelete() {
        TrackedCases c = TrackedCases.on("mariadb").level(IsolationLevel.REPEATABLE_READ).table("t0")
                .setup("CREATE TABLE t0(c0 INT, c4 DOUBLE, rid VARCHAR(1000), wl VARCHAR(1000))",
                        "INSERT INTO t0 VALUES (1, 1.5, '1', ',0'), (2, NULL, '2', ',0')");
        c.begin();
        c.current().add(Stmt.of(StmtKind.DELETE, "DELETE FROM t0 WHERE t0.c4 IS NOT NULL RETURNING rid, wl",
                Tracking.write("t0", "1.1", List.of(), true, "c4 IS NOT NULL")));
        c.commit();
        c.begin().read("SELECT rid, wl, c0 FROM t0 ORDER BY c0", "true", false, "t0")
                .read("SELECT rid, wl, c0, c4 FROM t0 WHERE c4 NOT BETWEEN 2.5 AND 6.0 LOCK IN SHARE MODE", "c4 NOT BETWEEN 2.5 AND 6.0", true, "t0")
                .commit();
        // T1 BEGIN, T2 BEGIN, T1 DELETE, T2 SELECT, T1 COMMIT, T2 locking SELECT, T2 COMMIT
        return EQUIV.prepare(c.order(1, 2, 1, 2, 1, 2, 2));
    }

    /** i543: T1 sets c0 = 9 and commits after T2's plain read; T2's UPDATE's NOT EXISTS subquery then sees T1's 9. */
    static TestCase updateWhoseSubquerySeesACommittedUpdate() {
        TrackedCases c = TrackedCases.on("mariadb").level(IsolationLevel.REPEATABLE_READ).table("t0").table("t1")
                .setup("CREATE TABLE t0(c0 INT, rid VARCHAR(1000), wl VARCHAR(1000))", "CREATE TABLE t1(c0 INT, rid VARCHAR(1000), wl VARCHAR(1000))",
                        "INSERT INTO t0 VALUES (5, '1', ',0')", "INSERT INTO t1 VALUES (1, '2', ',0')");
        c.begin().writeScanning("UPDATE t1 SET wl = IF(c0 <=> (9), wl, CONCAT(wl, ',1.1')), c0 = 9", "t1", "1.1", null)
                .postRead("t1", "1.1").commit();
        c.begin().read("SELECT DISTINCT rid, wl, c0 FROM t0", "true", false, "t0")
                .writeScanning("UPDATE t1 SET wl = IF(c0 <=> (0), wl, CONCAT(wl, ',2.2')), c0 = 0 WHERE NOT EXISTS (SELECT 0 FROM t1 s0 WHERE s0.c0 = 9)",
                        "t1", "2.2", null)
                .postRead("t1", "2.2").commit();
        // T1 BEGIN, UPDATE, post-read; T2 BEGIN, SELECT; T1 COMMIT; T2 UPDATE, post-read, COMMIT
        return EQUIV.prepare(c.order(1, 1, 1, 2, 2, 1, 2, 2, 2));
    }

    private static List<Violation> bugCandidates(Target t, TestCase c) throws Exception {
        try (Executor ex = new Executor(t, ExecutorConfig.defaults())) {
            return EQUIV.judgement(c, ex.run(c), ex).verdict().violations().stream().filter(v -> v.classification() == Classification.BUG_CANDIDATE)
                    .toList();
        }
    }

    private static void assertCorrectButFiledWithoutTheRule(Target maria, TestCase c, String without) throws Exception {
        assertEquals(List.of(), bugCandidates(maria, c), "reading the newest committed versions is InnoDB's documented rule");
        try (Target snapshotOnly = new WithoutCurrentReads(maria)) {
            List<Violation> old = bugCandidates(snapshotOnly, c);
            assertEquals(1, old.size(), old.toString());
            assertTrue(old.get(0).summary().startsWith("equiv-result: ") && old.get(0).summary().contains(without), old.get(0).summary());
        }
    }

    @Test
    void bothShapesAreCorrectOnMariadb10_11_5() throws Exception {
        try (Target maria = SharedServers.open("mariadb", "10.11.5")) {
            assertCorrectButFiledWithoutTheRule(maria, lockingReadAfterCommittedDelete(), "0 rows");
            assertCorrectButFiledWithoutTheRule(maria, updateWhoseSubquerySeesACommittedUpdate(), "affected 0");
        }
    }

    @Test
    void bothShapesAreCorrectOnTheBundledMariadb() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            assertCorrectButFiledWithoutTheRule(maria, lockingReadAfterCommittedDelete(), "0 rows");
            assertCorrectButFiledWithoutTheRule(maria, updateWhoseSubquerySeesACommittedUpdate(), "affected 0");
        }
    }

    @Test
    void anUpdateThatMiscountsInsideATransactionIsStillCaughtAtRepeatableRead() throws Exception {
        CaseGenerator generator = new CaseGenerator(GenConfig.defaults().withInstrumentation(true));
        try (Target maria = TestServers.open("mariadb"); Target faulty = new MiscountingUpdates(maria);
             Executor wrong = new Executor(faulty, ExecutorConfig.defaults())) {
            int caught = 0;
            for (long i = 0; i < 20 && caught == 0; i++) {
                TestCase c = EQUIV.prepare(generator.generate("mariadb", maria.dialect(), IsolationLevel.REPEATABLE_READ, "default", 11, i));
                Verdict v = EQUIV.judgement(c, wrong.run(c), wrong).verdict();
                if (!v.isClean()) {
                    caught++;
                    assertEquals(Classification.BUG_CANDIDATE, v.violations().get(0).classification());
                    assertTrue(v.violations().get(0).summary().startsWith("equiv-result: "), v.violations().get(0).summary());
                }
            }
            assertTrue(caught > 0, "no miscounted UPDATE caught in 20 cases");
        }
    }

    /** The same server, its dialect without {@link Feature#CURRENT_READS}: the capture as it was before the rule. */
    private static final class WithoutCurrentReads extends DelegatingTarget {
        WithoutCurrentReads(Target real) {
            super(real);
        }

        @Override
        public Dialect dialect() {
            Dialect d = real.dialect();
            EnumSet<Feature> f = EnumSet.copyOf(d.features());
            f.remove(Feature.CURRENT_READS);
            return new Dialect(d.name(), f, d.doubleType(), d.varcharType(), d.concat());
        }

        @Override
        public void close() {
            // the server belongs to the caller
        }
    }
}
