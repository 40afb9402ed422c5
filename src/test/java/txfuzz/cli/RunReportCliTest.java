package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

/** {@code run --report junit}, the command line summary.json records, and events.jsonl, as a user gets them. */
class RunReportCliTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void runWritesJunitXmlAndRecordsItsCommandLine(@TempDir Path dir) throws Exception {
        String[] args = {"run", "--tests", "10", "--seed", "7", "--reduce-time", "0", "--report", "junit", "--out", dir.toString()};
        CliTest.Result r = CliTest.run(args);
        assertTrue(r.code() == Main.OK || r.code() == Main.FOUND, r.toString());
        JsonNode summary = JSON.readTree(dir.resolve("summary.json").toFile());
        List<String> expected = new java.util.ArrayList<>(List.of("txfuzz"));
        expected.addAll(List.of(args));
        assertEquals(expected, JSON.convertValue(summary.get("meta").get("commandLine"), List.class));

        Document d = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(dir.resolve("junit.xml").toFile());
        int testcases = d.getElementsByTagName("testcase").getLength();
        int unique = summary.get("uniqueFindings").asInt();
        assertEquals(Math.max(unique, 1), testcases, "a testcase per unique finding, or the one for the campaign");
        assertEquals(summary.get("uniqueBugCandidates").asInt(), d.getElementsByTagName("failure").getLength());
        // the exit code and the report agree: a bug candidate fails the build either way
        assertEquals(r.code() == Main.FOUND, d.getElementsByTagName("failure").getLength() > 0);

        List<String> lines = Files.readAllLines(dir.resolve("events.jsonl"));
        long caseLines = lines.stream().map(RunReportCliTest::tree).filter(e -> e.get("event").asText().equals("case")).count();
        assertEquals(10, caseLines + summary.get("invalidCases").asInt(), "a line per case, invalid ones included");
    }

    @Test
    void anotherEngineVersionIsRecordedAsTheMavenVersionAskedFor(@TempDir Path dir) {
        CliTest.Result r = CliTest.run("run", "--dbms", "h2", "--version", "2.3.232", "--tests", "3", "--seed", "3", "--reduce-time", "0",
                "--out", dir.toString());
        assertTrue(r.code() == Main.OK || r.code() == Main.FOUND, r.toString());
        JsonNode engine = CliTest.json(dir.resolve("summary.json")).get("meta").get("engine");
        assertEquals("maven-central", engine.get("source").asText(), engine.toString());
        assertEquals("com.h2database:h2", engine.get("artifact").asText());
        assertEquals("2.3.232", engine.get("mavenVersion").asText());
        assertEquals("2.3.232", engine.get("asked").asText());
        assertTrue(engine.get("version").asText().startsWith("H2 2.3.232"), engine.toString());
    }

    @Test
    void withoutReportJunitThereIsNoJunitXml(@TempDir Path dir) {
        CliTest.Result r = CliTest.run("run", "--tests", "2", "--seed", "7", "--out", dir.toString());
        assertTrue(r.code() == Main.OK || r.code() == Main.FOUND, r.toString());
        assertFalse(Files.exists(dir.resolve("junit.xml")));
        assertTrue(Files.exists(dir.resolve("events.jsonl")));
    }

    @Test
    void anUnknownReportFormatIsAUsageErrorBeforeAnythingRuns(@TempDir Path dir) {
        CliTest.Result r = CliTest.run("run", "--report", "junit,html", "--out", dir.resolve("out").toString());
        assertEquals(Main.USAGE, r.code(), r.toString());
        assertTrue(r.err().contains("unknown report format 'html' for --report; known: junit"), r.err());
        assertFalse(Files.exists(dir.resolve("out/summary.json")));
    }

    @Test
    void secretsInAUrlAreMaskedInTheRecordedCommandLine() {
        List<String> recorded = RecordedCommandLine.of(List.of("run", "--dbms", "postgres", "--url",
                "jdbc:postgresql://me:hunter2@db:5432/x?ssl=true&password=s3cret&sslpassword=k3y", "--user", "me",
                "--url=jdbc:mariadb://db/x?user=me&password=pw2", "--seed", "1"));
        String all = String.join(" ", recorded);
        for (String secret : new String[] {"hunter2", "s3cret", "k3y", "pw2"}) {
            assertFalse(all.contains(secret), all);
        }
        assertEquals(List.of("txfuzz", "run", "--dbms", "postgres", "--url",
                "jdbc:postgresql://me:***@db:5432/x?ssl=true&password=***&sslpassword=***", "--user", "me",
                "--url=jdbc:mariadb://db/x?user=me&password=***", "--seed", "1"), recorded);
    }

    private static JsonNode tree(String line) {
        try {
            return JSON.readTree(line);
        } catch (java.io.IOException e) {
            throw new AssertionError("not JSON: " + line, e);
        }
    }
}
