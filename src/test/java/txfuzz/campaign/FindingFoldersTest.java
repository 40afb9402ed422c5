package txfuzz.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.cli.Main;
import txfuzz.exec.Cases;
import txfuzz.exec.ExecutorConfig;
import txfuzz.gen.GenConfig;
import txfuzz.model.CaseJson;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.CommitDroppingTarget;
import txfuzz.dbms.h2.H2Target;

/**
 * A campaign over real H2 with an injected fault (a commit dropped under concurrency), fed a
 * family of lost-update cases that differ only in their data and in noise the bug does not need:
 * every case is a finding, and all of them are one problem.
 */
class FindingFoldersTest {
    private static final int CASES = 6;

    /** Two overlapping writers (so the wrapper drops a commit); every other case adds a reader that plays no part. */
    static TestCase lostUpdate(long i) {
        Cases b = Cases.on("h2").table("t").level(IsolationLevel.READ_COMMITTED)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, " + i + "), (2, 0)")
                .txn("UPDATE t SET v = v + 1 WHERE id = 1")
                .txn("UPDATE t SET v = v + 10 WHERE id = 2");
        TestCase base = i % 2 == 0 ? b.order(1, 2, 1, 2, 1, 2)
                : b.autocommit("SELECT v FROM t WHERE id = 2 ORDER BY v").order(1, 2, 1, 2, 1, 2, 3);
        return new TestCase(base.formatVersion(), base.dbms(), 5, i, base.isolation(), base.mode(), base.execution(), base.tables(),
                base.setup(), base.transactions(), base.order());
    }

    private static Summary campaign(Path out, Duration reduceTime) {
        CampaignConfig config = new CampaignConfig(List.of(IsolationLevel.READ_COMMITTED), List.of(), List.of("wss", "explicit"), CASES, null,
                5, out, GenConfig.defaults(), ExecutorConfig.defaults(), null, CampaignConfig.Execution.PLAIN, reduceTime);
        try (CommitDroppingTarget target = new CommitDroppingTarget(new H2Target())) {
            return new Campaign(target, config, new PrintStream(OutputStream.nullOutputStream()), (level, mode, i) -> lostUpdate(i)).run();
        }
    }

    @Test
    void findingsAreReducedDeduplicatedAndReportedReadyForABugTracker(@TempDir Path out) throws Exception {
        Summary s = campaign(out, Duration.ofSeconds(20));
        assertEquals(CASES, s.cases());
        assertEquals(1, s.uniqueFindings(), s.signatures().toString());
        assertEquals(1, s.uniqueBugCandidates());
        assertEquals(CASES - 1, s.duplicates());

        // summary.json: per finding signature, duplicateOf and reduction; totals
        JsonNode json = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
        assertEquals(1, json.get("uniqueFindings").asInt());
        assertEquals(CASES - 1, json.get("duplicates").asInt());
        JsonNode red = json.get("reduction");
        assertEquals(20.0, red.get("budgetSeconds").asDouble());
        assertEquals(1, red.get("reduced").asInt(), red.toString());
        assertEquals(CASES - 1, red.get("skippedDuplicates").asInt(), red.toString());
        for (String f : new String[] {"statementsBefore", "statementsAfter", "medianRatio", "seconds", "runs", "exhausted"}) {
            assertTrue(red.has(f) && !red.get(f).isNull(), f + " in " + red);
        }
        assertTrue(red.get("statementsAfter").asInt() <= red.get("statementsBefore").asInt(), red.toString());
        String first = "h2-RC-s5-i0";
        JsonNode group = json.get("signatures").get(0);
        assertEquals(first, group.get("finding").asText());
        assertEquals(CASES - 1, group.get("duplicates").asInt());
        int primaries = 0;
        for (JsonNode f : json.get("findings")) {
            if (!f.get("primary").asBoolean()) {
                continue;
            }
            primaries++;
            JsonNode r = f.get("reduction");
            if (f.get("id").asText().equals(first)) {
                assertTrue(f.get("duplicateOf").isNull(), f.toString());
                assertEquals(group.get("signature").asText(), f.get("signature").asText(), f.toString());
                assertEquals("reduced", r.get("status").asText());
                for (String k : new String[] {"statementsBefore", "statementsAfter", "ratio", "seconds", "runs", "exhausted"}) {
                    assertFalse(r.get(k).isNull(), k + " in " + r);
                }
            } else {
                assertEquals(first, f.get("duplicateOf").asText(), f.toString());
                assertEquals("skipped-duplicate", r.get("status").asText(), f.toString());
            }
        }
        assertEquals(CASES, primaries);

        // index.md: one unique finding, its signature, classification, description and duplicate count
        String index = Files.readString(out.resolve("findings/index.md"));
        assertTrue(index.contains("1 unique finding (1 bug candidate, 0 documented, 0 flaky) among " + CASES + " findings; "
                + (CASES - 1) + " duplicates"), index);
        assertTrue(index.contains("[" + first + "](" + first + "/README.md) | bug-candidate | `" + group.get("signature").asText() + "`"), index);
        assertTrue(index.contains("tx-wss: table t differs"), index);
        assertTrue(index.contains("| " + (CASES - 1) + ": h2-RC-s5-i" + (CASES - 1) + ","), index);
        assertEquals(1, index.lines().filter(l -> l.startsWith("| [")).count(), index);

        // the representative: reduced case.json, the case as found beside it, a README for the tracker
        Path dir = out.resolve("findings").resolve(first);
        for (String file : new String[] {"README.md", "case.json", "reproduce.sql", "trace.txt", "verdict.md", "original.case.json",
                "original.reproduce.sql", "original.trace.txt"}) {
            assertTrue(Files.exists(dir.resolve(file)), file);
        }
        assertEquals(asFound(lostUpdate(0)), CaseJson.read(dir.resolve("original.case.json")));
        String readme = Files.readString(dir.resolve("README.md"));
        for (String part : new String[] {"# " + txfuzz.dbms.Targets.engine("h2").defaultVersion(), "with commits dropped under concurrency", "READ COMMITTED", "| classification | bug-candidate |",
                "| signature | `" + group.get("signature").asText(), "## Schema and data", "CREATE TABLE t(",
                "## Sessions", "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED", "/* T1 */ BEGIN;",
                "UPDATE t SET v = v + ", "-- step 1", "## What happened, and what was expected", "only in the serial replay",
                "## Explanation", "This is a bug candidate", "Reduced automatically from", "./txfuzz replay " + dir + "/case.json",
                "original.case.json"}) {
            assertTrue(readme.contains(part), () -> "README.md lacks '" + part + "':\n" + readme);
        }
        // a duplicate keeps a reference, not a folder: a line of findings/duplicates.jsonl naming its representative,
        // with its case as filed (not reduced), which still replays
        assertFalse(Files.exists(out.resolve("findings/h2-RC-s5-i1")), "no folder for a duplicate");
        List<String> lines = Files.readAllLines(out.resolve("findings").resolve(txfuzz.report.FindingWriter.DUPLICATES));
        assertEquals(CASES - 1, lines.size(), "a line per duplicate");
        var dupLine = new com.fasterxml.jackson.databind.ObjectMapper().readTree(lines.get(0));
        assertEquals("h2-RC-s5-i1", dupLine.get("id").asText());
        assertEquals(first, dupLine.get("duplicateOf").asText());
        assertEquals("skipped-duplicate", dupLine.get("reduction").asText());
        assertEquals(group.get("signature").asText(), dupLine.get("signature").asText());
        assertEquals(asFound(lostUpdate(1)), CaseJson.read(dupLine.get("case").toString(), "duplicates.jsonl"));

        // both the reduced case and the case as found replay
        for (String file : new String[] {"case.json", "original.case.json"}) {
            int code = quietly(() -> Main.execute("replay", "--quiet", dir.resolve(file).toString()));
            assertTrue(code == Main.OK || code == Main.FOUND, file + ": exit " + code);
        }
    }

    @Test
    void withoutReductionFindingsAreStillGroupedByRootCause(@TempDir Path out) throws Exception {
        Summary s = campaign(out, Duration.ZERO);
        // two shapes of case (with and without the idle reader), one root cause: the UPDATEs of the table
        // that ended differently deviate in both, so one signature however the cases were shaped
        assertEquals(1, s.uniqueFindings(), s.signatures().toString());
        assertEquals(CASES - 1, s.duplicates());
        assertEquals(0, s.reduction().reduced());
        assertNull(s.reduction().medianRatio());
        for (var f : s.findings()) {
            assertEquals("off", f.reduction().status(), f.toString());
        }
        assertFalse(Files.exists(out.resolve("findings/h2-RC-s5-i0/original.case.json")));
        assertEquals(asFound(lostUpdate(0)), CaseJson.read(out.resolve("findings/h2-RC-s5-i0/case.json")));
        assertEquals("h2-RC-s5-i0", s.findings().stream().filter(f -> f.id().equals("h2-RC-s5-i2")).findFirst().orElseThrow().duplicateOf());
        assertEquals("h2-RC-s5-i0", s.findings().stream().filter(f -> f.id().equals("h2-RC-s5-i3")).findFirst().orElseThrow().duplicateOf(),
                "the case with the idle reader is the same bug");
    }

    @Test
    void aReductionStoppedByItsBudgetIsTimeUpAndKeepsTheCaseAsFound(@TempDir Path out) throws Exception {
        // 1 ms: over before the reducer starts, or after its first run of the case; nothing smaller can be confirmed
        Summary s = campaign(out, Duration.ofMillis(1));
        var first = s.findings().stream().filter(f -> f.id().equals("h2-RC-s5-i0") && f.primary()).findFirst().orElseThrow();
        assertEquals("time-up", first.reduction().status(), first.toString());
        assertNull(first.reduction().statementsAfter(), first.toString());
        assertTrue(first.reduction().runs() != null && first.reduction().runs() <= 1, "at most the one run the budget may not foresee: " + first);
        assertEquals(Boolean.TRUE, first.reduction().exhausted(), first.toString());
        assertEquals(0, s.reduction().reduced(), "a case that did not shrink is not counted as reduced");
        Path dir = out.resolve("findings/h2-RC-s5-i0");
        assertEquals(asFound(lostUpdate(0)), CaseJson.read(dir.resolve("case.json")), "case.json is the case as found");
        try (var files = Files.list(dir)) {
            List<String> names = files.map(p -> p.getFileName().toString()).toList();
            assertTrue(names.stream().noneMatch(n -> n.startsWith("original.")), names.toString());
            assertTrue(names.containsAll(List.of("README.md", "case.json", "reproduce.sql", "trace.txt", "verdict.md")), names.toString());
        }
        String readme = Files.readString(dir.resolve("README.md"));
        assertTrue(readme.contains("time budget ran out") && !readme.contains("Reduced automatically"), readme);
    }

    @Test
    void runTakesAReductionTime(@TempDir Path out) throws Exception {
        int code = quietly(() -> Main.execute("run", "--tests", "4", "--seed", "3", "--reduce-time", "0", "--out", out.toString()));
        assertTrue(code == Main.OK || code == Main.FOUND, "exit " + code);
        JsonNode json = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
        assertEquals(0.0, json.get("reduction").get("budgetSeconds").asDouble());
        assertTrue(Files.exists(out.resolve("findings/index.md")));
        assertEquals(Main.USAGE, quietly(() -> Main.execute("run", "--reduce-time", "soon", "--out", out.toString())));
    }

    private static int quietly(java.util.function.IntSupplier run) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        try {
            System.setOut(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
            return run.getAsInt();
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }

    /** The case as a run files it: as made, plus the engine it was found on (the test's target reports its fault in its version). */
    private static TestCase asFound(TestCase c) {
        return c.withEngine(new txfuzz.model.EngineVersion("h2", txfuzz.dbms.Targets.engine("h2").defaultVersion() + " with commits dropped under concurrency", null));
    }
}
