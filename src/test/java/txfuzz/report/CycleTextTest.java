package txfuzz.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.TestCase;
import txfuzz.oracle.Violation;
import txfuzz.oracle.isolation.IsolationOracle;

/** An isolation cycle is written out as plain text beside its Mermaid drawing, for trackers that render no diagrams. */
class CycleTextTest {
    @Test
    void theReportShowsTheCycleAsTextBeforeTheMermaidDrawing() throws Exception {
        TestCase c = RootCauseSignatureTest.readSkewPlain();
        try (Target h2 = Targets.create("h2"); Executor ex = new Executor(h2, ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            List<Violation> found = new IsolationOracle().judge(c, trace, ex).violations();
            assertEquals(1, found.size());
            String text = found.get(0).attachments().get("read-skew.txt");
            assertTrue(text != null && text.matches("T(\\d) --rw\\(a\\.1\\)--> T\\d --wr\\(b\\.2\\)--> T\\1\\n"), "T1 reads a, T2 writes a and b: " + text);
            String readme = BugReport.render(Finding.unreduced("h2-x", c, trace, found, ReductionRecord.notRun(ReductionRecord.OFF, 4)), h2,
                    "findings/h2-x");
            // the title says what the transactions did, in words, naming them (issue 22 item 10)
            String title = readme.substring(0, readme.indexOf('\n'));
            assertTrue(title.matches("# .* at .*: read skew between T\\d and T\\d"), title);
            int plain = readme.indexOf("```text\n" + text);
            assertTrue(plain > 0 && plain < readme.indexOf("```mermaid"), readme);
        }
    }
}
