package txfuzz.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Subject;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.model.CaseJson;
import txfuzz.model.TestCase;
import txfuzz.oracle.ExampleReducer;
import txfuzz.oracle.Oracle;
import txfuzz.oracle.OracleContext;
import txfuzz.oracle.OracleRegistration;
import txfuzz.oracle.Verdict;

/**
 * A study's scenario shown by its example reduced, on real H2 releases: the example of the IN-subquery UNION ALL
 * behaviour change between H2 2.4.240 and 2.5.252 loses the statements the divergence does not need and keeps the
 * divergent query; without a reducer it is shown as generated.
 */
class ExampleReductionTest {
    private static final String COMPARING = "diff";
    private static final Pattern REDUCED = Pattern.compile("Reduced from (\\d+) to (\\d+) data statements");

    private static TestCase example() throws Exception {
        String id = "h2-in-subquery-union-all-extra-row";
        try (var in = ExampleReductionTest.class.getResourceAsStream("/txfuzz/diff/" + id + ".case.json")) {
            return CaseJson.read(new String(in.readAllBytes(), StandardCharsets.UTF_8), id);
        }
    }

    /** The figures row of the pair's table: cases compared, agreeing, not comparable, distinct scenarios. */
    private static String figures(String md) {
        Matcher m = Pattern.compile("\\n\\| (\\d+) \\| (\\d+) \\| (\\d+) \\| (\\d+) \\|\\n").matcher(md);
        assertTrue(m.find(), md);
        return m.group();
    }

    @Test
    void eachScenarioIsShownByItsExampleReducedKeepingTheDivergence() throws Exception {
        TestCase c = example();
        OracleRegistration registration = Oracles.registration(COMPARING);
        try (OpenedSubjects opened = OpenedSubjects.open(List.of(Subject.parse("h2@2.4.240"), Subject.parse("h2@2.5.252")), s -> s.open(null))) {
            OracleContext context = opened.context(ExecutorConfig.defaults());
            try (OracleSet set = Oracles.create(List.of(COMPARING), context); Executor ex = new Executor(context.primary(), ExecutorConfig.defaults())) {
                List<Oracle> judged = set.oracles();
                Verdict v = judged.get(0).judge(c, ex.run(c), ex);
                assertEquals(1, v.violations().size(), v.toString());
                String asGenerated = registration.study().apply(judged, ExampleReducer.NONE);
                assertFalse(REDUCED.matcher(asGenerated).find(), asGenerated);
                assertTrue(asGenerated.contains("MERGE INTO t1"), "the example as generated has the case's MERGE: " + asGenerated);
                String md;
                try (ExampleReduction reduction = new ExampleReduction(context, COMPARING, Duration.ofSeconds(90), () -> false)) {
                    md = registration.study().apply(judged, reduction);
                }
                System.out.println(md);
                Matcher m = REDUCED.matcher(md);
                assertTrue(m.find(), md);
                assertTrue(Integer.parseInt(m.group(2)) < Integer.parseInt(m.group(1)), m.group());
                assertTrue(md.contains("UNION ALL") && md.contains("◀ first divergence") && md.contains("First divergence: diff-rows at"),
                        "the same divergence, at the query: " + md);
                assertFalse(md.contains("MERGE INTO t1"), "the MERGE is not needed for it: " + md);
                assertTrue(md.contains("```sql\nCREATE TABLE"), "the reduced case's setup is shown: " + md);
                assertEquals(figures(asGenerated), figures(md), "the figures are the campaign's: reduction changes no count");
            }
        }
    }
}
