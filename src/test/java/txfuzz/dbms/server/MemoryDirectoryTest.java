package txfuzz.dbms.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where servers' data directories go: the private root's twin in memory, or the root itself. */
@Tag("unit")
class MemoryDirectoryTest {
    @TempDir
    Path disk;
    /** A stand-in for /dev/shm: a directory of this test's own on the tmpfs. */
    private Path shm;
    private String homeBefore;

    @BeforeEach
    void tmpfsAndPrivateHome() throws Exception {
        assumeTrue(Files.isDirectory(MemoryDirectory.SHM) && "tmpfs".equals(Files.getFileStore(MemoryDirectory.SHM).type()),
                "this machine has no tmpfs at /dev/shm");
        shm = Files.createTempDirectory(MemoryDirectory.SHM, "txfuzz-memory-test-");
        homeBefore = System.getProperty("txfuzz.home");
        System.setProperty("txfuzz.home", disk.resolve("home").toString());
    }

    @AfterEach
    void removeWhatTheTestMade() {
        if (shm != null) {
            Lease.deleteTree(shm);
            MemoryDirectory.existing(PrivateDirectory.location()).ifPresent(Lease::deleteTree);
        }
        restore("txfuzz.home", homeBefore);
    }

    private static void restore(String property, String before) {
        if (before == null) {
            System.clearProperty(property);
        } else {
            System.setProperty(property, before);
        }
    }

    @Test
    void aTmpfsWithRoomGivesEachHomeATwinOnlyItsUserMayEnter() throws Exception {
        Path a = disk.resolve("a");
        Path b = disk.resolve("b");
        Path twin = MemoryDirectory.choose(a, shm, 1).orElseThrow();
        assertEquals(MemoryDirectory.location(a, shm), twin);
        assertTrue(twin.startsWith(shm.resolve("txfuzz-" + PrivateDirectory.currentUid())));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(twin)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(twin.getParent())));
        assertEquals(Optional.of(twin), MemoryDirectory.choose(a, shm, 1), "the same home, the same twin");
        assertNotEquals(twin, MemoryDirectory.choose(b, shm, 1).orElseThrow(), "another home, another twin");
    }

    @Test
    void theTwinsOfHomesThatNoLongerExistAreRemovedAndNoOthers() throws Exception {
        Path gone = Files.createDirectories(disk.resolve("gone"));
        Path kept = Files.createDirectories(disk.resolve("kept"));
        Path goneTwin = MemoryDirectory.choose(gone, shm, 1).orElseThrow();
        Path keptTwin = MemoryDirectory.choose(kept, shm, 1).orElseThrow();
        Files.createDirectories(goneTwin.resolve("postgres/data-1"));
        Files.createDirectories(keptTwin.resolve("postgres/data-2"));
        Path unnamed = Files.createDirectory(goneTwin.resolveSibling("not-a-twin"));
        assertEquals(gone.toString(), Files.readString(goneTwin.resolve(MemoryDirectory.HOME)), "a twin names its home");
        Files.delete(gone);
        assertEquals(1, MemoryDirectory.removeOrphans(shm));
        assertFalse(Files.exists(goneTwin), "the deleted home's twin is removed");
        assertTrue(Files.exists(keptTwin.resolve("postgres/data-2")), "a live home's twin is not touched");
        assertTrue(Files.exists(unnamed), "nor is what names no home");
    }

    @Test
    void withoutRoomOrWithoutATmpfsTheDataStayOnDisk() {
        assertEquals(Optional.empty(), MemoryDirectory.choose(disk.resolve("a"), shm, Long.MAX_VALUE));
        assertEquals(Optional.empty(), MemoryDirectory.choose(disk.resolve("a"), disk, 1), "the test's @TempDir is no tmpfs here");
        assertFalse(Files.exists(disk.resolve("txfuzz-" + PrivateDirectory.currentUid())), "nothing was made there");
    }

    @Test
    void aUserDirectoryOthersMayWriteIsRefusedAndNothingIsPutInIt() throws Exception {
        Path users = Files.createDirectory(shm.resolve("txfuzz-" + PrivateDirectory.currentUid()));
        Files.setPosixFilePermissions(users, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertEquals(Optional.empty(), MemoryDirectory.choose(disk.resolve("a"), shm, 1));
        try (var left = Files.list(users)) {
            assertEquals(0, left.count());
        }
    }

    @Test
    void switchedOffTheDataStayUnderTheRoot() {
        String before = System.getProperty("txfuzz.memory");
        System.setProperty("txfuzz.memory", "false");
        try {
            System.setProperty("txfuzz.home", disk.resolve("off").toString());
            assertEquals(PrivateDirectory.root().resolve("postgres"), MemoryDirectory.data("postgres"));
        } finally {
            restore("txfuzz.memory", before);
        }
    }

    @Test
    void aKilledRunsDataInTheTwinAreSweptAndCleanRemovesTheTwin() throws Exception {
        Path runs = MemoryDirectory.data("test-runs");
        Path twin = MemoryDirectory.location(PrivateDirectory.root());
        assertTrue(runs.startsWith(twin) && MemoryDirectory.holds(runs), runs + " lies in the memory twin " + twin);
        Path data = Files.createDirectories(runs.resolve("data-1"));
        Files.writeString(data.resolve("PG_VERSION"), "18\n");
        Lease.take("TestServer", data);
        long owner = KilledOwner.of(KilledOwner.onlyLease());
        List<String> said = new ArrayList<>();
        assertEquals(1, Lease.sweep(said::add));
        assertFalse(Files.exists(data), "the killed run's data directory in memory was removed");
        assertEquals(List.of("txfuzz: removed " + data + " left by txfuzz process " + owner + ", which was killed"), said);

        said.clear();
        Leftovers.clean(false, said::add);
        assertFalse(Files.exists(twin), "clean removes the twin: " + said);
        assertTrue(said.contains("txfuzz: removed " + twin), said.toString());
    }

    @Test
    void nothingInAnotherHomesTwinOrElsewhereInMemoryIsEverLeased() throws Exception {
        Path others = Files.createDirectories(MemoryDirectory.location(disk.resolve("another-home")).resolve("data-1"));
        try {
            assertThrows(IllegalArgumentException.class, () -> Lease.take("TestServer", others));
            Path loose = Files.createDirectories(shm.resolve("data-2"));
            assertThrows(IllegalArgumentException.class, () -> Lease.take("TestServer", loose));
        } finally {
            Lease.deleteTree(MemoryDirectory.location(disk.resolve("another-home")));
        }
    }
}
