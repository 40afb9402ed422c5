package txfuzz;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test (or a class, for its {@code @BeforeAll}/{@code @AfterAll}) that returns with its
 * thread's interrupt flag set, and clears the flag: every test class shares the surefire main thread,
 * and a flag left behind makes a later test fail in a way that names the wrong test (Derby ends the
 * next statement with 08000 "Connection closed by unknown interrupt"). Registered for every test by
 * {@code META-INF/services/org.junit.jupiter.api.extension.Extension} and
 * {@code junit.jupiter.extensions.autodetection.enabled} in {@code junit-platform.properties}; it runs
 * after the test's own {@code @AfterEach} methods.
 */
public final class InterruptLeftBehind implements AfterEachCallback, AfterAllCallback {
    @Override
    public void afterEach(ExtensionContext context) {
        check(context.getDisplayName() + " in " + context.getRequiredTestClass().getName());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        check("the @BeforeAll/@AfterAll methods of " + context.getRequiredTestClass().getName());
    }

    private static void check(String what) {
        if (Thread.interrupted()) { // clears it: the tests after this one start clean
            throw new AssertionError(what + " left its thread (" + Thread.currentThread().getName() + ") interrupted: a test that"
                    + " interrupts its own thread must clear the flag, and code must not interrupt a caller that was not interrupted");
        }
    }
}
