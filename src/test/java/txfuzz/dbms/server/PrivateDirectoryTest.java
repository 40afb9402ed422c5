package txfuzz.dbms.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("unit")
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
    void aParentOthersMayWriteIsRefusedUnlessSticky() throws Exception {
        Path open = Files.createDirectory(tmp.resolve("open"));
        Files.setAttribute(open, "unix:mode", 0777);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> PrivateDirectory.checkAncestors(open.resolve("home/deeper")));
        assertTrue(e.getMessage().startsWith(open + " (above txfuzz's private directory " + open.resolve("home/deeper") + ") is writable by other users"),
                e.getMessage());
        Files.setAttribute(open, "unix:mode", 01777);
        PrivateDirectory.checkAncestors(open.resolve("home")); // sticky, as /tmp
        Files.setAttribute(open, "unix:mode", 0755);
        PrivateDirectory.checkAncestors(open.resolve("home"));
        if (PrivateDirectory.isRoot()) {
            Files.setAttribute(open, "unix:uid", 65534);
            e = assertThrows(IllegalStateException.class, () -> PrivateDirectory.checkAncestors(open.resolve("home")));
            assertTrue(e.getMessage().contains("belongs to another user (uid 65534)"), e.getMessage());
        }
    }

    @Test
    void aParentReachedThroughALinkIsCheckedWhereItLeads() throws Exception {
        Path open = Files.createDirectory(tmp.resolve("open"));
        Files.setAttribute(open, "unix:mode", 0777);
        Path link = Files.createSymbolicLink(tmp.resolve("link"), open);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> PrivateDirectory.checkAncestors(link.resolve("home")));
        assertTrue(e.getMessage().startsWith(open.toRealPath() + " "), e.getMessage());
    }

    @Test
    void missingParentsAreMadeOwnerOnly() throws Exception {
        PrivateDirectory.ensure(tmp.resolve("x/y/z"));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(tmp.resolve("x"))));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(tmp.resolve("x/y"))));
    }

    @Test
    void secretsAreOwnerOnlyFiles() throws Exception {
        Path f = tmp.resolve("pw");
        PrivateDirectory.writeSecret(f, Secrets.password());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        assertEquals(24, Files.readString(f).length());
    }
}
