package txfuzz.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.dbms.TestServers;
import txfuzz.dbms.Target;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.imports.Importer;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;

/**
 * judge-suite on real engines, the imported cases instrumented as generated ones are: PostgreSQL's own specs pass on
 * PostgreSQL with every oracle, the isolation and equiv oracles included; a case with a statement the instrumentation
 * cannot handle gets "not applicable" from them, with the statement; a published lost update is a bug candidate of the
 * isolation oracle too, reduced and filed; PostgreSQL's documented write skew at REPEATABLE READ is classified documented.
 */
class JudgeSuiteTest {
    static final Path SPECS = Path.of("src/test/resources/imports/pg-isolation");

    private static JudgeSuite.Table run(String dbms, List<Path> files, Path out) throws Exception {
        return run(dbms, files, out, true);
    }

    private static JudgeSuite.Table run(String dbms, List<Path> files, Path out, boolean instrument) throws Exception {
        try (Target target = TestServers.open(dbms); Executor executor = new Executor(target, ExecutorConfig.defaults())) {
            var config = new JudgeSuite.Config(Importer.Options.defaults(), Duration.ofSeconds(20), instrument);
            return new JudgeSuite(config, target, executor, out).run(files, line -> { });
        }
    }

    @Test
    void postgresPassesItsOwnSpecs(@TempDir Path out) throws Exception {
        List<Path> files = List.of("simple-write-skew.spec", "read-write-unique-4.spec", "insert-conflict-do-update.spec", "nowait-2.spec",
                "skip-locked-3.spec", "insert-conflict-do-update-2.spec").stream().map(SPECS::resolve).toList();
        JudgeSuite.Table t = run("postgres", files, out);
        assertEquals(0, t.bugCandidates(), Files.readString(out.resolve("judge-suite.md")));
        // 6 + 3 + 2 + 3 + 1 + 2 cases, every one judged by all four oracles
        assertEquals(17, t.cases().size());
        assertTrue(t.cases().stream().allMatch(c -> c.notRun() == null && c.verdicts().keySet().equals(java.util.Set.of("wss", "explicit", "isolation", "equiv"))),
                t.cases().toString());
        for (JudgeSuite.CaseRow c : t.cases()) {
            boolean untrackable = c.file().equals("insert-conflict-do-update-2.spec"); // its unique index on lower(key) does not parse
            boolean skipsLocked = c.file().equals("skip-locked-3.spec"); // equiv's premise fails: a SKIP LOCKED read depends on locks
            for (String o : List.of("isolation", "equiv")) {
                String v = c.verdicts().get(o);
                boolean expected = untrackable ? v.startsWith("not applicable: ") && v.contains("CREATE UNIQUE INDEX ON upsert(lower(key))")
                        : skipsLocked && o.equals("equiv") ? v.startsWith("not applicable: a read skips locked rows") : v.equals("pass");
                assertTrue(expected, c.caseFile() + " " + o + ": " + v);
            }
        }
        // equiv did not judge skip-locked-3's one case: counted "not applicable" with its reason, never "pass"
        assertEquals(1, t.notApplicable().get("equiv").get("a read skips locked rows (SKIP LOCKED: its result depends on others' locks)"),
                t.notApplicable().toString());
        assertEquals(2, t.notApplicable().get("equiv").get(JudgeSuite.ROW_TRACKING_INCOMPLETE), t.notApplicable().toString());
        assertEquals(14, t.perOracle().get("equiv").get("pass"), t.perOracle().toString());
        assertEquals(3, t.perOracle().get("equiv").get("not applicable"), t.perOracle().toString());
        String md = Files.readString(out.resolve("judge-suite.md"));
        assertTrue(md.contains("| equiv | a read skips locked rows (SKIP LOCKED: its result depends on others' locks) | 1 |"), md);
        assertTrue(Files.exists(out.resolve("judge-suite.json")));
        assertTrue(Files.exists(out.resolve("cases/simple-write-skew.spec-1.case.json")));
    }

    /**
     * An oracle that decides a case is outside its premise says "not applicable" with its reason, in the table, the markdown and
     * the JSON; the same schedule where the premise holds is judged, and passes. equiv does not judge READ UNCOMMITTED (a
     * statement may see uncommitted versions, against TxCheck's Assumption 3); the isolation oracle does.
     */
    @Test
    void anOracleOutsideItsPremiseSaysNotApplicableNotPass(@TempDir Path dir) throws Exception {
        String schedule = String.join("\n", "CREATE TABLE t(k INT PRIMARY KEY, v INT);", "INSERT INTO t VALUES (1, 10), (2, 20);",
                "T1: BEGIN", "T2: BEGIN", "T1: UPDATE t SET v = 11 WHERE k = 1", "T2: SELECT v FROM t WHERE k = 2",
                "T1: COMMIT", "T2: SELECT v FROM t WHERE k = 1", "T2: COMMIT", "");
        Path uncommitted = dir.resolve("ru.txt");
        Files.writeString(uncommitted, "-- isolation: READ UNCOMMITTED\n" + schedule);
        Path committed = dir.resolve("rc.txt");
        Files.writeString(committed, "-- isolation: READ COMMITTED\n" + schedule);
        Path out = dir.resolve("out");
        JudgeSuite.Table t = run("h2", List.of(committed, uncommitted), out);
        String md = Files.readString(out.resolve("judge-suite.md"));
        assertEquals(0, t.bugCandidates(), md);
        JudgeSuite.CaseRow rc = t.cases().get(0);
        JudgeSuite.CaseRow ru = t.cases().get(1);
        assertEquals("READ COMMITTED", rc.level());
        assertEquals("pass", rc.verdicts().get("equiv"), rc.toString());
        assertEquals(java.util.Map.of(), rc.notApplicable());
        assertEquals("READ UNCOMMITTED", ru.level());
        assertEquals("not applicable: READ UNCOMMITTED (a statement may see uncommitted versions)", ru.verdicts().get("equiv"), ru.toString());
        assertEquals("pass", ru.verdicts().get("isolation"), ru.toString());
        assertEquals(1, t.perOracle().get("equiv").get("pass"));
        assertEquals(1, t.perOracle().get("equiv").get("not applicable"));
        assertEquals(java.util.Map.of("equiv", java.util.Map.of("READ UNCOMMITTED (a statement may see uncommitted versions)", 1)), t.notApplicable());
        assertTrue(md.contains("| equiv | 1 | 1 |"), md);
        assertTrue(md.contains("| equiv | READ UNCOMMITTED (a statement may see uncommitted versions) | 1 |"), md);
        var json = txfuzz.model.CaseJson.mapper().readTree(out.resolve("judge-suite.json").toFile());
        assertEquals(1, json.at("/notApplicable/equiv/READ UNCOMMITTED (a statement may see uncommitted versions)").asInt(), json.toString());
        assertEquals("not applicable: READ UNCOMMITTED (a statement may see uncommitted versions)", json.at("/cases/1/verdicts/equiv").asText());
        assertEquals("pass", json.at("/cases/0/verdicts/equiv").asText());
    }

    /**
     * receipt-report.spec's read-only transactions (BEGIN ISOLATION LEVEL SERIALIZABLE, READ ONLY) import and are judged;
     * the READ ONLY reaches the server: in a schedule of ours, a write in a read-only transaction fails with 25006 (the
     * driver has opened the transaction before the variant runs, so a second BEGIN would only warn).
     */
    @Test
    void readOnlyTransactionsImportAndAreReadOnlyOnTheServer(@TempDir Path dir) throws Exception {
        Path schedule = dir.resolve("read-only.txt");
        Files.writeString(schedule, String.join("\n", "-- isolation: SERIALIZABLE",
                "CREATE TABLE t(k INT PRIMARY KEY, v INT);", "INSERT INTO t VALUES (1, 10);",
                "T1: BEGIN READ ONLY", "T1: SELECT v FROM t WHERE k = 1", "T1: UPDATE t SET v = 11 WHERE k = 1", "T1: COMMIT",
                "T2: START TRANSACTION READ ONLY", "T2: SELECT v FROM t", "T2: COMMIT", ""));
        TestCase c = Importer.read(schedule, new Importer.Options("postgres", null, Integer.MAX_VALUE)).cases().get(0).testCase();
        try (Target pg = TestServers.open("postgres"); Executor executor = new Executor(pg, ExecutorConfig.defaults())) {
            Trace trace = executor.run(c);
            assertEquals("25006", trace.executed(new StmtRef(1, 2)).orElseThrow().result().error().sqlState(), trace.toString());
            assertTrue(trace.executed(new StmtRef(2, 1)).orElseThrow().result().failed() == false, trace.toString());

            Path out = dir.resolve("out");
            var config = new JudgeSuite.Config(new Importer.Options(null, null, 6), Duration.ofSeconds(20), true);
            JudgeSuite.Table t = new JudgeSuite(config, pg, executor, out).run(List.of(SPECS.resolve("receipt-report.spec")), line -> { });
            String md = Files.readString(out.resolve("judge-suite.md"));
            assertEquals(0, t.bugCandidates(), md);
            assertEquals(6, t.cases().size(), md);
            assertTrue(t.cases().stream().allMatch(r -> r.notRun() == null), md);
        }
    }

    @Test
    void plainCasesAreJudgedByTheOraclesThatNeedNoRowTracking(@TempDir Path out) throws Exception {
        JudgeSuite.Table t = run("postgres", List.of(SPECS.resolve("simple-write-skew.spec")), out, false);
        assertEquals(6, t.cases().size());
        assertTrue(t.cases().stream().allMatch(c -> c.notRun() == null && c.verdicts().keySet().equals(java.util.Set.of("wss", "explicit"))),
                t.cases().toString());
    }

    @Test
    void postgresDocumentedWriteSkewAtRepeatableReadIsClassifiedDocumented(@TempDir Path dir) throws Exception {
        Path schedule = dir.resolve("write-skew.txt");
        Files.writeString(schedule, String.join("\n", "-- isolation: REPEATABLE READ",
                "CREATE TABLE doctors(name VARCHAR(10) PRIMARY KEY, on_call INT);",
                "INSERT INTO doctors VALUES ('alice', 1), ('bob', 1);",
                "T1: BEGIN", "T2: BEGIN",
                "T1: SELECT count(*) FROM doctors WHERE on_call = 1",
                "T2: SELECT count(*) FROM doctors WHERE on_call = 1",
                "T1: UPDATE doctors SET on_call = 0 WHERE name = 'alice'",
                "T2: UPDATE doctors SET on_call = 0 WHERE name = 'bob'",
                "T1: COMMIT", "T2: COMMIT", ""));
        Path out = dir.resolve("out");
        JudgeSuite.Table t = run("postgres", List.of(schedule), out);
        assertEquals(0, t.bugCandidates(), Files.readString(out.resolve("judge-suite.md")));
        JudgeSuite.CaseRow row = t.cases().get(0);
        assertTrue(row.verdicts().get("isolation").startsWith("documented") && row.verdicts().get("isolation").contains("write-skew"), row.toString());
    }

    @Test
    void aPublishedLostUpdateIsABugCandidateWithAReducedFinding(@TempDir Path dir) throws Exception {
        Path schedule = dir.resolve("lost-update.txt");
        Files.copy(Path.of("src/test/resources/imports/schedules/duckdb-lost-update.txt"), schedule);
        Path out = dir.resolve("out");
        JudgeSuite.Table t = run("duckdb", List.of(schedule), out);
        assertEquals(1, t.bugCandidates(), Files.readString(out.resolve("judge-suite.md")));
        JudgeSuite.CaseRow row = t.cases().get(0);
        assertTrue(row.verdicts().get("wss").startsWith("bug-candidate"), row.toString());
        // instrumented, the isolation oracle sees it too
        assertTrue(row.verdicts().get("isolation").startsWith("bug-candidate"), row.toString());
        assertEquals("findings/lost-update.txt-1", row.finding());
        // the finding comes back in the form it was imported in
        assertTrue(Files.exists(out.resolve("findings/lost-update.txt-1/reproduce.txt")));
        assertTrue(Files.exists(out.resolve("findings/lost-update.txt-1/case.json")));
    }
}
