package txfuzz.dbms.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A record, in the private directory, of one server this process started and the data directory it
 * made: who owns it (this process, by pid and start time), the server's process and the directory.
 * A run that ends normally or by a signal it can see stops its servers and deletes the lease; a run
 * that was killed (SIGKILL, a crash of the JVM) leaves it behind, and the next run's {@link #sweep}
 * stops that server and removes its data directory, saying so in one line.
 */
public final class Lease implements AutoCloseable {
    private static final AtomicInteger NEXT = new AtomicInteger();
    private static final String OWNER_PID = "ownerPid";
    private static final String OWNER_START = "ownerStart";
    private static final String KIND = "kind";
    private static final String DATA_DIR = "dataDir";
    private static final String SERVER_PID = "serverPid";
    private static final String SERVER_START = "serverStart";
    /** Prefix of the keys of other files the server's start makes beside its data directory (its log). */
    private static final String FILE = "file.";
    private static final String SETUP_PROGRAM = "setupProgram";

    private final Path file;
    private final Properties props;
    /** Set by {@link #close()}: a start that records its process after a stop must not write the lease again. */
    private boolean closed;

    private Lease(Path file, Properties props) {
        this.file = file;
        this.props = props;
    }

    /** The folder of leases under the private root. */
    public static Path folder() {
        return PrivateDirectory.of("leases");
    }

    /**
     * Takes a lease for a server of {@code kind} ("PostgreSQL", "MariaDB") about to be started with
     * {@code dataDir}, which must lie inside the private root or its {@link MemoryDirectory} twin (the sweep deletes only
     * there).
     */
    public static Lease take(String kind, Path dataDir, Path... files) {
        Path root = PrivateDirectory.root();
        Path data = dataDir.toAbsolutePath().normalize();
        if (!data.startsWith(root) && !data.startsWith(MemoryDirectory.location(root))) {
            throw new IllegalArgumentException("a leased data directory must lie in " + root + " or " + MemoryDirectory.location(root) + ": " + data);
        }
        List<String> others = new ArrayList<>();
        for (Path f : files) {
            Path n = f.toAbsolutePath().normalize();
            if (!n.startsWith(root) || n.equals(root)) {
                throw new IllegalArgumentException("a leased file must lie in " + root + ": " + n);
            }
            others.add(n.toString());
        }
        ProcessHandle me = ProcessHandle.current();
        Properties p = new Properties();
        p.setProperty(OWNER_PID, String.valueOf(me.pid()));
        p.setProperty(OWNER_START, startOf(me).map(Instant::toString).orElse(""));
        p.setProperty(KIND, kind);
        p.setProperty(DATA_DIR, data.toString());
        for (int i = 0; i < others.size(); i++) {
            p.setProperty(FILE + i, others.get(i));
        }
        Lease lease = new Lease(folder().resolve(me.pid() + "-" + NEXT.incrementAndGet() + ".lease"), p);
        lease.save();
        return lease;
    }

    /** Records the server's process once it runs (the process the sweep stops). */
    public synchronized void serverStarted(long pid) {
        props.remove(SETUP_PROGRAM);
        record(pid);
    }

    /**
     * Records the program that sets the server's data directory up before it runs ({@code program}, e.g.
     * initdb), which the sweep stops too: it would otherwise go on writing there.
     */
    public synchronized void settingUp(String program, long pid) {
        props.setProperty(SETUP_PROGRAM, program);
        record(pid);
    }

    private void record(long pid) {
        props.setProperty(SERVER_PID, String.valueOf(pid));
        props.setProperty(SERVER_START, ProcessHandle.of(pid).flatMap(Lease::startOf).map(Instant::toString).orElse(""));
        save();
    }

    /** Deletes the lease: its server is stopped and its data directory removed. */
    @Override
    public synchronized void close() {
        closed = true;
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // the next sweep finds an owner that has ended and nothing left to remove
        }
    }

    private void save() {
        if (closed) {
            return;
        }
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (OutputStream out = Files.newOutputStream(tmp)) {
            Files.setPosixFilePermissions(tmp, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
            props.store(out, "txfuzz: a server this process started; removed by the next run if this process was killed");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + tmp + ": " + e.getMessage(), e);
        }
        try {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * What a run that no longer exists left behind: a server it started (if that very process still
     * runs), its data directory and files, and the lease itself.
     */
    public record Abandoned(Path lease, String kind, String ownerPid, Optional<ProcessHandle> server, String setupProgram, Optional<Path> dataDir,
            List<Path> files) {
        /** One line for the user: what {@link #remove} does (or, with {@code done} false, would do). */
        public String describe(boolean done) {
            List<String> parts = new ArrayList<>();
            server.ifPresent(h -> parts.add((done ? "stopped" : "would stop") + " a " + kind + " server"
                    + (setupProgram.isEmpty() ? "" : "'s " + setupProgram) + " (pid " + h.pid() + ")"));
            List<String> paths = new ArrayList<>();
            dataDir.ifPresent(d -> paths.add(d.toString()));
            files.forEach(f -> paths.add(f.toString()));
            if (!paths.isEmpty()) {
                parts.add((done ? "removed " : "would remove ") + String.join(" and ", paths));
            }
            if (parts.isEmpty()) {
                parts.add((done ? "removed" : "would remove") + " the lease " + lease);
            }
            return "txfuzz: " + String.join(" and ", parts) + " left by txfuzz process " + ownerPid + ", which was killed";
        }

        /** Stops the server, deletes the data directory, the files and the lease. */
        public void remove() {
            server.ifPresent(Lease::stop);
            dataDir.ifPresent(Lease::deleteTree);
            for (Path f : files) {
                deleteTree(f);
            }
            try {
                Files.deleteIfExists(lease);
            } catch (IOException ignored) {
                // tried again next time
            }
        }
    }

    /** The leases whose owner no longer runs, and what each left (only paths inside the private root, or its data's twin in memory). */
    public static List<Abandoned> abandoned() {
        Path root = PrivateDirectory.root();
        Optional<Path> twin = MemoryDirectory.existing(root);
        List<Abandoned> found = new ArrayList<>();
        for (Path f : leaseFiles(root)) {
            Properties p = read(f);
            if (p == null || alive(p.getProperty(OWNER_PID), p.getProperty(OWNER_START))) {
                continue; // a run that is still going (perhaps another txfuzz of this user)
            }
            Optional<ProcessHandle> server = process(p.getProperty(SERVER_PID), p.getProperty(SERVER_START));
            Optional<Path> dir = inside(root, p.getProperty(DATA_DIR, ""))
                    .or(() -> twin.flatMap(t -> inside(t, p.getProperty(DATA_DIR, ""))));
            List<Path> files = new ArrayList<>();
            for (int i = 0; p.getProperty(FILE + i) != null; i++) {
                inside(root, p.getProperty(FILE + i)).ifPresent(files::add);
            }
            found.add(new Abandoned(f, p.getProperty(KIND, "server"), p.getProperty(OWNER_PID), server, p.getProperty(SETUP_PROGRAM, ""), dir,
                    List.copyOf(files)));
        }
        return found;
    }

    /** How many leases belong to processes that still run (txfuzz runs using the private directory now). */
    public static long held() {
        return leaseFiles(PrivateDirectory.root()).stream().map(Lease::read)
                .filter(p -> p != null && alive(p.getProperty(OWNER_PID), p.getProperty(OWNER_START))).count();
    }

    /** The lease files under {@code root}, in name order (none when the folder does not exist: nothing is created). */
    private static List<Path> leaseFiles(Path root) {
        List<Path> files = new ArrayList<>();
        Path folder = root.resolve("leases");
        if (!Files.isDirectory(folder, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return files;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(folder, "*.lease")) {
            ds.forEach(files::add);
        } catch (IOException e) {
            return files;
        }
        files.sort(Comparator.naturalOrder());
        return files;
    }

    private static Properties read(Path f) {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(f)) {
            p.load(in);
            return p;
        } catch (IOException e) {
            return null;
        }
    }

    /** {@code path} when it names something that exists strictly inside {@code root}. */
    private static Optional<Path> inside(Path root, String path) {
        if (path == null || path.isEmpty()) {
            return Optional.empty();
        }
        Path p = Path.of(path).normalize();
        return p.startsWith(root) && !p.equals(root) && Files.exists(p, java.nio.file.LinkOption.NOFOLLOW_LINKS) ? Optional.of(p) : Optional.empty();
    }

    /**
     * Removes what runs that no longer exist left behind: stops each such server (only the very process
     * recorded, checked by its start time, so a reused pid is never signalled) and deletes its data
     * directory and files. Each removal is reported to {@code say} in one line. Returns how many leases were swept.
     */
    public static int sweep(Consumer<String> say) {
        MemoryDirectory.removeOrphans(); // what deleted homes left in memory: nothing of theirs can run any more
        List<Abandoned> found = abandoned();
        for (Abandoned a : found) {
            a.remove();
            if (a.server().isPresent() || a.dataDir().isPresent() || !a.files().isEmpty()) {
                say.accept(a.describe(true));
            }
        }
        return found.size();
    }

    private static boolean alive(String pid, String start) {
        return process(pid, start).isPresent();
    }

    /** The recorded process, if it still runs and is the same process (same start time) as recorded. */
    private static Optional<ProcessHandle> process(String pid, String start) {
        if (pid == null || pid.isBlank()) {
            return Optional.empty();
        }
        try {
            Optional<ProcessHandle> h = ProcessHandle.of(Long.parseLong(pid.trim())).filter(ProcessHandle::isAlive);
            if (h.isEmpty() || start == null || start.isBlank()) {
                return h;
            }
            Optional<Instant> now = startOf(h.get());
            return now.isEmpty() || now.get().toString().equals(start) ? h : Optional.empty();
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static Optional<Instant> startOf(ProcessHandle h) {
        return h.info().startInstant();
    }

    /** SIGTERM (a fast shutdown for PostgreSQL and MariaDB), then SIGKILL after 10 s. */
    public static void stop(ProcessHandle h) {
        h.destroy();
        try {
            h.onExit().get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            h.destroyForcibly();
        } catch (Exception e) {
            h.destroyForcibly();
        }
    }

    /**
     * Deletes a directory tree, not following links out of it. An entry that vanishes meanwhile (a server's last
     * process removing its socket or pid file as it ends) is passed over instead of ending the pass, and a second and
     * third pass take what appeared during the first: one aborted walk once left a swept server's data directory.
     */
    public static void deleteTree(Path root) {
        for (int pass = 0; pass < 3 && root != null && Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS); pass++) {
            try {
                Files.walkFileTree(root, new java.nio.file.SimpleFileVisitor<>() {
                    @Override
                    public java.nio.file.FileVisitResult visitFile(Path file, java.nio.file.attribute.BasicFileAttributes attrs) {
                        deleteQuietly(file);
                        return java.nio.file.FileVisitResult.CONTINUE;
                    }

                    @Override
                    public java.nio.file.FileVisitResult visitFileFailed(Path file, IOException e) {
                        return java.nio.file.FileVisitResult.CONTINUE; // gone meanwhile, or unreadable: the next pass sees
                    }

                    @Override
                    public java.nio.file.FileVisitResult postVisitDirectory(Path dir, IOException e) {
                        deleteQuietly(dir);
                        return java.nio.file.FileVisitResult.CONTINUE;
                    }
                });
            } catch (IOException | UncheckedIOException ignored) {
                // best effort: reported by what is left
            }
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // a directory something wrote into meanwhile: the next pass
        }
    }
}
