package txfuzz.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.dbms.h2.H2Target;
import txfuzz.exec.Cases;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Evidence;
import txfuzz.oracle.Violation;
import txfuzz.oracle.ViolationKind;

/** report/ renders what a kind says: an oracle report/ has never heard of gets a full report. */
class BugReportTest {
    /** A kind of an oracle that exists only in this test. */
    enum EchoKind implements ViolationKind {
        ECHO;

        @Override
        public String oracle() {
            return "echo";
        }

        @Override
        public String label() {
            return "double-echo";
        }

        @Override
        public String headline() {
            return "every statement is heard twice";
        }

        @Override
        public String rule(Setting where) {
            return "At " + where.level().sql() + " on " + where.dbms() + " a statement must be heard exactly once (the echo rule).";
        }

        @Override
        public String undocumented(Setting where) {
            return where.dbms() + " never documents echoes. This is a bug candidate.";
        }

        @Override
        public boolean engineFailure() {
            return true;
        }

        @Override
        public boolean reducible() {
            return false;
        }
    }

    /** Evidence that names the bug whatever the case. */
    record Heard(String what) implements Evidence {
        @Override
        public Optional<String> caseIndependentIdentity() {
            return Optional.of("echo of " + what);
        }
    }

    private static TestCase oneUpdate() {
        return Cases.on("h2").table("t").level(IsolationLevel.READ_COMMITTED)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)")
                .txn("UPDATE t SET v = 1 WHERE id = 1")
                .order(1, 1, 1);
    }

    @Test
    void aKindDefinedOutsideReportIsRenderedAsItSays(@TempDir Path out) throws Exception {
        try (H2Target h2 = new H2Target()) {
            TestCase c = oneUpdate();
            Violation v = new Violation(EchoKind.ECHO, Classification.BUG_CANDIDATE, "echo at T1.1", "Heard twice.\n", null, Map.of(),
                    new Heard("UPDATE"));
            List<FindingRecord> records = new FindingWriter(out).write(Finding.unreduced("h2-RC-s0-i0", c, null, List.of(v),
                    ReductionRecord.notRun(ReductionRecord.NOT_APPLICABLE, 1)), h2);
            String readme = Files.readString(out.resolve("findings/h2-RC-s0-i0/README.md"));
            assertTrue(readme.startsWith("# " + h2.version() + " at READ COMMITTED: every statement is heard twice\n"), readme);
            assertTrue(readme.contains("txfuzz oracle `echo`, violation `double-echo`"), readme);
            assertTrue(readme.contains("## The rule it breaks\n\nAt READ COMMITTED on h2 a statement must be heard exactly once (the echo rule).\n\n"), readme);
            assertTrue(readme.contains("## Explanation\n\nh2 never documents echoes. This is a bug candidate."), readme);
            String verdict = Files.readString(out.resolve("findings/h2-RC-s0-i0/verdict.md"));
            assertTrue(verdict.contains("## echo: double-echo — bug-candidate"), verdict);
            assertEquals("double-echo", records.get(0).kind());
            assertEquals("echo", records.get(0).oracle());
            Signature s = Signature.of(c, v);
            assertEquals(List.of("echo of UPDATE"), s.cause(), "the evidence's identity signs it");
            assertEquals("any", s.level());
        }
    }

    @Test
    void theKindDecidesWhichViolationAFindingIsAbout() {
        Violation plain = new Violation(txfuzz.oracle.wss.WssKind.TX_WSS, Classification.BUG_CANDIDATE, "tx", "d", null);
        Violation echo = new Violation(EchoKind.ECHO, Classification.BUG_CANDIDATE, "echo", "d", null);
        assertEquals(echo, Finding.primaryOf(List.of(plain, echo)), "an engine failure is the most direct evidence");
        Violation documentedEcho = echo.withClassification(Classification.DOCUMENTED, "the manual");
        assertEquals(plain, Finding.primaryOf(List.of(documentedEcho, plain)), "classification first");
        assertFalse(BugReport.explanation(documentedEcho, new H2Target(), oneUpdate()).contains("bug candidate"));
    }
}
