package txfuzz.corpus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import txfuzz.campaign.Corpus;
import txfuzz.campaign.Corpus.Entry;
import txfuzz.campaign.Corpus.Kind;
import txfuzz.campaign.Corpus.Overall;
import txfuzz.campaign.Corpus.Replay;
import txfuzz.exec.Executor;

/**
 * Replays the corpus of published engine behaviours (src/main/resources/corpus/index.json,
 * docs/corpus.md) on the shipped engines through {@link Corpus} — the code {@code txfuzz bench
 * --corpus} runs, which replays the way {@code txfuzz replay} does — and pins what txfuzz says today.
 *
 * <p>Per entry: the engine's version is the one the entry was checked on; the violations
 * ({@code oracle/kind/classification}, as a set) are exactly {@code today}; and the overall verdict
 * (bug-candidate, else documented, else none) equals {@code expected} — unless the entry records a
 * {@code knownGap}, in which case it must still differ, so that this test fails the day an oracle
 * closes the gap (and the entry must then be updated).
 */
class CorpusTest {
    /** The corpus's source folder, to check that every case file there is in the index. */
    private static final Path SOURCES = Path.of("src/main/resources/corpus");
    private static final txfuzz.corpus.CorpusEngines ENGINES = new txfuzz.corpus.CorpusEngines();

    private static Executor executor(Entry e) {
        return ENGINES.executor(e);
    }

    @AfterAll
    static void closeEngines() {
        ENGINES.close();
    }

    @TestFactory
    Stream<DynamicTest> everyEntryReplaysAsRecorded() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Entry e : Corpus.load().entries()) {
            tests.add(DynamicTest.dynamicTest(e.id(), () -> check(e)));
        }
        return tests.stream();
    }

    private static void check(Entry e) throws Exception {
        String id = e.id();
        Replay r = Corpus.replay(e, executor(e));
        if (System.getProperty("corpus.traces") != null) {
            // -Dcorpus.traces: print what replay prints, to check an entry against its source
            System.out.println(txfuzz.report.TraceText.render(r.testCase(), r.trace()));
            r.violations().forEach(v -> System.out.println("Verdict: " + v.classification().label() + ": " + v.summary()));
        }
        System.out.println("corpus " + id + " " + r.labels());
        assertTrue(r.onCheckedVersion(), id + ": checked on " + e.checkedOn() + " but the shipped engine is " + r.version() + " — re-check the entry");
        assertEquals(e.today(), r.labels(), id + ": the violations txfuzz reports today");
        if (e.knownGap() == null) {
            assertEquals(e.expected(), r.verdict(), id + ": the expected verdict");
        } else {
            assertNotEquals(e.expected(), r.verdict(), id + ": the known gap (" + e.knownGap() + ") is closed — update the entry");
        }
        // the one definition bench --corpus reports with agrees with the assertions above
        assertEquals(List.of(), r.problems(), id);
    }

    /** docs/corpus.md lists every entry, in order, with its engine version and today's verdict and violations (make_entries_table.py writes the table). */
    @Test
    void theDocsListEveryEntryAsIndexed() throws Exception {
        String doc = Files.readString(Path.of("docs/corpus.md"));
        int begin = doc.indexOf("<!-- entries:begin");
        int end = doc.indexOf("<!-- entries:end -->");
        assertTrue(begin >= 0 && end > begin, "docs/corpus.md has the generated entries table");
        List<String> rows = doc.substring(begin, end).lines().filter(l -> l.startsWith("| `")).toList();
        List<Entry> entries = Corpus.load().entries();
        assertEquals(entries.size(), rows.size(), "one row per entry; run make_entries_table.py");
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            String row = rows.get(i);
            String prefix = "| `" + e.id() + "` | " + e.engine() + " " + e.checkedOn() + " | ";
            assertTrue(row.startsWith(prefix), "row " + (i + 1) + " should start " + prefix + " — run make_entries_table.py: " + row);
            String today = e.today().isEmpty() ? "no violation" : String.join(", ", e.today());
            assertTrue(row.contains(" | " + Overall.of(e.today()).label() + " | " + today + " |"), e.id() + ": today's verdict: " + row);
        }
    }

    /** The index is well-formed: unique ids, every case file listed once, the fields docs/corpus.md describes. */
    @Test
    void theIndexIsComplete() throws Exception {
        Set<String> ids = new HashSet<>();
        Set<String> cases = new HashSet<>();
        List<Entry> entries = Corpus.load().entries(); // throws on a missing field
        for (Entry e : entries) {
            String id = e.id();
            assertTrue(ids.add(id), "duplicate id " + id);
            assertTrue(cases.add(e.caseFile()), id + ": case listed twice");
            assertFalse(e.sources().isEmpty(), id + ": no source");
            assertFalse(e.oracles().isEmpty(), id + ": no oracle");
            assertEquals(e.engine(), e.testCase().dbms(), id + ": the case is for the entry's engine");
            if (e.kind() == Kind.BUG) {
                // a bug that reproduces on the shipped version must be a bug candidate; one fixed before it, nothing
                assertEquals(e.reproduces() ? Overall.BUG_CANDIDATE : Overall.NONE, e.expected(), id + ": expected of a published bug");
            } else {
                assertTrue(e.reproduces(), id + ": only a bug can fail to reproduce");
                assertFalse(e.independent(), id + ": only a bug is published independently of txfuzz or not");
            }
        }
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path p : files.filter(p -> p.toString().endsWith(".case.json")).toList()) {
                assertTrue(cases.contains(SOURCES.relativize(p).toString()), p + " is not in index.json");
            }
        }
    }
}
