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
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import txfuzz.ChildJvm;

/**
 * What txfuzz leaves in its private directory when it is killed (SIGKILL while unpacking the server
 * binaries, during PostgreSQL's initdb, with a server running), what the next run and
 * {@code txfuzz clean} remove, and that neither touches what a live run holds. Every test runs real
 * txfuzz processes with a private directory of its own (other runs on this machine use theirs).
 */
class CleanCommandTest {
    @TempDir
    Path tmp;

    private Path home;

    private record Run(int code, String out, String err) {
    }

    @Test
    void aRunKilledDuringInitdbLeavesNoPasswordAndTheNextRunRemovesItsDataDirectoryAndLog() throws Exception {
        home = tmp.resolve("home");
        Process p = launch("first", "run", "--dbms", "postgres", "--tests", "100000", "--reduce-time", "0");
        waitFor(() -> !processes("/bin/initdb").isEmpty(), 300, "initdb runs", p);
        assertEquals(List.of(), matching(home.resolve("postgres"), ".*\\.pw"), "no password file exists while initdb runs");
        p.destroyForcibly(); // SIGKILL, while initdb runs
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        List<Path> left = matching(home.resolve("postgres"), "data-\\d+-\\d+(\\.log)?");
        assertEquals(2, left.size(), "the killed run left its data directory and log (precondition): " + left);
        for (Path lease : matching(home.resolve("leases"), ".*\\.lease")) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(lease)), lease.toString());
        }
        // binaries unpacked by an older txfuzz had 0755 directories: the next run narrows them
        Path bin = matching(home.resolve("postgres"), "PG-[0-9a-f]+").get(0).resolve("bin");
        Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("rwxr-xr-x"));

        Run next = run("next", "run", "--dbms", "postgres", "--tests", "2", "--reduce-time", "0");
        assertTrue(next.code() == 0 || next.code() == 1, next.err());
        String line = "left by txfuzz process " + p.pid() + ", which was killed";
        assertTrue(next.err().lines().anyMatch(l -> l.startsWith("txfuzz: ") && l.contains(line)
                && l.contains("removed " + left.get(0) + " and " + left.get(1))), "the next run says what it removed: " + next.err());
        assertEquals(List.of(), matching(home.resolve("postgres"), ".*(\\.pw|\\.log|\\.tmp-.*)|data-.*"), "nothing of either run is left");
        assertEquals(List.of(), processes(""), "no process runs from the private directory");
        assertEquals(List.of(), matching(home.resolve("leases"), ".*"), "no lease is left");
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(bin)), "an old 0755 directory is narrowed");
    }

    @Test
    void cleanLeavesWhatALiveProcessUsesEvenWithoutTheLock() throws Exception {
        home = tmp.resolve("home");
        Path programs = Files.createDirectories(home.resolve("programs"));
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwx------"));
        Path sleep = Files.copy(Path.of("/bin/sleep"), programs.resolve("sleep"));
        Process running = new ProcessBuilder(sleep.toString(), "300").start(); // a server an older txfuzz left, say
        try {
            waitFor(() -> !processes("").isEmpty(), 30, "the program runs", null);
            Run clean = run("clean", "clean");
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
        Files.writeString(leases.resolve(me.pid() + "-1.lease"), "ownerPid=" + me.pid() + "\nownerStart="
                + me.info().startInstant().orElseThrow().toString().replace(":", "\\:") + "\nkind=PostgreSQL\ndataDir=" + home.resolve("data") + "\n");
        Run clean = run("clean2", "clean");
        assertEquals(0, clean.code(), clean.err());
        assertTrue(clean.out().contains("txfuzz: left the unpacked binaries and other files in " + home + ": a running txfuzz process holds a lease"),
                clean.out());
        assertTrue(Files.exists(sleep));
        Files.delete(leases.resolve(me.pid() + "-1.lease"));
        Run last = run("clean3", "clean");
        assertTrue(last.out().contains("txfuzz: removed " + programs), last.out());
        assertFalse(Files.exists(programs));
    }

    @Test
    void aRunTerminatedDuringInitdbLeavesNothing() throws Exception {
        home = tmp.resolve("home");
        Process p = launch("first", "run", "--dbms", "postgres", "--tests", "100000", "--reduce-time", "0");
        waitFor(() -> !processes("/bin/initdb").isEmpty(), 300, "initdb runs", p);
        p.destroy(); // SIGTERM, while initdb runs: the run stops initdb and removes what it made
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        waitFor(() -> processes("").isEmpty(), 30, "initdb ends", null);
        assertEquals(List.of(), matching(home.resolve("postgres"), ".*(\\.pw|\\.log|\\.tmp-.*)|data-.*"), "nothing of the run is left");
        assertEquals(List.of(), matching(home.resolve("leases"), ".*"), "no lease is left");
    }

    @Test
    void aRunKilledWhileUnpackingLeavesNothingAfterTheNextRun() throws Exception {
        home = tmp.resolve("home");
        Process p = launch("first", "run", "--dbms", "postgres", "--tests", "100000", "--reduce-time", "0");
        waitFor(() -> !matching(home.resolve("postgres"), "PG-.*\\.tmp-.*").isEmpty(), 300, "the binaries are being unpacked", p);
        p.destroyForcibly();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(1, matching(home.resolve("postgres"), "PG-.*\\.tmp-.*").size(), "the killed run left its unpacking (precondition)");
        // and what versions before leases left when killed, by a process that has ended (not leased)
        Process ended = new ProcessBuilder("true").start();
        assertEquals(0, ended.waitFor());
        Path oldUnpacking = Files.createDirectories(home.resolve("postgres/PG-0123456789abcdef0123456789abcdef.tmp-" + ended.pid() + "-7/bin"));
        Path oldPassword = Files.writeString(home.resolve("postgres/data-" + ended.pid() + "-1.pw"), "secret\n");

        Run next = run("next", "run", "--dbms", "postgres", "--tests", "1", "--reduce-time", "0");
        assertTrue(next.code() == 0 || next.code() == 1, next.err());
        assertTrue(next.err().contains("left by txfuzz process " + p.pid()), "the next run says what it removed: " + next.err());
        assertEquals(List.of(), matching(home.resolve("postgres"), ".*\\.tmp-.*"), "no unpacking is left beside the binaries");
        assertFalse(Files.exists(oldUnpacking.getParent()) || Files.exists(oldPassword), "nor what an older version left");
        assertEquals(1, matching(home.resolve("postgres"), "PG-[0-9a-f]+").size(), "the binaries, unpacked once");
    }

    @ParameterizedTest
    @CsvSource({"postgres, PostgreSQL", "mariadb, MariaDB"})
    void cleanStopsAKilledRunsServerAndRemovesEverythingAndDryRunChangesNothing(String dbms, String kind) throws Exception {
        home = tmp.resolve("home");
        Process p = launch("killed", "run", "--dbms", dbms, "--tests", "100000", "--reduce-time", "0");
        waitFor(() -> stdout("killed").contains("txfuzz: testing"), 300, "the server is up", p);
        assertEveryDirectoryTxfuzzMadeIsPrivate();
        p.destroyForcibly();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        List<String> servers = processes("");
        assertFalse(servers.isEmpty(), "SIGKILL leaves the server running (precondition)");

        List<Path> before = tree(3); // not deeper: the running server changes its own files
        Run dry = run("dry", "clean", "--dry-run");
        assertEquals(0, dry.code(), dry.err());
        assertTrue(dry.out().lines().anyMatch(l -> l.startsWith("txfuzz: would stop a " + kind + " server (pid ")
                && l.endsWith("left by txfuzz process " + p.pid() + ", which was killed")), dry.out());
        assertTrue(dry.out().lines().anyMatch(l -> l.startsWith("txfuzz: would remove " + home + "/")), dry.out());
        assertEquals(before, tree(3), "--dry-run changes nothing");
        assertEquals(servers, processes(""), "--dry-run stops nothing");

        Run clean = run("clean", "clean");
        assertEquals(0, clean.code(), clean.err());
        assertTrue(clean.out().lines().anyMatch(l -> l.startsWith("txfuzz: stopped a " + kind + " server (pid ")), clean.out());
        waitFor(() -> processes("").isEmpty(), 30, "the server's processes end", null);
        assertEquals(List.of(home.resolve("in-use.lock"), home.resolve("leases")), tree(Integer.MAX_VALUE),
                "only the lock file and the empty lease folder are left");
    }

    @Test
    void cleanLeavesALiveRunAlone() throws Exception {
        home = tmp.resolve("home");
        Process p = launch("live", "run", "--dbms", "postgres", "--tests", "100000", "--reduce-time", "0");
        try {
            waitFor(() -> stdout("live").contains("txfuzz: testing"), 300, "the server is up", p);
            List<String> servers = processes("");
            List<Path> data = matching(home.resolve("postgres"), "data-\\d+-\\d+");
            assertEquals(1, data.size(), "the live run's data directory");

            Run clean = run("clean", "clean");
            assertEquals(0, clean.code(), clean.err());
            assertTrue(clean.out().contains("txfuzz: left the unpacked binaries and other files in " + home + ": a running txfuzz process uses it"),
                    clean.out());
            assertTrue(p.isAlive(), "the run goes on");
            // the server itself, not its backends: the live run opens and closes sessions meanwhile
            List<String> postmaster = servers.stream().filter(l -> l.contains(" -D ")).toList();
            assertEquals(1, postmaster.size(), servers.toString());
            assertTrue(processes("").containsAll(postmaster), "its server runs");
            assertTrue(Files.exists(data.get(0).resolve("PG_VERSION")), "its data directory is whole");
            assertEquals(1, matching(home.resolve("postgres"), "PG-[0-9a-f]+").size(), "the binaries it runs are there");
        } finally {
            p.destroy(); // SIGTERM: the run stops its server and removes its data directory
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        }
    }

    @Test
    void aHomeUnderADirectoryOthersMayWriteIsRefused() throws Exception {
        Path evil = Files.createDirectory(tmp.resolve("evil"));
        Files.setPosixFilePermissions(evil, PosixFilePermissions.fromString("rwxrwxrwx"));
        home = evil.resolve("home");
        for (String[] args : List.of(new String[] {"clean"}, new String[] {"run", "--dbms", "postgres", "--tests", "1"})) {
            Run r = runWithEnvironmentHome(args);
            assertEquals(2, r.code(), r.out() + r.err());
            assertEquals(1, r.err().lines().count(), "one line: " + r.err());
            assertTrue(r.err().contains(evil + " (above txfuzz's private directory " + home + ") is writable by other users (mode 0777)")
                    && r.err().contains("chmod go-w " + evil), r.err());
            assertFalse(Files.exists(home), "nothing is made under it");
        }
        if (txfuzz.dbms.server.PrivateDirectory.isRoot()) {
            Files.setAttribute(evil, "unix:uid", 65534); // another user's world-writable directory, as in the report
            Run r = runWithEnvironmentHome("clean");
            assertEquals(2, r.code(), r.err());
            assertTrue(r.err().contains(evil + " (above txfuzz's private directory " + home + ") belongs to another user (uid 65534)"), r.err());
            Files.setAttribute(evil, "unix:uid", 0);
        }
        Files.setPosixFilePermissions(evil, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setAttribute(evil, "unix:mode", 01777); // sticky, as /tmp: others cannot move what is not theirs
        Run sticky = runWithEnvironmentHome("clean");
        assertEquals(0, sticky.code(), sticky.err());
    }

    // ---- helpers

    private void assertEveryDirectoryTxfuzzMadeIsPrivate() throws IOException {
        List<String> open = new ArrayList<>();
        try (Stream<Path> s = Files.walk(home)) {
            for (Path d : (Iterable<Path>) s.filter(f -> Files.isDirectory(f, LinkOption.NOFOLLOW_LINKS))::iterator) {
                String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(d, LinkOption.NOFOLLOW_LINKS));
                if (!mode.equals("rwx------") && !madeByTheServer(d)) {
                    open.add(d + " " + mode);
                }
            }
        }
        assertEquals(List.of(), open, "directories txfuzz made that others may enter");
    }

    /** Inside a data directory, the server decides (PostgreSQL makes its own 0700; MariaDB's are in its 0700 run directory). */
    private boolean madeByTheServer(Path d) {
        Path rel = home.relativize(d);
        return rel.getNameCount() > 2 && (rel.getName(0).toString().equals("postgres") && rel.getName(1).toString().startsWith("data-")
                || rel.getName(0).toString().equals("mariadb-runs") && rel.getNameCount() > 3 && rel.getName(2).toString().equals("data"));
    }

    private List<Path> tree(int depth) throws IOException {
        try (Stream<Path> s = Files.walk(home, depth)) {
            return s.filter(f -> !f.equals(home)).sorted().toList();
        }
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

    /** Processes running a program from the private directory whose command line contains {@code part}. */
    private List<String> processes(String part) {
        String prefix = home + "/";
        return ProcessHandle.allProcesses().filter(ProcessHandle::isAlive)
                .filter(h -> h.info().command().map(c -> c.startsWith(prefix)).orElse(false)
                        || h.info().commandLine().map(c -> c.contains(prefix) && c.contains("/bin/initdb")).orElse(false))
                .map(h -> h.pid() + " " + h.info().commandLine().orElse(""))
                .filter(c -> c.contains(part)).sorted().toList();
    }

    private Process launch(String name, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(ChildJvm.command("-Dtxfuzz.home=" + home, "txfuzz.cli.Main"));
        cmd.addAll(List.of(args));
        if (args[0].equals("run")) {
            cmd.addAll(List.of("--out", tmp.resolve("out-" + name).toString()));
        }
        return new ProcessBuilder(cmd).redirectOutput(tmp.resolve(name + ".stdout").toFile()).redirectError(tmp.resolve(name + ".stderr").toFile())
                .start();
    }

    private Run run(String name, String... args) throws Exception {
        Process p = launch(name, args);
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("txfuzz " + String.join(" ", args) + " did not end");
        }
        return new Run(p.exitValue(), stdout(name), Files.readString(tmp.resolve(name + ".stderr")));
    }

    /** txfuzz with the private directory given as $TXFUZZ_HOME, as a user sets it. */
    private Run runWithEnvironmentHome(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(ChildJvm.command("txfuzz.cli.Main"));
        cmd.addAll(List.of(args));
        if (args[0].equals("run")) {
            cmd.addAll(List.of("--out", tmp.resolve("out-env").toString()));
        }
        ProcessBuilder b = new ProcessBuilder(cmd).redirectOutput(tmp.resolve("env.stdout").toFile()).redirectError(tmp.resolve("env.stderr").toFile());
        Map<String, String> env = b.environment();
        env.put("TXFUZZ_HOME", home.toString());
        Process p = b.start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        return new Run(p.exitValue(), Files.readString(tmp.resolve("env.stdout")), Files.readString(tmp.resolve("env.stderr")));
    }

    private String stdout(String name) {
        try {
            return Files.readString(tmp.resolve(name + ".stdout"));
        } catch (IOException e) {
            return "";
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
