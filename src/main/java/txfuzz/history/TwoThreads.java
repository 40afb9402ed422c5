package txfuzz.history;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * Runs two independent parts of a pass at once, one on a thread of its own: the checker's passes over a large history
 * wait on memory, and a second core keeps twice as many misses in flight. The parts must touch disjoint state (or only
 * read shared state); whoever calls merges what they made in a fixed order, so the result does not depend on which part
 * finished first.
 */
final class TwoThreads {
    private TwoThreads() {
    }

    /** Whether this machine has a second core for the checker to use. */
    static final boolean AVAILABLE = Runtime.getRuntime().availableProcessors() > 1;

    /**
     * Runs {@code first} here and {@code second} on a new thread, and returns once both are done; an exception of either is
     * thrown here (the first's before the second's). With {@code together} false, runs them one after the other here.
     */
    static void run(boolean together, Runnable first, Runnable second) {
        if (!together) {
            first.run();
            second.run();
            return;
        }
        FutureTask<Void> other = new FutureTask<>(second, null);
        Thread helper = new Thread(other, "txfuzz-checker-helper");
        helper.setDaemon(true);
        helper.start();
        Throwable failed = null;
        try {
            first.run();
        } catch (RuntimeException | Error e) {
            failed = e;
        }
        // the second part is waited for even when the first failed: it must not go on writing state the caller hands back
        boolean interrupted = false;
        while (true) {
            try {
                other.get();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException e) {
                failed = failed != null ? failed : e.getCause();
                break;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (failed instanceof RuntimeException r) {
            throw r;
        }
        if (failed instanceof Error e) {
            throw e;
        }
        if (failed != null) {
            throw new IllegalStateException(failed);
        }
    }
}
