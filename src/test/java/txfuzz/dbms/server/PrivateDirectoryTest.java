package txfuzz.dbms.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrivateDirectoryTest {
    @TempDir
    Path tmp;

    @Test
    void aNewDirectoryIsOwnerOnly() throws Exception {
        Path d = PrivateDirectory.ensure(tmp.resolve("a/b"));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(d)));
    }

    @Test
    void aDirectoryOthersMayWriteIsRefused() throws Exception {
        Path d = Files.createDirectory(tmp.resolve("open"));
        Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwxrwxrwx"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> PrivateDirectory.ensure(d));
        assertTrue(e.getMessage().contains("writable by other users"), e.getMessage());
        Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwxrwx---"));
        assertThrows(IllegalStateException.class, () -> PrivateDirectory.ensure(d), "group-writable is refused too");
    }

    @Test
    void aReadableDirectoryOfOursIsNarrowed() throws Exception {
        Path d = Files.createDirectory(tmp.resolve("readable"));
        Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwxr-xr-x"));
        PrivateDirectory.ensure(d);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(d)));
    }

    @Test
    void aDirectoryOfAnotherUserIsRefused() throws Exception {
        Path d = Files.createDirectory(tmp.resolve("theirs"));
        Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwx------"));
        if (PrivateDirectory.isRoot()) {
            Files.setAttribute(d, "unix:uid", 65534); // only root can give a file away
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> PrivateDirectory.ensure(d));
            assertTrue(e.getMessage().contains("belongs to another user"), e.getMessage());
        } else {
            // not root: a directory of another user is at hand in /; its owner (root) is not us
            assertThrows(IllegalStateException.class, () -> PrivateDirectory.check(Path.of("/")));
        }
    }

    @Test
    void aSymbolicLinkIsRefused() throws Exception {
        Path real = PrivateDirectory.ensure(tmp.resolve("real"));
        Path link = Files.createSymbolicLink(tmp.resolve("link"), real);
        assertThrows(IllegalStateException.class, () -> PrivateDirectory.ensure(link));
    }

    @Test
    void secretsAreOwnerOnlyFiles() throws Exception {
        Path f = tmp.resolve("pw");
        PrivateDirectory.writeSecret(f, Secrets.password());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        assertEquals(24, Files.readString(f).length());
    }
}
