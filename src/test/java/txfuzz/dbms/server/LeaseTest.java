package txfuzz.dbms.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("unit")
class LeaseTest {
    @TempDir
    Path tmp;
    private String before;

    @BeforeEach
    void privateRoot() {
        before = System.getProperty("txfuzz.home");
        System.setProperty("txfuzz.home", tmp.resolve("home").toString());
    }

    @AfterEach
    void restore() {
        if (before == null) {
            System.clearProperty("txfuzz.home");
        } else {
            System.setProperty("txfuzz.home", before);
        }
    }

    @Test
    void aLiveOwnersLeaseIsLeftAloneAndClosingRemovesIt() throws Exception {
        Path data = Files.createDirectories(PrivateDirectory.root().resolve("data-1"));
        try (Lease lease = Lease.take("TestServer", data)) {
            List<String> said = new ArrayList<>();
            assertEquals(0, Lease.sweep(said::add), "this process runs: its lease is not swept");
            assertTrue(Files.exists(data));
            assertTrue(said.isEmpty());
        }
        try (var leases = Files.list(Lease.folder())) {
            assertEquals(0, leases.count(), "closing deletes the lease file");
        }
    }

    /** A stop during start-up closes the lease while the start goes on: the process it then records must not write it again. */
    @Test
    void aServerRecordedAfterCloseLeavesNoLease() throws Exception {
        Path data = Files.createDirectories(PrivateDirectory.root().resolve("data-late"));
        Lease lease = Lease.take("TestServer", data);
        lease.settingUp("initdb", ProcessHandle.current().pid());
        lease.close();
        lease.serverStarted(ProcessHandle.current().pid());
        lease.settingUp("initdb", ProcessHandle.current().pid());
        try (var leases = Files.list(Lease.folder())) {
            assertEquals(List.of(), leases.toList(), "a closed lease stays deleted");
        }
    }

    @Test
    void aKilledRunsServerAndDataDirectoryAreRemovedByTheNextRun() throws Exception {
        Path data = Files.createDirectories(PrivateDirectory.root().resolve("data-2"));
        Files.writeString(data.resolve("PG_VERSION"), "15\n");
        Process server = new ProcessBuilder("sleep", "300").start(); // stands in for a postmaster
        Lease lease = Lease.take("TestServer", data);
        lease.serverStarted(server.pid());
        Path file = KilledOwner.onlyLease();
        KilledOwner.of(file);
        List<String> said = new ArrayList<>();
        assertEquals(1, Lease.sweep(said::add));
        assertTrue(server.waitFor(15, TimeUnit.SECONDS), "the orphaned server was stopped");
        assertFalse(Files.exists(data), "its data directory was removed");
        assertFalse(Files.exists(file), "and the lease");
        assertEquals(1, said.size());
        assertTrue(said.get(0).startsWith("txfuzz: stopped a TestServer server (pid " + server.pid() + ")"), said.get(0));
        assertFalse(said.get(0).contains("\n"));
    }

    @Test
    void aReusedServerPidIsNeverSignalled() throws Exception {
        Path data = Files.createDirectories(PrivateDirectory.root().resolve("data-3"));
        Process bystander = new ProcessBuilder("sleep", "300").start();
        try {
            Lease lease = Lease.take("TestServer", data);
            lease.serverStarted(bystander.pid());
            // the pid now belongs to another process
            KilledOwner.rewrite(KilledOwner.onlyLease(), Map.of("ownerPid", "999999999", "serverStart", "2001-01-01T00:00:00Z"));
            Lease.sweep(s -> { });
            assertTrue(bystander.isAlive(), "a process that merely has the recorded pid is not ours to stop");
            assertFalse(Files.exists(data));
        } finally {
            bystander.destroyForcibly();
        }
    }

    @Test
    void theFilesBesideADataDirectoryAreRemovedWithItAndAreOnlyNamedBeforehand() throws Exception {
        Path data = Files.createDirectories(PrivateDirectory.root().resolve("data-4"));
        Path log = Files.writeString(PrivateDirectory.root().resolve("data-4.log"), "LOG: ...\n");
        Lease.take("TestServer", data, log);
        Path file = KilledOwner.onlyLease();
        long owner = KilledOwner.of(file);
        List<Lease.Abandoned> found = Lease.abandoned();
        assertEquals(1, found.size());
        assertEquals("txfuzz: would remove " + data + " and " + log + " left by txfuzz process " + owner + ", which was killed",
                found.get(0).describe(false));
        assertTrue(Files.exists(data) && Files.exists(log) && Files.exists(file), "naming removes nothing");
        List<String> said = new ArrayList<>();
        assertEquals(1, Lease.sweep(said::add));
        assertEquals(List.of("txfuzz: removed " + data + " and " + log + " left by txfuzz process " + owner + ", which was killed"), said);
        assertFalse(Files.exists(data) || Files.exists(log) || Files.exists(file));
    }

    @Test
    void aFileOutsideThePrivateRootIsNeverLeased() throws Exception {
        Path data = Files.createDirectories(PrivateDirectory.root().resolve("data-5"));
        Path outside = Files.writeString(tmp.resolve("not-ours.log"), "");
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> Lease.take("TestServer", data, outside));
        assertTrue(Files.exists(outside));
    }

    @Test
    void nothingOutsideThePrivateRootIsEverLeased() throws Exception {
        Path outside = Files.createDirectories(tmp.resolve("not-ours"));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> Lease.take("TestServer", outside));
        assertTrue(Files.exists(outside));
    }
}
