package txfuzz.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import txfuzz.PrivateHomes;

/**
 * Scenarios of a test class that runs real txfuzz processes, a few at a time in the background: each has a folder of
 * its own under the class's folder (its runs' output and stderr files) and a private txfuzz home in it, so it sees only
 * its own runs' servers, data directories and leases. A test waits for its scenario's {@link #outcome}; a failure
 * carries what the scenario's runs wrote to stderr.
 */
final class Scenarios implements AutoCloseable {
    /** One scenario's work, given its folder and its home. */
    interface Body {
        void run(Path dir, Path home) throws Exception;
    }

    private final Path root;
    private final ExecutorService drivers;
    private final Map<String, Future<?>> started = new ConcurrentHashMap<>();

    Scenarios(Path root, int atOnce, String threadName) {
        this.root = root;
        this.drivers = Executors.newFixedThreadPool(atOnce, r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Queues scenario {@code name}; its home is made with the default binaries of {@code engine} linked in
     * ({@link PrivateHomes}), or not made at all when {@code engine} is null (its first run makes it).
     */
    void start(String name, String engine, Body body) {
        // short: a server's socket lies under the home, and a socket's path has at most 107 bytes
        Path dir = root.resolve(String.valueOf(started.size()));
        started.put(name, drivers.submit(() -> {
            long began = System.nanoTime();
            Files.createDirectories(dir);
            Path home = dir.resolve("home");
            if (engine != null) {
                PrivateHomes.withBinaries(home, engine);
            }
            try {
                body.run(dir, home);
            } catch (Exception | Error failed) {
                failed.addSuppressed(new AssertionError("what the scenario's runs wrote to stderr:\n" + said(dir)));
                throw failed;
            } finally {
                System.out.printf("%s: %s took %.1f s%n", dir.getFileName(), name, (System.nanoTime() - began) / 1e9);
            }
            return null;
        }));
    }

    /** The outcome of scenario {@code name}: its failure, thrown here. */
    void outcome(String name) throws Throwable {
        try {
            started.get(name).get();
        } catch (ExecutionException e) {
            throw e.getCause();
        }
    }

    /** Every stderr file of the scenario's runs, named. */
    private static String said(Path dir) {
        StringBuilder b = new StringBuilder();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".stderr")).sorted()::iterator) {
                b.append("--- ").append(f.getFileName()).append('\n').append(Files.readString(f));
            }
        } catch (IOException e) {
            b.append(e);
        }
        return b.toString();
    }

    /** Stops the scenarios still running (a test class's end) and waits for their threads. */
    @Override
    public void close() throws InterruptedException {
        drivers.shutdownNow();
        drivers.awaitTermination(60, TimeUnit.SECONDS);
    }
}
