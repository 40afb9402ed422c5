package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the user reads when something is wrong or when a run reports: the field at fault rather than
 * the JSON library's internals, the valid names with a wrong one, what was not set, and counts whose
 * words mean the same on the progress lines and the last line.
 */
class MessagesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path A_CASE = Path.of("src/main/resources/corpus/bugs/h2-merge-hang-read-uncommitted.case.json");

    private static CliTest.Result usage(CliTest.Result r, String expected) {
        assertEquals(Main.USAGE, r.code(), r.toString());
        assertEquals(1, r.err().lines().count(), "one line: " + r.err());
        assertTrue(r.err().contains(expected), "expected '" + expected + "' in: " + r.err());
        for (String internal : List.of("DeserializationConfig", "java.util", "java.lang", "Exception", "`")) {
            assertFalse(r.err().contains(internal), "no library internals (" + internal + "): " + r.err());
        }
        return r;
    }

    @Test
    void aMalformedCaseNamesTheFieldAndWhatItMustBe(@TempDir Path dir) throws Exception {
        ObjectNode c = (ObjectNode) JSON.readTree(A_CASE.toFile());
        c.remove("iteration");
        Path missing = dir.resolve("missing.case.json");
        Files.writeString(missing, c.toString());
        usage(CliTest.run("replay", missing.toString()), "field 'iteration' is missing; it must be a whole number");

        c = (ObjectNode) JSON.readTree(A_CASE.toFile());
        c.put("seed", "soon");
        Path wrong = dir.resolve("wrong.case.json");
        Files.writeString(wrong, c.toString());
        usage(CliTest.run("replay", wrong.toString()), "field 'seed' must be a whole number");

        c = (ObjectNode) JSON.readTree(A_CASE.toFile());
        c.put("setup", 3);
        Path notAList = dir.resolve("setup.case.json");
        Files.writeString(notAList, c.toString());
        usage(CliTest.run("replay", notAList.toString()), "field 'setup' must be a list");

        c = (ObjectNode) JSON.readTree(A_CASE.toFile());
        c.put("colour", "blue");
        Path unknown = dir.resolve("unknown.case.json");
        Files.writeString(unknown, c.toString());
        usage(CliTest.run("replay", unknown.toString()), "unknown field 'colour'");
    }

    @Test
    void aHistoryThatIsNotTextOrHoldsNothingIsAnError(@TempDir Path dir) throws Exception {
        Path binary = dir.resolve("binary.jsonl");
        Files.write(binary, new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1, (byte) 0x80, (byte) 0xc3});
        usage(CliTest.run("check", binary.toString(), "--level", "SERIALIZABLE"), "is not UTF-8 text");

        Path empty = dir.resolve("empty.jsonl");
        Files.writeString(empty, "");
        usage(CliTest.run("check", empty.toString(), "--level", "SERIALIZABLE"), "holds no transactions: there is nothing to check");

        Path headerOnly = dir.resolve("header.jsonl");
        Files.writeString(headerOnly, "{\"format\":\"txfuzz-history\",\"version\":1,\"meta\":{\"level\":\"SERIALIZABLE\"}}\n");
        usage(CliTest.run("check", headerOnly.toString()), "holds no transactions");
    }

    @Test
    void anUnknownLevelForCheckListsTheLevels(@TempDir Path dir) throws Exception {
        Path h = dir.resolve("h.jsonl");
        Files.writeString(h, "{\"id\":1,\"session\":1,\"seq\":0,\"outcome\":\"committed\",\"sql\":[\"SELECT 1\"],\"ops\":[]}\n");
        usage(CliTest.run("check", h.toString(), "--level", "snapshot-serializable"),
                "unknown isolation level 'snapshot-serializable' in --level; levels: READ_UNCOMMITTED, READ_COMMITTED");
    }

    @Test
    void aServerGivenByUrlIsNotSaidToBeStartedAndAnUnsetPasswordIsNamed() {
        CliTest.Result r = usage(CliTest.run("run", "--dbms", "postgres", "--url", "jdbc:postgresql://127.0.0.1:1/postgres", "--user", "me",
                "--password-env", "TXFUZZ_TEST_UNSET_PASSWORD", "--tests", "1"), "is not set");
        assertFalse(r.err().contains("cannot start"), "nothing was started: " + r.err());
    }

    /** The progress line and the last line count violations, findings and unique findings in the same words, in the right number. */
    @Test
    void progressAndDoneCountTheSameThingsInTheSameWords(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("o");
        CliTest.Result r = CliTest.run("run", "--dbms", "h2", "--isolation", "READ_UNCOMMITTED", "--seed", "1", "--tests", "20", "--reduce-time", "0", "--not-promised",
                "--out", out.toString());
        assertTrue(r.code() <= Main.FOUND, r.toString());
        JsonNode s = JSON.readTree(out.resolve("summary.json").toFile());
        long violations = s.path("bugCandidates").asLong() + s.path("documented").asLong() + s.path("flaky").asLong();
        long findings = s.path("uniqueFindings").asLong() + s.path("duplicates").asLong();
        assertTrue(findings > 1, "the run filed findings (precondition): " + r.out());
        String counted = violations + " violation" + (violations == 1 ? "" : "s") + " (" + s.path("bugCandidates").asLong() + " bug candidate"
                + (s.path("bugCandidates").asLong() == 1 ? "" : "s") + ", " + s.path("documented").asLong() + " documented, "
                + s.path("flaky").asLong() + " flaky) in " + findings + " findings: " + s.path("uniqueFindings").asLong() + " unique";
        List<String> lines = r.out().lines().toList();
        String done = lines.stream().filter(l -> l.startsWith("done: ")).findFirst().orElseThrow(() -> new AssertionError(r.out()));
        assertTrue(done.startsWith("done: 20 cases in "), done);
        assertTrue(done.contains(counted), "'" + counted + "' in " + done);
        String lastProgress = lines.stream().filter(l -> l.startsWith("[")).reduce((a, b) -> b).orElseThrow(() -> new AssertionError(r.out()));
        assertTrue(lastProgress.contains("20 cases (") && lastProgress.contains(counted), "'" + counted + "' in " + lastProgress);

        CliTest.Result one = CliTest.run("run", "--dbms", "h2", "--seed", "3", "--tests", "1", "--out", dir.resolve("one").toString());
        String oneDone = one.out().lines().filter(l -> l.startsWith("done: ")).findFirst().orElseThrow(() -> new AssertionError(one.out()));
        assertTrue(oneDone.startsWith("done: 1 case in "), oneDone);
    }
}
