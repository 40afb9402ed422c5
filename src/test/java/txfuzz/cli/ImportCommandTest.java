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

    /** Two plain schedules that name their DBMS (H2, in process) and level in header lines, as a user's folder would hold them. */
    private static java.util.List<Path> twoSchedules(Path dir) throws Exception {
        Path lost = dir.resolve("lost.txt");
        Files.writeString(lost, String.join("\n", "-- dbms: h2", "-- isolation: READ COMMITTED", "CREATE TABLE t(k INT PRIMARY KEY, v INT);",
                "INSERT INTO t VALUES (1, 10);", "T1: BEGIN", "T2: BEGIN", "T1: SELECT v FROM t WHERE k = 1", "T2: SELECT v FROM t WHERE k = 1",
                "T1: UPDATE t SET v = 11 WHERE k = 1", "T1: COMMIT", "T2: UPDATE t SET v = 12 WHERE k = 1", "T2: COMMIT", ""));
        Path skew = dir.resolve("skew.txt");
        Files.writeString(skew, String.join("\n", "-- dbms: h2", "-- isolation: SERIALIZABLE", "CREATE TABLE t(k INT PRIMARY KEY, v INT);",
                "INSERT INTO t VALUES (1, 10), (2, 20);", "T1: BEGIN", "T2: BEGIN", "T1: SELECT v FROM t", "T2: SELECT v FROM t",
                "T1: UPDATE t SET v = 11 WHERE k = 1", "T2: UPDATE t SET v = 21 WHERE k = 2", "T1: COMMIT", "T2: COMMIT", ""));
        return java.util.List.of(lost, skew);
    }

    /** The paths an import's output says it wrote ("  wrote PATH" lines, a note after the path in parentheses). */
    private static java.util.List<Path> wrote(String out) {
        return out.lines().filter(l -> l.startsWith("  wrote ")).map(l -> Path.of(l.substring("  wrote ".length()).replaceFirst(" \\(plain: .*$", "")))
                .toList();
    }

    @Test
    void itWritesTheCaseFilesItListsAndReplayRunsEach(@TempDir Path dir) throws Exception {
        java.util.List<Path> inputs = twoSchedules(dir);
        Path out = dir.resolve("cases");
        CliTest.Result r = CliTest.run("import", inputs.get(0).toString(), inputs.get(1).toString(), "--out", out.toString());
        assertEquals(0, r.code(), r.toString());
        java.util.List<Path> listed = wrote(r.out());
        assertEquals(java.util.List.of(out.resolve("lost.txt-1.case.json"), out.resolve("skew.txt-1.case.json")), listed, r.out());
        assertTrue(r.out().contains("Wrote 2 case files into " + out), r.out());
        try (var files = Files.list(out)) {
            assertEquals(java.util.Set.copyOf(listed), files.collect(java.util.stream.Collectors.toSet()), "exactly the files it listed");
        }
        for (Path p : listed) {
            TestCase c = CaseJson.read(p);
            assertEquals("h2", c.dbms(), p.toString()); // from the -- dbms: line: no --dbms given
            assertTrue(txfuzz.reduce.TrackingStripper.tracked(c), "instrumented: " + p);
            CliTest.Result replay = CliTest.run("replay", "--quiet", p.toString());
            assertTrue(replay.code() == 0 || replay.code() == 1, p + ": " + replay);
            assertTrue(replay.out().contains("Verdict: "), replay.out());
        }
    }

    @Test
    void plainKeepsTheScheduleUninstrumented(@TempDir Path dir) throws Exception {
        Path schedule = twoSchedules(dir).get(0);
        CliTest.Result plain = CliTest.run("import", "--plain", schedule.toString(), "--out", dir.resolve("plain").toString());
        CliTest.Result tracked = CliTest.run("import", schedule.toString(), "--out", dir.resolve("tracked").toString());
        assertEquals(0, plain.code(), plain.toString());
        assertEquals(0, tracked.code(), tracked.toString());
        TestCase asImported = Importer.read(schedule, Importer.Options.defaults()).cases().get(0).testCase();
        TestCase p = CaseJson.read(dir.resolve("plain/lost.txt-1.case.json"));
        TestCase t = CaseJson.read(dir.resolve("tracked/lost.txt-1.case.json"));
        assertEquals(asImported, p, "--plain writes the schedule as imported");
        assertFalse(txfuzz.reduce.TrackingStripper.tracked(p));
        assertTrue(p.transactions().stream().flatMap(x -> x.statements().stream()).allMatch(s -> s.tracking() == null));
        assertTrue(txfuzz.reduce.TrackingStripper.tracked(t), "without --plain the case gets row tracking");
        assertFalse(p.equals(t));
    }

    @Test
    void itRefusesToOverwriteWhatItDidNotWrite(@TempDir Path dir) throws Exception {
        java.util.List<Path> inputs = twoSchedules(dir);
        Path out = dir.resolve("cases");
        Files.createDirectories(out);
        Path mine = out.resolve("skew.txt-1.case.json"); // the user's own file, named as import would name the second input's case
        Files.writeString(mine, "not txfuzz's");
        CliTest.Result r = CliTest.run("import", inputs.get(0).toString(), inputs.get(1).toString(), "--out", out.toString());
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains(mine + " exists; import into a new folder"), r.err());
        assertEquals("not txfuzz's", Files.readString(mine));
        try (var files = Files.list(out)) {
            assertEquals(java.util.List.of(mine), files.toList(), "nothing written: the check comes before any case file");
        }
        // two inputs of the same name would write the same case file: refused before either is written
        Path other = dir.resolve("other");
        Files.createDirectories(other);
        Files.copy(inputs.get(0), other.resolve("lost.txt"));
        Path out2 = dir.resolve("cases2");
        CliTest.Result twice = CliTest.run("import", inputs.get(0).toString(), other.resolve("lost.txt").toString(), "--out", out2.toString());
        assertEquals(2, twice.code(), twice.toString());
        assertTrue(twice.err().contains("two files named lost.txt would write"), twice.err());
        assertFalse(Files.exists(out2.resolve("lost.txt-1.case.json")));
    }
}
