package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** txfuzz compat: a campaign comparing subjects on real engines writes compatibility.md from every worker's comparisons. */
class CompatCommandTest {
    @TempDir
    Path tmp;

    /** The figures row of a pair's table: cases compared, agreeing, not comparable, distinct scenarios. */
    private static final Pattern FIGURES = Pattern.compile("\\n\\| (\\d+) \\| (\\d+) \\| (\\d+) \\| (\\d+) \\|\\n");

    @Test
    void twoWorkersComparisonsAreCountedOnceEachInTheStudy() throws Exception {
        Path out = tmp.resolve("out");
        CliTest.Result r = CliTest.run("compat", "--subjects", "h2,h2:prepared", "--tests", "12", "--seed", "1", "--jobs", "2",
                "--out", out.toString());
        assertTrue(r.code() == Main.OK || r.code() == Main.FOUND, r.toString());
        Path study = out.resolve(CompatCommand.STUDY_FILE);
        assertTrue(r.out().contains("study written to " + study), r.out());
        String summary = Files.readString(out.resolve("summary.json"));
        assertTrue(summary.replaceAll("\\s", "").contains("\"commandLine\":[\"txfuzz\",\"run\",\"--subjects\""),
                "the usual run folder too, recording the run that replays it: " + summary);
        String md = Files.readString(study);
        assertTrue(md.contains("## h2 vs h2:prepared"), md);
        Matcher m = FIGURES.matcher(md);
        assertTrue(m.find(), md);
        long compared = Long.parseLong(m.group(1));
        long agreeing = Long.parseLong(m.group(2));
        long notComparable = Long.parseLong(m.group(3));
        assertEquals(12, compared, "every case of both workers compared once: " + md);
        assertTrue(agreeing + notComparable <= compared, md);
        assertFalse(m.find(), "one pair, one table of figures: " + md);
    }

    @Test
    void badSubjectsAreAOneLineError() {
        assertUsage(CliTest.run("compat", "--subjects", "h2", "--tests", "1"), "needs two or more");
        assertUsage(CliTest.run("compat", "--subjects", "h2,oracle@19", "--tests", "1"), "unknown DBMS 'oracle'");
        assertUsage(CliTest.run("compat", "--tests", "1"), "--subjects");
    }

    @Test
    void aBadExampleReductionBudgetIsAOneLineError() {
        assertUsage(CliTest.run("compat", "--subjects", "h2,h2:prepared", "--tests", "1", "--example-reduce-time", "soon"),
                "cannot read duration 'soon' for --example-reduce-time");
        assertUsage(CliTest.run("compat", "--subjects", "h2,h2:prepared", "--tests", "1", "--example-reduce-time", "30"), "has no unit");
    }

    private static void assertUsage(CliTest.Result r, String expected) {
        assertEquals(Main.USAGE, r.code(), r.toString());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().contains(expected), r.err());
        assertFalse(r.err().contains("Exception"), r.err());
    }
}
