package txfuzz.reduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.cli.Main;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.CaseJson;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtKind;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;
import txfuzz.oracle.Classification;
import txfuzz.oracle.CommitDroppingTarget;
import txfuzz.oracle.explicit.ExplicitOracle;
import txfuzz.oracle.wss.WssKind;
import txfuzz.oracle.Run;
import txfuzz.oracle.ViolationKind;
import txfuzz.oracle.Oracle;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;
import txfuzz.oracle.wss.WssOracle;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Targets;
import txfuzz.dbms.h2.H2Target;

/** Reduction on real engines: injected faults, real engine bugs, nondeterministic oracles, the time budget. */
class ReducerTest {

    /** A lost commit (injected) buried in noise: transactions, statements, a second table, rows, an index, constraints. */
    static TestCase noisyLostCommit() {
        return Cases.on("h2").level(IsolationLevel.READ_COMMITTED).table("t").table("u")
                .setup("CREATE TABLE t (id INT NOT NULL, v INT DEFAULT 3 CHECK (v >= 0), PRIMARY KEY (id))",
                        "CREATE INDEX it ON t (v)",
                        "CREATE TABLE u (a INT, b VARCHAR(10) NOT NULL, UNIQUE (a))",
                        "INSERT INTO t (id, v) VALUES (1, 5), (2, 7), (3, 9)",
                        "INSERT INTO u VALUES (1, 'x')",
                        "INSERT INTO u VALUES (2, 'y')")
                .txn("SELECT a FROM u WHERE a > 0 AND b <> 'q'", "UPDATE t SET v = v + 1 WHERE id = 1", "SELECT v FROM t ORDER BY v")
                .txn("SELECT b FROM u", "SELECT t.v FROM t WHERE t.id = 2 OR t.v IN (SELECT u.a FROM u)")
                .autocommit("INSERT INTO u (a, b) VALUES (3, 'z')")
                .txn("SELECT id FROM t WHERE v > 100", "ROLLBACK")
                .order(1, 2, 4, 1, 3, 2, 1, 4, 2, 1, 4, 2, 1);
    }

    static Violation violationOf(TestCase c, Executor ex, Oracle o, String kind) throws Exception {
        Verdict v = o.judge(c, ex.run(c), ex);
        return v.violations().stream().filter(x -> x.kind().label().equals(kind)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " in " + v));
    }

    static List<String> data(Txn t) {
        return t.body().stream().map(s -> s.sql()).toList();
    }

    @Test
    void anInjectedLostCommitShrinksToTheWriteAndOneOverlappingTransaction() throws Exception {
        TestCase c = noisyLostCommit();
        try (Executor ex = new Executor(new CommitDroppingTarget(new H2Target()), ExecutorConfig.defaults())) {
            Violation v = violationOf(c, ex, new WssOracle(), "tx-wss");
            Reduction r = new Reducer(ex, List.of(new WssOracle(), new ExplicitOracle()), new ReduceConfig(Duration.ofSeconds(30))).reduce(c, v);
            TestCase red = r.reduced();
            assertFalse(r.exhausted(), "a fixed point well within the budget");
            assertEquals(7, r.statementsBefore());
            assertEquals(2, r.statementsAfter(), CaseJson.write(red));
            assertEquals("tx-wss", r.violation().kind().label());
            assertEquals(Classification.BUG_CANDIDATE, r.violation().classification());
            // one table, its one needed column, one row; no index, no constraint
            assertEquals(List.of("t"), red.tables(), CaseJson.write(red));
            assertEquals(List.of("CREATE TABLE t (v INT)", "INSERT INTO t (v) VALUES (0)"), red.setup());
            // the write and its (dropped) commit, and a transaction open at the same time
            assertEquals(2, red.transactions().size(), CaseJson.write(red));
            assertEquals(List.of("UPDATE t SET v = v + 1"), data(red.txn(1)));
            assertEquals(StmtKind.COMMIT, red.txn(1).statements().get(2).kind());
            assertTrue(red.txn(2).explicit());
            assertEquals(1, red.txn(2).body().size());
            assertEquals(StmtKind.SELECT, red.txn(2).body().get(0).kind());
            assertTrue(r.runs() > 10 && r.seconds() < 30, r.toString());
            assertEquals(2 / 7.0, r.ratio(), 1e-9);
        }
    }

    @Test
    void aCaseThatDoesNotFailComesBackUnchanged() throws Exception {
        TestCase c = Cases.on("h2").table("t").setup("CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 1)")
                .txn("UPDATE t SET v = 2 WHERE id = 1").autocommit("SELECT v FROM t").order(1, 1, 1, 2);
        Violation claimed = new Violation(WssKind.TX_WSS, Classification.BUG_CANDIDATE, "claimed", "", null);
        try (Executor ex = new Executor(new H2Target(), ExecutorConfig.defaults())) {
            Reduction r = new Reducer(ex, List.of(new WssOracle()), ReduceConfig.defaults()).reduce(c, claimed);
            assertSame(c, r.reduced());
            assertSame(claimed, r.violation());
            assertEquals(r.statementsBefore(), r.statementsAfter());
            assertEquals(Reducer.ORIGINAL_TRIES, r.runs());
            assertFalse(r.exhausted());
        }
    }

    /**
     * Fails whenever the case still has the write "v = v + 1", and also, falsely, on every third
     * judgement whatever the case: a nondeterministic finding.
     */
    static final class FlakyOracle implements Oracle {
        final AtomicInteger calls = new AtomicInteger();
        final AtomicInteger falsePositives = new AtomicInteger();
        boolean flaky = true;

        @Override
        public String name() {
            return "flaky";
        }

        static boolean hasMarker(TestCase c) {
            return c.transactions().stream().flatMap(t -> t.statements().stream()).anyMatch(s -> s.sql().contains("v = v + 1"));
        }

        /** The test oracle's one kind. */
        enum MarkerKind implements ViolationKind {
            MARKER;

            @Override
            public String oracle() {
                return "flaky";
            }

            @Override
            public String label() {
                return "marker";
            }

            @Override
            public String headline() {
                return "the marker statement ran";
            }

            @Override
            public String rule(Setting where) {
                return "The case must not contain the marker.";
            }
        }

        @Override
        public List<MarkerKind> kinds() {
            return List.of(MarkerKind.MARKER);
        }

        @Override
        public Verdict judge(Run run, Executor executor) {
            TestCase c = run.testCase();
            boolean real = hasMarker(c);
            boolean fake = flaky && calls.incrementAndGet() % 3 == 0;
            if (fake && !real) {
                falsePositives.incrementAndGet();
            }
            return new Verdict(name(), real || fake
                    ? List.of(new Violation(MarkerKind.MARKER, Classification.BUG_CANDIDATE, "marker", "", null)) : List.of());
        }
    }

    @Test
    void aNondeterministicOracleNeverYieldsACaseThatNoLongerFails() throws Exception {
        TestCase c = noisyLostCommit();
        FlakyOracle oracle = new FlakyOracle();
        try (Executor ex = new Executor(new H2Target(), ExecutorConfig.defaults())) {
            Violation v = violationOf(c, ex, oracle, "marker");
            Reduction r = new Reducer(ex, List.of(oracle), new ReduceConfig(Duration.ofSeconds(20))).reduce(c, v);
            assertTrue(oracle.falsePositives.get() > 0, "the oracle did lie during reduction");
            assertTrue(FlakyOracle.hasMarker(r.reduced()), CaseJson.write(r.reduced()));
            oracle.flaky = false;
            assertEquals("marker", violationOf(r.reduced(), ex, oracle, "marker").kind().label());
            assertTrue(r.statementsAfter() < r.statementsBefore(), r.toString());
        }
    }

    /** DuckDB 1.4.4's lost update (KnownEngineBugsTest) with noise around it. */
    static TestCase noisyDuckdbLostUpdate() {
        return Cases.on("duckdb").level(IsolationLevel.SNAPSHOT).table("t").table("u")
                .setup("CREATE TABLE t(k VARCHAR(10) PRIMARY KEY, v INT NOT NULL, w INT)",
                        "CREATE TABLE u(a INT, b INT)",
                        "INSERT INTO t VALUES ('e', 1, 7)", "INSERT INTO t VALUES ('g', 5, 8)",
                        "INSERT INTO u VALUES (1, 2), (3, 4)")
                .txn("SELECT a FROM u WHERE b > 1", "UPDATE t SET k = 'a' WHERE k = 'e'")
                .txn("UPDATE t SET v = v + 10 WHERE k = 'e' AND w >= 0", "SELECT SUM(v) FROM t")
                .autocommit("INSERT INTO u VALUES (5, 6)")
                .order(1, 2, 1, 3, 2, 1, 2, 2, 1);
    }

    @Test
    void duckdbsRealLostUpdateReducesAndTheReducedCaseReplays(@TempDir Path dir) throws Exception {
        TestCase c = noisyDuckdbLostUpdate();
        Reduction r;
        try (Executor ex = new Executor(Targets.create("duckdb", TargetOptions.version("1.4.4.0")), ExecutorConfig.defaults())) {
            Violation v = violationOf(c, ex, new WssOracle(), "tx-wss");
            assertEquals(Classification.BUG_CANDIDATE, v.classification());
            r = new Reducer(ex, List.of(new WssOracle()), new ReduceConfig(Duration.ofSeconds(30))).reduce(c, v);
        }
        TestCase red = r.reduced();
        assertEquals(2, r.statementsAfter(), CaseJson.write(red));
        assertEquals(List.of("t"), red.tables());
        assertEquals(2, red.setup().size(), "the table and its one row: " + red.setup());
        List<String> writes = red.transactions().stream().flatMap(t -> t.body().stream()).map(s -> s.sql()).toList();
        assertTrue(writes.get(0).startsWith("UPDATE t SET k = ") && writes.get(1).startsWith("UPDATE t SET v = v + "), writes.toString());
        // the replay path a user takes: the written case still shows the bug
        Path file = dir.resolve("reduced.case.json");
        Files.writeString(file, CaseJson.write(red));
        PrintStream old = System.out;
        int code;
        try {
            System.setOut(new PrintStream(new ByteArrayOutputStream()));
            code = Main.execute("replay", "--quiet", "--oracle", "wss", "--version", "1.4.4.0", file.toString());
        } finally {
            System.setOut(old);
        }
        assertEquals(Main.FOUND, code, "replay reports the bug candidate");
    }

    @Test
    void anExplicitFindingReducesH2MergeHang() throws Exception {
        // KnownEngineBugsTest's MERGE that spins at READ UNCOMMITTED, with a noise transaction, an extra row and index
        TestCase c = Cases.on("h2").level(IsolationLevel.READ_UNCOMMITTED).table("t0").table("t1")
                .setup("CREATE TABLE t0 (c0 INT, c1 DOUBLE PRECISION NOT NULL, c2 VARCHAR(10) NOT NULL, c3 DOUBLE PRECISION)",
                        "CREATE INDEX i0 ON t0 (c1)", "CREATE INDEX i1 ON t0 (c3)",
                        "CREATE TABLE t1 (c0 INT NOT NULL, c1 VARCHAR(10) CHECK (c1 <> 'e'), c2 DOUBLE PRECISION DEFAULT 5.0, "
                                + "c3 VARCHAR(10) NOT NULL, PRIMARY KEY (c0))",
                        "INSERT INTO t0 (c0, c1, c2, c3) VALUES (4, 9.5, 'c', 5.0)", "INSERT INTO t0 (c0, c1, c2, c3) VALUES (NULL, 9.5, 'c', 5.0)",
                        "INSERT INTO t1 (c0, c1, c2, c3) VALUES (2, NULL, 9.5, 'b')", "INSERT INTO t1 (c0, c1, c3) VALUES (9, NULL, 'd')")
                .txn("SELECT c0 FROM t1 WHERE c0 > 1")
                .autocommit("MERGE INTO t0 USING t1 x0 ON (t0.c0 = x0.c0) WHEN NOT MATCHED THEN INSERT (c0, c1, c2) VALUES (x0.c0, x0.c2, x0.c3)")
                .order(1, 2, 1, 1);
        ExecutorConfig quick = new ExecutorConfig(Duration.ofMillis(500), Duration.ofSeconds(2), Duration.ofMillis(500));
        try (Executor ex = new Executor(Targets.create("h2", TargetOptions.version("2.3.232")), quick)) { // the hang is fixed in later H2s
            Violation v = violationOf(c, ex, new ExplicitOracle(), "hang");
            Reduction r = new Reducer(ex, List.of(new WssOracle(), new ExplicitOracle()), new ReduceConfig(Duration.ofSeconds(12))).reduce(c, v);
            TestCase red = r.reduced();
            assertEquals(1, r.statementsAfter(), CaseJson.write(red));
            assertEquals(1, red.transactions().size());
            assertTrue(red.txn(1).statements().get(0).sql().startsWith("MERGE INTO t0 USING t1"), CaseJson.write(red));
            assertTrue(red.setup().size() < c.setup().size(), red.setup().toString());
            assertEquals("hang", r.violation().kind().label());
            assertTrue(r.seconds() < 12 * 1.25, r.toString());
        }
    }

    @Test
    void theTimeBudgetIsRespectedAndTheResultStillFails() throws Exception {
        // a full reduction of this case takes several seconds: one second runs out
        TestCase c = noisyDuckdbLostUpdate();
        try (Executor ex = new Executor(Targets.create("duckdb", TargetOptions.version("1.4.4.0")), ExecutorConfig.defaults())) {
            long before = System.nanoTime();
            Violation v = violationOf(c, ex, new WssOracle(), "tx-wss");
            double oneRun = (System.nanoTime() - before) / 1e9; // a run and its judgement, on this machine now
            long t0 = System.nanoTime();
            Reduction r = new Reducer(ex, List.of(new WssOracle()), new ReduceConfig(Duration.ofSeconds(1))).reduce(c, v);
            double wall = (System.nanoTime() - t0) / 1e9;
            assertTrue(r.exhausted(), r.toString());
            // no run starts that cannot finish in the budget: it is overrun by at most the runs in flight, whose length
            // depends on the machine's load (a fixed bound failed on a busy 2-core machine)
            assertTrue(wall < 1.0 + 2 * oneRun + 0.5, "took " + wall + " s (budget 1 s, one run " + oneRun + " s)");
            assertTrue(r.seconds() <= wall);
            assertTrue(r.statementsAfter() <= r.statementsBefore());
            for (int i = 0; i < 2; i++) {
                assertEquals(Classification.BUG_CANDIDATE, violationOf(r.reduced(), ex, new WssOracle(), "tx-wss").classification());
            }
        }
    }

    @Test
    void anInterruptedReductionKeepsTheCaseAsFoundAndSaysSo() throws Exception {
        TestCase c = noisyLostCommit();
        try (Executor ex = new Executor(new CommitDroppingTarget(new H2Target()), ExecutorConfig.defaults())) {
            Violation v = violationOf(c, ex, new WssOracle(), "tx-wss");
            AtomicInteger asked = new AtomicInteger();
            // Ctrl-C after a few candidates: some of them already shrank the case, none of that is a result
            Reduction r = new Reducer(ex, List.of(new WssOracle()), new ReduceConfig(Duration.ofSeconds(30), () -> asked.incrementAndGet() > 8))
                    .reduce(c, v);
            assertEquals(Reduction.End.INTERRUPTED, r.end(), r.toString());
            assertSame(c, r.reduced());
            assertFalse(r.changed());
            assertEquals(r.statementsBefore(), r.statementsAfter());
            assertTrue(r.runs() >= 1 && r.runs() < 12, r.toString());
            org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> txfuzz.report.ReductionRecord.of(r),
                    "an unchanged case is never recorded as reduced");
            assertEquals("interrupted", txfuzz.report.ReductionRecord.unchanged(r.end(), r).status());
        }
    }

    @Test
    void theBudgetIsHardEvenWhenEveryRunIsSlow() throws Exception {
        // every fresh database costs 150 ms, so each judged run (the run, its serial replays and the search for another
        // serial order that gives the state) takes over a second: 1 s allows the first run and at most one more, never the
        // usual dozens
        TestCase c = noisyLostCommit();
        try (Executor ex = new Executor(new SlowTarget(new CommitDroppingTarget(new H2Target()), 150), ExecutorConfig.defaults())) {
            long before = System.nanoTime();
            Violation v = violationOf(c, ex, new WssOracle(), "tx-wss");
            double oneRun = (System.nanoTime() - before) / 1e9; // a run and its judgement, on this machine now
            long t0 = System.nanoTime();
            Reduction r = new Reducer(ex, List.of(new WssOracle()), new ReduceConfig(Duration.ofSeconds(1))).reduce(c, v);
            double wall = (System.nanoTime() - t0) / 1e9;
            assertEquals(Reduction.End.TIME_UP, r.end(), r.toString());
            assertTrue(wall < 1.0 + 1.2 * oneRun, "took " + wall + " s on a 1 s budget, one run " + oneRun + " s: more than one run over");
            assertFalse(r.changed(), "no time to confirm anything smaller: " + r);
            assertEquals("time-up", txfuzz.report.ReductionRecord.unchanged(r.end(), r).status());
        }
    }

    /** Real H2 whose every case setup sleeps first: a stand-in for a large case's long runs. */
    static final class SlowTarget extends txfuzz.dbms.DelegatingTarget {
        private final long millis;

        SlowTarget(txfuzz.dbms.Target inner, long millis) {
            super(inner);
            this.millis = millis;
        }

        @Override
        public txfuzz.dbms.Database freshDatabase() throws java.sql.SQLException {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return super.freshDatabase();
        }
    }

    @Test
    void dataStatementsCountsNeitherBeginNorCommit() {
        assertEquals(7, Reducer.dataStatements(noisyLostCommit()));
    }
}
