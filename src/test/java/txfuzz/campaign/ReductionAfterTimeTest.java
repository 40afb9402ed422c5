package txfuzz.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.dbms.Target;
import txfuzz.dbms.h2.H2Target;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.TrackedCases;
import txfuzz.gen.GenConfig;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.CommitDroppingTarget;

/**
 * Every bug candidate a campaign files is reduced before the run ends, even when its {@code --time} runs out while
 * the case that found it runs (issue 33, item 5: half a campaign's candidates were filed unreduced, "the campaign's
 * time was up", where each reduces in seconds); documented behaviour found then is not reduced, so it never takes a
 * candidate's budget. The campaign's one case is made to outlast the campaign's time: its maker waits past it.
 */
class ReductionAfterTimeTest {
    private static final Duration CAMPAIGN_TIME = Duration.ofMillis(300);

    /** Makes {@code c} only once the campaign's time is over, as if the case took that long to run. */
    private static Campaign.CaseSource pastTheTime(TestCase c) {
        return (level, mode, i) -> {
            try {
                Thread.sleep(CAMPAIGN_TIME.toMillis() + 200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return c;
        };
    }

    private static Summary campaign(Target target, IsolationLevel level, String oracle, TestCase c, Path out) {
        CampaignConfig config = new CampaignConfig(List.of(level), List.of(), List.of(oracle), null, CAMPAIGN_TIME, 5, out,
                GenConfig.defaults(), ExecutorConfig.defaults(), null, CampaignConfig.Execution.PLAIN, Duration.ofSeconds(20));
        return new Campaign(target, config, new PrintStream(OutputStream.nullOutputStream()), pastTheTime(c)).run();
    }

    @Test
    void aBugCandidateFoundAsTheTimeRunsOutIsReducedBeforeTheRunEnds(@TempDir Path out) throws Exception {
        Summary s;
        try (CommitDroppingTarget target = new CommitDroppingTarget(new H2Target())) {
            // a lost update with a reader that plays no part: the reduction has something to remove
            s = campaign(target, IsolationLevel.READ_COMMITTED, "wss", FindingFoldersTest.lostUpdate(1), out);
        }
        assertEquals("time", s.endedBy());
        assertEquals(1, s.cases(), "the one case that started before the time was up");
        assertEquals(1, s.uniqueBugCandidates(), s.signatures().toString());
        var candidate = s.findings().stream().filter(f -> f.primary()).findFirst().orElseThrow();
        assertEquals("reduced", candidate.reduction().status(), candidate.toString());
        assertTrue(candidate.reduction().statementsAfter() < candidate.reduction().statementsBefore(), candidate.toString());
        assertEquals(1, s.reduction().reduced());
        Path dir = out.resolve("findings").resolve(candidate.id());
        assertTrue(Files.exists(dir.resolve("original.case.json")), "the reduced case is case.json, the case as found beside it");
        assertTrue(Files.readString(dir.resolve("README.md")).contains("Reduced automatically from"));
    }

    /** Each transaction reads one table and writes the other: write skew, which H2 documents at REPEATABLE READ. */
    private static TestCase writeSkewAcrossTables() {
        String table = "CREATE TABLE %s (k INT PRIMARY KEY, v INT, rid VARCHAR(100), wl VARCHAR(100))";
        TrackedCases b = TrackedCases.on("h2").level(IsolationLevel.REPEATABLE_READ).table("a").table("b")
                .setup(table.formatted("a"), table.formatted("b"),
                        "INSERT INTO a (k, v, rid, wl) VALUES (1, 0, '1', ',0')", "INSERT INTO b (k, v, rid, wl) VALUES (1, 0, '2', ',0')");
        b.begin().read("SELECT x.rid, x.wl, x.v FROM a x", "true", false, "a")
                .write("UPDATE b SET v = 1, wl = wl || ',1.2'", "b", "1.2", List.of(), false).postRead("b", "1.2").commit();
        b.begin().read("SELECT x.rid, x.wl, x.v FROM b x", "true", false, "b")
                .write("UPDATE a SET v = 1, wl = wl || ',2.2'", "a", "2.2", List.of(), false).postRead("a", "2.2").commit();
        return b.order(1, 2, 1, 2, 1, 1, 2, 2, 1, 2);
    }

    @Test
    void documentedBehaviourFoundAfterTheTimeIsNotReduced(@TempDir Path out) throws Exception {
        Summary s;
        try (H2Target h2 = new H2Target()) {
            s = campaign(h2, IsolationLevel.REPEATABLE_READ, "isolation", writeSkewAcrossTables(), out);
        }
        assertEquals(0, s.uniqueBugCandidates(), s.signatures().toString());
        var documented = s.findings().stream().filter(f -> f.primary()).findFirst().orElseThrow();
        assertEquals("documented", documented.classification(), documented.toString());
        assertEquals("time-up", documented.reduction().status(), documented.toString());
        assertEquals(null, documented.reduction().runs(), "the reducer did not run");
        String readme = Files.readString(out.resolve("findings").resolve(documented.id()).resolve("README.md"));
        assertTrue(readme.contains("after it only bug candidates are reduced"), readme);
    }
}
