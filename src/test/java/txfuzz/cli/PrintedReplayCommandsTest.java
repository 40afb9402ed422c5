package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replay command each finding's report prints reproduces the finding's verdict: a fixed-seed
 * H2 campaign, then every unique finding's printed command, run as printed.
 */
class PrintedReplayCommandsTest {
    @Test
    void everyUniqueFindingsPrintedReplayCommandGivesItsVerdict(@TempDir Path out) throws Exception {
        checkReplays(out, 3, "run", "--tests", "160", "--seed", "1", "--out", out.toString());
    }

    /**
     * The isolation oracle's findings too: their cases carry row tracking, and the command names the oracle. 1,000 cases,
     * not 300: seed 1's first 300 give a single finding, a race that a loaded machine's run can miss (a clean-clone CI run
     * filed none); 1,000 give three.
     */
    @Test
    void isolationFindingsToo(@TempDir Path out) throws Exception {
        checkReplays(out, 1, "run", "--oracle", "isolation", "--isolation", "READ_COMMITTED,REPEATABLE_READ", "--tests", "1000", "--seed", "1",
                "--out", out.toString());
    }

    private static void checkReplays(Path out, int atLeast, String... campaign) throws Exception {
        CliTest.Result run = CliTest.run(campaign);
        assertTrue(run.code() == Main.OK || run.code() == Main.FOUND, run.toString());
        JsonNode summary = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
        List<JsonNode> unique = new ArrayList<>();
        summary.get("findings").forEach(f -> {
            if (f.get("primary").asBoolean() && f.get("duplicateOf").isNull() && !"flaky".equals(f.get("classification").asText())) {
                unique.add(f);
            }
        });
        assertTrue(unique.size() >= atLeast, "the campaign should file findings: " + unique.size());
        for (JsonNode f : unique) {
            Path dir = out.resolve(f.get("dir").asText());
            String report = Files.readString(dir.resolve("README.md"));
            String command = report.lines().filter(l -> l.startsWith("./txfuzz replay ") && l.contains("/case.json")).findFirst()
                    .orElseThrow(() -> new AssertionError("no replay command in " + dir));
            List<String> args = new ArrayList<>(List.of(command.substring("./txfuzz ".length()).split(" +")));
            args.add("--quiet");
            CliTest.Result replay = CliTest.run(args.toArray(String[]::new));
            // the kind and classification: the summary's figures are the case as found, case.json may be its reduction
            // (the isolation oracle spells its kinds in words there: "read skew at REPEATABLE READ: …")
            String verdict = "Verdict: " + f.get("classification").asText() + ": ";
            String kind = f.get("kind").asText();
            assertTrue(replay.out().lines().anyMatch(l -> l.startsWith(verdict) && (l.contains(kind) || l.contains(kind.replace('-', ' ')))),
                    f.get("id").asText() + ": `" + command + "` should give\n" + verdict + kind + "\nbut gave\n"
                    + replay.out() + replay.err());
            assertEquals(f.get("classification").asText().equals("bug-candidate") ? Main.FOUND : Main.OK, replay.code(), replay.toString());
        }
    }
}
