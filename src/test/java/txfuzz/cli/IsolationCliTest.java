package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The isolation oracle from the command line: run (controlled and concurrent) and isolation-table. */
class IsolationCliTest {
    @Test
    void runWithTheIsolationOracleWritesASummaryWithAnomalyKinds(@TempDir Path out) throws Exception {
        CliTest.Result r = CliTest.run("run", "--oracle", "isolation", "--dbms", "h2", "--isolation", "SERIALIZABLE", "--tests", "150", "--seed", "3",
                "--out", out.toString(), "--progress", "1h");
        assertTrue(r.code() == 0 || r.code() == 1, r.toString());
        JsonNode s = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
        assertEquals(150, s.get("cases").asInt());
        assertEquals("isolation", s.get("oracles").get(0).asText());
        // 150 cases at SERIALIZABLE show H2's documented write skew family (write skew, G2-item, or G2 through a predicate read)
        JsonNode f = s.get("findings").get(0);
        assertEquals("isolation", f.get("oracle").asText());
        assertEquals("documented", f.get("classification").asText(), f.toString());
        assertTrue(java.util.Set.of("write-skew", "G2-item", "G2").contains(f.get("kind").asText()), f.toString());
        Path dir = out.resolve(f.get("dir").asText());
        assertTrue(Files.exists(dir.resolve("history.jsonl")), "the history is kept");
        assertTrue(Files.list(dir).anyMatch(p -> p.toString().endsWith(".dot")), "the cycle is drawn");
    }

    @Test
    void concurrentRunsNeedTheIsolationOracle(@TempDir Path out) {
        CliTest.Result wss = CliTest.run("run", "--sessions", "3", "--oracle", "wss", "--out", out.toString());
        assertEquals(2, wss.code(), wss.toString());
        assertTrue(wss.err().contains("only the isolation oracle"), wss.err());
        CliTest.Result many = CliTest.run("run", "--sessions", "9", "--oracle", "isolation", "--out", out.toString());
        assertEquals(2, many.code());
        assertFalse(many.err().contains("\tat "), many.err());
    }

    @Test
    void aConcurrentRunRecordsItsCases(@TempDir Path out) throws Exception {
        CliTest.Result r = CliTest.run("run", "--oracle", "isolation", "--sessions", "3", "--dbms", "h2", "--isolation", "READ_COMMITTED",
                "--tests", "20", "--seed", "1", "--out", out.toString(), "--progress", "1h");
        assertTrue(r.code() == 0 || r.code() == 1, r.toString());
        JsonNode s = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
        assertEquals(20, s.get("cases").asInt());
        assertTrue(s.get("transactions").asInt() > 60, "concurrent cases are larger: " + s.get("transactions"));
    }

    @Test
    void isolationTableTabulatesEveryLevel(@TempDir Path out) throws Exception {
        CliTest.Result r = CliTest.run("isolation-table", "--dbms", "h2", "--tests", "40", "--seed", "1", "--out", out.toString());
        assertTrue(r.code() == 0 || r.code() == 1, r.toString());
        String md = Files.readString(out.resolve("isolation-table.md"));
        for (String level : new String[] {"READ_UNCOMMITTED", "READ_COMMITTED", "REPEATABLE_READ", "SNAPSHOT", "SERIALIZABLE"}) {
            assertTrue(md.contains("| " + level + " |"), md);
        }
        assertTrue(md.contains("| lost update |") || md.contains(" lost update |"), md);
        assertTrue(Files.exists(out.resolve("isolation-table.json")));
        CliTest.Result bad = CliTest.run("isolation-table", "--sessions", "1", "--out", out.toString());
        assertEquals(2, bad.code());
    }
}
