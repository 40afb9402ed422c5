package txfuzz.dbms.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.cli.Main;

/** A short campaign through the command line, as a user runs it: txfuzz starts PostgreSQL, tests it, stops it. */
class PostgresCampaignTest {
    @Test
    void aShortRunOnAStartedServerWritesItsSummary(@TempDir Path dir) throws Exception {
        PrintStream oldOut = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            code = Main.execute("run", "--dbms", "postgres", "--isolation", "all", "--tests", "30", "--seed", "11",
                    "--execution", "mixed", "--out", dir.toString());
        } finally {
            System.setOut(oldOut);
        }
        String printed = out.toString(StandardCharsets.UTF_8);
        System.out.print(printed);
        assertTrue(code == 0 || code == 1, "exit " + code + ": " + printed);
        JsonNode summary = new ObjectMapper().readTree(dir.resolve("summary.json").toFile());
        assertEquals("postgres", summary.get("dbms").asText());
        assertTrue(summary.get("version").asText().startsWith("PostgreSQL " + Binaries.bundled().version()), summary.toString());
        assertEquals(30, summary.get("cases").asInt());
        assertEquals(0, summary.get("invalidCases").asInt(), summary.toString());
        assertTrue(summary.get("invalidStatementShare").asDouble() < 0.10, summary.toString());
        assertEquals(0, summary.get("stalls").asInt(), summary.toString());
    }
}
