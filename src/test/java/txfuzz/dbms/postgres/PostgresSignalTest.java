package txfuzz.dbms.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ctrl-C (SIGINT) on a txfuzz process that started PostgreSQL, for real: a separate JVM starts the
 * server under a private home of its own and is interrupted, once right after the start and once
 * in the middle of it (the two at the same time, each with its own home). Neither may leave a postmaster, a
 * data directory or a lease behind.
 */
class PostgresSignalTest {
    /** The interrupted process: starts a server under the home in args[0], says so, and waits. */
    public static final class Child {
        public static void main(String[] args) throws Exception {
            System.setProperty("txfuzz.home", args[0]);
            System.out.println("starting");
            PostgresTarget t = new PostgresTarget();
            System.out.println("started " + t.server().postmasterPid());
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    /** A private home of the test's own, the binaries in it as a run that unpacked them left them (linked, not unpacked again). */
    private static Path home(Path tmp) {
        return txfuzz.PrivateHomes.withBinaries(tmp.resolve("home"), "postgres");
    }

    private static Process child(Path home, BlockingQueue<String> lines) throws IOException {
        // C1 only and the serial collector: the JVM lives seconds, and starts with a fraction of the CPU so
        Process p = new ProcessBuilder(txfuzz.ChildJvm.command(Child.class.getName(), home.toString()))
                .redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) {
                    System.out.println("child: " + l);
                    lines.add(l);
                }
            } catch (IOException ignored) {
                // the child ended
            }
        });
        reader.setDaemon(true);
        reader.start();
        return p;
    }

    private static void sigint(Process p) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", "-INT", String.valueOf(p.pid())).start().waitFor());
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the interrupted JVM ends within 30 s");
    }

    /** Processes whose command line names the home: the postmaster and its backends run with -D <home>/postgres/data-... */
    private static List<Long> serversUnder(Path home) {
        long deadline = System.currentTimeMillis() + 10_000;
        List<Long> found;
        do {
            found = ProcessHandle.allProcesses().filter(h -> {
                try {
                    String cmd = Files.readString(Path.of("/proc", String.valueOf(h.pid()), "cmdline"));
                    return cmd.contains(home.toString()) && EmbeddedServer.running(h) && h.pid() != ProcessHandle.current().pid();
                } catch (IOException | RuntimeException e) {
                    return false;
                }
            }).map(ProcessHandle::pid).toList();
            if (found.isEmpty()) {
                return found;
            }
            PostgresTargetTest.sleep(100);
        } while (System.currentTimeMillis() < deadline);
        return found;
    }

    private static void assertNothingLeft(Path home) throws IOException {
        assertEquals(List.of(), serversUnder(home), "no postmaster is left running");
        for (Path dir : txfuzz.PrivateHomes.dataDirs(home, "postgres")) {
            if (Files.isDirectory(dir)) {
                try (Stream<Path> files = Files.list(dir)) {
                    assertEquals(List.of(), files.filter(f -> f.getFileName().toString().startsWith("data-")).toList(),
                            "no data directory, log or password file is left in " + dir);
                }
            }
        }
        Path leases = home.resolve("leases");
        if (Files.exists(leases)) {
            try (Stream<Path> files = Files.list(leases)) {
                assertEquals(List.of(), files.toList(), "no lease is left");
            }
        }
    }

    /** Each test's folder is in here (a short path: the server's socket lies under the home, and a socket's path has at most 107 bytes). */
    @TempDir
    static Path classDir;

    private static final Map<String, CompletableFuture<Void>> SCENARIOS = new ConcurrentHashMap<>();

    private interface Body {
        void run(Path tmp) throws Exception;
    }

    /** Both scenarios start here, at once (each is mostly a JVM and a server starting); each test waits for its own. */
    @BeforeAll
    static void startBoth() {
        scenario("a", PostgresSignalTest::ctrlCRightAfterTheStart);
        scenario("b", PostgresSignalTest::ctrlCWhileTheServerStarts);
    }

    private static void scenario(String name, Body body) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        SCENARIOS.put(name, done);
        Thread t = new Thread(() -> {
            try {
                body.run(Files.createDirectories(classDir.resolve(name)));
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        }, "postgres-signal-" + name);
        t.setDaemon(true);
        t.start();
    }

    private static void outcome(String name) throws Throwable {
        try {
            SCENARIOS.get(name).get(10, TimeUnit.MINUTES);
        } catch (ExecutionException e) {
            throw e.getCause();
        }
    }

    @Test
    void ctrlCRightAfterTheStartStopsTheServer() throws Throwable {
        outcome("a");
    }

    @Test
    void ctrlCWhileTheServerStartsLeavesNothing() throws Throwable {
        outcome("b");
    }

    private static void ctrlCRightAfterTheStart(Path tmp) throws Exception {
        Path home = home(tmp);
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Process p = child(home, lines);
        try {
            String line;
            do {
                line = lines.poll(90, TimeUnit.SECONDS);
                assertNotNull(line, "the child did not start a server");
            } while (!line.startsWith("started "));
            long pid = Long.parseLong(line.substring("started ".length()).trim());
            assertTrue(pid > 0 && ProcessHandle.of(pid).isPresent());
            sigint(p);
            assertNothingLeft(home);
        } finally {
            p.destroyForcibly();
        }
    }

    private static void ctrlCWhileTheServerStarts(Path tmp) throws Exception {
        Path home = home(tmp);
        Process p = child(home, new LinkedBlockingQueue<>());
        try {
            long deadline = System.currentTimeMillis() + 90_000;
            boolean seen = false;
            while (!seen && System.currentTimeMillis() < deadline) {
                for (Path dir : txfuzz.PrivateHomes.dataDirs(home, "postgres")) {
                    if (Files.isDirectory(dir)) {
                        try (Stream<Path> files = Files.list(dir)) {
                            seen |= files.anyMatch(f -> f.getFileName().toString().startsWith("data-") && Files.isDirectory(f));
                        }
                    }
                }
                Thread.sleep(10);
            }
            assertTrue(seen, "the child began to start a server");
            sigint(p); // initdb or the postmaster's start-up is under way
            assertNothingLeft(home);
        } finally {
            p.destroyForcibly();
        }
    }
}
