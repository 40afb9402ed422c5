package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One real H2 run (seed 1, whose first unique bug candidate is case 156, a READ COMMITTED write skew
 * WriteCheck reports) that stops at it with --max-bugs 1: the summary, the end event and the last
 * line say why it stopped; the progress line names the reduction while it runs (as a line and an
 * event, never by timing); and the finding's case.json records the engine build it was found on.
 */
class RunStopsAndStepsTest {
    @Test
    void maxBugsStopsAtTheFirstUniqueBugCandidateAndEveryStepIsShown(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("out");
        CliTest.Result r = CliTest.run("run", "--tests", "300", "--seed", "1", "--max-bugs", "1", "--out", out.toString());
        assertEquals(1, r.code(), r.toString());
        JsonNode summary = CliTest.json(out.resolve("summary.json"));
        assertEquals("max-bugs", summary.get("endedBy").asText(), summary.toString());
        assertEquals(1, summary.get("uniqueBugCandidates").asLong());
        long cases = summary.get("cases").asLong();
        assertTrue(cases < 300, "stopped before --tests: " + cases);
        List<String> lines = r.out().lines().toList();
        String last = lines.get(lines.size() - 1);
        assertTrue(last.startsWith("done: stopped at 1 unique bug candidate (--max-bugs) after " + cases + " cases"), last);
        List<JsonNode> events = Files.readAllLines(out.resolve("events.jsonl")).stream().map(CliTest::jsonText).toList();
        JsonNode end = events.get(events.size() - 1);
        assertEquals("end", end.get("event").asText());
        assertEquals("max-bugs", end.get("endedBy").asText());
        JsonNode lastFinding = events.stream().filter(e -> e.get("event").asText().equals("finding")
                && e.get("classification").asText().equals("bug-candidate") && e.get("duplicateOf").isNull()).findFirst().orElseThrow();
        String candidate = lastFinding.get("id").asText();
        // the reduction of each finding is an event and a progress line naming it, printed as it starts
        assertTrue(events.stream().anyMatch(e -> e.get("event").asText().equals("step") && e.get("step").asText().equals("reducing")
                && e.get("finding").asText().equals(candidate)), "a step event for reducing " + candidate);
        // the line lists every step in progress, by worker: another worker's confirmation may follow it ("; reducing h2-RC-s1-i156;
        // confirming iteration 186 …", seen once in a clean clone's suite)
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("[") && (l.endsWith("; reducing " + candidate + " …")
                || l.contains("; reducing " + candidate + "; ") && l.endsWith(" …"))), r.out());
        // its case says which build it was found on, in the engine's words and as a release --version takes
        JsonNode engine = CliTest.json(out.resolve("findings").resolve(candidate).resolve("case.json")).get("engine");
        assertEquals("h2", engine.get("dbms").asText());
        assertEquals(summary.get("version").asText(), engine.get("version").asText());
        assertEquals(txfuzz.dbms.versions.BundledVersions.of("h2"), engine.get("release").asText());
        // the README's examples name findings of its own documented run (`run --tests 300 --seed 1`): this run is its start
        java.util.regex.Matcher named = java.util.regex.Pattern.compile("h2-[A-Z]+-s1-i\\d+").matcher(Files.readString(Path.of("README.md")));
        while (named.find()) {
            assertTrue(Files.isDirectory(out.resolve("findings").resolve(named.group())), "README names " + named.group() + ", which the run did not file");
        }
    }

    @Test
    void maxBugsBelowOneIsAOneLineError() {
        CliTest.Result r = CliTest.run("run", "--max-bugs", "0");
        assertEquals(2, r.code(), r.toString());
        assertEquals("txfuzz: --max-bugs must be at least 1, not 0", r.err().strip());
    }
}
