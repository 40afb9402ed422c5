package txfuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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

/** {@link InterruptLeftBehind} is registered for every test, fails one that returns interrupted, and lets the next start clean. */
@Tag("unit")
class InterruptLeftBehindTest {

    /** Run only through the launcher below (surefire runs no nested class). */
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    static class Victims {
        @Test
        @Order(1)
        void returnsInterrupted() {
            Thread.currentThread().interrupt();
        }

        @Test
        @Order(2)
        void startsClean() {
            assertFalse(Thread.currentThread().isInterrupted());
        }

        @Test
        @Order(3)
        void interruptsItselfAndClearsTheFlag() throws Exception {
            Thread.currentThread().interrupt();
            assertTrue(Thread.interrupted());
        }
    }

    @Test
    void aTestThatReturnsInterruptedFailsAndTheNextStartsClean() {
        Map<String, TestExecutionResult> results = new ConcurrentHashMap<>();
        LauncherFactory.create().execute(LauncherDiscoveryRequestBuilder.request().selectors(selectClass(Victims.class)).build(),
                new TestExecutionListener() {
                    @Override
                    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
                        if (test.isTest()) {
                            results.put(test.getDisplayName(), result);
                        }
                    }
                });
        TestExecutionResult interrupted = results.get("returnsInterrupted()");
        assertEquals(TestExecutionResult.Status.FAILED, interrupted.getStatus(), results.toString());
        String why = interrupted.getThrowable().orElseThrow().getMessage();
        assertTrue(why.startsWith("returnsInterrupted() in " + Victims.class.getName() + " left its thread"), why);
        assertEquals(TestExecutionResult.Status.SUCCESSFUL, results.get("startsClean()").getStatus(), results.toString());
        assertEquals(TestExecutionResult.Status.SUCCESSFUL, results.get("interruptsItselfAndClearsTheFlag()").getStatus(), results.toString());
        assertFalse(Thread.currentThread().isInterrupted());
    }
}
