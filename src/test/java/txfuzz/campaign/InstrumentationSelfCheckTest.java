package txfuzz.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.dbms.Target;
import txfuzz.dbms.TestServers;
import txfuzz.dbms.h2.H2Target;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.gen.GenConfig;
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.TestCase;
import txfuzz.model.Tracking;
import txfuzz.model.Txn;
import txfuzz.oracle.CommitDroppingTarget;

/**
 * The instrumentation self-check (issue 11, item 2) both ways: on a real engine, a case whose row
 * tracking changes what the engine does is told apart from one where it does not; in a campaign, a
 * bug candidate seen only with tracking becomes an instrumentation effect, one seen on the plain twin
 * too stays a bug candidate, and the disagreement rate is reported.
 */
class InstrumentationSelfCheckTest {

    /**
     * InnoDB at REPEATABLE READ: T1 reads v = 0 (its snapshot), T2 sets v = 5 and commits, T1 sets v to
     * {@code t1Writes}. When that is 5, InnoDB changes nothing (the row already holds it), so T1's next
     * read still shows its snapshot, 0. With tracking the UPDATE also appends to wl: a real change, so
     * T1 then reads its own version, 5. With 6 both forms change the row and read 6.
     */
    private static TestCase[] twins(int t1Writes) {
        return twins(t1Writes, false);
    }

    /** {@code changedOnly}: the tag as MariaDB's instrumentation appends it, only to rows whose values change. */
    private static TestCase[] twins(int t1Writes, boolean changedOnly) {
        List<Integer> plainOrder = List.of(1, 1, 2, 1, 1, 1);
        TestCase plain = new TestCase(TestCase.FORMAT_VERSION, "mariadb", 0, 0, IsolationLevel.REPEATABLE_READ, "default", null,
                List.of("t"), List.of("CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)"),
                List.of(new Txn(1, List.of(Stmt.begin(), Stmt.of(StmtKind.SELECT, "SELECT v FROM t WHERE id = 1"),
                                Stmt.of(StmtKind.UPDATE, "UPDATE t SET v = " + t1Writes + " WHERE id = 1"),
                                Stmt.of(StmtKind.SELECT, "SELECT v FROM t WHERE id = 1"), Stmt.commit())),
                        new Txn(2, List.of(Stmt.of(StmtKind.UPDATE, "UPDATE t SET v = 5 WHERE id = 1")))),
                plainOrder);
        TestCase tracked = new TestCase(TestCase.FORMAT_VERSION, "mariadb", 0, 0, IsolationLevel.REPEATABLE_READ, "default", null,
                List.of("t"), List.of("CREATE TABLE t (id INT PRIMARY KEY, v INT, rid VARCHAR(100), wl VARCHAR(1000))",
                        "INSERT INTO t VALUES (1, 0, '1', ',0')"),
                List.of(new Txn(1, List.of(Stmt.begin(), read(), write(t1Writes, "1.2", changedOnly), postRead("1.2"), read(), Stmt.commit())),
                        new Txn(2, List.of(Stmt.begin(), write(5, "2.1", changedOnly), postRead("2.1"), Stmt.commit()))),
                List.of(1, 1, 2, 2, 2, 2, 1, 1, 1, 1));
        return new TestCase[] {plain, tracked};
    }

    private static Stmt read() {
        return Stmt.of(StmtKind.SELECT, "SELECT rid, wl, v FROM t WHERE id = 1", Tracking.read(List.of("t"), false, "id = 1"));
    }

    private static Stmt write(int value, String tag, boolean changedOnly) {
        String set = changedOnly ? "wl = IF(v <=> (" + value + "), wl, CONCAT(wl, '," + tag + "')), v = " + value
                : "v = " + value + ", wl = CONCAT(wl, '," + tag + "')";
        return Stmt.of(StmtKind.UPDATE, "UPDATE t SET " + set + " WHERE id = 1", Tracking.write("t", tag, List.of(), false));
    }

    private static Stmt postRead(String tag) {
        return Stmt.of(StmtKind.SELECT, "SELECT rid, wl FROM t WHERE wl LIKE '%," + tag + "'", Tracking.postRead("t", tag));
    }

    private static InstrumentationSelfCheck.Result check(int t1Writes) throws Exception {
        return check(t1Writes, false);
    }

    private static InstrumentationSelfCheck.Result check(int t1Writes, boolean changedOnly) throws Exception {
        TestCase[] t = twins(t1Writes, changedOnly);
        try (Target target = TestServers.open("mariadb"); Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            return InstrumentationSelfCheck.compare(t[1], ex.run(t[1]), t[0], ex.run(t[0]));
        }
    }

    @Test
    void aNoOpUpdateThatTrackingTurnsIntoAChangeIsCaughtOnMariadb() throws Exception {
        InstrumentationSelfCheck.Result r = check(5);
        assertTrue(r.comparable(), r.toString());
        assertFalse(r.agrees(), r.toString());
        assertEquals(1, r.differences().size(), r.toString());
        assertTrue(r.differences().get(0).startsWith("T1.3 `SELECT v FROM t WHERE id = 1`: read [[0]] without tracking, [[5]] with it"),
                r.toString());
    }

    /** MariaDB's instrumentation tags only rows whose values change: the no-op stays a no-op, and the twins agree. */
    @Test
    void taggingOnlyChangedRowsKeepsTheNoOpANoOpOnMariadb() throws Exception {
        InstrumentationSelfCheck.Result r = check(5, true);
        assertTrue(r.agrees(), r.toString());
        assertTrue(check(6, true).agrees());
    }

    @Test
    void aRealChangeBehavesTheSameWithAndWithoutTracking() throws Exception {
        InstrumentationSelfCheck.Result r = check(6);
        assertTrue(r.agrees(), r.toString());
    }

    /** Two transactions updating different rows, overlapping: the injected fault drops one's commit. */
    private static TestCase overlappingUpdates(boolean tracked, long iteration) {
        List<Txn> txns = new java.util.ArrayList<>();
        for (int id = 1; id <= 2; id++) {
            String set = "UPDATE t SET v = v + " + id + (tracked ? ", wl = wl || '," + id + ".1'" : "") + " WHERE id = " + id;
            txns.add(new Txn(id, tracked
                    ? List.of(Stmt.begin(), Stmt.of(StmtKind.UPDATE, set, Tracking.write("t", id + ".1", List.of(), false)),
                            Stmt.of(StmtKind.SELECT, "SELECT rid, wl FROM t WHERE wl LIKE '%," + id + ".1'", Tracking.postRead("t", id + ".1")),
                            Stmt.commit())
                    : List.of(Stmt.begin(), Stmt.of(StmtKind.UPDATE, set), Stmt.commit())));
        }
        return new TestCase(TestCase.FORMAT_VERSION, "h2", 3, iteration, IsolationLevel.READ_COMMITTED, "default", null, List.of("t"),
                tracked ? List.of("CREATE TABLE t(id INT PRIMARY KEY, v INT, rid VARCHAR(100), wl VARCHAR(1000))",
                                "INSERT INTO t VALUES (1, 0, '1', ',0'), (2, 0, '2', ',0')")
                        : List.of("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)"),
                txns, tracked ? List.of(1, 2, 1, 1, 2, 2, 1, 2) : List.of(1, 2, 1, 2, 1, 2));
    }

    /**
     * A plain autocommit INSERT that breaks the primary key is a transaction of its own that changes
     * nothing; tracked, it sits in BEGIN … COMMIT and DuckDB aborts that transaction. Same effect:
     * the twins agree.
     */
    @Test
    void anAutocommitStatementFailingInBothFormsAgreesOnDuckdb() throws Exception {
        TestCase plain = new TestCase(TestCase.FORMAT_VERSION, "duckdb", 0, 0, IsolationLevel.SNAPSHOT, "default", null, List.of("t"),
                List.of("CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)"),
                List.of(new Txn(1, List.of(Stmt.of(StmtKind.INSERT, "INSERT INTO t (id, v) VALUES (1, 5)")))), List.of(1));
        TestCase tracked = new TestCase(TestCase.FORMAT_VERSION, "duckdb", 0, 0, IsolationLevel.SNAPSHOT, "default", null, List.of("t"),
                List.of("CREATE TABLE t (id INT PRIMARY KEY, v INT, rid VARCHAR(100), wl VARCHAR(1000))", "INSERT INTO t VALUES (1, 0, '1', ',0')"),
                List.of(new Txn(1, List.of(Stmt.begin(), Stmt.of(StmtKind.INSERT, "INSERT INTO t (id, v, rid, wl) VALUES (1, 5, '1.1.0', ',1.1')",
                        Tracking.write("t", "1.1", List.of("1.1.0"), false)), Stmt.commit()))), List.of(1, 1, 1));
        try (Target target = txfuzz.dbms.Targets.create("duckdb"); Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            txfuzz.exec.Trace t = ex.run(tracked);
            assertTrue(t.outcome(1).status() != txfuzz.exec.TxnStatus.COMMITTED, "DuckDB aborts the tracked transaction: " + t);
            InstrumentationSelfCheck.Result r = InstrumentationSelfCheck.compare(tracked, t, plain, ex.run(plain));
            assertTrue(r.agrees(), r.toString());
        }
    }

    private static Summary campaign(Path out, boolean faultOnlyWithTracking) {
        CampaignConfig config = new CampaignConfig(List.of(IsolationLevel.READ_COMMITTED), List.of(), List.of("wss", "isolation"), 2, null,
                3, out, GenConfig.defaults(), ExecutorConfig.defaults(), null, CampaignConfig.Execution.PLAIN, Duration.ZERO)
                .withSelfCheckEvery(0);
        try (CommitDroppingTarget target = new CommitDroppingTarget(new H2Target(), faultOnlyWithTracking)) {
            return new Campaign(target, config, new PrintStream(OutputStream.nullOutputStream()),
                    (level, mode, i) -> overlappingUpdates(true, i), (level, mode, i) -> overlappingUpdates(false, i)).run();
        }
    }

    private static Stream<JsonNode> findings(Path out) throws Exception {
        JsonNode json = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
        return java.util.stream.StreamSupport.stream(json.get("findings").spliterator(), false);
    }

    @Test
    void aBugSeenOnlyWithTrackingIsAnInstrumentationEffect(@TempDir Path out) throws Exception {
        Summary s = campaign(out, true);
        Summary.SelfCheck sc = s.selfCheck();
        assertNotNull(sc);
        assertTrue(sc.disagreements() > 0, sc.toString());
        assertEquals(0, s.bugCandidates(), "lost commits only the tracked run shows are not engine bugs: " + sc);
        assertEquals(2, sc.checked(), "the cases with a violation are checked (no sampling here): " + sc);
        assertEquals(2, sc.disagreements(), sc.toString());
        assertEquals(1.0, sc.rate(), 0.001);
        assertTrue(sc.instrumentationEffects() > 0, sc.toString());
        JsonNode f = findings(out).filter(x -> x.get("classification").asText().equals("instrumentation-effect")).findFirst().orElseThrow();
        Path folder = out.resolve("findings").resolve(f.get("id").asText());
        assertTrue(Files.readString(folder.resolve("self-check.txt")).contains("behaved differently"));
        String text = Files.readString(folder.resolve("self-check.txt"));
        assertTrue(text.contains("does not find this violation") || text.contains("differed in a transaction the violation is about"), text);
        assertTrue(Files.exists(folder.resolve("plain.case.json")));
    }

    @Test
    void aBugSeenWithoutTrackingTooStaysABugCandidate(@TempDir Path out) throws Exception {
        Summary s = campaign(out, false);
        assertTrue(s.bugCandidates() > 0, s.selfCheck().toString());
        assertEquals(0, s.selfCheck().instrumentationEffects(), s.selfCheck().toString());
        assertEquals(2, s.selfCheck().checked(), s.selfCheck().toString());
        assertEquals(0, s.selfCheck().disagreements(), s.selfCheck().toString());
        JsonNode f = findings(out).filter(x -> x.get("classification").asText().equals("bug-candidate")).findFirst().orElseThrow();
        Path folder = out.resolve("findings").resolve(f.get("id").asText());
        assertTrue(Files.readString(folder.resolve("self-check.txt")).contains("agreed"), "the plain twin agreed");
    }

    /**
     * {@link #overlappingUpdates} plus T3, an autocommit read of another table whose plain form reads another row
     * than its tracked form: the twins differ at T3 only, as when tracking changes what one unrelated statement sees.
     */
    private static TestCase withUnrelatedDifference(boolean tracked, long iteration) {
        TestCase c = overlappingUpdates(tracked, iteration);
        List<Txn> txns = new java.util.ArrayList<>(c.transactions());
        txns.add(new Txn(3, List.of(tracked
                ? Stmt.of(StmtKind.SELECT, "SELECT rid, wl, v FROM u WHERE id = 1", Tracking.read(List.of("u"), false, "id = 1"))
                : Stmt.of(StmtKind.SELECT, "SELECT v FROM u WHERE id = 2"))));
        List<String> setup = new java.util.ArrayList<>(c.setup());
        setup.add(tracked ? "CREATE TABLE u(id INT PRIMARY KEY, v INT, rid VARCHAR(100), wl VARCHAR(1000))" : "CREATE TABLE u(id INT PRIMARY KEY, v INT)");
        setup.add(tracked ? "INSERT INTO u VALUES (1, 1, '1', ',0'), (2, 2, '2', ',0')" : "INSERT INTO u VALUES (1, 1), (2, 2)");
        List<Integer> order = new java.util.ArrayList<>(c.order());
        order.add(3);
        return new TestCase(TestCase.FORMAT_VERSION, "h2", c.seed(), c.iteration(), c.isolation(), c.mode(), null, List.of("t", "u"),
                setup, txns, order);
    }

    /**
     * Negative control for the self-check (issue 33 rule 6): commits dropped under concurrency (injected into real
     * H2) in both forms, and a twin that differs elsewhere. The wss oracle judges the plain twin and finds the same
     * lost writes, the isolation oracle's anomaly is about T1 and T2 where the twins agree: the bug stays a bug
     * candidate, where before any difference made every candidate of the case an instrumentation effect.
     */
    @Test
    void aBugInThePlainTwinTooStaysABugCandidateWhenTheTwinDiffersElsewhere(@TempDir Path out) throws Exception {
        CampaignConfig config = new CampaignConfig(List.of(IsolationLevel.READ_COMMITTED), List.of(), List.of("wss", "isolation"), 2, null,
                3, out, GenConfig.defaults(), ExecutorConfig.defaults(), null, CampaignConfig.Execution.PLAIN, Duration.ZERO)
                .withSelfCheckEvery(0);
        Summary s;
        try (CommitDroppingTarget target = new CommitDroppingTarget(new H2Target(), false)) {
            s = new Campaign(target, config, new PrintStream(OutputStream.nullOutputStream()),
                    (level, mode, i) -> withUnrelatedDifference(true, i), (level, mode, i) -> withUnrelatedDifference(false, i)).run();
        }
        Summary.SelfCheck sc = s.selfCheck();
        assertEquals(2, sc.disagreements(), "the twins differ at T3: " + sc);
        assertEquals(0, sc.instrumentationEffects(), sc.toString());
        assertTrue(s.bugCandidates() > 0, sc.toString());
        JsonNode f = findings(out).filter(x -> x.get("classification").asText().equals("bug-candidate")).findFirst().orElseThrow();
        String text = Files.readString(out.resolve("findings").resolve(f.get("id").asText()).resolve("self-check.txt"));
        assertTrue(text.contains("T3.0"), text);
        assertTrue(text.contains("stays a bug candidate"), text);
    }

    /** A generated campaign on a correct engine samples every N-th case and reports the rate over them. */
    @Test
    void campaignsSampleCasesAndReportTheDisagreementRate(@TempDir Path out) throws Exception {
        CampaignConfig config = new CampaignConfig(List.of(IsolationLevel.SERIALIZABLE), List.of(), List.of("isolation"), 20, null,
                11, out, GenConfig.defaults(), ExecutorConfig.defaults(), null, CampaignConfig.Execution.PLAIN, Duration.ZERO)
                .withSelfCheckEvery(5);
        Summary s;
        try (Target target = new H2Target()) {
            s = new Campaign(target, config, new PrintStream(OutputStream.nullOutputStream())).run();
        }
        Summary.SelfCheck sc = s.selfCheck();
        assertEquals(5, sc.every());
        assertTrue(sc.checked() + sc.notComparable() >= 4, "cases 0, 5, 10, 15 and every case with a violation: " + sc);
        assertEquals(0, sc.notComparable(), "generated twins line up statement for statement: " + sc);
        assertEquals(sc.checked() == 0 ? 0 : (double) sc.disagreements() / sc.checked(), sc.rate(), 0.001);
        JsonNode json = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
        assertEquals(sc.checked(), json.get("selfCheck").get("checked").asLong());
    }

    /** Campaigns without row tracking run no twins and say so by leaving the field out. */
    @Test
    void campaignsWithoutTrackingHaveNoSelfCheck(@TempDir Path out) throws Exception {
        CampaignConfig config = new CampaignConfig(List.of(IsolationLevel.SERIALIZABLE), List.of(), List.of("wss"), 3, null,
                11, out, GenConfig.defaults(), ExecutorConfig.defaults(), null, CampaignConfig.Execution.PLAIN, Duration.ZERO);
        try (Target target = new H2Target()) {
            assertEquals(null, new Campaign(target, config, new PrintStream(OutputStream.nullOutputStream())).run().selfCheck());
        }
    }
}
