package txfuzz.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.dbms.Database;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.Target;
import txfuzz.dbms.h2.H2Target;
import txfuzz.exec.ExecutorConfig;
import txfuzz.gen.GenConfig;
import txfuzz.model.IsolationLevel;
import txfuzz.oracle.CommitDroppingTarget;
import txfuzz.report.FindingRecord;

/**
 * Issue 34: a finding is filed at once and reduced on a thread of its own, so the campaign runs its next case while
 * the finding before it is reduced, and the progress line says a reduction is queued, never that cases wait for one.
 * On real H2 with commits dropped under concurrency (lost updates: bug candidates). The proof is by order, not timing:
 * the reduction cannot start its runs until the next case was made, which the campaign of issue 33 (reducing inline,
 * before the next case) never reaches.
 */
class FilingWithoutWaitingTest {
    /** H2 whose databases are handed to a reduction thread only once {@code open} is released. */
    private static final class ReductionGate extends DelegatingTarget {
        final CountDownLatch open = new CountDownLatch(1);

        ReductionGate(Target real) {
            super(real);
        }

        @Override
        public Database freshDatabase() throws SQLException {
            if (Thread.currentThread().getName().startsWith("txfuzz-reduce")) {
                try {
                    open.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new SQLException("interrupted at the reduction gate", e);
                }
            }
            return real.freshDatabase();
        }
    }

    @Test
    @Timeout(180)
    void theNextCaseRunsWhileTheFindingBeforeItIsReducedAndItsFolderIsAlreadyOnDisk(@TempDir Path out) throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        AtomicReference<String> eventsWhenTheNextCaseWasMade = new AtomicReference<>();
        AtomicReference<Boolean> firstOnDiskThen = new AtomicReference<>();
        CampaignConfig config = new CampaignConfig(List.of(IsolationLevel.READ_COMMITTED), List.of(), List.of("wss", "explicit"), 2, null, 5,
                out, GenConfig.defaults(), ExecutorConfig.defaults(), Duration.ofHours(1), CampaignConfig.Execution.PLAIN, Duration.ofSeconds(20));
        Summary s;
        try (ReductionGate gate = new ReductionGate(new CommitDroppingTarget(new H2Target()))) {
            Campaign.CaseSource source = (level, mode, i) -> {
                if (i == 1) {
                    try {
                        eventsWhenTheNextCaseWasMade.set(Files.readString(out.resolve("events.jsonl")));
                        firstOnDiskThen.set(Files.exists(out.resolve("findings").resolve("h2-RC-s5-i0").resolve("case.json")));
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                    gate.open.countDown();
                }
                return FindingFoldersTest.lostUpdate(i);
            };
            s = new Campaign(gate, config, new PrintStream(printed, true, StandardCharsets.UTF_8), source).withJobs(1).run();
        }
        String events = eventsWhenTheNextCaseWasMade.get();
        assertTrue(events.contains("\"iteration\":0") && events.contains("\"finding\":\"h2-RC-s5-i0\""),
                "case 0's line, naming its finding, came before case 1 was made: " + events);
        assertFalse(events.contains("\"event\":\"finding\""), "its finding was not filed for good yet (its reduction waited at the gate): " + events);
        assertTrue(firstOnDiskThen.get(), "the finding was on disk, as found, before the campaign moved on");

        // once reduced, it is filed as before: reduced, and the second case its duplicate
        assertEquals(2, s.cases());
        assertEquals(1, s.uniqueBugCandidates(), s.signatures().toString());
        FindingRecord first = s.findings().stream().filter(f -> f.primary() && f.id().equals("h2-RC-s5-i0")).findFirst().orElseThrow();
        assertEquals("reduced", first.reduction().status(), first.toString());
        FindingRecord second = s.findings().stream().filter(f -> f.primary() && f.id().equals("h2-RC-s5-i1")).findFirst().orElseThrow();
        assertEquals("h2-RC-s5-i0", second.duplicateOf(), second.toString());
        List<String> lines = Files.readAllLines(out.resolve("events.jsonl"));
        assertEquals(2, lines.stream().filter(l -> l.contains("\"event\":\"finding\"")).count(), String.join("\n", lines));

        String progress = printed.toString(StandardCharsets.UTF_8);
        assertTrue(progress.lines().anyMatch(l -> l.contains("; 1 more finding queued for reduction") && l.endsWith("; reducing h2-RC-s5-i0 …")), progress);
    }
}
