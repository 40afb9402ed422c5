package txfuzz.corpus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import txfuzz.campaign.Judge;
import txfuzz.campaign.Oracles;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.CaseJson;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;

/**
 * Replays the corpus of published engine behaviours (src/test/resources/corpus/index.json,
 * docs/corpus.md) on the shipped engines, the way {@code txfuzz replay} does (one run, the chosen
 * oracles through {@link Judge}), and pins what txfuzz says today.
 *
 * <p>Per entry: the engine's version is the one the entry was checked on; the violations
 * ({@code oracle/kind/classification}, as a set) are exactly {@code today}; and the overall verdict
 * (bug-candidate, else documented, else none) equals {@code expected} — unless the entry records a
 * {@code knownGap}, in which case it must still differ, so that this test fails the day an oracle
 * closes the gap (and the entry must then be updated).
 */
class CorpusTest {
    private static final Path ROOT = Path.of("src/test/resources/corpus");
    private static final Map<String, Target> TARGETS = new HashMap<>();
    private static final Map<String, Executor> EXECUTORS = new HashMap<>();

    static JsonNode index() throws Exception {
        try (InputStream in = Files.newInputStream(ROOT.resolve("index.json"))) {
            return new ObjectMapper().readTree(in);
        }
    }

    private static synchronized Executor executor(String dbms) {
        return EXECUTORS.computeIfAbsent(dbms, d -> {
            Target t = Targets.create(d);
            TARGETS.put(d, t);
            return new Executor(t, ExecutorConfig.defaults());
        });
    }

    @AfterAll
    static void closeEngines() throws Exception {
        for (Executor e : EXECUTORS.values()) {
            e.close();
        }
        for (Target t : TARGETS.values()) {
            t.close();
        }
    }

    /** The violations of one replay, as sorted {@code oracle/kind/classification} strings. */
    static List<String> replay(TestCase c, List<String> oracles) throws Exception {
        Executor ex = executor(c.dbms());
        Trace trace = ex.run(c);
        List<Violation> vs = new Judge(Oracles.create(oracles), ex).judge(c, trace);
        if (System.getProperty("corpus.traces") != null) {
            // -Dcorpus.traces: print what replay prints, to check an entry against its source
            System.out.println(txfuzz.report.TraceText.render(c, trace));
            vs.forEach(v -> System.out.println("Verdict: " + v.classification().label() + ": " + v.summary()));
        }
        Set<String> out = new TreeSet<>();
        for (Violation v : vs) {
            out.add(v.oracle() + "/" + v.kind() + "/" + v.classification().label());
        }
        return List.copyOf(out);
    }

    /** bug-candidate if any violation is one, else documented if any is, else none. */
    static String overall(List<String> violations) {
        if (violations.stream().anyMatch(v -> v.endsWith("/" + Classification.BUG_CANDIDATE.label()))) {
            return "bug-candidate";
        }
        if (violations.stream().anyMatch(v -> v.endsWith("/" + Classification.DOCUMENTED.label()))) {
            return "documented";
        }
        return "none";
    }

    @TestFactory
    Stream<DynamicTest> everyEntryReplaysAsRecorded() throws Exception {
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode e : index().get("entries")) {
            String id = e.get("id").asText();
            tests.add(DynamicTest.dynamicTest(id, () -> check(e)));
        }
        return tests.stream();
    }

    private static void check(JsonNode e) throws Exception {
        String id = e.get("id").asText();
        TestCase c = CaseJson.read(ROOT.resolve(e.get("case").asText()));
        assertEquals(e.get("engine").asText(), c.dbms(), id + ": the case is for the entry's engine");
        List<String> oracles = new ArrayList<>();
        e.get("oracles").forEach(o -> oracles.add(o.asText()));
        Executor ex = executor(c.dbms());
        String version = TARGETS.get(c.dbms()).version();
        assertTrue(version.contains(e.get("checkedOn").asText()),
                id + ": checked on " + e.get("checkedOn").asText() + " but the shipped engine is " + version + " — re-check the entry");
        List<String> today = replay(c, oracles);
        System.out.println("corpus " + id + " " + today);
        List<String> recorded = new ArrayList<>();
        e.get("today").forEach(v -> recorded.add(v.asText()));
        assertEquals(recorded, today, id + ": the violations txfuzz reports today");
        String expected = e.get("expected").asText();
        JsonNode gap = e.get("knownGap");
        if (gap == null || gap.isNull()) {
            assertEquals(expected, overall(today), id + ": the expected verdict");
        } else {
            assertNotEquals(expected, overall(today), id + ": the known gap (" + gap.asText() + ") is closed — update the entry");
        }
        assertTrue(ex != null);
    }

    /** The index is well-formed: unique ids, every case file listed once, the fields docs/corpus.md describes. */
    @Test
    void theIndexIsComplete() throws Exception {
        Set<String> ids = new HashSet<>();
        Set<String> cases = new HashSet<>();
        Set<String> kinds = Set.of("bug", "documented", "correct");
        Set<String> verdicts = Set.of("bug-candidate", "documented", "none");
        for (JsonNode e : index().get("entries")) {
            String id = e.get("id").asText();
            assertTrue(ids.add(id), "duplicate id " + id);
            assertTrue(cases.add(e.get("case").asText()), id + ": case listed twice");
            for (String f : List.of("title", "sources", "engine", "level", "affected", "checkedOn", "kind", "oracles", "expected", "today")) {
                assertTrue(e.hasNonNull(f), id + ": missing " + f);
            }
            assertTrue(e.get("sources").size() > 0, id + ": no source");
            assertTrue(kinds.contains(e.get("kind").asText()), id + ": kind " + e.get("kind"));
            assertTrue(verdicts.contains(e.get("expected").asText()), id + ": expected " + e.get("expected"));
            boolean reproduces = !e.has("reproduces") || e.get("reproduces").asBoolean();
            if (e.get("kind").asText().equals("bug")) {
                // a bug that reproduces on the shipped version must be a bug candidate; one fixed before it, nothing
                assertEquals(reproduces ? "bug-candidate" : "none", e.get("expected").asText(), id + ": expected of a published bug");
            } else {
                assertTrue(reproduces, id + ": only a bug can fail to reproduce");
            }
        }
        try (Stream<Path> files = Files.walk(ROOT)) {
            for (Path p : files.filter(p -> p.toString().endsWith(".case.json")).toList()) {
                assertTrue(cases.contains(ROOT.relativize(p).toString()), p + " is not in index.json");
            }
        }
    }
}
