package txfuzz.dbms.mariadb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import txfuzz.PrivateHomes;
import txfuzz.dbms.Database;
import txfuzz.dbms.server.KilledOwner;
import txfuzz.dbms.server.Lease;
import txfuzz.dbms.server.MemoryDirectory;
import txfuzz.dbms.server.PrivateDirectory;
import txfuzz.model.IsolationLevel;

/**
 * The server txfuzz starts is its own: no login without the run's password, test cases run as an
 * account without FILE, binaries and data live in a private directory and are checked before they run,
 * and nothing outlives the run (also when it is stopped during start-up or killed).
 */
class MariadbSecurityTest {
    private String savedHome;
    private Path originalBase;
    private Path tempHome;

    @AfterEach
    void restoreHome() {
        if (tempHome != null) {
            System.clearProperty("txfuzz.home");
            if (savedHome != null) {
                System.setProperty("txfuzz.home", savedHome);
            }
            MariadbBinaries.forgetVerified();
            Lease.deleteTree(tempHome);
            tempHome = null;
        }
    }

    /** A private home of this test (under target/, not /tmp), used as txfuzz.home until the test ends. */
    private Path useTempHome() throws IOException {
        savedHome = System.getProperty("txfuzz.home");
        Path dir = Path.of("target").toAbsolutePath().resolve("txfuzz-test-homes");
        Files.createDirectories(dir);
        tempHome = Files.createTempDirectory(dir, "home-");
        System.setProperty("txfuzz.home", tempHome.toString());
        return tempHome;
    }

    /** The binaries of the default home (unpacked if need be), hard-linked into the temp home: no second 350 MB. */
    private Path linkedBinaries(Path home) throws Exception {
        Path original;
        String now = System.getProperty("txfuzz.home");
        System.clearProperty("txfuzz.home");
        if (savedHome != null) {
            System.setProperty("txfuzz.home", savedHome);
        }
        try {
            original = MariadbBinaries.binaries();
        } finally {
            System.setProperty("txfuzz.home", now);
        }
        originalBase = original;
        Path copy = home.resolve(original.getFileName());
        Process cp = new ProcessBuilder("cp", "-al", original.toString(), copy.toString()).inheritIO().start();
        assertEquals(0, cp.waitFor());
        return copy;
    }

    private static int login(int port, String user, String password) {
        Properties p = new Properties();
        p.setProperty("user", user);
        if (password != null) {
            p.setProperty("password", password);
        }
        p.setProperty("connectTimeout", "5000");
        try (Connection c = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + port + "/", p)) {
            return 0;
        } catch (SQLException e) {
            return e.getErrorCode();
        }
    }

    private static List<String> column(Connection c, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    @Test
    void noLoginWithoutTheRunsPasswordAndCasesRunWithoutFilePrivilege() throws Exception {
        try (MariadbTarget target = new MariadbTarget()) {
            EmbeddedMariadb server = target.server();
            int port = server.port();
            assertEquals(1045, login(port, "root", null), "root without a password");
            assertEquals(1045, login(port, "root", ""), "root with an empty password");
            assertEquals(1045, login(port, "root", "wrong-password"), "root with a wrong password");
            assertEquals(1045, login(port, "someone_else", null), "an arbitrary user name");
            assertEquals(1045, login(port, "", null), "the anonymous user");
            assertEquals(1045, login(port, "mariadb.sys", null), "the locked system account");
            assertEquals(1045, login(port, EmbeddedMariadb.RUNNER, null), "txfuzz's account without its password");
            assertEquals(1045, login(port, EmbeddedMariadb.RUNNER, server.password() + "x"), "txfuzz's account, wrong password");
            assertEquals(0, login(port, EmbeddedMariadb.RUNNER, server.password()));

            try (Database db = target.freshDatabase(); Connection c = db.connect(IsolationLevel.READ_COMMITTED, "default")) {
                assertEquals(EmbeddedMariadb.RUNNER + "@127.0.0.1", column(c, "SELECT CURRENT_USER()").get(0));
                List<String> grants = column(c, "SHOW GRANTS");
                String all = String.join("\n", grants);
                assertFalse(all.contains("FILE"), all);
                assertFalse(all.contains("SUPER"), all);
                assertFalse(all.contains("ALL PRIVILEGES ON *.*"), all);
                assertTrue(all.contains("GRANT PROCESS ON *.*"), all);
                Path target1 = server.directory().resolve("files").resolve("out.txt");
                SQLException outfile = assertThrows(SQLException.class, () -> column(c, "SELECT 1 INTO OUTFILE '" + target1 + "'"));
                assertEquals(1045, outfile.getErrorCode(), outfile.getMessage());
                assertFalse(Files.exists(target1));
                assertNull(column(c, "SELECT LOAD_FILE('/etc/passwd')").get(0));
                SQLException mysql = assertThrows(SQLException.class, () -> column(c, "SELECT COUNT(*) FROM mysql.global_priv"));
                assertEquals(1142, mysql.getErrorCode(), mysql.getMessage());
                assertEquals("127.0.0.1", column(c, "SELECT @@bind_address").get(0));
                assertEquals(server.directory().resolve("files") + "/", column(c, "SELECT @@secure_file_priv").get(0));
                assertEquals("0", column(c, "SELECT @@local_infile").get(0));
                assertEquals(server.socket().toString(), column(c, "SELECT @@socket").get(0));
            }

            // the socket lies in a directory only this user can enter; no init file holds the password
            assertTrue(Files.exists(server.socket()), server.socket().toString());
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(server.socket().getParent())));
            assertTrue(server.directory().startsWith(MemoryDirectory.data("mariadb-runs")), server.directory().toString());
            assertFalse(Files.exists(server.directory().resolve("init.sql")), "no init file: the SQL came on mariadbd's standard input");
            // the password is not in what txfuzz says or writes
            assertFalse(target.version().contains(server.password()), target.version());
            for (Path dir : List.of(Lease.folder(), server.directory())) {
                try (Stream<Path> files = Files.list(dir)) {
                    for (Path f : files.filter(Files::isRegularFile).toList()) {
                        assertFalse(Files.readString(f, java.nio.charset.StandardCharsets.ISO_8859_1).contains(server.password()), f.toString());
                    }
                }
            }
        }
    }

    @Test
    void anUnpackDirectoryOfAnotherUserIsRefused() throws Exception {
        assertTrue(PrivateDirectory.isRoot(), "chown needs root; these tests run as root");
        Path home = useTempHome();
        Path base = Files.createDirectory(home.resolve("mariadb-" + txfuzz.dbms.versions.BundledVersions.of("mariadb")));
        Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwx------"));
        Files.setAttribute(base, "unix:uid", 65534);
        IllegalStateException e = assertThrows(IllegalStateException.class, MariadbTarget::new);
        assertTrue(e.getMessage().contains("belongs to another user (uid 65534)"), e.getMessage());
        assertEquals(1, e.getMessage().lines().count(), e.getMessage());
        assertNothingRan(home);
    }

    @Test
    void anUnpackDirectoryOthersMayWriteIsRefused() throws Exception {
        Path home = useTempHome();
        Path base = Files.createDirectory(home.resolve("mariadb-" + txfuzz.dbms.versions.BundledVersions.of("mariadb")));
        Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxrwxrwx"));
        IllegalStateException e = assertThrows(IllegalStateException.class, MariadbTarget::new);
        assertTrue(e.getMessage().contains("is writable by other users"), e.getMessage());
        assertEquals(1, e.getMessage().lines().count(), e.getMessage());
        assertNothingRan(home);
    }

    @Test
    void aTamperedUnpackedFileIsRefusedBeforeAnythingRuns() throws Exception {
        Path home = useTempHome();
        Path base = linkedBinaries(home);
        // a file of its own (not the hard link shared with the real copy), then changed by one byte
        Path victim = base.resolve("share/english/errmsg.sys");
        Path own = victim.resolveSibling("own");
        Files.copy(victim, own);
        Files.move(own, victim, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        try (OutputStream out = Files.newOutputStream(victim, StandardOpenOption.APPEND)) {
            out.write('x');
        }
        MariadbBinaries.forgetVerified();
        IllegalStateException e = assertThrows(IllegalStateException.class, MariadbTarget::new);
        assertTrue(e.getMessage().contains("errmsg.sys differs from the artifact's copy"), e.getMessage());
        assertEquals(1, e.getMessage().lines().count(), e.getMessage());
        assertNothingRan(home);

        // the file restored, a program replaced by a link to another is refused as well
        Files.copy(originalBase.resolve("share/english/errmsg.sys"), victim, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Path prog = base.resolve("bin/my_print_defaults");
        Files.delete(prog);
        Files.createSymbolicLink(prog, Path.of("/bin/true"));
        MariadbBinaries.forgetVerified();
        IllegalStateException link = assertThrows(IllegalStateException.class, MariadbTarget::new);
        assertTrue(link.getMessage().contains("my_print_defaults is missing or not a regular file"), link.getMessage());
        assertNothingRan(home);
    }

    /** No server ran: no data directory was made, no lease taken. */
    private static void assertNothingRan(Path home) throws IOException {
        for (Path runs : PrivateHomes.dataDirs(home, "mariadb-runs")) {
            if (Files.exists(runs)) {
                try (Stream<Path> s = Files.list(runs)) {
                    assertEquals(List.of(), s.toList());
                }
            }
        }
        Path leases = home.resolve("leases");
        if (Files.exists(leases)) {
            try (Stream<Path> s = Files.list(leases)) {
                assertEquals(List.of(), s.toList());
            }
        }
    }

    /** The processes a start-up of this JVM runs (mariadb-install-db, its bootstrap mariadbd, mariadbd) in {@code dir}. */
    private static List<ProcessHandle> serversOf(ProcessHandle parent, Path dir) {
        return parent.descendants().filter(h -> h.info().arguments().map(a -> String.join(" ", a).contains(dir.toString())).orElse(false)
                || h.info().commandLine().map(c -> c.contains(dir.toString())).orElse(false)).toList();
    }

    @Test
    void stopDuringStartUpReturnsSoonAndLeavesNothing() throws Exception {
        for (int phase = 0; phase < 2; phase++) {
            EmbeddedMariadb s = EmbeddedMariadb.prepare(MariadbInstallation.binaries(null));
            Path dir = s.directory();
            CompletableFuture<Void> start = CompletableFuture.runAsync(s::start);
            // phase 0: while mariadb-install-db runs; phase 1: once mariadbd itself runs, before it is ready
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            List<ProcessHandle> seen = List.of();
            while (System.nanoTime() < until && !start.isDone()) {
                seen = serversOf(ProcessHandle.current(), dir);
                if (phase == 0 ? !seen.isEmpty() : s.pid() > 0) {
                    break;
                }
                Thread.sleep(5);
            }
            assertFalse(start.isDone(), "start-up ended before it could be interrupted (phase " + phase + ")");
            List<ProcessHandle> all = new ArrayList<>(seen);
            all.addAll(serversOf(ProcessHandle.current(), dir));
            long t0 = System.nanoTime();
            s.stop();
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms < 15_000, "stop took " + ms + " ms");
            try {
                start.get(15, TimeUnit.SECONDS);
                fail("start() returned normally after stop()");
            } catch (java.util.concurrent.ExecutionException e) {
                assertTrue(e.getCause() instanceof IllegalStateException, e.getCause().toString());
            }
            for (ProcessHandle h : all) {
                assertFalse(h.isAlive(), "left running: " + h.pid() + " " + h.info().command().orElse(""));
            }
            assertEquals(List.of(), serversOf(ProcessHandle.current(), dir));
            assertFalse(Files.exists(dir), "data directory left: " + dir);
            assertFalse(leaseFor(dir).isPresent(), "lease left for " + dir);
            System.out.println("mariadb: stop during start-up (phase " + phase + ") took " + ms + " ms");
        }
    }

    private static java.util.Optional<Path> leaseFor(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(Lease.folder())) {
            for (Path f : s.filter(p -> p.toString().endsWith(".lease")).toList()) {
                Properties p = new Properties();
                try (InputStream in = Files.newInputStream(f)) {
                    p.load(in);
                } catch (IOException gone) {
                    continue;
                }
                if (dir.toString().equals(p.getProperty("dataDir"))) {
                    return java.util.Optional.of(f);
                }
            }
        }
        return java.util.Optional.empty();
    }

    @Test
    void closeLeavesNoLeaseNoDataAndNoProcess() throws Exception {
        MariadbTarget target = new MariadbTarget();
        EmbeddedMariadb s = target.server();
        Path dir = s.directory();
        long pid = s.pid();
        assertTrue(Files.isDirectory(dir.resolve("data")));
        Path lease = leaseFor(dir).orElseThrow();
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(lease)) {
            p.load(in);
        }
        assertEquals(String.valueOf(pid), p.getProperty("serverPid"), "the lease names the running mariadbd");
        target.close();
        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "mariadbd still runs");
        assertFalse(Files.exists(dir), dir.toString());
        assertFalse(Files.exists(lease), lease.toString());
    }

    /** A run killed with SIGKILL leaves its lease; the next run's sweep stops its mariadbd and deletes its data directory. */
    @Test
    void theSweepRemovesWhatAKilledRunLeft() throws Exception {
        EmbeddedMariadb s = EmbeddedMariadb.prepare(MariadbInstallation.binaries(null));
        try {
            s.start();
            Path dir = s.directory();
            long pid = s.pid();
            Path lease = leaseFor(dir).orElseThrow();
            KilledOwner.of(lease); // as if this JVM had been killed
            List<String> said = new ArrayList<>();
            Lease.sweep(said::add);
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "mariadbd still runs");
            assertFalse(Files.exists(dir), dir.toString());
            assertFalse(Files.exists(lease), lease.toString());
            assertTrue(said.stream().anyMatch(l -> l.contains("stopped a MariaDB server (pid " + pid + ")") && l.contains(dir.toString())), said.toString());
            assertEquals(1, said.stream().filter(l -> l.contains(dir.toString())).count(), said.toString());
        } finally {
            s.stop();
        }
    }

    /**
     * Ctrl-C while txfuzz starts its MariaDB: the JVM's shutdown hook stops the server that is still
     * starting and the process ends within seconds, leaving no mariadbd, no data directory and no lease
     * (the hook used to wait forever for a lock start-up held). A real txfuzz process gets a real SIGINT.
     */
    @Test
    void sigintDuringStartUpEndsTheRunAndLeavesNothing() throws Exception {
        Path out = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "sigint-");
        try {
            List<String> args = new ArrayList<>();
            if (System.getProperty("txfuzz.home") != null) {
                args.add("-Dtxfuzz.home=" + System.getProperty("txfuzz.home"));
            }
            args.addAll(List.of("txfuzz.cli.Main", "run", "--dbms", "mariadb", "--tests", "5", "--out", out.resolve("o").toString()));
            List<String> cmd = txfuzz.ChildJvm.command(args.toArray(String[]::new));
            Process run = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.resolve("log").toFile()).start();
            Path runs = MemoryDirectory.data("mariadb-runs");
            String prefix = run.pid() + "-";
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            List<ProcessHandle> servers = List.of();
            while (System.nanoTime() < until && run.isAlive()) {
                servers = run.descendants().filter(h -> h.info().command().map(c -> c.contains("mariadb")).orElse(false)
                        || h.info().commandLine().map(c -> c.contains("mariadb-install-db")).orElse(false)).toList();
                if (!servers.isEmpty()) {
                    break;
                }
                Thread.sleep(5);
            }
            assertFalse(servers.isEmpty(), "no start-up seen: " + Files.readString(out.resolve("log")));
            List<ProcessHandle> all = new ArrayList<>(servers);
            run.descendants().forEach(all::add);
            long t0 = System.nanoTime();
            assertEquals(0, new ProcessBuilder("kill", "-INT", String.valueOf(run.pid())).start().waitFor());
            boolean ended = run.waitFor(15, TimeUnit.SECONDS);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            if (!ended) {
                run.descendants().forEach(ProcessHandle::destroyForcibly);
                run.destroyForcibly();
            }
            assertTrue(ended, "txfuzz did not end within 15 s of SIGINT during start-up: " + Files.readString(out.resolve("log")));
            for (ProcessHandle h : all) {
                assertFalse(h.isAlive(), "left running: " + h.pid() + " " + h.info().commandLine().orElse(""));
            }
            try (Stream<Path> s = Files.list(runs)) {
                assertEquals(List.of(), s.filter(d -> d.getFileName().toString().startsWith(prefix)).toList(), "data directories left");
            }
            try (Stream<Path> s = Files.list(Lease.folder())) {
                assertEquals(List.of(), s.filter(d -> d.getFileName().toString().startsWith(prefix)).toList(), "leases left");
            }
            System.out.println("mariadb: SIGINT during start-up: the run ended after " + ms + " ms");
        } finally {
            Lease.deleteTree(out);
        }
    }
}
