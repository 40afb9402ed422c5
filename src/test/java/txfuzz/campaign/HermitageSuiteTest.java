package txfuzz.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.dbms.TestServers;
import txfuzz.dbms.Target;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.imports.Importer;

/**
 * Hermitage's test scripts (src/test/resources/imports/hermitage, converted by convert.py: docs/imports.md) judged by
 * judge-suite against Hermitage's own claims, which each file states in its {@code -- hermitage: prevents|allows ANOMALY at
 * LEVEL} line: where Hermitage says the level prevents the anomaly, no oracle may report anything; where it says the level
 * allows it, no oracle may call it a bug candidate, and the anomalies the level's definition proscribes but the engine
 * documents are classified documented (pinned below).
 */
class HermitageSuiteTest {
    static final Path HERMITAGE = Path.of("src/test/resources/imports/hermitage");
    private static final Pattern CLAIM = Pattern.compile("(?m)^-- hermitage: (prevents|allows) (\\S+) at (.+)$");

    /** Every converted schedule imports as one case, on the engine its -- dbms: line names. */
    @Test
    void everyHermitageScriptImports() throws Exception {
        for (String folder : List.of("postgres", "mysql")) {
            List<Path> files = JudgeSuite.files(HERMITAGE.resolve(folder));
            assertEquals(folder.equals("postgres") ? 20 : 26, files.size(), folder);
            for (Path f : files) {
                Importer.FileImport imp = Importer.read(f, Importer.Options.defaults());
                assertEquals(1, imp.cases().size(), f + ": " + imp.skipped());
                assertEquals(folder.equals("postgres") ? "postgres" : "mariadb", imp.cases().get(0).testCase().dbms(), f.toString());
                Matcher claim = CLAIM.matcher(Files.readString(f));
                assertTrue(claim.find(), f + " states Hermitage's claim");
                assertEquals(claim.group(3), imp.cases().get(0).testCase().isolation().sql(), f.toString());
            }
        }
    }

    @Test
    void postgresDoesWhatHermitageSays(@TempDir Path out) throws Exception {
        List<Path> files = JudgeSuite.files(HERMITAGE.resolve("postgres"));
        JudgeSuite.Table t;
        try (Target target = TestServers.open("postgres"); Executor executor = new Executor(target, ExecutorConfig.defaults())) {
            var config = new JudgeSuite.Config(Importer.Options.defaults(), Duration.ofSeconds(10), true);
            t = new JudgeSuite(config, target, executor, out).run(files, line -> { });
        }
        String md = Files.readString(out.resolve("judge-suite.md"));
        assertEquals(20, t.cases().size(), md);
        assertEquals(0, t.bugCandidates(), md);
        Map<String, String> documented = new TreeMap<>();
        List<String> wrong = new ArrayList<>();
        for (JudgeSuite.CaseRow c : t.cases()) {
            assertEquals(null, c.notRun(), c.toString());
            Matcher claim = CLAIM.matcher(Files.readString(HERMITAGE.resolve("postgres").resolve(c.file())));
            assertTrue(claim.find(), c.file());
            boolean prevents = claim.group(1).equals("prevents");
            c.verdicts().forEach((oracle, v) -> {
                boolean clean = v.equals("pass") || v.startsWith("not applicable");
                if (prevents && !clean || v.startsWith("bug-candidate") || v.startsWith("flaky")) {
                    wrong.add(c.file() + " " + oracle + ": " + v);
                }
                if (v.startsWith("documented")) {
                    documented.put(c.file(), oracle + " " + v);
                }
            });
        }
        assertEquals(List.of(), wrong, "verdicts against Hermitage's claims:\n" + md);
        // the anomalies PostgreSQL allows where the ANSI/Adya level proscribes them, each documented in its profile
        assertEquals(Map.of("08-read-committed-allows-pmp.txt", "wss documented: tx-wss, write-outcome, stmt-wss",
                "16-repeatable-read-allows-g2-item.txt", "isolation documented: write-skew"), documented, md);
    }
}
