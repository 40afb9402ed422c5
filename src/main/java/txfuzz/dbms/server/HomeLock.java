package txfuzz.dbms.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which txfuzz processes use a private directory: each holds a shared lock on {@value #NAME} in it from
 * its first use until it ends (the kernel releases it when the process ends, SIGKILL included), and
 * {@code txfuzz clean} removes the unpacked binaries only when it gets the lock exclusively, that is
 * when no txfuzz process uses the directory. Programs txfuzz starts (servers) do not inherit the lock;
 * what a killed run left running is recorded in its {@link Lease}.
 */
public final class HomeLock {
    /** The lock file, in the private directory; never removed. */
    public static final String NAME = "in-use.lock";
    private static final Map<Path, Held> HELD = new ConcurrentHashMap<>();

    private record Held(FileChannel channel, FileLock lock) {
    }

    private HomeLock() {
    }

    /** Marks {@code home} as in use by this process (once; a shared lock, held until the process ends). */
    static void share(Path home) {
        if (HELD.containsKey(home)) {
            return;
        }
        synchronized (HomeLock.class) {
            if (HELD.containsKey(home)) {
                return;
            }
            FileChannel ch = open(home);
            try {
                HELD.put(home, new Held(ch, ch.lock(0, Long.MAX_VALUE, true))); // waits while a clean holds it exclusively
            } catch (IOException e) {
                closeQuietly(ch);
                throw new UncheckedIOException("cannot lock " + home.resolve(NAME) + ": " + e.getMessage(), e);
            }
        }
    }

    /**
     * The lock of {@code home} held exclusively by this process, when no other process uses it; empty
     * otherwise. While it is held, this process's own use of {@code home} takes no shared lock. Closing
     * the result lets others in again (this process keeps using it, shared).
     */
    public static Optional<AutoCloseable> exclusive(Path home) {
        synchronized (HomeLock.class) {
            Held mine = HELD.remove(home);
            if (mine != null) {
                release(mine);
            }
            FileChannel ch = open(home);
            FileLock lock;
            try {
                lock = ch.tryLock(0, Long.MAX_VALUE, false);
            } catch (IOException | OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                closeQuietly(ch);
                if (mine != null) {
                    share(home);
                }
                return Optional.empty();
            }
            Held held = new Held(ch, lock);
            HELD.put(home, held);
            return Optional.of(() -> {
                synchronized (HomeLock.class) {
                    HELD.remove(home, held);
                    release(held);
                    if (mine != null) {
                        share(home);
                    }
                }
            });
        }
    }

    private static FileChannel open(Path home) {
        Path file = home.resolve(NAME);
        try {
            if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                try {
                    Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                } catch (java.nio.file.FileAlreadyExistsException raced) {
                    // another process made it first
                }
            }
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                throw new IllegalStateException(file + " is not a plain file; txfuzz keeps its lock there (remove it)");
            }
            return FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open " + file + ": " + e.getMessage(), e);
        }
    }

    private static void release(Held h) {
        try {
            h.lock().release();
        } catch (IOException ignored) {
            // closing the channel releases it too
        }
        closeQuietly(h.channel());
    }

    private static void closeQuietly(FileChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // nothing held
        }
    }
}
