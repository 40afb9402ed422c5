package txfuzz.dbms;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import txfuzz.dbms.versions.BundledVersions;

/**
 * {@link TestServers} for a release other than the bundled one: a server of {@code name} at {@code version}
 * (PostgreSQL 15.10, MariaDB 10.11.5 …) is started once per test JVM and shared by every test class that
 * asks for that release; it stops when the JVM exits (the target's own shutdown hook). The bundled version
 * is {@link TestServers}'s server. Tests that crash, kill or restart a server, or that check what closing
 * one leaves behind, start their own instead.
 */
public final class SharedServers {
    private static final Map<String, CompletableFuture<Target>> SHARED = new ConcurrentHashMap<>();

    private SharedServers() {
    }

    /**
     * Starts the servers of {@code name} at {@code versions} that are not started yet, each on a thread of its own, and
     * returns at once: a test class that needs several releases asks for them all first, so they start side by side.
     */
    public static void startInBackground(String name, String... versions) {
        for (String v : versions) {
            future(name, v);
        }
    }

    /** A target of {@code name} at {@code version} to close when done: the shared server behind a no-op close. */
    public static Target open(String name, String version) {
        Target shared;
        try {
            shared = future(name, version).join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
        return new DelegatingTarget(shared) {
            @Override
            public void close() {
                // the shared server outlives the test class
            }
        };
    }

    private static CompletableFuture<Target> future(String name, String version) {
        String bundled = BundledVersions.of(name);
        boolean isBundled = version.equals(bundled) || bundled.startsWith(version + ".");
        // a start that failed is not kept: the next class asks again and sees its own error
        CompletableFuture<Target> f = SHARED.computeIfAbsent(name + "@" + version, k -> CompletableFuture.supplyAsync(
                () -> isBundled ? TestServers.shared(name) : Targets.create(name, TargetOptions.version(version)),
                r -> {
                    Thread t = new Thread(r, "start-" + k);
                    t.setDaemon(true);
                    t.start();
                }));
        f.whenComplete((t, e) -> {
            if (e != null) {
                SHARED.remove(name + "@" + version, f);
            }
        });
        return f;
    }
}
