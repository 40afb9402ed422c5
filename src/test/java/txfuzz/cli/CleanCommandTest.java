package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import txfuzz.ChildJvm;
import txfuzz.PrivateHomes;
import txfuzz.dbms.server.MemoryDirectory;

/**
 * What txfuzz leaves in its private directory when it is killed (SIGKILL while unpacking the server
 * binaries, during PostgreSQL's initdb, with a server running), what the next run and
 * {@code txfuzz clean} remove, and that neither touches what a live run holds. Every test runs real
 * txfuzz processes with a private directory of its own (other runs on this machine use theirs).
 */
class CleanCommandTest {
    /**
     * How many scenarios run at once: most of their time is waiting (unpacking aside, which only one of them does). Two,
     * not three: the suite runs other classes in two more JVMs beside this one, and three at once left a MariaDB start
     * without its "ready" line for 60 s.
     */
    private static final int AT_ONCE = 2;
    /** The class's folder: every scenario has a folder of its own in it, holding its private home and its runs' output. */
    @TempDir
    static Path classDir;

    private static Scenarios scenarios;
    private static final List<Process> STARTED = new CopyOnWriteArrayList<>();

    private record Run(int code, String out, String err) {
    }

    private interface Body {
        void run(Runs r) throws Exception;
    }

    /**
     * Every scenario starts here, {@link #AT_ONCE} at a time, each with a private home of its own (others' runs never
     * meet its leases, servers or lock); each test waits for its own scenario and fails with what it found. The homes
     * of runs that do not test unpacking get the server binaries linked in from one unpacking per JVM
     * ({@link PrivateHomes}), as a home where an earlier run unpacked them.
     */
    @BeforeAll
    static void startEveryScenario() {
        scenarios = new Scenarios(classDir, AT_ONCE, "clean-scenario");
        // the longest first
        scenario("killedDuringInitdb", "postgres", CleanCommandTest::killedDuringInitdb);
        scenario("killedWhileUnpacking", null, CleanCommandTest::killedWhileUnpacking);
        scenario("clean-mariadb", "mariadb", r -> cleanStopsAKilledRunsServer(r, "mariadb", "MariaDB"));
        scenario("clean-postgres", "postgres", r -> cleanStopsAKilledRunsServer(r, "postgres", "PostgreSQL"));
        scenario("liveRun", "postgres", CleanCommandTest::cleanLeavesALiveRun);
        scenario("terminatedDuringInitdb", "postgres", CleanCommandTest::terminatedDuringInitdb);
        scenario("liveProcess", null, CleanCommandTest::cleanLeavesWhatALiveProcessUses);
        scenario("evilHome", null, CleanCommandTest::homeUnderADirectoryOthersMayWrite);
    }

    /** Queues scenario {@code name}; its home is made with the binaries of {@code engine} (null: an empty home, made by its first run). */
    private static void scenario(String name, String engine, Body body) {
        scenarios.start(name, engine, (dir, home) -> body.run(new Runs(dir, home)));
    }

    /** The outcome of scenario {@code name}: its failure, thrown here. */
    private static void outcome(String name) throws Throwable {
        scenarios.outcome(name);
    }

    @AfterAll
    static void stopWhatIsLeft() throws Exception {
        scenarios.close();
        for (Process p : STARTED) {
            p.destroyForcibly(); // a scenario that failed half-way
        }
        for (Process p : STARTED) {
            p.waitFor(30, TimeUnit.SECONDS);
        }
        try (Stream<Path> dirs = Files.list(classDir)) {
            for (Path d : (Iterable<Path>) dirs::iterator) {
                for (String line : new Runs(d, d.resolve("home")).processes("")) { // what a SIGKILLed run of a failed scenario left
                    ProcessHandle.of(Long.parseLong(line.substring(0, line.indexOf(' ')))).ifPresent(ProcessHandle::destroyForcibly);
                }
            }
        }
    }

    @Test
    void aRunKilledDuringInitdbLeavesNoPasswordAndTheNextRunRemovesItsDataDirectoryAndLog() throws Throwable {
        outcome("killedDuringInitdb");
    }

    @Test
    void cleanLeavesWhatALiveProcessUsesEvenWithoutTheLock() throws Throwable {
        outcome("liveProcess");
    }

    @Test
    void aRunTerminatedDuringInitdbLeavesNothing() throws Throwable {
        outcome("terminatedDuringInitdb");
    }

    /** The one scenario whose home starts empty and unpacks the binaries (twice: the first run is killed doing it). */
    @Test
    void aRunKilledWhileUnpackingLeavesNothingAfterTheNextRun() throws Throwable {
        outcome("killedWhileUnpacking");
    }

    @ParameterizedTest
    @CsvSource({"postgres, PostgreSQL", "mariadb, MariaDB"})
    void cleanStopsAKilledRunsServerAndRemovesEverythingAndDryRunChangesNothing(String dbms, String kind) throws Throwable {
        outcome("clean-" + dbms);
    }

    @Test
    void cleanLeavesALiveRunAlone() throws Throwable {
        outcome("liveRun");
    }

    @Test
    void aHomeUnderADirectoryOthersMayWriteIsRefused() throws Throwable {
        outcome("evilHome");
    }

    // ---- the scenarios

    private static void killedDuringInitdb(Runs r) throws Exception {
        Path home = r.home;
        Process p = r.launch("first", "run", "--dbms", "postgres", "--tests", "100000", "--reduce-time", "0");
        waitFor(() -> !r.processes("/bin/initdb").isEmpty(), 300, "initdb runs", p);
        assertEquals(List.of(), matching(home.resolve("postgres"), ".*\\.pw"), "no password file exists while initdb runs");
        p.destroyForcibly(); // SIGKILL, while initdb runs
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        List<Path> left = new ArrayList<>(data(home, "data-\\d+-\\d+"));
        left.addAll(matching(home.resolve("postgres"), "data-\\d+-\\d+\\.log"));
        assertEquals(2, left.size(), "the killed run left its data directory and log (precondition): " + left);
        for (Path lease : matching(home.resolve("leases"), ".*\\.lease")) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(lease)), lease.toString());
        }
        // binaries unpacked by an older txfuzz had 0755 directories: the next run narrows them
        Path bin = matching(home.resolve("postgres"), "PG-[0-9a-f]+").get(0).resolve("bin");
        Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("rwxr-xr-x"));

        Run next = r.run("next", "run", "--dbms", "postgres", "--tests", "2", "--reduce-time", "0");
        assertTrue(next.code() == 0 || next.code() == 1, next.err());
        String line = "left by txfuzz process " + p.pid() + ", which was killed";
        assertTrue(next.err().lines().anyMatch(l -> l.startsWith("txfuzz: ") && l.contains(line)
                && l.contains("removed " + left.get(0) + " and " + left.get(1))), "the next run says what it removed: " + next.err());
        assertEquals(List.of(), matching(home.resolve("postgres"), ".*(\\.pw|\\.log|\\.tmp-.*)|data-.*"), "nothing of either run is left");
        assertEquals(List.of(), data(home, "data-.*"), "no data directory of either run is left");
        assertEquals(List.of(), r.processes(""), "no process runs from the private directory");
        assertEquals(List.of(), matching(home.resolve("leases"), ".*"), "no lease is left");
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(bin)), "an old 0755 directory is narrowed");
    }

    private static void cleanLeavesWhatALiveProcessUses(Runs r) throws Exception {
        Path home = r.home;
        Path programs = Files.createDirectories(home.resolve("programs"));
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwx------"));
        Path sleep = Files.copy(Path.of("/bin/sleep"), programs.resolve("sleep"));
        Process running = new ProcessBuilder(sleep.toString(), "300").start(); // a server an older txfuzz left, say
        try {
            waitFor(() -> !r.processes("").isEmpty(), 30, "the program runs", null);
            Run clean = r.run("clean", "clean");
            assertEquals(0, clean.code(), clean.err());
            assertTrue(clean.out().contains("txfuzz: left the unpacked binaries and other files in " + home + ": process " + running.pid()), clean.out());
            assertTrue(Files.exists(sleep) && running.isAlive());
        } finally {
            running.destroyForcibly();
            running.waitFor(30, TimeUnit.SECONDS);
        }
        // a lease whose owner runs (this JVM: an older txfuzz that takes no lock, say)
        Path leases = Files.createDirectories(home.resolve("leases"));
        ProcessHandle me = ProcessHandle.current();
        String lease = me.pid() + "-1.lease";
        Files.writeString(leases.resolve(lease), "ownerPid=" + me.pid() + "\nownerStart="
                + me.info().startInstant().orElseThrow().toString().replace(":", "\\:") + "\nkind=PostgreSQL\ndataDir=" + home.resolve("data") + "\n");
        Run clean = r.run("clean2", "clean");
        assertEquals(0, clean.code(), clean.err());
        assertTrue(clean.out().contains("txfuzz: left the unpacked binaries and other files in " + home + ": a running txfuzz process holds a lease"),
                clean.out());
        assertTrue(Files.exists(sleep));
        Files.delete(leases.resolve(lease));
        Run last = r.run("clean3", "clean");
        assertTrue(last.out().contains("txfuzz: removed " + programs), last.out());
        assertFalse(Files.exists(programs));
    }

    private static void terminatedDuringInitdb(Runs r) throws Exception {
        Path home = r.home;
        Process p = r.launch("first", "run", "--dbms", "postgres", "--tests", "100000", "--reduce-time", "0");
        waitFor(() -> !r.processes("/bin/initdb").isEmpty(), 300, "initdb runs", p);
        p.destroy(); // SIGTERM, while initdb runs: the run stops initdb and removes what it made
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        waitFor(() -> r.processes("").isEmpty(), 30, "initdb ends", null);
        assertEquals(List.of(), matching(home.resolve("postgres"), ".*(\\.pw|\\.log|\\.tmp-.*)|data-.*"), "nothing of the run is left");
        assertEquals(List.of(), data(home, "data-.*"), "no data directory of the run is left");
        assertEquals(List.of(), matching(home.resolve("leases"), ".*"), "no lease is left");
    }

    private static void killedWhileUnpacking(Runs r) throws Exception {
        Path home = r.home;
        Process p = r.launch("first", "run", "--dbms", "postgres", "--tests", "100000", "--reduce-time", "0");
        waitFor(() -> !matching(home.resolve("postgres"), "PG-.*\\.tmp-.*").isEmpty(), 300, "the binaries are being unpacked", p);
        p.destroyForcibly();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(1, matching(home.resolve("postgres"), "PG-.*\\.tmp-.*").size(), "the killed run left its unpacking (precondition)");
        // and what versions before leases left when killed, by a process that has ended (not leased)
        Process ended = new ProcessBuilder("true").start();
        assertEquals(0, ended.waitFor());
        Path oldUnpacking = Files.createDirectories(home.resolve("postgres/PG-0123456789abcdef0123456789abcdef.tmp-" + ended.pid() + "-7/bin"));
        Path oldPassword = Files.writeString(home.resolve("postgres/data-" + ended.pid() + "-1.pw"), "secret\n");

        Run next = r.run("next", "run", "--dbms", "postgres", "--tests", "1", "--reduce-time", "0");
        assertTrue(next.code() == 0 || next.code() == 1, next.err());
        assertTrue(next.err().contains("left by txfuzz process " + p.pid()), "the next run says what it removed: " + next.err());
        assertEquals(List.of(), matching(home.resolve("postgres"), ".*\\.tmp-.*"), "no unpacking is left beside the binaries");
        assertFalse(Files.exists(oldUnpacking.getParent()) || Files.exists(oldPassword), "nor what an older version left");
        assertEquals(1, matching(home.resolve("postgres"), "PG-[0-9a-f]+").size(), "the binaries, unpacked once");
    }

    private static void cleanStopsAKilledRunsServer(Runs r, String dbms, String kind) throws Exception {
        Path home = r.home;
        Process p = r.launch("killed", "run", "--dbms", dbms, "--tests", "100000", "--reduce-time", "0");
        waitFor(() -> r.stdout("killed").contains("txfuzz: testing"), 300, "the server is up", p);
        r.assertEveryDirectoryTxfuzzMadeIsPrivate();
        p.destroyForcibly();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        List<String> servers = r.processes("");
        assertFalse(servers.isEmpty(), "SIGKILL leaves the server running (precondition)");
        // the killed run's sessions end on their own as their server notices (PostgreSQL's backends, titled with their
        // client's address): the server as it stays is what --dry-run must leave as it is
        waitFor(() -> r.processes("").stream().noneMatch(Runs::isClientSession), 30, "the killed run's sessions end", null);
        servers = r.processes("");

        List<Path> before = r.tree(3); // not deeper: the running server changes its own files
        Run dry = r.run("dry", "clean", "--dry-run");
        assertEquals(0, dry.code(), dry.err());
        assertTrue(dry.out().lines().anyMatch(l -> l.startsWith("txfuzz: would stop a " + kind + " server (pid ")
                && l.endsWith("left by txfuzz process " + p.pid() + ", which was killed")), dry.out());
        assertTrue(dry.out().lines().anyMatch(l -> l.startsWith("txfuzz: would remove " + home + "/")), dry.out());
        assertEquals(before, r.tree(3), "--dry-run changes nothing");
        assertEquals(servers, r.processes(""), "--dry-run stops nothing");

        Run clean = r.run("clean", "clean");
        assertEquals(0, clean.code(), clean.err());
        assertTrue(clean.out().lines().anyMatch(l -> l.startsWith("txfuzz: stopped a " + kind + " server (pid ")), clean.out());
        waitFor(() -> r.processes("").isEmpty(), 30, "the server's processes end", null);
        assertEquals(List.of(home.resolve("in-use.lock"), home.resolve("leases")), r.tree(Integer.MAX_VALUE),
                "only the lock file and the empty lease folder are left");
        assertFalse(Files.exists(MemoryDirectory.location(home)), "nor anything of the home in memory");
    }

    private static void cleanLeavesALiveRun(Runs r) throws Exception {
        Path home = r.home;
        Process p = r.launch("live", "run", "--dbms", "postgres", "--tests", "100000", "--reduce-time", "0");
        try {
            waitFor(() -> r.stdout("live").contains("txfuzz: testing"), 300, "the server is up", p);
            List<String> servers = r.processes("");
            List<Path> data = data(home, "data-\\d+-\\d+");
            assertEquals(1, data.size(), "the live run's data directory");

            Run clean = r.run("clean", "clean");
            assertEquals(0, clean.code(), clean.err());
            assertTrue(clean.out().contains("txfuzz: left the unpacked binaries and other files in " + home + ": a running txfuzz process uses it"),
                    clean.out());
            assertTrue(p.isAlive(), "the run goes on");
            // the server itself, not its backends: the live run opens and closes sessions meanwhile
            List<String> postmaster = servers.stream().filter(l -> l.contains(" -D ")).toList();
            assertEquals(1, postmaster.size(), servers.toString());
            assertTrue(r.processes("").containsAll(postmaster), "its server runs");
            assertTrue(Files.exists(data.get(0).resolve("PG_VERSION")), "its data directory is whole");
            assertEquals(1, matching(home.resolve("postgres"), "PG-[0-9a-f]+").size(), "the binaries it runs are there");
        } finally {
            p.destroy(); // SIGTERM: the run stops its server and removes its data directory
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        }
    }

    private static void homeUnderADirectoryOthersMayWrite(Runs r) throws Exception {
        Path evil = Files.createDirectory(r.dir.resolve("evil"));
        Files.setPosixFilePermissions(evil, PosixFilePermissions.fromString("rwxrwxrwx"));
        Runs under = new Runs(r.dir, evil.resolve("home"));
        Path home = under.home;
        for (String[] args : List.of(new String[] {"clean"}, new String[] {"run", "--dbms", "postgres", "--tests", "1"})) {
            Run run = under.runWithEnvironmentHome(args);
            assertEquals(2, run.code(), run.out() + run.err());
            assertEquals(1, run.err().lines().count(), "one line: " + run.err());
            assertTrue(run.err().contains(evil + " (above txfuzz's private directory " + home + ") is writable by other users (mode 0777)")
                    && run.err().contains("chmod go-w " + evil), run.err());
            assertFalse(Files.exists(home), "nothing is made under it");
        }
        if (txfuzz.dbms.server.PrivateDirectory.isRoot()) {
            Files.setAttribute(evil, "unix:uid", 65534); // another user's world-writable directory, as in the report
            Run run = under.runWithEnvironmentHome("clean");
            assertEquals(2, run.code(), run.err());
            assertTrue(run.err().contains(evil + " (above txfuzz's private directory " + home + ") belongs to another user (uid 65534)"), run.err());
            Files.setAttribute(evil, "unix:uid", 0);
        }
        Files.setPosixFilePermissions(evil, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setAttribute(evil, "unix:mode", 01777); // sticky, as /tmp: others cannot move what is not theirs
        Run sticky = under.runWithEnvironmentHome("clean");
        assertEquals(0, sticky.code(), sticky.err());
    }

    // ---- helpers

    /** A scenario's runs: txfuzz processes with {@code home} as their private home, their output in {@code dir}. */
    private static final class Runs {
        final Path dir;
        final Path home;

        Runs(Path dir, Path home) {
            this.dir = dir;
            this.home = home;
        }

        void assertEveryDirectoryTxfuzzMadeIsPrivate() throws IOException {
            List<String> open = new ArrayList<>();
            Path twin = MemoryDirectory.location(home);
            if (Files.isDirectory(twin)) {
                // the per-user directory above the twin, not its other entries: other tests' homes have twins there too
                String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(twin.getParent(), LinkOption.NOFOLLOW_LINKS));
                if (!mode.equals("rwx------")) {
                    open.add(twin.getParent() + " " + mode);
                }
            }
            for (Path root : Files.isDirectory(twin) ? List.of(home, twin) : List.of(home)) {
                try (Stream<Path> s = Files.walk(root)) {
                    for (Path d : (Iterable<Path>) s.filter(f -> Files.isDirectory(f, LinkOption.NOFOLLOW_LINKS))::iterator) {
                        String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(d, LinkOption.NOFOLLOW_LINKS));
                        if (!mode.equals("rwx------") && !madeByTheServer(d.startsWith(twin) ? twin.relativize(d) : home.relativize(d))) {
                            open.add(d + " " + mode);
                        }
                    }
                }
            }
            assertEquals(List.of(), open, "directories txfuzz made that others may enter");
        }

        /** Inside a data directory, the server decides (PostgreSQL makes its own 0700; MariaDB's are in its 0700 run directory). */
        private static boolean madeByTheServer(Path rel) {
            return rel.getNameCount() > 2 && (rel.getName(0).toString().equals("postgres") && rel.getName(1).toString().startsWith("data-")
                    || rel.getName(0).toString().equals("mariadb-runs") && rel.getNameCount() > 3 && rel.getName(2).toString().equals("data"));
        }

        List<Path> tree(int depth) throws IOException {
            try (Stream<Path> s = Files.walk(home, depth)) {
                return s.filter(f -> !f.equals(home)).sorted().toList();
            }
        }

        /** Whether the process in {@code line} (from {@link #processes}) serves a client: its title names the client's address. */
        static boolean isClientSession(String line) {
            try {
                String title = Files.readString(Path.of("/proc", line.substring(0, line.indexOf(' ')), "cmdline"));
                return title.contains("127.0.0.1(") || title.contains("[local]") || title.contains("::1(");
            } catch (IOException | RuntimeException gone) {
                return false;
            }
        }

        /** Processes running a program from the private directory whose command line contains {@code part}. */
        List<String> processes(String part) {
            String prefix = home + "/";
            return ProcessHandle.allProcesses().filter(ProcessHandle::isAlive)
                    .filter(h -> h.info().command().map(c -> c.startsWith(prefix)).orElse(false)
                            || h.info().commandLine().map(c -> c.contains(prefix) && c.contains("/bin/initdb")).orElse(false))
                    .map(h -> h.pid() + " " + h.info().commandLine().orElse(""))
                    .filter(c -> c.contains(part)).sorted().toList();
        }

        Process launch(String name, String... args) throws IOException {
            List<String> cmd = new ArrayList<>(ChildJvm.command("-Dtxfuzz.home=" + home, "txfuzz.cli.Main"));
            cmd.addAll(List.of(args));
            if (args[0].equals("run")) {
                cmd.addAll(List.of("--out", dir.resolve("out-" + name).toString()));
            }
            Process p = new ProcessBuilder(cmd).redirectOutput(dir.resolve(name + ".stdout").toFile())
                    .redirectError(dir.resolve(name + ".stderr").toFile()).start();
            STARTED.add(p);
            return p;
        }

        Run run(String name, String... args) throws Exception {
            Process p = launch(name, args);
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail("txfuzz " + String.join(" ", args) + " did not end");
            }
            return new Run(p.exitValue(), stdout(name), Files.readString(dir.resolve(name + ".stderr")));
        }

        /** txfuzz with the private directory given as $TXFUZZ_HOME, as a user sets it. */
        Run runWithEnvironmentHome(String... args) throws Exception {
            List<String> cmd = new ArrayList<>(ChildJvm.command("txfuzz.cli.Main"));
            cmd.addAll(List.of(args));
            if (args[0].equals("run")) {
                cmd.addAll(List.of("--out", dir.resolve("out-env").toString()));
            }
            ProcessBuilder b = new ProcessBuilder(cmd).redirectOutput(dir.resolve("env.stdout").toFile()).redirectError(dir.resolve("env.stderr").toFile());
            Map<String, String> env = b.environment();
            env.put("TXFUZZ_HOME", home.toString());
            Process p = b.start();
            STARTED.add(p);
            assertTrue(p.waitFor(120, TimeUnit.SECONDS));
            return new Run(p.exitValue(), Files.readString(dir.resolve("env.stdout")), Files.readString(dir.resolve("env.stderr")));
        }

        String stdout(String name) {
            try {
                return Files.readString(dir.resolve(name + ".stdout"));
            } catch (IOException e) {
                return "";
            }
        }
    }

    /** The PostgreSQL data directories of runs with {@code home} whose names match {@code regex}, wherever the runs put them. */
    private static List<Path> data(Path home, String regex) {
        List<Path> found = new ArrayList<>();
        for (Path dir : PrivateHomes.dataDirs(home, "postgres")) {
            found.addAll(matching(dir, regex));
        }
        return found;
    }

    private static List<Path> matching(Path dir, String regex) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(f -> f.getFileName().toString().matches(regex)).sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** Polls {@code condition} (the file system, the process table) until it holds; fails after {@code seconds} or when {@code p} ends. */
    private static void waitFor(BooleanSupplier condition, int seconds, String what, Process p) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (p != null && !p.isAlive()) {
                fail("txfuzz ended before " + what + " (exit " + p.exitValue() + ")");
            }
            if (System.nanoTime() > until) {
                if (p != null) {
                    p.destroyForcibly();
                }
                fail("not seen within " + seconds + " s: " + what);
            }
            Thread.sleep(5);
        }
    }
}
