package txfuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * The suite's time limits (src/test/resources/junit-platform.properties) hold for a test that hangs in a
 * way no interrupt ends, as a statement waiting on a socket does: it fails within its limit with a
 * thread dump, and the next test runs. Only the limit is shortened here; the thread mode and the dump
 * are the suite's own settings, which the launcher reads from the same file.
 */
@Tag("unit")
class TimeLimitTest {
    /** Lets the abandoned thread of the hanging victim end once the test has seen it fail. */
    static volatile boolean released;

    /** Run only through the launcher below (surefire runs no nested class). */
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    static class Victims {
        @Test
        @Order(1)
        void hangsIgnoringInterrupts() {
            while (!released) {
                try {
                    Thread.sleep(20);
                } catch (InterruptedException ignored) {
                    // as a JDBC socket read does: an interrupt does not end it
                }
            }
        }

        @Test
        @Order(2)
        void runsAfterTheHang() {
            assertTrue(true);
        }
    }

    @Test
    void aHangingTestFailsWithinItsLimitWithAThreadDumpAndTheNextOneRuns() {
        Map<String, TestExecutionResult> results = new ConcurrentHashMap<>();
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream out = System.out;
        long start = System.nanoTime();
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            LauncherFactory.create().execute(LauncherDiscoveryRequestBuilder.request().selectors(selectClass(Victims.class))
                    .configurationParameter("junit.jupiter.execution.timeout.default", "1 s").build(), new TestExecutionListener() {
                        @Override
                        public void executionFinished(TestIdentifier test, TestExecutionResult result) {
                            if (test.isTest()) {
                                results.put(test.getDisplayName(), result);
                            }
                        }
                    });
        } finally {
            System.setOut(out);
            released = true;
        }
        long seconds = (System.nanoTime() - start) / 1_000_000_000L;
        TestExecutionResult hung = results.get("hangsIgnoringInterrupts()");
        assertEquals(TestExecutionResult.Status.FAILED, hung.getStatus(), results.toString());
        Throwable why = hung.getThrowable().orElseThrow();
        assertTrue(why instanceof TimeoutException || why.getCause() instanceof TimeoutException, why.toString());
        assertTrue(seconds < 30, "failed within its limit, not when it ended: " + seconds + " s");
        String dump = printed.toString(StandardCharsets.UTF_8);
        assertTrue(dump.contains("will be interrupted") && dump.contains("Victims.hangsIgnoringInterrupts"),
                "a dump of the threads, the hanging one's stack among them: " + dump);
        assertEquals(TestExecutionResult.Status.SUCCESSFUL, results.get("runsAfterTheHang()").getStatus(), results.toString());
    }
}
