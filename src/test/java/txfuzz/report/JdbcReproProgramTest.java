package txfuzz.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.dbms.TestServers;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.CommitDroppingTarget;
import txfuzz.oracle.Run;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;
import txfuzz.oracle.equiv.EquivOracle;

/**
 * Repro.java, run for real: a finding is written for a case run on the bundled H2, and the folder's
 * program is launched in a child JVM with nothing but H2's jar on the class path.
 */
class JdbcReproProgramTest {
    private static final EquivOracle EQUIV = new EquivOracle();

    /**
     * H2's bug pinned in EquivOracleTest, still in the bundled 2.5.252: at REPEATABLE READ, after an
     * UPDATE that sets an indexed column on every row (row 3's from NULL), a read ordered by that index,
     * descending, returns row 3 twice.
     */
    private static TestCase rowTwiceInADescendingRead() throws Exception {
        return EQUIV.prepare(txfuzz.bugs.BugReplay.testCase("h2-rr-descending-index-row-twice"));
    }

    @Test
    void theProgramOfARealH2BugShowsTheRowReturnedTwiceAndExitsOne(@TempDir Path out) throws Exception {
        try (Target h2 = Targets.create("h2"); Executor ex = new Executor(h2, ExecutorConfig.defaults())) {
            TestCase c = rowTwiceInADescendingRead();
            Trace trace = ex.run(c);
            Verdict v = EQUIV.judge(Run.controlled(c, trace), ex);
            assertEquals(1, v.violations().size(), v.toString());
            Violation bug = v.violations().get(0);
            assertEquals(Classification.BUG_CANDIDATE, bug.classification());
            new FindingWriter(out).write("h2-RR-s0-i0", c, trace, v.violations(), h2);
            Path dir = out.resolve("findings/h2-RR-s0-i0");
            assertFalse(Files.exists(dir.resolve("reproduce.spec")) || Files.exists(dir.resolve("reproduce.test")), "only Repro.java for H2");

            Launched run = launch(dir.resolve("Repro.java"), org.h2.Driver.class);
            assertEquals(1, run.exit(), run.output());
            assertTrue(run.output().contains("REPRODUCED"), run.output());
            assertTrue(run.output().contains(bug.summary()), "it says what the finding is about:\n" + run.output());
            // the descending read: three rows from a table of two, row 3 ('1') twice
            assertTrue(run.output().contains("3 rows (1, ,0,1.1, 3, ee) (1, ,0,1.1, 3, ee) (2, ,0,1.1, 6, ee)"), run.output());
            assertTrue(run.output().contains("final contents of t1: (3, ee, 1, ,0,1.1) (6, ee, 2, ,0,1.1)"), run.output());
        }
    }

    /** Two writers of one row at READ COMMITTED: the second waits until the first commits. */
    private static TestCase secondWriterWaits() {
        return Cases.on("h2").table("t").level(IsolationLevel.READ_COMMITTED)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                .txn("UPDATE t SET v = v + 1 WHERE id = 1", "SELECT v FROM t WHERE id = 1")
                .txn("UPDATE t SET v = v + 10 WHERE id = 1")
                // T1 BEGIN, T1 UPDATE, T2 BEGIN, T2 UPDATE (waits), T1 SELECT, T1 COMMIT (releases it), T2 COMMIT
                .order(1, 1, 2, 2, 1, 1, 2);
    }

    @Test
    void aStatementThatWaitedRunsOnItsOwnThreadAndIsJoinedAfterTheCommitThatReleasedIt(@TempDir Path out) throws Exception {
        try (Target h2 = Targets.create("h2"); Executor ex = new Executor(h2, ExecutorConfig.defaults())) {
            TestCase c = secondWriterWaits();
            Trace trace = ex.run(c);
            assertEquals(1, trace.blockedCount(), trace.toString());
            String program = JdbcReproProgram.render(c, trace, h2, "a made-up finding about the run").orElseThrow();
            assertTrue(program.indexOf("send(\"T2\", 4") < program.indexOf("run(\"T1\", 6") && program.indexOf("run(\"T1\", 6")
                    < program.indexOf("reap(\"T2\", 4"), program);
            Path file = Files.createDirectories(out.resolve("p")).resolve("Repro.java");
            Files.writeString(file, program);
            Launched run = launch(file, org.h2.Driver.class);
            assertEquals(1, run.exit(), run.output());
            assertTrue(run.output().contains("T2 step 4: UPDATE t SET v = v + 10 WHERE id = 1\n    waits, as in the recorded run"), run.output());
            assertTrue(run.output().contains("final contents of t: (1, 11) (2, 0)"), run.output());
        }
    }

    @Test
    void aSessionsOwnLevelAndSettingsRunOnItsConnectionAndARefusedOneIsReported(@TempDir Path out) throws Exception {
        String ownLevel = "SELECT ISOLATION_LEVEL FROM INFORMATION_SCHEMA.SESSIONS WHERE SESSION_ID = SESSION_ID()";
        List<txfuzz.model.Txn> txns = List.of(
                new txfuzz.model.Txn(1, List.of(txfuzz.model.Stmt.of(txfuzz.model.StmtKind.SELECT, ownLevel))),
                new txfuzz.model.Txn(2, List.of(txfuzz.model.Stmt.of(txfuzz.model.StmtKind.SELECT, ownLevel)), List.of("SET NO_SUCH_SETTING 1"),
                        IsolationLevel.SERIALIZABLE));
        TestCase c = new TestCase(TestCase.FORMAT_VERSION, "h2", 0, 0, IsolationLevel.READ_COMMITTED, "default", txfuzz.model.ExecutionMode.PLAIN,
                List.of("t"), List.of("CREATE TABLE t(x INT)"), txns, List.of(1, 2));
        try (Target h2 = Targets.create("h2"); Executor ex = new Executor(h2, ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            String program = JdbcReproProgram.render(c, trace, h2, "a made-up finding about the run").orElseThrow();
            Path file = Files.createDirectories(out.resolve("p")).resolve("Repro.java");
            Files.writeString(file, program);
            Launched run = launch(file, org.h2.Driver.class);
            assertEquals(1, run.exit(), "every statement as recorded: T2 at SERIALIZABLE, T1 at READ COMMITTED\n" + run.output());
            assertTrue(run.output().contains("session setting refused by the engine: SET NO_SUCH_SETTING 1"), run.output());
        }
    }

    /**
     * A finding made by fault injection (COMMIT silently dropped under concurrency) is a bug of the
     * wrapper, not of H2: run on the real H2, the program sees the commit land and says the recorded
     * run did not come back, and where.
     */
    @Test
    void aFindingTheRealEngineDoesNotShowIsNotReproducedAndTheProgramSaysWhere(@TempDir Path out) throws Exception {
        try (Target faulty = new CommitDroppingTarget(Targets.create("h2")); Executor ex = new Executor(faulty, ExecutorConfig.defaults())) {
            TestCase c = Cases.on("h2").table("t").level(IsolationLevel.READ_COMMITTED)
                    .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                    .txn("UPDATE t SET v = v + 1 WHERE id = 1")
                    .txn("UPDATE t SET v = v + 10 WHERE id = 2")
                    .order(1, 2, 1, 2, 1, 2);
            Trace trace = ex.run(c);
            assertEquals(List.of(List.of("1", "0"), List.of("2", "0")), trace.finalState().tables().get("t"), "both commits dropped");
            Path file = Files.createDirectories(out.resolve("p")).resolve("Repro.java");
            Files.writeString(file, JdbcReproProgram.render(c, trace, faulty, "tx-wss: table t differs").orElseThrow());
            Launched run = launch(file, org.h2.Driver.class);
            assertEquals(0, run.exit(), run.output());
            assertTrue(run.output().contains("final contents of t: (1, 1) (2, 10)\n    <-- recorded: (1, 0) (2, 0)"), run.output());
            assertTrue(run.output().contains("NOT REPRODUCED: 1 difference(s)"), run.output());
        }
    }

    /** T2's INSERT meets T1's uncommitted UPDATE or a committed key: each engine answers in its own way, recorded. */
    private static TestCase anInsertBetweenTheStatementsOfAnother(String dbms, IsolationLevel level) {
        return Cases.on(dbms).table("t").level(level)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                .txn("UPDATE t SET v = 1 WHERE id = 1", "SELECT id, v FROM t WHERE id >= 1")
                .autocommit("INSERT INTO t VALUES (2, 5)")
                .order(1, 1, 2, 1, 1);
    }

    @Test
    void theOtherInProcessEnginesProgramsReproduceTheirRecordedRunsWithOnlyTheirOwnJars(@TempDir Path out) throws Exception {
        Map<String, String> jarNames = Map.of("hsqldb", "hsqldb", "derby", "derby", "sqlite", "sqlite-jdbc", "duckdb", "duckdb_jdbc");
        for (Map.Entry<String, String> e : jarNames.entrySet()) {
            try (Target t = TestServers.open(e.getKey()); Executor ex = new Executor(t, ExecutorConfig.defaults())) {
                TestCase c = anInsertBetweenTheStatementsOfAnother(e.getKey(), t.defaultIsolationLevel());
                Trace trace = ex.run(c);
                Path file = Files.createDirectories(out.resolve(e.getKey())).resolve("Repro.java");
                Files.writeString(file, JdbcReproProgram.render(c, trace, t, "a made-up finding").orElseThrow());
                Launched run = launch(file, classPathEntries(e.getValue()));
                assertEquals(1, run.exit(), e.getKey() + ":\n" + run.output());
                assertTrue(run.output().contains("T2 step 3: INSERT INTO t VALUES (2, 5)\n    error "), e.getKey() + ":\n" + run.output());
            }
        }
    }

    /**
     * An in-process engine that throws something other than an SQLException (HSQLDB's COMMIT of
     * hsqldb-mvlocks-merge-deleted-row-commit-npe throws a NullPointerException) gives the statement its outcome in the
     * program as in txfuzz's run: the program reproduces the finding rather than stopping with "could not run".
     */
    @Test
    void anEnginesOwnExceptionIsTheStatementsOutcomeAsRecorded(@TempDir Path out) throws Exception {
        TestCase c = txfuzz.bugs.BugReplay.testCase("hsqldb-mvlocks-merge-deleted-row-commit-npe");
        try (Target hsqldb = Targets.create("hsqldb"); Executor ex = new Executor(hsqldb, ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            Path file = Files.createDirectories(out.resolve("npe")).resolve("Repro.java");
            Files.writeString(file, JdbcReproProgram.render(c, trace, hsqldb, "a COMMIT that throws").orElseThrow());
            Launched run = launch(file, classPathEntries("hsqldb"));
            assertEquals(1, run.exit(), run.output());
            assertTrue(run.output().contains("error null [0] java.lang.NullPointerException"), run.output());
        }
    }

    record Launched(int exit, String output) {
    }

    /** The test JVM's class-path entries whose file name starts with {@code name}: an engine's jars. */
    static List<Path> classPathEntries(String name) {
        List<Path> jars = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            if (Path.of(entry).getFileName().toString().startsWith(name)) {
                jars.add(Path.of(entry));
            }
        }
        assertFalse(jars.isEmpty(), name);
        return jars;
    }

    /** {@code java -cp <the jar of driverClass> Repro.java} in a child JVM, bounded. */
    static Launched launch(Path program, Class<?> driverClass) throws Exception {
        return launch(program, List.of(Path.of(driverClass.getProtectionDomain().getCodeSource().getLocation().toURI())));
    }

    static Launched launch(Path program, List<Path> jars) throws Exception {
        List<String> cp = new ArrayList<>();
        jars.forEach(j -> cp.add(j.toString()));
        // the printed command, with the flags of the suite's other child JVMs: the program (and javac, which the source
        // launcher runs first) lives a second
        List<String> cmd = txfuzz.ChildJvm.java("-cp", String.join(java.io.File.pathSeparator, cp), program.getFileName().toString());
        Process p = new ProcessBuilder(cmd).directory(program.getParent().toFile()).redirectErrorStream(true).start();
        byte[] bytes = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the program ended");
        return new Launched(p.exitValue(), new String(bytes, StandardCharsets.UTF_8));
    }
}
