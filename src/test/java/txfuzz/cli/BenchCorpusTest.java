package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.campaign.Corpus;

/** {@code txfuzz bench --corpus} as a user runs it, on the embedded engines' entries (real engines). */
class BenchCorpusTest {
    /** Table rows of the corpus entries of {@code engine}: "| id | engine | version | ...". */
    private static List<String> rows(String out, String engine) {
        return out.lines().filter(l -> l.startsWith("| ") && l.contains(" | " + engine + " | ")).toList();
    }

    @Test
    void replaysTheChosenEnginesEntriesAndPrintsRecall(@TempDir Path dir) {
        CliTest.Result r = CliTest.run("bench", "--corpus", "--dbms", "sqlite,duckdb", "--out", dir.toString());
        assertEquals(0, r.code(), r.toString());
        List<String> duckdb = rows(r.out(), "duckdb");
        long inIndex = Corpus.load().entries().stream().filter(e -> e.engine().equals("duckdb")).count();
        assertEquals(inIndex, duckdb.size(), r.out());
        assertEquals(1, rows(r.out(), "sqlite").size(), r.out());
        assertTrue(rows(r.out(), "h2").isEmpty(), "only the engines asked for: " + r.out());
        // every row names the engine's exact version and says it replays as recorded
        for (String row : duckdb) {
            assertTrue(row.contains("| DuckDB v1.4.4 |") && row.endsWith("| yes |"), row);
        }
        assertTrue(r.out().contains("| duckdb-key-change-lost-update | duckdb | DuckDB v1.4.4 | SNAPSHOT | bug | bug-candidate | bug-candidate |"),
                r.out());
        // DuckDB's three bug entries are found (#17223, published independently, among them); its documented and correct entries and SQLite's are no bug candidate
        assertTrue(r.out().contains("recall: 3/3 published bugs that reproduce on the shipped versions are bug candidates (duckdb 3/3)"), r.out());
        assertTrue(r.out().contains("recall on bugs published independently of txfuzz: 1/1"), r.out());
        assertTrue(r.out().contains("false bug candidates: 0/3 correct or documented entries (2 correct, 1 documented)"), r.out());
        assertTrue(r.out().contains("replayed as the corpus records them: 6/6"), r.out());
        assertFalse(r.out().contains("Campaign check"), "no campaigns unless asked: " + r.out());
        assertFalse(Files.exists(dir.resolve("corpus")), "replays write nothing");
    }

    @Test
    void aShortCampaignPerReproducingBugGivesARow(@TempDir Path dir) {
        CliTest.Result r = CliTest.run("bench", "--corpus", "--dbms", "duckdb", "--corpus-campaigns", "2s", "--seed", "3", "--out", dir.toString());
        assertEquals(0, r.code(), r.toString());
        String campaigns = r.out().substring(r.out().indexOf("Campaign check"));
        assertTrue(campaigns.startsWith("Campaign check: a 2s campaign per published bug that reproduces"), campaigns);
        Pattern row = Pattern.compile("^\\| (duckdb-[a-z0-9-]+) \\| duckdb \\| DuckDB v1\\.4\\.4 \\| SNAPSHOT \\| wss,explicit \\| 2s \\| (\\d+) \\| (.+?) \\| (yes \\(\\d+ findings?\\)|no) \\| ",
                Pattern.MULTILINE);
        Matcher m = row.matcher(campaigns);
        int rows = 0;
        while (m.find()) {
            rows++;
            assertTrue(Integer.parseInt(m.group(2)) > 0, "the campaign ran cases: " + m.group());
            assertTrue(m.group(3).startsWith("wss/"), "the kinds sought are the entry's bug candidates: " + m.group());
            // the bugs share one setting, so one campaign, written where the header says
            assertTrue(Files.exists(dir.resolve("corpus").resolve("duckdb-SNAPSHOT-default-wss+explicit").resolve("summary.json")), m.group(1));
        }
        // the campaign's summary names the build it ran on: the entries' version, not the bundled one
        com.fasterxml.jackson.databind.JsonNode engine = CliTest.json(dir.resolve("corpus/duckdb-SNAPSHOT-default-wss+explicit/summary.json"))
                .get("meta").get("engine");
        assertEquals("1.4.4.0", engine.get("mavenVersion").asText(), engine.toString());
        assertEquals("org.duckdb:duckdb_jdbc", engine.get("artifact").asText(), engine.toString());
        assertEquals(3, rows, "one row per DuckDB bug: " + campaigns);
    }

    @Test
    void badInputIsAOneLineError(@TempDir Path dir) {
        for (String[] args : List.of(new String[] {"bench", "--corpus-campaigns", "5s"},
                new String[] {"bench", "--corpus", "--dbms", "nope"},
                new String[] {"bench", "--corpus", "--runner"},
                new String[] {"bench", "--corpus", "--dbms", "h2", "--corpus-campaigns", "soon"},
                new String[] {"bench", "--corpus", "--dbms", "h2", "--corpus-campaigns", "0s"})) {
            String[] withOut = java.util.stream.Stream.concat(java.util.Arrays.stream(args), java.util.stream.Stream.of("--out", dir.toString()))
                    .toArray(String[]::new);
            CliTest.Result r = CliTest.run(withOut);
            assertEquals(2, r.code(), String.join(" ", args) + ": " + r);
            assertEquals(1, r.err().lines().count(), r.err());
            assertTrue(r.err().startsWith("txfuzz: "), r.err());
            assertEquals("", r.out(), "nothing printed before the error: " + r.out());
        }
    }
}
