package txfuzz.dbms.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A memory-backed twin of the private root for the data directories of the servers txfuzz starts:
 * {@code /dev/shm/txfuzz-UID/HASH}, where HASH names the root, so each home has a twin of its own. Those servers create and
 * delete files for every case (PostgreSQL a file per table, index and TOAST table; MariaDB one per table), and on ext4
 * allocating an inode among many recently deleted ones took a tenth of all the CPU of a PostgreSQL campaign; with the data
 * in memory a campaign ran 1.1-1.2× (PostgreSQL) and 1.5-2× (MariaDB) as fast (docs/performance.md). What a server writes there is thrown away when it
 * stops, and where its files lie is no part of what a case tests.
 *
 * <p>The twin is used only where {@code /dev/shm} is a tmpfs with {@value #MIN_FREE_GIB} GiB free, and where it is (or can be
 * made) a directory of the current user's that no one else may write, as {@link PrivateDirectory} demands of the root;
 * otherwise, and with {@code -Dtxfuzz.memory=false} or {@code TXFUZZ_MEMORY=false}, data stay under the root. Leases may
 * name paths in the twin, so a killed run's data there are swept like those under the root, and {@code txfuzz clean}
 * removes the twin with the rest. A twin names its home in a file, so that the sweep removes the twins of homes that no
 * longer exist (every test's temporary home has one).
 */
public final class MemoryDirectory {
    static final Path SHM = Path.of("/dev/shm");
    static final int MIN_FREE_GIB = 2;
    /** The file in a twin that names its home, by which a twin whose home was deleted is known and removed. */
    static final String HOME = "home";
    /** The twin chosen per root in this process (the choice is made once: a server's data must not move between runs). */
    private static final Map<Path, Optional<Path>> CHOSEN = new ConcurrentHashMap<>();

    private MemoryDirectory() {
    }

    /** The directory {@code name} for servers' data: in the root's twin when it has one, else under the root; created 0700. */
    public static Path data(String name) {
        Path root = PrivateDirectory.root();
        return PrivateDirectory.ensure(CHOSEN.computeIfAbsent(root, r -> wanted() ? choose(r, SHM, (long) MIN_FREE_GIB << 30) : Optional.empty())
                .orElse(root).resolve(name));
    }

    /** Whether {@code p} lies in the current root's twin in memory. */
    public static boolean holds(Path p) {
        return p.toAbsolutePath().normalize().startsWith(location(PrivateDirectory.root()));
    }

    /** Where {@code root}'s twin is, whether or not it exists; nothing is made or checked. */
    public static Path location(Path root) {
        return location(root, SHM);
    }

    static Path location(Path root, Path shm) {
        return shm.resolve("txfuzz-" + PrivateDirectory.currentUid()).resolve(hash(root));
    }

    /**
     * {@code root}'s twin when it exists as a directory of the current user's that no one else may write, both it and the
     * per-user directory above it: only then may a sweep or a clean delete in it.
     */
    public static Optional<Path> existing(Path root) {
        Path twin = location(root);
        try {
            if (!Files.isDirectory(twin, LinkOption.NOFOLLOW_LINKS)) {
                return Optional.empty();
            }
            PrivateDirectory.check(twin.getParent());
            PrivateDirectory.check(twin);
            return Optional.of(twin);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * The twin of {@code root} under {@code shm}, made 0700, when {@code shm} is a tmpfs with {@code minFree} bytes free and
     * the twin is the current user's alone; empty otherwise (a directory someone else made there in advance is refused,
     * and the data stay on disk).
     */
    static Optional<Path> choose(Path root, Path shm, long minFree) {
        try {
            if (!Files.isDirectory(shm)) {
                return Optional.empty();
            }
            FileStore store = Files.getFileStore(shm);
            if (!"tmpfs".equals(store.type()) || store.getUsableSpace() < minFree) {
                return Optional.empty();
            }
            Path twin = location(root, shm);
            PrivateDirectory.checkAncestors(twin);
            PrivateDirectory.ensure(twin.getParent());
            PrivateDirectory.ensure(twin);
            Path home = twin.resolve(HOME);
            if (!Files.exists(home, LinkOption.NOFOLLOW_LINKS)) {
                PrivateDirectory.writeSecret(home, root.toAbsolutePath().normalize().toString());
            }
            return Optional.of(twin);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * Removes the twins, under {@code shm}, of homes that no longer exist (a test's temporary home, a home the user
     * deleted): nothing can use them any more, and their leases went with the home. Only the current user's twins that
     * name their home in {@value #HOME} are considered; returns how many were removed.
     */
    static int removeOrphans(Path shm) {
        Path users = shm.resolve("txfuzz-" + PrivateDirectory.currentUid());
        int removed = 0;
        try {
            if (!Files.isDirectory(users, LinkOption.NOFOLLOW_LINKS)) {
                return 0;
            }
            PrivateDirectory.check(users);
            try (java.nio.file.DirectoryStream<Path> twins = Files.newDirectoryStream(users)) {
                for (Path twin : twins) {
                    Path home = twin.resolve(HOME);
                    try {
                        if (Files.isRegularFile(home, LinkOption.NOFOLLOW_LINKS) && !Files.exists(Path.of(Files.readString(home).strip()))) {
                            Lease.deleteTree(twin);
                            removed++;
                        }
                    } catch (IOException | RuntimeException unreadable) {
                        // names no home we can judge: left alone
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // tried again at the next server's start
        }
        return removed;
    }

    /** Removes the twins of homes that no longer exist under /dev/shm (see {@link #removeOrphans(Path)}). */
    public static int removeOrphans() {
        return removeOrphans(SHM);
    }

    private static boolean wanted() {
        String v = System.getProperty("txfuzz.memory", System.getenv("TXFUZZ_MEMORY"));
        return v == null || v.isBlank() || !v.trim().equalsIgnoreCase("false");
    }

    private static String hash(Path root) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(root.toAbsolutePath().normalize().toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
