package txfuzz.dbms.server;

import com.sun.security.auth.module.UnixSystem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Directories only the current user can reach, for everything txfuzz runs or keeps on a shared machine:
 * unpacked server binaries, data directories, password files, leases. A directory is created with mode
 * 0700; an existing one is used only when it is a real directory (not a symbolic link), owned by the
 * current user and writable by nobody else; otherwise the run stops with a one-line reason, because
 * another user could have planted a program there that txfuzz would then run.
 *
 * <p>The root is the system property {@code txfuzz.home} or {@code $TXFUZZ_HOME} when set, else {@code $XDG_CACHE_HOME/txfuzz}, else
 * {@code ~/.cache/txfuzz}.
 */
public final class PrivateDirectory {
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");
    private static final Set<Path> CHECKED_ANCESTORS = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private static final Set<PosixFilePermission> OTHERS_WRITE = EnumSet.of(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);

    private PrivateDirectory() {
    }

    /**
     * The root of txfuzz's private files, created or checked, with its every ancestor checked
     * ({@link #checkAncestors}); this process holds it in use ({@link HomeLock}) from the first call on.
     */
    public static Path root() {
        Path root = location();
        if (CHECKED_ANCESTORS.add(root)) {
            try {
                checkAncestors(root);
            } catch (RuntimeException e) {
                CHECKED_ANCESTORS.remove(root);
                throw e;
            }
        }
        ensure(root);
        HomeLock.share(root);
        return root;
    }

    /** Where the root is (the property, the environment, the cache directory), without creating or checking anything. */
    public static Path location() {
        String home = System.getProperty("txfuzz.home", System.getenv("TXFUZZ_HOME"));
        Path root;
        if (home != null && !home.isBlank()) {
            root = Path.of(home);
        } else {
            String cache = System.getenv("XDG_CACHE_HOME");
            root = (cache != null && !cache.isBlank() ? Path.of(cache) : Path.of(System.getProperty("user.home"), ".cache")).resolve("txfuzz");
        }
        return root.toAbsolutePath().normalize();
    }

    /**
     * IllegalStateException (one line, naming the directory and the fix) unless every existing directory
     * above {@code dir} belongs to root or the current user and is writable by no one else, or is sticky
     * (as /tmp: others may not rename or delete what is not theirs). As ssh checks the directories above
     * authorized_keys: whoever may write a parent can move the home aside and put one of their own in
     * its place. Links among the parents are followed to where they lead, and that is checked.
     */
    public static void checkAncestors(Path dir) {
        Path real = existingReal(dir.toAbsolutePath().normalize());
        // the home itself is judged by check() and ensure(); parents not made yet will be made 0700
        for (Path p = real.getParent(); p != null; p = p.getParent()) {
            if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            try {
                long owner = ((Number) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS)).longValue();
                int mode = ((Number) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS)).intValue();
                if (owner != 0 && owner != currentUid()) {
                    throw new IllegalStateException(p + " (above txfuzz's private directory " + dir + ") belongs to another user (uid " + owner
                            + "), who could replace what txfuzz keeps there; set TXFUZZ_HOME to a directory under your own home");
                }
                if ((mode & 0022) != 0 && (mode & 01000) == 0) {
                    throw new IllegalStateException(p + " (above txfuzz's private directory " + dir + ") is writable by other users (mode "
                            + String.format("%04o", mode & 07777) + ") without the sticky bit, so they could replace what txfuzz keeps there;"
                            + " chmod go-w " + p + " (or chmod +t), or set TXFUZZ_HOME to a directory under your own home");
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot check " + p + ": " + e.getMessage(), e);
            }
        }
    }

    /** {@code dir} with its longest existing prefix resolved to its real path (the rest does not exist yet). */
    private static Path existingReal(Path dir) {
        Path existing = dir;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return dir;
        }
        try {
            return existing.toRealPath().resolve(existing.relativize(dir)).normalize();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot resolve " + existing + ": " + e.getMessage(), e);
        }
    }

    /** {@code name} under the root (e.g. "postgres", "leases"), created or checked. */
    public static Path of(String name) {
        return ensure(root().resolve(name));
    }

    /**
     * Creates {@code dir} (and missing parents) with mode 0700, or checks an existing one. An existing
     * directory of ours that others may read is narrowed to 0700; one they may write is refused (its
     * contents cannot be trusted).
     */
    public static Path ensure(Path dir) {
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                Path parent = dir.getParent();
                if (parent != null && !Files.isDirectory(parent)) {
                    ensure(parent); // every directory txfuzz makes is 0700, parents included
                }
                try {
                    Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
                    Files.setPosixFilePermissions(dir, OWNER_ONLY); // the umask may have narrowed the bits; never widened them
                    return dir;
                } catch (FileAlreadyExistsException raced) {
                    // another process made it first: check it like any existing one
                }
            }
            check(dir);
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
            if (!perms.equals(OWNER_ONLY)) {
                Files.setPosixFilePermissions(dir, OWNER_ONLY);
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the private directory " + dir + ": " + e.getMessage(), e);
        }
    }

    /** Sets every directory under {@code tree} (itself included, links not followed) to 0700. */
    public static void narrowDirectories(Path tree) {
        try (java.util.stream.Stream<Path> walk = Files.walk(tree)) {
            for (Path d : (Iterable<Path>) walk.filter(q -> Files.isDirectory(q, LinkOption.NOFOLLOW_LINKS))::iterator) {
                if (!Files.getPosixFilePermissions(d, LinkOption.NOFOLLOW_LINKS).equals(OWNER_ONLY)) {
                    Files.setPosixFilePermissions(d, OWNER_ONLY);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot narrow the directories of " + tree + " to 0700: " + e.getMessage(), e);
        }
    }

    /** IllegalStateException (one line) unless {@code dir} is a directory of the current user that no one else may write. */
    public static void check(Path dir) throws IOException {
        if (Files.isSymbolicLink(dir) || !Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw new IllegalStateException(dir + " is not a plain directory; txfuzz keeps its servers' files only in a directory of its own"
                    + " (remove it, or set TXFUZZ_HOME to another place)");
        }
        long owner = ((Number) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS)).longValue();
        if (owner != currentUid()) {
            throw new IllegalStateException(dir + " belongs to another user (uid " + owner + "); txfuzz runs no program from a directory"
                    + " it does not own (remove it, or set TXFUZZ_HOME to another place)");
        }
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
        if (perms.stream().anyMatch(OTHERS_WRITE::contains)) {
            throw new IllegalStateException(dir + " is writable by other users (mode " + PosixFilePermissions.toString(perms) + "), so what it"
                    + " holds cannot be trusted; txfuzz refuses it (remove it, or set TXFUZZ_HOME to another place)");
        }
    }

    /** Whether this process runs as root. */
    public static boolean isRoot() {
        return currentUid() == 0;
    }

    static long currentUid() {
        return new UnixSystem().getUid();
    }

    /** Writes {@code content} to a new file only its owner may read (0600), replacing an older one. */
    public static void writeSecret(Path file, String content) {
        try {
            Files.deleteIfExists(file);
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(file, content);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * For a program of the user's own installation (--server-home), which txfuzz runs as it is:
     * IllegalArgumentException when group or others may write {@code p}, since another user could then
     * have replaced it, and the server it starts holds txfuzz's passwords.
     */
    public static void requireNotWritableByOthers(Path p) {
        try {
            java.util.Set<java.nio.file.attribute.PosixFilePermission> perms = Files.getPosixFilePermissions(p);
            if (perms.contains(java.nio.file.attribute.PosixFilePermission.GROUP_WRITE)
                    || perms.contains(java.nio.file.attribute.PosixFilePermission.OTHERS_WRITE)) {
                throw new IllegalArgumentException("--server-home: " + p + " is writable by group or others, so another user could replace it;"
                        + " txfuzz does not run it (chmod go-w)");
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot read the permissions of " + p + ": " + e.getMessage(), e);
        }
    }
}
