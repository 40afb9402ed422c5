package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.imports.Importer;
import txfuzz.model.CaseJson;
import txfuzz.model.CaseSource;
import txfuzz.model.TestCase;

/** txfuzz import as a user meets it: the case files, replay and reduce on one, the reproducer written back as it came. */
class ImportCommandTest {
    /** DuckDB's lost update (a bug candidate on the default DuckDB) as a plain schedule, with a noise statement (T3). */
    static final Path LOST_UPDATE = Path.of("src/test/resources/imports/schedules/duckdb-lost-update.txt");

    @Test
    void anImportedScheduleReplaysAndReducesAndComesBackAsASchedule(@TempDir Path dir) throws Exception {
        Path schedule = dir.resolve("lost-update.txt");
        Files.copy(LOST_UPDATE, schedule);
        Path cases = dir.resolve("cases");
        CliTest.Result imported = CliTest.run("import", schedule.toString(), "--dbms", "duckdb", "--out", cases.toString());
        assertEquals(0, imported.code(), imported.toString());
        assertTrue(imported.out().contains("lost-update.txt: 1 schedule, 1 imported, 0 skipped"), imported.out());
        Path caseFile = cases.resolve("lost-update.txt-1.case.json");
        assertEquals(new CaseSource(CaseSource.Format.SCHEDULE, "lost-update.txt", "schedule"), CaseJson.read(caseFile).source());

        CliTest.Result twice = CliTest.run("import", schedule.toString(), "--dbms", "duckdb", "--out", cases.toString());
        assertEquals(2, twice.code(), twice.toString());
        assertTrue(twice.err().contains("lost-update.txt-1.case.json exists; import into a new folder"), twice.err());

        CliTest.Result replay = CliTest.run("replay", "--quiet", caseFile.toString());
        assertEquals(1, replay.code(), replay.toString());
        assertTrue(replay.out().contains("Verdict: bug-candidate: tx-wss"), replay.out());

        Path out = dir.resolve("reduced");
        CliTest.Result reduce = CliTest.run("reduce", "--oracle", "wss", "--kind", "tx-wss", "--time", "30s", "--out", out.toString(), caseFile.toString());
        assertEquals(0, reduce.code(), reduce.toString());
        TestCase reduced = CaseJson.read(out.resolve("reduced.case.json"));
        assertEquals(CaseSource.Format.SCHEDULE, reduced.source().format());
        assertTrue(reduced.statementCount() < CaseJson.read(caseFile).statementCount(), CaseJson.write(reduced));
        // the reducer's result in the format the case came from, which import reads back as the reduced case
        Path back = out.resolve("reduced.reproduce.txt");
        assertTrue(reduce.out().contains(back.toString()), reduce.out());
        Importer.FileImport again = Importer.read(back, new Importer.Options("duckdb", null, 10));
        assertEquals(1, again.cases().size(), again.skipped().toString());
        assertEquals(reduced.transactions(), again.cases().get(0).testCase().transactions());
        assertEquals(reduced.order(), again.cases().get(0).testCase().order());
        assertEquals(reduced.setup(), again.cases().get(0).testCase().setup());
    }

    @Test
    void badInputIsOneLine(@TempDir Path dir) throws Exception {
        Path notAFormat = dir.resolve("x.sql");
        Files.writeString(notAFormat, "SELECT 1;");
        CliTest.Result r = CliTest.run("import", notAFormat.toString(), "--out", dir.resolve("o").toString());
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains("not a format txfuzz imports (.spec, .test, .txt or .schedule)"), r.err());
        assertFalse(r.err().contains("\tat "), r.err());
        CliTest.Result missing = CliTest.run("import", dir.resolve("gone.spec").toString(), "--out", dir.resolve("o").toString());
        assertEquals(2, missing.code(), missing.toString());
        assertEquals(1, missing.err().strip().lines().count(), missing.err());
        CliTest.Result level = CliTest.run("import", notAFormat.toString(), "--isolation", "sometimes", "--out", dir.resolve("o").toString());
        assertTrue(level.err().contains("unknown isolation level 'sometimes'"), level.err());
    }
}
