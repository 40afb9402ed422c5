package txfuzz.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.dbms.Target;
import txfuzz.dbms.h2.H2Target;
import txfuzz.exec.ExecutorConfig;
import txfuzz.gen.GenConfig;
import txfuzz.model.IsolationLevel;
import txfuzz.oracle.CommitDroppingTarget;

/**
 * Workers in one process ({@code run --jobs}) and across processes ({@code run --worker i/N}), on real
 * H2: the same seed and iteration give the same case and verdict whatever the number of workers, one
 * finding store de-duplicates across them, a worker runs only its iterations, and known signatures
 * ({@code run --known}) are counted apart.
 */
class WorkersTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    private static CampaignConfig config(Path out, List<IsolationLevel> levels, int cases) {
        return new CampaignConfig(levels, List.of(), List.of("wss", "explicit"), cases, null, 1, out, GenConfig.defaults(),
                ExecutorConfig.defaults(), null, CampaignConfig.Execution.PLAIN, Duration.ZERO);
    }

    /** Generated cases (seed 1, every H2 level): its first 40 iterations hold documented findings and a duplicate. */
    private static Summary generated(Path out, int jobs) {
        try (Target h2 = new H2Target()) {
            return new Campaign(h2, config(out, h2.isolationLevels(), 40), QUIET).withJobs(jobs).run();
        }
    }

    @Test
    void theSameSeedAndIterationGiveTheSameCaseAndVerdictWithOneWorkerAndTwo(@TempDir Path tmp) throws Exception {
        Summary one = generated(tmp.resolve("one"), 1);
        Summary two = generated(tmp.resolve("two"), 2);
        assertEquals(40, one.cases());
        assertEquals(40, two.cases());
        // a flaky verdict is the engine not repeating itself (its confirming run differed): those iterations are left out
        Set<Long> flaky = new HashSet<>();
        for (Summary s : List.of(one, two)) {
            s.findings().stream().filter(f -> f.classification().equals("flaky")).forEach(f -> flaky.add(Merge.iteration(f.id())));
        }
        Map<Long, String> casesOne = caseLines(tmp.resolve("one"), flaky);
        Map<Long, String> casesTwo = caseLines(tmp.resolve("two"), flaky);
        assertEquals(casesOne, casesTwo);
        assertTrue(casesOne.values().stream().anyMatch(l -> l.contains("finding")), "seed 1's first 40 cases have findings: " + casesOne);
        // each finding: the same case (case.json), the same violations, the same signature and de-duplication
        assertEquals(verdicts(one, flaky), verdicts(two, flaky));
        for (var f : one.findings()) {
            if (f.primary() && !flaky.contains(Merge.iteration(f.id())) && f.duplicateOf() == null) {
                assertEquals(JSON.readTree(tmp.resolve("one").resolve(f.dir()).resolve("case.json").toFile()),
                        JSON.readTree(tmp.resolve("two").resolve(f.dir()).resolve("case.json").toFile()), f.id());
            }
        }
        assertNull(one.meta().jobs());
        assertEquals(2, two.meta().jobs());
    }

    /** Per iteration not left out: its level and outcome (and finding id), as events.jsonl gives them, in file order. */
    private static Map<Long, String> caseLines(Path out, Set<Long> leftOut) throws Exception {
        Map<Long, String> lines = new TreeMap<>();
        List<Long> order = new ArrayList<>();
        for (String line : Files.readAllLines(out.resolve("events.jsonl"))) {
            JsonNode e = JSON.readTree(line);
            if (e.get("event").asText().equals("case")) {
                order.add(e.get("iteration").asLong());
                if (!leftOut.contains(e.get("iteration").asLong())) {
                    lines.put(e.get("iteration").asLong(), e.get("level").asText() + " " + e.get("outcome").asText() + " " + e.get("finding"));
                }
            }
        }
        assertEquals(order.stream().sorted().toList(), order, "case events in iteration order");
        return lines;
    }

    /** Per finding not left out: its violations (oracle, kind, classification), signature and duplicateOf. */
    private static Map<String, List<String>> verdicts(Summary s, Set<Long> leftOut) {
        Map<String, List<String>> out = new TreeMap<>();
        for (var f : s.findings()) {
            if (!leftOut.contains(Merge.iteration(f.id()))) {
                out.computeIfAbsent(f.id(), k -> new ArrayList<>()).add(f.oracle() + " " + f.kind() + " " + f.classification() + " "
                        + f.signature() + " " + f.duplicateOf());
            }
        }
        return out;
    }

    /** Dropped commits on real H2, two root causes alternating (RunMetadataTest.twoBugs): every case is a finding. */
    private static Summary twoBugs(Path out, int cases, int jobs, Partition p, KnownSignatures known) {
        try (Target target = new CommitDroppingTarget(new H2Target())) {
            Campaign c = new Campaign(target, config(out, List.of(IsolationLevel.READ_COMMITTED), cases), QUIET,
                    (level, mode, i) -> RunMetadataTest.twoBugs(i)).withJobs(jobs).partitioned(p);
            if (known != null) {
                c.knowing(known);
            }
            return c.run();
        }
    }

    @Test
    void workersShareOneFindingStoreThatDeduplicatesBySignature(@TempDir Path tmp) {
        Summary one = twoBugs(tmp.resolve("one"), 12, 1, Partition.WHOLE, null);
        Summary two = twoBugs(tmp.resolve("two"), 12, 3, Partition.WHOLE, null);
        assertEquals(2, one.uniqueBugCandidates(), one.signatures().toString());
        assertEquals(10, one.duplicates());
        for (Summary s : List.of(one, two)) {
            assertEquals(12, s.cases());
            assertEquals(2, s.uniqueFindings(), s.signatures().toString());
            assertEquals(10, s.duplicates());
        }
        // the same representatives (iterations 0 and 1, the first of each cause) and duplicates, in the same order
        assertEquals(one.signatures(), two.signatures());
        assertEquals(List.of("h2-RC-s5-i0", "h2-RC-s5-i1"), two.signatures().stream().map(Summary.Group::finding).toList());
    }

    @Test
    void withSeveralWorkersMaxBugsStopsWhereOneWorkerWould(@TempDir Path tmp) throws Exception {
        for (int jobs : new int[] {1, 3}) {
            Path out = tmp.resolve("jobs" + jobs);
            Summary s;
            try (Target target = new CommitDroppingTarget(new H2Target())) {
                s = new Campaign(target, config(out, List.of(IsolationLevel.READ_COMMITTED), 30), QUIET,
                        (level, mode, i) -> RunMetadataTest.twoBugs(i)).withJobs(jobs).stoppingAfterBugCandidates(2).run();
            }
            assertEquals(Summary.MAX_BUGS, s.endedBy(), "jobs " + jobs);
            assertEquals(2, s.uniqueBugCandidates(), "jobs " + jobs);
            // iterations 0 and 1 are the two causes: the cases the other workers ran past them are neither counted nor filed
            assertEquals(2, s.cases(), "jobs " + jobs);
            assertEquals(List.of("h2-RC-s5-i0", "h2-RC-s5-i1"), s.findings().stream().map(f -> f.id()).distinct().toList(), "jobs " + jobs);
        }
    }

    @Test
    void aWorkerRunsOnlyItsShareOfTheIterations(@TempDir Path tmp) throws Exception {
        Summary s = twoBugs(tmp, 12, 1, Partition.parse("1/3"), null);
        assertEquals(4, s.cases());
        assertEquals("1/3", s.meta().worker());
        List<Long> ran = new ArrayList<>();
        for (String line : Files.readAllLines(tmp.resolve("events.jsonl"))) {
            JsonNode e = JSON.readTree(line);
            if (e.get("event").asText().equals("start")) {
                assertEquals("1/3", e.get("meta").get("worker").asText(), "events.jsonl records the worker too");
            }
            if (e.get("event").asText().equals("case")) {
                ran.add(e.get("iteration").asLong());
            }
        }
        assertEquals(List.of(1L, 4L, 7L, 10L), ran);
        assertEquals("tests", s.endedBy());
    }

    @Test
    void knownSignaturesAreCountedApartAndOnlyNewBugCandidatesCount(@TempDir Path tmp) throws Exception {
        Summary first = twoBugs(tmp.resolve("first"), 4, 1, Partition.WHOLE, null);
        assertEquals(2, first.uniqueBugCandidates());
        assertNull(first.known(), "no known section without --known");
        assertTrue(first.foundNew());
        String a = first.signatures().get(0).signature();
        String b = first.signatures().get(1).signature();

        Path oneKnown = tmp.resolve("one.txt");
        Files.writeString(oneKnown, "# from an earlier run\n" + a + "  # the lost update\n\n");
        Summary half = twoBugs(tmp.resolve("half"), 4, 1, Partition.WHOLE, KnownSignatures.read(oneKnown));
        assertEquals(1, half.known().knownFindings());
        assertEquals(1, half.known().newBugCandidates());
        assertEquals(List.of(b), half.known().newBugCandidateSignatures());
        assertTrue(half.foundNew(), "a new bug candidate sets the exit code");

        // an earlier summary.json is a known file too
        Summary all = twoBugs(tmp.resolve("all"), 4, 1, Partition.WHOLE, KnownSignatures.read(tmp.resolve("first").resolve("summary.json")));
        assertEquals(2, all.known().knownFindings());
        assertEquals(0, all.known().newFindings());
        assertEquals(first.bugCandidates(), all.bugCandidates(), "known bug candidates are still filed and counted");
        assertFalse(all.foundNew(), "only known bug candidates: the CI run passes");
        assertEquals(0, JSON.readTree(tmp.resolve("all").resolve("summary.json").toFile()).get("known").get("newBugCandidates").asInt());
    }
}
