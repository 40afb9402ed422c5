package txfuzz.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Targets;
import txfuzz.dbms.versions.MavenCentral;
import txfuzz.exec.ExecutorConfig;
import txfuzz.gen.GenConfig;
import txfuzz.model.CaseJson;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.report.FindingRecord;

/**
 * A campaign on an older H2 (2.3.232) replays each unique bug candidate on the newest release and
 * its report says so first: the MERGE hang at READ UNCOMMITTED is gone there (fixed in 2.4.240), the
 * REPEATABLE READ key change that shows both row versions is still there (as in 2.5.252).
 */
class NewestCheckTest {
    private static TestCase corpus(String name) throws Exception {
        return CaseJson.read(Path.of("src/main/resources/corpus/bugs/" + name + ".case.json"));
    }

    @Test
    void aCampaignOnAnOlderReleaseSaysWhetherEachBugCandidateStillShowsOnTheNewest(@TempDir Path out) throws Exception {
        List<String> releases = MavenCentral.get().versions(Targets.engine("h2").artifact().orElseThrow()).releases();
        String newest = releases.get(releases.size() - 1);
        Optional<NewestCheck> check = NewestCheck.forRun("h2", TargetOptions.version("2.3.232"));
        assertEquals(Optional.of(new NewestCheck(newest)), check);
        assertEquals(Optional.empty(), NewestCheck.forRun("h2", TargetOptions.version("newest")), "the newest needs no check");

        List<TestCase> cases = List.of(corpus("h2-merge-hang-read-uncommitted"), corpus("h2-rr-key-change-both-versions"));
        CampaignConfig config = new CampaignConfig(List.of(IsolationLevel.READ_UNCOMMITTED), List.of(), List.of("wss", "explicit", "isolation"),
                cases.size(), null, 1, out, GenConfig.defaults(), ExecutorConfig.defaults(), null, CampaignConfig.Execution.PLAIN, Duration.ZERO);
        Summary s;
        try (Target old = Targets.create("h2", TargetOptions.version("2.3.232"))) {
            s = new Campaign(old, config, new PrintStream(OutputStream.nullOutputStream()), (level, mode, i) -> cases.get((int) i))
                    .checkingNewest(check.orElseThrow()).run();
        }
        assertEquals(2, s.uniqueBugCandidates(), s.signatures().toString());
        List<FindingRecord> primaries = s.findings().stream().filter(FindingRecord::primary).toList();
        assertEquals(2, primaries.size(), primaries.toString());
        FindingRecord hang = primaries.get(0);
        FindingRecord keyChange = primaries.get(1);
        assertEquals("hang", hang.kind(), hang.toString());
        assertEquals("does not show it", hang.onNewest().outcome(), hang.toString());
        assertEquals(newest, hang.onNewest().version());
        assertEquals("shows it", keyChange.onNewest().outcome(), keyChange.toString());
        // each check is a step of its own in events.jsonl (the progress lines name it while it runs)
        List<String> steps = Files.readAllLines(out.resolve("events.jsonl")).stream().filter(l -> l.contains("\"event\":\"step\"")).toList();
        for (FindingRecord f : primaries) {
            assertTrue(steps.stream().anyMatch(l -> l.contains("\"step\":\"checking-newest\"") && l.contains("\"finding\":\"" + f.id() + "\"")),
                    f.id() + ": " + steps);
        }

        String hangReport = Files.readString(out.resolve(hang.dir()).resolve("README.md"));
        List<String> head = hangReport.lines().limit(3).toList();
        assertTrue(head.get(2).startsWith("> **Does not show on the newest release** (" + newest + ", replayed twice: "), head.toString());
        // a hang is called one, with the stack of the thread that ran the statement inside H2
        assertTrue(hangReport.contains("hung: not waiting on a lock, cancelled by txfuzz"), hangReport);
        assertTrue(hangReport.contains("Statement was canceled or the session timed out [57014-232]"), "H2's echo of the statement left out: "
                + hangReport);
        // the stack is sampled wherever the looping statement is at that moment (MergeUsing.update one time,
        // DataChangeStatement.update another): what is certain is that it is the thread running the MERGE,
        // inside H2's execution of a data-change statement (or, caught between two of its retries, in the
        // Command.executeUpdate loop that retries it)
        int stackAt = hangReport.indexOf("Stack of the thread running the statement:");
        assertTrue(stackAt >= 0, hangReport);
        String stack = hangReport.substring(stackAt).split("\n\s*\n", 2)[0];
        assertTrue(stack.lines().anyMatch(l -> l.strip().startsWith("at ")
                        && (l.contains("org.h2.command.dml.") || l.contains("org.h2.command.Command.executeUpdate"))),
                "H2's data-change statement on the stack: " + stack);
        String keyReport = Files.readString(out.resolve(keyChange.dir()).resolve("README.md"));
        assertTrue(keyReport.lines().limit(3).toList().get(2).startsWith("> **Still shows on the newest release** (" + newest), keyReport);
    }
}
