package txfuzz.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.dbms.h2.H2Target;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;
import txfuzz.oracle.wss.WssKind;
import txfuzz.oracle.wss.WssOracle;

/**
 * A finding a maintainer reads (issue 22 item 10), on H2's READ COMMITTED lost write of {@code h2-RC-s1-i156}
 * as a real H2 runs it: the title is one sentence of what the engine did, naming the statement; the rule and
 * what was checked follow under their own heading; the explanation is this case's (which statement waited for
 * which transaction, which row ended differently); what the case as found showed is labelled as its; and
 * the folder's every file is listed.
 */
class FindingReadsTest {
    private static final String SETUP_TABLE = "CREATE TABLE t0 (c0 INT, c1 INT, c3 VARCHAR(10), PRIMARY KEY (c0))";
    private static final String SETUP_ROW = "INSERT INTO t0 (c0, c1, c3) VALUES (0, 1, '')";
    private static final String MOVE_KEY = "UPDATE t0 SET c0 = (t0.c1 + 0)";
    private static final String CLEAR = "UPDATE t0 SET c3 = NULL";

    /** T1 moves the row's key; T2's UPDATE waits for it and, once T1 commits, updates nothing (H2 2.x). */
    private static TestCase reduced() {
        return Cases.on("h2").level(IsolationLevel.READ_COMMITTED).table("t0").setup(SETUP_TABLE, SETUP_ROW)
                .txn(MOVE_KEY).autocommit(CLEAR).order(1, 1, 2, 1);
    }

    /** The same with a third transaction that waits the same way: the case "as found", larger than the reduced one. */
    private static TestCase asFound() {
        return Cases.on("h2").level(IsolationLevel.READ_COMMITTED).table("t0").setup(SETUP_TABLE, SETUP_ROW)
                .txn(MOVE_KEY).autocommit(CLEAR).autocommit("UPDATE t0 SET c3 = 'x'").order(1, 1, 2, 3, 1);
    }

    @Test
    void aLostWriteReadsAsWhatTheEngineDidThenTheRuleThenThisCasesExplanation(@TempDir Path out) throws Exception {
        try (H2Target h2 = new H2Target(); Executor ex = new Executor(h2, ExecutorConfig.defaults())) {
            TestCase small = reduced();
            Trace smallRun = ex.run(small);
            List<Violation> smallFound = new WssOracle().judge(small, smallRun, ex).violations();
            Violation primary = smallFound.stream().filter(v -> v.kind() == WssKind.TX_WSS).findFirst()
                    .orElseThrow(() -> new AssertionError("H2 no longer loses T2's write: " + smallRun));
            assertEquals(Classification.BUG_CANDIDATE, primary.classification(), primary.toString());
            TestCase big = asFound();
            Trace bigRun = ex.run(big);
            List<Violation> bigFound = new WssOracle().judge(big, bigRun, ex).violations();
            assertTrue(bigFound.stream().anyMatch(v -> v.summary().contains("T3.0")), "the case as found shows a violation at T3: " + bigFound);

            Finding f = new Finding("h2-RC-s1-i156", small, smallRun, bigFound, primary, Signature.of(small, primary), null, null,
                    new ReductionRecord(ReductionRecord.REDUCED, 3, 2, 0.667, 1.0, 5, false), big, bigRun, null, null);
            new FindingWriter(out).write(f, h2);
            Path dir = out.resolve("findings/h2-RC-s1-i156");
            String readme = Files.readString(dir.resolve("README.md"));

            String title = readme.substring(0, readme.indexOf('\n'));
            assertTrue(title.startsWith("# " + h2.version() + " at READ COMMITTED: "), title);
            String headline = title.substring(("# " + h2.version() + " at READ COMMITTED: ").length());
            assertTrue(headline.contains("`" + CLEAR + "`"), "names the statement: " + title);
            assertTrue(headline.contains("changed 0 rows") && headline.contains("changes 1 row"), "says what it did and should have: " + title);
            assertFalse(headline.contains(";") || headline.contains("promise") || headline.contains("WriteCheck"),
                    "one sentence of what the engine did, no argument about the level: " + title);
            assertTrue(headline.length() < 160, "a headline, not a paragraph: " + headline.length() + " characters: " + title);

            String rule = section(readme, "## The rule it breaks");
            assertTrue(rule.contains("does not promise serializability"), "what the level promises is part of the rule: " + rule);
            assertTrue(rule.contains("in commit order T1 → T2"), "and what was checked: " + rule);

            String explanation = section(readme, "## Explanation");
            assertTrue(explanation.contains("T2.0 `" + CLEAR + "` was blocked until T1 ended"), "which statement waited for whom: " + explanation);
            assertTrue(explanation.contains("; when it started, this write to its table was not yet committed: T1.1 `" + MOVE_KEY + "`"),
                    "the write it waited behind: " + explanation);
            assertTrue(explanation.contains("it missed rows that it changes once T1 has committed"), explanation);
            assertTrue(explanation.contains("table `T0` has `(1, 1, )` where the serial replay T1 → T2 has `(1, 1, NULL)`")
                    || explanation.contains("table `t0` has `(1, 1, )` where the serial replay T1 → T2 has `(1, 1, NULL)`"),
                    "the row that ended differently: " + explanation);
            assertTrue(explanation.endsWith("This is a bug candidate."), explanation);

            String alsoSeen = section(readme, "## Also seen in the case as found, before reduction (`original.case.json`)");
            assertTrue(alsoSeen.contains("T3.0") && alsoSeen.contains("The case as found had 3 transactions"),
                    "T3 is named as the case as found's, which the reduced case lacks: " + alsoSeen);
            assertFalse(readme.contains("## Also seen in the run of the case as found"), readme);

            String files = section(readme, "Files in this folder:");
            Set<String> inFolder;
            try (Stream<Path> s = Files.list(dir)) {
                inFolder = s.map(p -> p.getFileName().toString()).collect(Collectors.toSet());
            }
            assertTrue(inFolder.contains("Repro.java"), inFolder.toString());
            for (String name : inFolder) {
                assertTrue(files.contains("- `" + name + "`"), "lists " + name + ": " + files);
            }
        }
    }

    /** The text under {@code heading}, up to the next heading. */
    private static String section(String readme, String heading) {
        int at = readme.indexOf(heading);
        assertTrue(at >= 0, "no " + heading + " in\n" + readme);
        int start = at + heading.length();
        int next = readme.indexOf("\n## ", start);
        return readme.substring(start, next < 0 ? readme.length() : next).strip();
    }
}
