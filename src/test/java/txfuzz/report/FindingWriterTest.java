package txfuzz.report;

import txfuzz.history.Anomaly;
import txfuzz.oracle.isolation.IsolationKind;
import txfuzz.oracle.wss.WssKind;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.exec.Cases;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;
import txfuzz.dbms.h2.H2Target;

class FindingWriterTest {
    private static TestCase writeSkew() {
        return Cases.on("h2").table("t").level(IsolationLevel.SNAPSHOT)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                .txn("SELECT v FROM t WHERE id = 2", "UPDATE t SET v = 1 WHERE id = 1")
                .txn("SELECT v FROM t WHERE id = 1", "UPDATE t SET v = 1 WHERE id = 2")
                .order(1, 2, 1, 2, 1, 2, 1, 2);
    }

    private static final String MERMAID = "flowchart LR\n  T1 -->|rw| T2\n  T2 -->|rw| T1\n";

    private static Violation g2() {
        return new Violation(IsolationKind.of(Anomaly.G2_ITEM), Classification.BUG_CANDIDATE, "G2-item: write skew between T1 and T2",
                "Let T1 = ... and T2 = ... Then T1 < T2 because T1 read t.r2 before T2 wrote it. However T2 < T1 because"
                        + " T2 read t.r1 before T1 wrote it: a contradiction.\n", null,
                Map.of("G2-item.mmd", "```mermaid\n" + MERMAID + "```\n", "G2-item.dot", "digraph { T1 -> T2; T2 -> T1; }\n"), null);
    }

    @Test
    void aGraphFindingEmbedsItsMermaidDrawingAndLinksItsDotFile(@TempDir Path out) throws Exception {
        try (H2Target h2 = new H2Target()) {
            TestCase c = writeSkew();
            Violation v = g2();
            FindingWriter w = new FindingWriter(out);
            Finding f = Finding.unreduced("h2-SI-s0-i0", c, null, List.of(v), ReductionRecord.notRun(ReductionRecord.OFF, 4));
            List<FindingRecord> records = w.write(f, h2);
            Path dir = out.resolve("findings/h2-SI-s0-i0");
            String readme = Files.readString(dir.resolve("README.md"));
            assertTrue(readme.contains("```mermaid\n" + MERMAID.strip() + "\n```"), readme);
            assertFalse(readme.contains("```mermaid\n```mermaid"), readme);
            assertTrue(readme.contains("[`G2-item.dot`](G2-item.dot)"), readme);
            assertTrue(Files.readString(dir.resolve("G2-item.dot")).startsWith("digraph"));
            assertTrue(readme.contains("SNAPSHOT") && readme.contains("a contradiction"), readme);
            assertTrue(readme.contains("reduction was off"), readme);
            assertFalse(Files.exists(dir.resolve("trace.txt")), "no run, no trace");
            assertEquals(1, records.size());
            FindingRecord r = records.get(0);
            assertTrue(r.primary());
            assertEquals(Signature.of(c, v).id(), r.signature());
            assertEquals("off", r.reduction().status());
        }
    }

    /** A reduced case without a plain form keeps its tracked SQL, says why, and leaves no plain.case.json of the case as found. */
    @Test
    void aReducedCaseWithNoPlainFormToShowSaysWhy(@TempDir Path out) throws Exception {
        try (H2Target h2 = new H2Target()) {
            TestCase c = writeSkew();
            Violation v = g2().withDetails(g2().details(), Map.of("plain.case.json", "{}"));
            Finding f = new Finding("x", c, null, List.of(v), v, Signature.of(c, v), null, null,
                    new ReductionRecord(ReductionRecord.REDUCED, 4, 4, 1.0, 0.5, 3, false), c, null, null,
                    PlainForm.notShown("cannot strip: T1.1 `SELECT x0.rid, x0.wl FROM t x0` reads rows in its tracked form"));
            new FindingWriter(out).write(f, h2);
            Path dir = out.resolve("findings/x");
            String readme = Files.readString(dir.resolve("README.md"));
            int why = readme.indexOf("The SQL below keeps txfuzz's row tracking (`rid`/`wl` columns, tags, companion statements): there is no plain"
                    + " form of it to show (cannot strip: T1.1 `SELECT x0.rid, x0.wl FROM t x0` reads rows in its tracked form).");
            assertTrue(why > 0 && why < readme.indexOf("## Schema and data"), readme);
            // the case as found's twin is listed as that case's, never as the reduced case's plain form
            assertFalse(readme.contains("`plain.case.json`"), readme);
            assertTrue(readme.contains("- `original.plain.case.json`: attached by isolation/G2-item, for the case as found"), readme);
            assertTrue(Files.readString(dir.resolve("self-check.txt")).startsWith("The reduced case has no plain form to show: cannot strip: T1.1"));
            assertFalse(Files.exists(dir.resolve("plain.case.json")), "the twin of the case as found does not stand for the reduced case");
        }
    }

    @Test
    void aFolderWrittenAgainWithoutReductionKeepsNoStaleOriginal(@TempDir Path out) throws Exception {
        try (H2Target h2 = new H2Target()) {
            TestCase c = writeSkew();
            Violation v = g2();
            FindingWriter w = new FindingWriter(out);
            Finding found = Finding.unreduced("x", c, null, List.of(v), ReductionRecord.notRun(ReductionRecord.PENDING, 4));
            TestCase smaller = c.withSetup(c.tables(), List.of("CREATE TABLE t(id INT, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)"));
            w.write(new Finding("x", smaller, null, List.of(v), v, Signature.of(smaller, v), null, null,
                    new ReductionRecord(ReductionRecord.REDUCED, 4, 4, 1.0, 0.5, 3, false), c, null, null, null), h2);
            Path dir = out.resolve("findings/x");
            assertTrue(Files.readString(dir.resolve("case.json")).contains("CREATE TABLE t(id INT, v INT)"));
            assertTrue(Files.readString(dir.resolve("original.case.json")).contains("PRIMARY KEY"));
            assertTrue(Files.exists(dir.resolve("original.G2-item.mmd")), "the drawings of the case as found stay beside it");
            assertTrue(Files.readString(dir.resolve("verdict.md")).contains("original.case.json"));
            w.write(found, h2);
            assertFalse(Files.exists(dir.resolve("original.case.json")));
            assertTrue(Files.readString(dir.resolve("case.json")).contains("PRIMARY KEY"));
        }
    }

    @Test
    void theIndexGroupsByTheSignaturesKeyOnly() {
        Violation v = new Violation(WssKind.TX_WSS, Classification.BUG_CANDIDATE, "tx-wss: lost", "d", null);
        TestCase small = Cases.on("h2").table("t").setup("CREATE TABLE t(v INT)").txn("UPDATE t SET v = 1").txn("UPDATE t SET v = 2")
                .order(1, 2, 1, 2, 1, 2);
        TestCase indexed = Cases.on("h2").table("t").setup("CREATE TABLE t(v INT)", "CREATE INDEX i ON t (v)")
                .txn("UPDATE t SET v = 1 WHERE v > 0").txn("UPDATE t SET v = 2").order(1, 2, 1, 2, 1, 2);
        TestCase big = Cases.on("h2").table("t").setup("CREATE TABLE t(v INT)")
                .txn("UPDATE t SET v = 1", "DELETE FROM t").txn("UPDATE t SET v = 2").order(1, 2, 1, 1, 2, 1, 2);
        TestCase other = Cases.on("h2").table("t").setup("CREATE TABLE t(v INT)").txn("DELETE FROM t").txn("DELETE FROM t")
                .order(1, 2, 1, 2, 1, 2);
        FindingIndex index = new FindingIndex();
        assertTrue(index.covering(Signature.of(small, v)).isEmpty());
        FindingIndex.Group g = index.add("a", Signature.of(small, v), "lost", true);
        assertEquals(g, index.covering(Signature.of(indexed, v)).orElseThrow(), "another WHERE and an index: the same key");
        assertTrue(index.covering(Signature.of(big, v)).isEmpty(), "a superset of the statement kinds is another key, even of a reduced finding");
        index.addDuplicate(g, "b");
        index.add("c", Signature.of(other, v), "deleted", true);
        index.add("d", Signature.of(other, v), "deleted", true);
        assertEquals(2, index.unique());
        assertEquals(2, index.duplicates());
        String md = index.render("H2", 1);
        assertTrue(md.indexOf("[c](c/README.md)") < md.indexOf("[a](a/README.md)"), "newest first:\n" + md);
        assertTrue(md.contains("| 1: b |") && md.contains("| 1: d |"), md);
        assertTrue(md.contains("<br>case: UPDATE · no features"), "the secondary key is shown: " + md);
    }

    @Test
    void aFolderIsWrittenWholeUnderAHiddenNameAndStaleWorkFoldersAreCleaned(@TempDir Path out) throws Exception {
        try (H2Target h2 = new H2Target()) {
            TestCase c = writeSkew();
            FindingWriter w = new FindingWriter(out);
            Path findings = out.resolve("findings");
            Files.createDirectories(findings);
            // a killed run's half-written folder: no live process has this pid
            long deadPid = Long.MAX_VALUE - 7;
            Path stale = findings.resolve(".h2-SI-s0-i9.tmp-" + deadPid);
            Files.createDirectories(stale);
            Files.writeString(stale.resolve("case.json"), "{");
            Path staleOld = findings.resolve(".h2-SI-s0-i9.old-" + deadPid);
            Files.createDirectories(staleOld);

            Finding f = Finding.unreduced("h2-SI-s0-i0", c, null, List.of(g2()), ReductionRecord.notRun(ReductionRecord.PENDING, 4));
            w.write(f, h2);
            // written again (as after a reduction): the new folder replaces the old one whole
            w.write(f.withReduction(ReductionRecord.notRun(ReductionRecord.OFF, 4)), h2);

            Path dir = findings.resolve("h2-SI-s0-i0");
            for (String file : new String[] {"README.md", "case.json", "reproduce.sql", "verdict.md", "G2-item.dot", "G2-item.mmd"}) {
                assertTrue(Files.isRegularFile(dir.resolve(file)), file);
            }
            assertTrue(Files.readString(dir.resolve("README.md")).contains("reduction was off"), "the second write is the one visible");
            assertTrue(Files.readString(dir.resolve("README.md")).contains(dir.toString()), "the README names the final folder, not the temp one");
            try (var entries = Files.list(findings)) {
                List<String> names = entries.map(p -> p.getFileName().toString()).toList();
                assertEquals(List.of("h2-SI-s0-i0"), names, "no temporary or stale folder remains");
            }
        }
    }

    @Test
    void readersOfTheFindingsFolderSkipHiddenWorkFolders() {
        assertTrue(FindingWriter.isHidden(Path.of("findings/.h2-RC-s1-i3.tmp-42")));
        assertFalse(FindingWriter.isHidden(Path.of("findings/h2-RC-s1-i3")));
    }
}
