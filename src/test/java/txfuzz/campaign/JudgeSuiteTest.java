package txfuzz.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.imports.Importer;

/** judge-suite on real engines: PostgreSQL's own specs pass on PostgreSQL; a published lost update is a bug candidate, reduced and filed. */
class JudgeSuiteTest {
    static final Path SPECS = Path.of("src/test/resources/imports/pg-isolation");

    private static JudgeSuite.Table run(String dbms, List<Path> files, Path out) throws Exception {
        try (Target target = Targets.create(dbms); Executor executor = new Executor(target, ExecutorConfig.defaults())) {
            var config = new JudgeSuite.Config(Importer.Options.defaults(), Duration.ofSeconds(20), true);
            return new JudgeSuite(config, target, executor, out).run(files, line -> { });
        }
    }

    @Test
    void postgresPassesItsOwnSpecs(@TempDir Path out) throws Exception {
        List<Path> files = List.of("simple-write-skew.spec", "read-write-unique-4.spec", "insert-conflict-do-update.spec", "nowait-2.spec",
                "skip-locked-3.spec", "receipt-report.spec").stream().map(SPECS::resolve).toList();
        JudgeSuite.Table t = run("postgres", files, out);
        assertEquals(0, t.bugCandidates(), Files.readString(out.resolve("judge-suite.md")));
        // 6 + 3 + 2 + 3 + 1 cases, every one judged by wss and explicit; receipt-report's 210 are skipped with their reason
        assertEquals(15, t.cases().size());
        assertTrue(t.cases().stream().allMatch(c -> c.notRun() == null && c.verdicts().keySet().equals(java.util.Set.of("wss", "explicit"))),
                t.cases().toString());
        String md = Files.readString(out.resolve("judge-suite.md"));
        assertTrue(md.contains("| receipt-report.spec | isolation-spec | 210 | 0 | 0 | 210 × a BEGIN this engine's cases do not run (BEGIN READ ONLY)"), md);
        assertTrue(Files.exists(out.resolve("judge-suite.json")));
        assertTrue(Files.exists(out.resolve("cases/simple-write-skew.spec-1.case.json")));
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
        assertEquals("findings/lost-update.txt-1", row.finding());
        // the finding comes back in the form it was imported in
        assertTrue(Files.exists(out.resolve("findings/lost-update.txt-1/reproduce.txt")));
        assertTrue(Files.exists(out.resolve("findings/lost-update.txt-1/case.json")));
    }
}
