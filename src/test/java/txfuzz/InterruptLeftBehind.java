package txfuzz;

import java.lang.reflect.Method;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;

/**
 * Fails a test (or a lifecycle method) that returns with its thread's interrupt flag set, and clears
 * the flag, so a stray interrupt is blamed on the code that left it and never on a later test (Derby
 * ends the next statement with 08000 "Connection closed by unknown interrupt"). It wraps the method
 * itself, on the thread the method runs on: with {@code junit-platform.properties}' time limits every
 * method runs on a thread of its own. Registered for every test by
 * {@code META-INF/services/org.junit.jupiter.api.extension.Extension} and
 * {@code junit.jupiter.extensions.autodetection.enabled}.
 */
public final class InterruptLeftBehind implements InvocationInterceptor {
    @Override
    public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> method, ExtensionContext context)
            throws Throwable {
        checked(invocation, context.getDisplayName() + " in " + context.getRequiredTestClass().getName());
    }

    @Override
    public void interceptTestTemplateMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> method,
            ExtensionContext context) throws Throwable {
        checked(invocation, context.getDisplayName() + " in " + context.getRequiredTestClass().getName());
    }

    @Override
    public void interceptBeforeAllMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> method,
            ExtensionContext context) throws Throwable {
        checked(invocation, lifecycle(method));
    }

    @Override
    public void interceptAfterAllMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> method,
            ExtensionContext context) throws Throwable {
        checked(invocation, lifecycle(method));
    }

    @Override
    public void interceptBeforeEachMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> method,
            ExtensionContext context) throws Throwable {
        checked(invocation, lifecycle(method));
    }

    @Override
    public void interceptAfterEachMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> method,
            ExtensionContext context) throws Throwable {
        checked(invocation, lifecycle(method));
    }

    private static String lifecycle(ReflectiveInvocationContext<Method> method) {
        return method.getExecutable().getName() + " in " + method.getTargetClass().getName();
    }

    private static void checked(Invocation<Void> invocation, String what) throws Throwable {
        try {
            invocation.proceed();
        } catch (Throwable failed) {
            Thread.interrupted(); // the method's own failure says what went wrong; the thread is not reused
            throw failed;
        }
        if (Thread.interrupted()) { // clears it
            throw new AssertionError(what + " left its thread (" + Thread.currentThread().getName() + ") interrupted: a test that"
                    + " interrupts its own thread must clear the flag, and code must not interrupt a caller that was not interrupted");
        }
    }
}
