package txfuzz.dbms;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs a test's body once per release, the releases on threads of their own at the same time: each
 * release has its own target (an in-process engine's release lives in a class loader of its own, a
 * server release is a process of its own), so nothing is shared between them, and the time one release
 * spends waiting for a lock timeout is time the others run in. Every release runs to its end; the test
 * fails if any release failed, with each failure named by its release (the first as the cause, the
 * others suppressed), so one run shows every release the assertion failed on, as the loop it replaces
 * showed the first.
 */
public final class EachVersion {
    /** A test's body for one release. */
    @FunctionalInterface
    public interface Body {
        void run(String version) throws Exception;
    }

    private EachVersion() {
    }

    /** {@code body} for each of {@code versions}, all at once. */
    public static void run(List<String> versions, Body body) throws Exception {
        run(versions, versions.size(), body);
    }

    /** {@code body} for each of {@code versions}, at most {@code threads} at a time. */
    public static void run(List<String> versions, int threads, Body body) throws Exception {
        AtomicInteger n = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(threads, versions.size())), r -> {
            Thread t = new Thread(r, "each-version-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (String v : versions) {
                runs.add(pool.submit(() -> {
                    Thread.currentThread().setName("each-version-" + v);
                    body.run(v);
                    return null;
                }));
            }
            AssertionError failed = null;
            for (int i = 0; i < versions.size(); i++) {
                try {
                    runs.get(i).get();
                } catch (ExecutionException e) {
                    AssertionError named = new AssertionError(versions.get(i) + ": " + e.getCause(), e.getCause());
                    if (failed == null) {
                        failed = named;
                    } else {
                        failed.addSuppressed(named);
                    }
                }
            }
            if (failed != null) {
                throw failed;
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
