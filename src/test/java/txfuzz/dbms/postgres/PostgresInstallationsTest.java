package txfuzz.dbms.postgres;

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
import txfuzz.dbms.server.PrivateDirectory;
import txfuzz.exec.Trace;

/**
 * PostgreSQL started from elsewhere than the bundled binaries: a local installation (--server-home;
 * here the installation the zonky artifact unpacks, laid out as a distribution's bin/), and another
 * version's binaries from Maven Central, running beside the bundled one in one process.
 */
class PostgresInstallationsTest {
    @Test
    void aLocalInstallationStartsWithItsOwnVersion() throws Exception {
        Path installation = Binaries.prepareBundled(PrivateDirectory.of("postgres"));
        try (Target t = Targets.create("postgres", new TargetOptions(null, null, null, null, installation.toString()))) {
            assertTrue(t.version().startsWith("PostgreSQL " + Binaries.bundled().version() + " "), t.version());
            Trace trace = runWriteWrite(t);
            assertEquals(1, trace.blockedCount(), "the second UPDATE waits for the first");
            assertEquals(List.of(List.of("1", "2")), trace.finalState().tables().get("t"));
        }
    }

    @Test
    void anotherVersionRunsBesideTheBundledOne() throws Exception {
        try (Target bundled = Targets.create("postgres"); Target old = Targets.create("postgres", TargetOptions.version("15.10"))) {
            assertTrue(bundled.version().startsWith("PostgreSQL " + Binaries.bundled().version() + " "), bundled.version());
            assertTrue(old.version().startsWith("PostgreSQL 15.10 "), old.version());
            assertEquals(List.of(List.of("1", "2")), runWriteWrite(old).finalState().tables().get("t"));
            assertEquals(List.of(List.of("1", "2")), runWriteWrite(bundled).finalState().tables().get("t"));
        }
    }

    @Test
    void aDirectoryWithoutPostgresIsAOneLineError(@TempDir Path tmp) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Targets.create("postgres", new TargetOptions(null, null, null, null, tmp.toString())));
        assertTrue(e.getMessage().startsWith("--server-home " + tmp + " holds no PostgreSQL: " + tmp.resolve("bin/initdb") + " is missing"),
                e.getMessage());
        assertEquals(1, e.getMessage().lines().count());
    }

    @Test
    void programsOtherUsersMayReplaceAreNotRun(@TempDir Path tmp) throws Exception {
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        for (String program : LocalInstallation.PROGRAMS) {
            Path p = Files.writeString(bin.resolve(program), "#!/bin/sh\nexit 1\n");
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(program.equals("pg_ctl") ? "rwxrwxrwx" : "rwxr-xr-x"));
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Targets.create("postgres", new TargetOptions(null, null, null, null, tmp.toString())));
        assertTrue(e.getMessage().contains("pg_ctl is writable by group or others"), e.getMessage());
    }

    @Test
    void aServerHomeWithAVersionOrUrlIsRefused(@TempDir Path tmp) {
        IllegalArgumentException both = assertThrows(IllegalArgumentException.class,
                () -> Targets.create("postgres", new TargetOptions(null, null, null, "15.10", tmp.toString())));
        assertTrue(both.getMessage().contains("--version does not apply"), both.getMessage());
        IllegalArgumentException url = assertThrows(IllegalArgumentException.class,
                () -> Targets.create("postgres", new TargetOptions("jdbc:postgresql://127.0.0.1:1/x", null, null, null, tmp.toString())));
        assertTrue(url.getMessage().contains("not with --url"), url.getMessage());
    }
}
