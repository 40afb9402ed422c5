package txfuzz.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Violation;
import txfuzz.oracle.explicit.ExplicitOracle;
import txfuzz.oracle.wss.WssOracle;

/** An engine failure is signed without a level only when its one-transaction case fails the same way at every level. */
class LevelIndependenceTest {
    private static final String CRASH = "UPDATE t2 SET c4 = COALESCE((SELECT COUNT(*) FROM t1 s0 WHERE s0.c2 IN (0, 1)), 0)";

    private static Cases derbyTables(IsolationLevel level) {
        return Cases.on("derby").level(level).table("t1").table("t2")
                .setup("CREATE TABLE t1 (c2 INT, UNIQUE (c2))", "CREATE TABLE t2 (c4 INT)", "INSERT INTO t2 (c4) VALUES (1)");
    }

    private static TestCase iteration(TestCase c, long i) {
        return new TestCase(c.formatVersion(), c.dbms(), 24, i, c.isolation(), c.mode(), c.execution(), c.tables(), c.setup(),
                c.transactions(), c.order());
    }

    private static Violation crashOf(TestCase c, Executor ex, Judge judge) throws Exception {
        return judge.judge(c, ex.run(c)).stream().filter(v -> v.kind().label().equals("engine-error")).findFirst()
                .orElseThrow(() -> new AssertionError("Derby 10.16.1.1 no longer fails on " + CRASH));
    }

    /** Derby's XJ001 on a scalar COUNT(*) over a UNIQUE column (issue 21): every level, the same statement, the same SQLState. */
    @Test
    void derbysSingleStatementCrashHoldsAtEveryLevel() throws Exception {
        try (Target derby = Targets.create("derby"); Executor ex = new Executor(derby, ExecutorConfig.defaults())) {
            Judge judge = new Judge(List.of(new WssOracle(), new ExplicitOracle()), ex);
            TestCase c = derbyTables(IsolationLevel.SERIALIZABLE).autocommit(CRASH).order(1);
            assertTrue(LevelIndependence.holds(c, crashOf(c, ex, judge), derby, ex, judge));
        }
    }

    /** The same crash with a second transaction beside it: a schedule is involved, so the level stays in its signature. */
    @Test
    void aCaseWithASecondTransactionIsNotDeclaredLevelIndependent() throws Exception {
        try (Target derby = Targets.create("derby"); Executor ex = new Executor(derby, ExecutorConfig.defaults())) {
            Judge judge = new Judge(List.of(new WssOracle(), new ExplicitOracle()), ex);
            TestCase c = derbyTables(IsolationLevel.READ_COMMITTED).autocommit("SELECT c4 FROM t2").autocommit(CRASH).order(1, 2);
            assertFalse(LevelIndependence.holds(c, crashOf(c, ex, judge), derby, ex, judge));
        }
    }

    /** Only direct evidence of an engine failure qualifies: another kind of violation keeps its level, however its case runs. */
    @Test
    void aViolationThatIsNoEngineFailureIsNeverDeclaredLevelIndependent() throws Exception {
        try (Target derby = Targets.create("derby"); Executor ex = new Executor(derby, ExecutorConfig.defaults())) {
            Judge judge = new Judge(List.of(new WssOracle(), new ExplicitOracle()), ex);
            TestCase c = derbyTables(IsolationLevel.READ_COMMITTED).autocommit(CRASH).order(1);
            Violation crash = crashOf(c, ex, judge);
            Violation notAFailure = new Violation(txfuzz.oracle.wss.WssKind.WRITE_OUTCOME, crash.classification(), crash.summary(),
                    crash.details(), null);
            assertFalse(LevelIndependence.holds(c, notAFailure, derby, ex, judge));
        }
    }

    /**
     * The campaign in small: the crash, in a case with a reader beside it, found once at each of Derby's four levels.
     * Before, that was four unique findings, one per level; now the first reduces to the statement alone, which fails the
     * same way at every level, and the others reduce to the same and are its duplicates.
     */
    @Test
    void derbysCrashFoundAtEveryLevelIsOneFindingReducedToTheStatement(@org.junit.jupiter.api.io.TempDir java.nio.file.Path out)
            throws Exception {
        List<IsolationLevel> levels = List.of(IsolationLevel.READ_UNCOMMITTED, IsolationLevel.READ_COMMITTED, IsolationLevel.REPEATABLE_READ,
                IsolationLevel.SERIALIZABLE);
        CampaignConfig config = new CampaignConfig(levels, List.of(), List.of("wss", "explicit"), levels.size(), null, 24, out,
                txfuzz.gen.GenConfig.defaults(), ExecutorConfig.defaults(), null, CampaignConfig.Execution.PLAIN, java.time.Duration.ofSeconds(90));
        Summary s;
        try (Target derby = Targets.create("derby")) {
            s = new Campaign(derby, config, new java.io.PrintStream(java.io.OutputStream.nullOutputStream()),
                    (level, mode, i) -> iteration(derbyTables(level).txn("SELECT c4 FROM t2", CRASH).autocommit("SELECT c2 FROM t1")
                            .order(1, 1, 2, 1, 1), i)).run();
        }
        assertEquals(levels.size(), s.findings().stream().map(txfuzz.report.FindingRecord::id).distinct().count(), s.findings().toString());
        assertEquals(1, s.uniqueFindings(), s.signatures().toString());
        assertEquals(levels.size() - 1, s.duplicates(), s.signatures().toString());
        assertTrue(s.signatures().get(0).text().startsWith("explicit/engine-error bug-candidate derby any"), s.signatures().get(0).text());
        TestCase reduced = txfuzz.model.CaseJson.read(out.resolve("findings").resolve(s.signatures().get(0).finding()).resolve("case.json"));
        assertEquals(1, reduced.transactions().size(), txfuzz.model.CaseJson.write(reduced));
        assertFalse(reduced.txn(1).explicit());
        assertTrue(reduced.txn(1).statements().get(0).sql().startsWith("UPDATE t2 SET c4 = "), txfuzz.model.CaseJson.write(reduced));
        String readme = java.nio.file.Files.readString(out.resolve("findings").resolve(s.signatures().get(0).finding()).resolve("README.md"));
        assertTrue(readme.contains("the case fails the same way at every level txfuzz tests for this engine"), readme);
    }
}
