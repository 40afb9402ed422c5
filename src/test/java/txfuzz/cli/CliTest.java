package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line as a user meets it: exit codes, one-line errors, files written. */
class CliTest {
    /** T1 reads r1 from its snapshot, T2 overwrites it and commits, T1 writes on top: a lost update (history.jsonl). */
    static final String LOST_UPDATE_HISTORY = "{\"id\":1,\"session\":1,\"seq\":0,\"outcome\":\"committed\",\"ops\":["
            + "{\"op\":\"read\",\"stmt\":1,\"table\":\"t\",\"row\":\"r1\",\"wlist\":[0]},"
            + "{\"op\":\"write\",\"stmt\":2,\"table\":\"t\",\"row\":\"r1\",\"kind\":\"update\",\"wlist\":[0,2,1]}]}\n"
            + "{\"id\":2,\"session\":2,\"seq\":0,\"outcome\":\"committed\",\"ops\":["
            + "{\"op\":\"write\",\"stmt\":1,\"table\":\"t\",\"row\":\"r1\",\"kind\":\"update\",\"wlist\":[0,2]}]}\n";

    record Result(int code, String out, String err) {
    }

    static Result run(String... args) {
        return capture(() -> Main.execute(args));
    }

    /** Runs {@code body} with System.out and System.err captured; its value is the exit code. */
    static synchronized Result capture(java.util.function.IntSupplier body) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            int code = body.getAsInt();
            return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }

    static JsonNode json(Path file) {
        try {
            return new ObjectMapper().readTree(file.toFile());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static JsonNode jsonText(String text) {
        try {
            return new ObjectMapper().readTree(text);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void assertOneLineError(Result r, String expected) {
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains(expected), r.err());
        assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
    }

    @Test
    void unknownDbmsIsAUsageError() {
        assertOneLineError(run("run", "--dbms", "oracle9"), "unknown DBMS 'oracle9'; known: h2");
    }

    @Test
    void unknownIsolationLevelIsAUsageError() {
        assertOneLineError(run("run", "--isolation", "chaos"), "unknown isolation level 'chaos'");
        assertOneLineError(run("run", "--dbms", "hsqldb", "--isolation", "RU"), "isolation level 'RU' is not offered by hsqldb");
    }

    @Test
    void unknownOracleAndBadDurationAreUsageErrors() {
        assertOneLineError(run("run", "--oracle", "magic"), "unknown oracle 'magic'");
        assertOneLineError(run("run", "--time", "soon"), "cannot read duration 'soon'");
        assertOneLineError(run("run", "--isolation", ","), "--isolation names no level");
        assertOneLineError(run("run", "--oracle", ","), "no oracle named");
        assertEquals(2, run("run", "--no-such-flag").code());
    }

    @Test
    void serverOptionsOnAnEmbeddedEngineAreAUsageError() {
        assertOneLineError(run("run", "--url", "jdbc:h2:mem:x"), "h2 runs in process");
        assertOneLineError(run("run", "--dbms", "h2", "--user", "bob"), "--user needs --url");
    }

    @Test
    void malformedOrMissingCaseFilesAreUsageErrors(@TempDir Path dir) throws Exception {
        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{ \"formatVersion\": 1, \"dbms\": \"h2\", ");
        assertOneLineError(run("replay", bad.toString()), bad + ":");
        assertOneLineError(run("replay", dir.resolve("nope.json").toString()), "no such file");
        Path noTables = dir.resolve("notables.json");
        Files.writeString(noTables, "{\"formatVersion\":1,\"dbms\":\"h2\",\"seed\":0,\"iteration\":0,\"isolation\":\"READ_COMMITTED\","
                + "\"mode\":\"default\",\"execution\":\"PLAIN\",\"tables\":null,\"setup\":[],\"transactions\":[],\"order\":[]}");
        assertOneLineError(run("replay", noTables.toString()), "the case has no 'tables'");
    }

    @Test
    void aShortRunWritesItsSummaryAndFindingsReplay(@TempDir Path dir) throws Exception {
        Result r = run("run", "--tests", "40", "--seed", "7", "--out", dir.toString());
        assertTrue(r.code() == 0 || r.code() == 1, r.toString());
        JsonNode summary = new ObjectMapper().readTree(dir.resolve("summary.json").toFile());
        assertEquals(40, summary.get("cases").asInt());
        assertEquals("h2", summary.get("dbms").asText());
        for (String field : new String[] {"transactions", "statements", "seconds", "blockedShare", "invalidStatementShare", "findings"}) {
            assertTrue(summary.has(field), field);
        }
        assertEquals(r.code() == 1, summary.get("bugCandidates").asInt() > 0);
        for (JsonNode f : summary.get("findings")) {
            Path findingDir = dir.resolve(f.get("dir").asText());
            for (String file : new String[] {"case.json", "reproduce.sql", "verdict.md"}) {
                assertTrue(Files.exists(findingDir.resolve(file)), findingDir.resolve(file).toString());
            }
            Result replay = run("replay", "--quiet", findingDir.resolve("case.json").toString());
            assertTrue(replay.code() == 0 || replay.code() == 1, replay.toString());
        }
    }

    @Test
    void checkFindsALostUpdateInARecordedHistoryAndPassesACleanOne(@TempDir Path dir) throws Exception {
        Path lost = dir.resolve("lost.jsonl");
        Files.writeString(lost, LOST_UPDATE_HISTORY);
        Result r = run("check", lost.toString(), "--level", "REPEATABLE_READ", "--out", dir.resolve("out").toString());
        assertEquals(1, r.code(), r.toString());
        assertTrue(r.out().contains("lost update"), r.out());
        assertTrue(Files.exists(dir.resolve("out/summary.json")));
        // check files its findings as run does: the same writer, the oracle's one spelling of the kind
        com.fasterxml.jackson.databind.JsonNode f = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(dir.resolve("out/summary.json").toFile()).get("findings").get(0);
        assertEquals("isolation", f.get("oracle").asText());
        assertEquals("lost-update", f.get("kind").asText());
        assertEquals("bug-candidate", f.get("classification").asText());
        txfuzz.history.History h = txfuzz.history.HistoryJson.read(lost);
        txfuzz.oracle.Violation asRun = txfuzz.oracle.isolation.IsolationOracle.violations(h, txfuzz.model.IsolationLevel.REPEATABLE_READ,
                java.util.Set.of(), null).get(0);
        txfuzz.model.TestCase someCase = txfuzz.exec.Cases.on("h2").table("t").setup("CREATE TABLE t(v INT)").txn("UPDATE t SET v = 1").order(1, 1, 1);
        try (txfuzz.dbms.h2.H2Target h2 = new txfuzz.dbms.h2.H2Target()) {
            txfuzz.report.FindingRecord runRecord = new txfuzz.report.FindingWriter(dir.resolve("run")).write("x", someCase, null, List.of(asRun), h2).get(0);
            assertEquals(runRecord.kind(), f.get("kind").asText());
            assertEquals(runRecord.oracle(), f.get("oracle").asText());
            String runVerdict = Files.readString(dir.resolve("run/findings/x/verdict.md"));
            Path checked = dir.resolve("out").resolve(f.get("dir").asText());
            String checkVerdict = Files.readString(checked.resolve("verdict.md"));
            String section = "## isolation: lost-update — bug-candidate";
            assertTrue(runVerdict.contains(section) && checkVerdict.contains(section), checkVerdict);
            assertTrue(Files.exists(checked.resolve("lost-update.dot")) && Files.exists(checked.resolve("lost-update.mmd")));
        }
        // The same writes one after another (T1 read T2's version) are serializable.
        Path clean = dir.resolve("clean.jsonl");
        Files.writeString(clean, LOST_UPDATE_HISTORY.replace("\"wlist\":[0]}", "\"wlist\":[0,2]}"));
        Result ok = run("check", clean.toString(), "--level", "SERIALIZABLE");
        assertEquals(0, ok.code(), ok.toString());
        Path bad = dir.resolve("bad.jsonl");
        Files.writeString(bad, "{oops");
        assertOneLineError(run("check", bad.toString(), "--level", "RC"), "bad.jsonl:1");
    }

    @Test
    void targetsListsEveryDbmsWithItsLevels() {
        Result r = run("targets");
        assertEquals(0, r.code());
        assertTrue(r.out().contains("h2") && r.out().contains("READ_COMMITTED"), r.out());
    }
}
