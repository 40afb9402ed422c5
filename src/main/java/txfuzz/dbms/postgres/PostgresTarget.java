package txfuzz.dbms.postgres;

import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.Database;
import txfuzz.dbms.Dialect;
import txfuzz.dbms.Feature;
import txfuzz.dbms.LockProbe;
import txfuzz.dbms.SqlStates;
import txfuzz.dbms.Profile;
import txfuzz.dbms.ReusedDatabases;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.versions.BundledVersions;
import txfuzz.dbms.versions.Releases;
import txfuzz.dbms.server.SessionPool;
import org.postgresql.PGConnection;

/**
 * PostgreSQL: a server txfuzz starts itself (from the zonky binaries of the bundled version or of
 * {@code --version}, or from a local installation with {@code --server-home}; see {@link EmbeddedServer})
 * or an existing one given by URL.
 *
 * <p><b>Namespace</b> ({@link Namespace}). txfuzz works in a database of its own, {@code txfuzz_N} (N = 1, 2, ...), created
 * from template0 when missing and marked by a table {@code public.txfuzz_owner}. A database of that
 * name without the marker was not made by txfuzz: the target refuses to start rather than touch
 * it. Each target claims one such database for its lifetime with a session-level advisory lock, so
 * parallel workers and runs each get their own. Inside it, a test case's tables live in a schema
 * {@code txfuzz_case_K}, dropped (CASCADE) and created anew for every fresh database — about 1.3 ms
 * on the started server, against ~30 ms for CREATE DATABASE and ~1.8 ms for listing and dropping the
 * tables. Nothing outside that database is ever created, changed or dropped.
 *
 * <p><b>Kept tables.</b> A case schema whose setup's DDL was recorded ({@link Database#madeTablesOf}) is kept for the
 * thread that closed it, and the next run of a setup with exactly that DDL gets it back ({@link Database#hasTablesOf}):
 * one {@code TRUNCATE … RESTART IDENTITY} of its tables instead of DROP/CREATE SCHEMA and the DDL, checked against the
 * catalog as it was right after the DDL ran and for no row left ({@link ReusedDatabases}); a schema of another setup is
 * dropped as before. Off unless {@code -Dtxfuzz.postgres.keepTables=true}: it is slower here (docs/performance.md).
 *
 * <p><b>Sessions</b> are pooled across test cases ({@link SessionPool}): a new PostgreSQL session
 * costs ~4 ms, a pooled one a round trip. Each session is set to the case's level and schema when
 * taken, with lock_timeout, statement_timeout and idle_in_transaction_session_timeout 0 (waits last
 * until the blocker ends), and reset with DISCARD ALL when given back.
 *
 * <p><b>Semantics.</b> Levels READ COMMITTED, REPEATABLE READ, SERIALIZABLE. READ UNCOMMITTED is
 * accepted by PostgreSQL but runs as READ COMMITTED, so it is not offered (it would repeat RC cases).
 * Any error inside an explicit transaction aborts the whole transaction (later statements get 25P02
 * until ROLLBACK), so {@link #abortScope} is TRANSACTION for every class and the executor sends
 * ROLLBACK. A failing autocommit statement ends only itself. Deadlocks are detected after
 * {@code deadlock_timeout}, set per session to 100 ms more than the session before, from 100 ms (see
 * {@link #deadlockTimeoutMillis}; the default is 1 s), so the victim is always the lowest-numbered transaction of the cycle; on a
 * server given by URL it can be set only by a superuser or a role granted SET on it, otherwise the server's own value applies.
 *
 * <p><b>Lock probe:</b> {@code pg_blocking_pids(pid)} for the session's backend pid
 * ({@code pg_backend_pid()}, known to the driver without a round trip).
 *
 * <p><b>Privileges.</b> On the started server every session of this target, the keeper included, logs
 * in as {@value EmbeddedServer#RUNNER}, which is not a superuser (see {@link EmbeddedServer}). What the
 * target does needs no more: creating its txfuzz_N database (CREATEDB; it then owns the database and its
 * public schema, so the marker table and the case schemas are its own), the advisory-lock claim,
 * {@code pg_blocking_pids} (any role), {@code pg_terminate_backend} of its own leftover sessions in
 * {@link #freshDatabase()} (a role may signal its own backends), reading the final state (its own tables),
 * and the per-session deadlock_timeout (a superuser-only setting, granted to that role alone with
 * {@code GRANT SET ON PARAMETER}, PostgreSQL 15). A restart after a crash is done by process, not by SQL.
 * Only {@link EmbeddedServer} logs in as the superuser, to create that role while the server starts.
 * On a server given by --url the user's own credentials are used for everything.
 *
 * <p><b>Crashes.</b> A statement that loses its session reports CONNECTION_LOST (08xxx, 57P01..57P03),
 * which the explicit oracle reports. When the started server's postmaster is gone, the next
 * {@link #freshDatabase()} starts a new one (its log is kept, see {@link #lastCrashLog()}), so a
 * campaign goes on. When only backends crashed, PostgreSQL recovers by itself; the next fresh
 * database waits for it.
 */
public final class PostgresTarget implements Target {
    static final int DEADLOCK_FIRST_MS = 100;
    static final int DEADLOCK_STEP_MS = 100;
    /**
     * Idle sessions the pool keeps. The pool only keeps sessions a peak of demand opened, so the limit costs no backend
     * that was not needed once; with 12, two workers' peaks (a run's sessions, its probe, a simulation's database beside
     * it) closed a session every third case and opened another, each a SCRAM login.
     */
    private static final int MAX_IDLE_SESSIONS = 48;
    /** How long a fresh database waits for a server that is recovering from a crashed backend. */
    private static final long RECOVERY_WAIT_MS = 30_000;

    private final boolean embedded;
    private final Object lock = new Object();
    private final Thread hook;
    private final Deque<String> freeSchemas = new ArrayDeque<>();
    private volatile boolean closed;
    private int nextSchema;

    // the current server; replaced when the started server is restarted
    private volatile EmbeddedServer server;
    private volatile Endpoint endpoint;
    private volatile Flavour flavour;
    private volatile Namespace namespace;
    private volatile SessionPool pool;
    private volatile int generation;
    /** Appended to the settings of every session taken from the pool (session settings DISCARD ALL resets). */
    private volatile String sessionDefaults = "";
    /** The subject's settings ({@link PostgresEngine#settings()}) as SET commands, after the session's own settings. */
    private final String subjectSettings;
    private final java.util.Map<String, String> settings;
    private volatile boolean deadlockTimeoutSet;
    private volatile Path lastCrashLog;
    private int restarts;

    private long resets;
    private long resetNanos;

    private final PostgresEngine engine;
    /** Where a started server's programs come from (null with --url): a restart after a crash uses the same. */
    private final Installation installation;

    /** A server txfuzz starts, or the one at {@code options.url()}. */
    public PostgresTarget(TargetOptions options) {
        this(new PostgresEngine(), options);
    }

    PostgresTarget(PostgresEngine engine, TargetOptions options) {
        this.engine = engine;
        TargetOptions o = options == null ? TargetOptions.none() : options;
        StringBuilder set = new StringBuilder();
        o.settings().forEach((k, v) -> set.append("; SET ").append(k).append(" = ").append(v));
        subjectSettings = set.toString();
        settings = o.settings();
        embedded = o.url() == null;
        o.checkServerOptions();
        installation = !embedded ? null
                : o.serverHome() != null ? new LocalInstallation(Path.of(o.serverHome()))
                : Binaries.at(Releases.pick(Binaries.ARTIFACT, o.version(), BundledVersions.of("postgres")));
        Endpoint ep = embedded ? null : Endpoint.of(o.url(), o.user(), o.password());
        hook = new Thread(this::close, "txfuzz-postgres-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            if (embedded) {
                // published before it runs: the shutdown hook stops a server that is still starting
                server = EmbeddedServer.start(installation, s -> server = s);
                ep = server.endpoint();
            }
            endpoint = ep;
            attach();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    @Override
    public java.util.Map<String, String> settings() {
        return settings;
    }

    /** The engine's session set-up, then the subject's settings as the engine's own client sets them (reproduce.sql). */
    @Override
    public java.util.List<String> sessionSetupSql(txfuzz.model.IsolationLevel level, String mode) {
        java.util.List<String> out = new java.util.ArrayList<>(engine().sessionSetupSql(level, mode));
        out.addAll(txfuzz.dbms.EngineSetting.sessionSql(engine(), settings));
        return out;
    }

    public PostgresTarget() {
        this(TargetOptions.none());
    }

    /** Connects to the current endpoint: detects the flavour, claims a namespace, opens the pool. */
    private void attach() {
        String where = endpoint.toString();
        try (Connection m = endpoint.open(endpoint.maintenanceDb())) {
            flavour = Flavour.detect(m, where);
            claim(m);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot use PostgreSQL at " + where + " as " + endpoint.user() + ": " + SqlStates.message(e)
                    + (embedded ? "" : " (check --url, --user and the password)"), e);
        }
        pool = new SessionPool(new SessionPool.Hooks() {
            @Override
            public Connection open() throws SQLException {
                return openSession();
            }

            @Override
            public void resetOnReturn(Connection c) throws SQLException {
                // drops prepared statements, temporary tables and session settings; pgjdbc sees it and
                // forgets its server-side statements
                try (Statement s = c.createStatement()) {
                    s.execute("DISCARD ALL");
                }
            }

            @Override
            public boolean diedMeanwhile(Exception e) {
                return e instanceof SQLException sql && PostgresEngine.isConnectionError(sql);
            }
        }, new SessionPool.Settings("PostgreSQL", MAX_IDLE_SESSIONS, true));
        generation++;
    }

    /** Claims a namespace database (see {@link Namespace}) and sets the keeper's session defaults. */
    private void claim(Connection maintenance) throws SQLException {
        Namespace ns = Namespace.claim(endpoint, maintenance);
        namespace = ns;
        setSessionDefaults(ns.admin());
    }

    /**
     * A new session in the namespace database. While the server recovers from a crashed backend it
     * refuses sessions with 57P03 for a moment; wait for it, so a case that crashed a backend can
     * still read its final state.
     */
    private Connection openSession() throws SQLException {
        long deadline = System.currentTimeMillis() + RECOVERY_WAIT_MS;
        while (true) {
            try {
                return endpoint.open(namespace.database());
            } catch (SQLException e) {
                if (!(recovering(e)) || closed || System.currentTimeMillis() > deadline) {
                    throw e;
                }
                sleep(100);
            }
        }
    }

    /**
     * The server refused a session because it is recovering from a crashed backend: 57P03, or — on the
     * server txfuzz started, whose postmaster is still alive — a connection reset while the postmaster
     * restarts its backends (seen under load).
     */
    private boolean recovering(SQLException e) {
        if ("57P03".equals(e.getSQLState())) {
            return true;
        }
        EmbeddedServer s = server;
        return s != null && e.getSQLState() != null && e.getSQLState().startsWith("08")
                && ProcessHandle.of(s.postmasterPid()).map(EmbeddedServer::running).orElse(false);
    }

    /**
     * Settings every session gets. On the started server they are server defaults already (and its role
     * may set deadlock_timeout); on a server given by URL they are set per session, deadlock_timeout only
     * where this user may (a superuser, or a role granted SET on it).
     */
    private void setSessionDefaults(Connection c) {
        if (embedded) {
            sessionDefaults = "";
            deadlockTimeoutSet = true;
            return;
        }
        try (Statement s = c.createStatement()) {
            s.execute("SET deadlock_timeout = '" + EmbeddedServer.DEADLOCK_TIMEOUT + "'");
            s.execute("RESET deadlock_timeout");
            deadlockTimeoutSet = true;
        } catch (SQLException e) {
            deadlockTimeoutSet = false; // 42501: not a superuser; the server's deadlock_timeout applies
        }
        sessionDefaults = "; SET lock_timeout = 0; SET statement_timeout = 0; SET idle_in_transaction_session_timeout = 0";
    }

    /**
     * deadlock_timeout of the k-th session a fresh database hands out (0 = the first). PostgreSQL
     * checks for a deadlock only in the waiter whose deadlock_timeout runs out first, and that one
     * is the victim. With one timeout for all, two waiters of a cycle that formed within a few
     * milliseconds fire within those milliseconds, and on a busy machine either may check first:
     * the victim changed from run to run. The executor opens its sessions in transaction order
     * (after the setup session), so steps of 100 ms make the victim the transaction with the lowest
     * number in the cycle, on every run. A deadlock costs 200 to 600 ms.
     */
    static int deadlockTimeoutMillis(int k) {
        return DEADLOCK_FIRST_MS + DEADLOCK_STEP_MS * Math.min(k, 20);
    }

    @Override
    public PostgresEngine engine() {
        return engine;
    }

    /** The description's dialect, without MERGE on a server older than PostgreSQL 15. */
    @Override
    public Dialect dialect() {
        Dialect d = engine.dialect();
        if (flavour == null || flavour.hasMerge()) {
            return d;
        }
        EnumSet<Feature> f = EnumSet.copyOf(d.features());
        f.remove(Feature.MERGE);
        return new Dialect(d.name(), f, d.doubleType(), d.varcharType(), d.concat());
    }

    @Override
    public String version() {
        return flavour.version();
    }

    /** What the manual of the server's own major release documents, citing that release's pages (docs/18/ for 18.6). */
    @Override
    public Profile profile() {
        Flavour f = flavour;
        return f == null ? engine.profile() : engine.profile(f.major());
    }

    @Override
    public Profile profile(String mode) {
        return profile();
    }

    /** The namespace database this target claimed, e.g. "txfuzz_1". */
    public String database() {
        Namespace ns = namespace;
        return ns == null ? null : ns.database();
    }

    /** Whether deadlocks are detected after txfuzz's short deadlock_timeout (else after the server's own). */
    public boolean shortDeadlockTimeout() {
        return deadlockTimeoutSet;
    }

    /** The log of the last started server that died, or null. */
    public Path lastCrashLog() {
        return lastCrashLog;
    }

    /** How many times the started server was restarted after it died. */
    public int restarts() {
        synchronized (lock) {
            return restarts;
        }
    }

    /** Mean cost of making a fresh database (drop and create the case schema), in milliseconds. */
    public double meanResetMillis() {
        synchronized (lock) {
            return resets == 0 ? 0 : resetNanos / 1e6 / resets;
        }
    }

    /** Sessions opened on the server so far (the rest were taken from the pool). */
    int sessionsOpened() {
        return pool.opened();
    }

    EmbeddedServer server() {
        return server;
    }

    Endpoint endpoint() {
        return endpoint;
    }

    /**
     * The case schemas kept with their tables for the next run of the same setup (per thread; see {@link PgDatabase#empty()}).
     * A schema of another setup is dropped and a new one made, as before.
     */
    private final ReusedDatabases<PgDatabase> databases = new ReusedDatabases<>(this::newSchema,
            ReusedDatabases.KEEP_TABLES && "true".equals(System.getProperty(KEEP_TABLES_PROPERTY)), true);

    /**
     * -Dtxfuzz.postgres.keepTables=true keeps a case's tables between its runs. Off by default: measured, emptying and
     * checking (TRUNCATE of the tables ~4–5 ms, the catalog fingerprint ~4 ms, both on the kept schema and right after
     * every new setup's DDL) costs more than the DROP/CREATE SCHEMA and the DDL it saves (docs/performance.md).
     */
    static final String KEEP_TABLES_PROPERTY = "txfuzz.postgres.keepTables";

    @Override
    public ReusedDatabases.Counts databaseReuse() {
        return databases.counts();
    }

    @Override
    public Database freshDatabase() throws SQLException {
        ensureClosedNot();
        return databases.take();
    }

    private PgDatabase newSchema() throws SQLException {
        synchronized (lock) {
            long start = System.nanoTime();
            String schema = freeSchemas.isEmpty() ? Namespace.SCHEMA_PREFIX + (++nextSchema) : freeSchemas.pop();
            try {
                ensureServer();
                namespace.create(schema);
            } catch (SQLException e) {
                if (!PostgresEngine.isConnectionError(e)) {
                    freeSchemas.push(schema);
                    throw e;
                }
                try {
                    recover(e);
                    namespace.create(schema);
                } catch (SQLException | RuntimeException again) {
                    freeSchemas.push(schema);
                    throw again;
                }
            } catch (RuntimeException e) {
                freeSchemas.push(schema);
                throw e;
            }
            resets++;
            resetNanos += System.nanoTime() - start;
            return new PgDatabase(schema, generation);
        }
    }

    private void ensureClosedNot() {
        if (closed) {
            throw new IllegalStateException("the postgres target is closed");
        }
    }

    /** A started server whose postmaster is gone is replaced by a new one. */
    private void ensureServer() {
        ensureClosedNot();
        if (embedded && !server.isAlive()) {
            restart(null);
        }
    }

    /** The keeper session broke ({@code cause}): the server died (restart it), recovers from a crashed backend, or dropped us. */
    private void recover(SQLException cause) throws SQLException {
        ensureClosedNot();
        if (embedded && !server.isAlive()) {
            restart(cause);
            return;
        }
        // the postmaster lives: wait until it accepts sessions again, then claim the namespace anew
        long deadline = System.currentTimeMillis() + RECOVERY_WAIT_MS;
        while (true) {
            try {
                namespace.abandon();
                pool.clear();
                try (Connection m = endpoint.open(endpoint.maintenanceDb())) {
                    claim(m);
                }
                return;
            } catch (SQLException e) {
                if (!PostgresEngine.isConnectionError(e) || System.currentTimeMillis() > deadline) {
                    throw e;
                }
                if (embedded && !server.isAlive()) {
                    restart(e);
                    return;
                }
                sleep(200);
            }
        }
    }

    /**
     * The started server's postmaster is gone: a new server replaces it, said on stderr in one line (as a MariaDB
     * restart is), with what told us ({@code cause}, null when the postmaster was found gone before any session broke)
     * and the dead server's telling log lines; its log is kept.
     */
    private void restart(SQLException cause) {
        EmbeddedServer dead = server;
        String lastWords = dead.lastWords(); // the server's own, before stopping it adds pg_ctl's
        dead.close(true);
        lastCrashLog = dead.log();
        System.err.println("txfuzz: the PostgreSQL server died" + (cause == null ? "" : " (" + SqlStates.message(cause) + ")")
                + "; starting a new one. Its last words: " + EmbeddedServer.crashLine(lastWords) + " (log kept: " + dead.log() + ")");
        SessionPool old = pool;
        if (old != null) {
            old.close();
        }
        namespace.abandon();
        restarts++;
        server = EmbeddedServer.start(installation, s -> server = s);
        endpoint = server.endpoint();
        attach();
        if (closed) { // close() ran meanwhile (shutdown hook): do not leave the new server behind
            close();
            throw new IllegalStateException("the postgres target is closed");
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (Thread.currentThread() != hook) {
            databases.close(); // drops the kept schemas (a shutdown hook leaves them: the next claim of the database drops them)
        }
        closed = true;
        // No lock here: a shutdown hook must not wait for a case that holds it.
        SessionPool p = pool;
        if (p != null) {
            p.close();
        }
        Namespace ns = namespace;
        if (ns != null) {
            ns.close(); // ends the keeper session and so the namespace claim
        }
        EmbeddedServer s = server;
        if (s != null) {
            s.close(false);
        }
        if (Thread.currentThread() != hook) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs or has run: nothing to remove
            }
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Everything DDL makes in {@code schema}, one line each, sorted: relations (with the planner's statistics pg_class
     * keeps: pages, tuples, all-visible pages — except of an index without a WHERE: TRUNCATE leaves 0 pages and -1 tuples
     * where CREATE INDEX left 1 and 0, and the planner reads neither of such an index, only its actual size and the table's
     * estimate (plancat.c, get_relation_info); a partial index's are read (estimate_rel_size), so a partial index differs
     * and its schema is not kept), columns (type, NOT NULL, default, identity, generated), indexes,
     * constraints, sequences with their next values, triggers, functions, types, rules, policies, and the columns
     * pg_statistic has statistics of.
     */
    private static String fingerprintSql(String schema) {
        String ns = "'" + schema + "'::regnamespace";
        return "SELECT line FROM ("
                + " SELECT concat_ws(' ', 'rel', c.relname, c.relkind, c.relpersistence, CASE WHEN x.indexrelid IS NOT NULL AND x.indpred IS NULL"
                + " THEN 'whole-index' ELSE concat_ws(' ', c.relpages, c.reltuples, c.relallvisible) END,"
                + " c.relhasrules, c.relhastriggers, c.relrowsecurity, c.relreplident, coalesce(c.reloptions::text, '-'),"
                + " CASE WHEN x.indexrelid IS NOT NULL THEN pg_get_indexdef(x.indexrelid) END) AS line"
                + " FROM pg_class c LEFT JOIN pg_index x ON x.indexrelid = c.oid WHERE c.relnamespace = " + ns
                + " UNION ALL SELECT concat_ws(' ', 'col', c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,"
                + " a.attidentity, a.attgenerated, a.attisdropped, a.attcollation, coalesce(pg_get_expr(d.adbin, d.adrelid), '-'))"
                + " FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid"
                + " AND d.adnum = a.attnum WHERE c.relnamespace = " + ns + " AND a.attnum > 0"
                + " UNION ALL SELECT concat_ws(' ', 'con', conname, conrelid::regclass, pg_get_constraintdef(oid), condeferrable, condeferred,"
                + " convalidated) FROM pg_constraint WHERE connamespace = " + ns
                + " UNION ALL SELECT concat_ws(' ', 'seq', c.relname, s.seqstart, s.seqincrement, s.seqmin, s.seqmax, s.seqcycle, s.seqcache,"
                + " coalesce(pg_sequence_last_value(c.oid)::text, 'none')) FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid"
                + " WHERE c.relnamespace = " + ns
                + " UNION ALL SELECT concat_ws(' ', 'trg', t.tgname, t.tgrelid::regclass, t.tgenabled) FROM pg_trigger t"
                + " JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = " + ns
                + " UNION ALL SELECT concat_ws(' ', 'fn', p.oid::regprocedure) FROM pg_proc p WHERE p.pronamespace = " + ns
                + " UNION ALL SELECT concat_ws(' ', 'type', t.typname, t.typtype) FROM pg_type t WHERE t.typnamespace = " + ns
                + " UNION ALL SELECT concat_ws(' ', 'rule', r.rulename, r.ev_class::regclass) FROM pg_rewrite r"
                + " JOIN pg_class c ON c.oid = r.ev_class WHERE c.relnamespace = " + ns
                + " UNION ALL SELECT concat_ws(' ', 'policy', p.polname, p.polrelid::regclass) FROM pg_policy p"
                + " JOIN pg_class c ON c.oid = p.polrelid WHERE c.relnamespace = " + ns
                + " UNION ALL SELECT concat_ws(' ', 'stats', tablename, attname) FROM pg_stats WHERE schemaname = '" + schema + "'"
                + ") f ORDER BY line";
    }

    /** TRUNCATE … RESTART IDENTITY of every table of {@code schema}, in one statement (foreign keys among them allow it). */
    private static String truncateSql(String schema) {
        return "DO $$ DECLARE t text; BEGIN SELECT string_agg(format('%I.%I', schemaname, tablename), ', ') INTO t"
                + " FROM pg_tables WHERE schemaname = '" + schema + "'; IF t IS NOT NULL THEN EXECUTE 'TRUNCATE ' || t"
                + " || ' RESTART IDENTITY'; END IF; END $$";
    }

    /** The rows of every table and materialized view of {@code schema} (TRUNCATE does not empty the latter). */
    private static String rowsSql(String schema) {
        return "SELECT coalesce(sum((xpath('/row/n/text()', query_to_xml(format('SELECT count(*) AS n FROM %I.%I', '" + schema
                + "', relname), false, true, '')))[1]::text::bigint), 0) FROM pg_class WHERE relnamespace = '" + schema
                + "'::regnamespace AND relkind IN ('r', 'm')";
    }

    /** One test case's namespace: a schema in the target's database. */
    private final class PgDatabase implements ReusedDatabases.KeepsTables {
        private final String schema;
        private final int gen;
        private final List<Connection> handedOut = new CopyOnWriteArrayList<>();
        private volatile boolean dbClosed;
        /** Sessions handed out so far: each gets a longer deadlock_timeout than the one before. */
        private int sessions;
        /** The session that empties and checks this database (see {@link #checkingSession()}), or null. */
        private Connection checking;

        PgDatabase(String schema, int gen) {
            this.schema = schema;
            this.gen = gen;
        }

        private synchronized Connection take(IsolationLevel level) throws SQLException {
            if (dbClosed) {
                throw new SQLException("this test database was closed", "08003");
            }
            if (gen != generation) {
                throw new SQLException("the PostgreSQL server died and was restarted after this test database was made", "08006");
            }
            String deadlockTimeout = deadlockTimeoutSet ? "; SET deadlock_timeout = '" + deadlockTimeoutMillis(sessions++) + "ms'" : "";
            String settings = "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL " + level.sql() + "; SET search_path = "
                    + schema + sessionDefaults + deadlockTimeout + subjectSettings;
            Connection c = pool.take(session -> {
                try (Statement s = session.createStatement()) {
                    s.execute(settings); // one round trip
                }
            });
            handedOut.removeIf(this::isClosed);
            handedOut.add(c);
            return c;
        }

        private boolean isClosed(Connection c) {
            try {
                return c.isClosed();
            } catch (SQLException e) {
                return true;
            }
        }

        @Override
        public Connection connect(IsolationLevel level, String mode) throws SQLException {
            PostgresEngine.checkMode(mode);
            return take(engine.checkLevel(level));
        }

        @Override
        public String sessionId(Connection c) throws SQLException {
            return String.valueOf(c.unwrap(PGConnection.class).getBackendPID()); // known since login: no round trip
        }

        @Override
        public Optional<LockProbe> lockProbe() throws SQLException {
            return Optional.of(new BlockingPidsProbe());
        }

        /**
         * {@code pg_blocking_pids(pid)}: the backends holding or queued ahead for a lock the session
         * waits for (row locks included: a row lock wait is a wait for the locker's transaction id).
         * When its own session is lost (the server crashed) it says "not waiting" once and opens a
         * new session for the next question; the statements in flight fail by themselves then.
         */
        private final class BlockingPidsProbe implements LockProbe {
            private Connection session;
            private PreparedStatement query;

            /** pg_stat_activity for txfuzz's database (this probe's own backend left out), and the locks the hung backend waits for. */
            @Override
            public Optional<String> engineState(String sessionId) throws SQLException {
                if (session == null) {
                    open();
                }
                StringBuilder out = new StringBuilder("pg_stat_activity (pid | state | wait_event_type:wait_event | xact age | query):\n");
                try (Statement s = session.createStatement(); ResultSet rs = s.executeQuery("SELECT pid, state, wait_event_type, wait_event,"
                        + " now() - xact_start, left(query, 300) FROM pg_stat_activity WHERE datname = current_database()"
                        + " AND pid <> pg_backend_pid() ORDER BY pid")) {
                    while (rs.next()) {
                        out.append(rs.getInt(1)).append(String.valueOf(rs.getInt(1)).equals(sessionId) ? " (the hung statement's)" : "")
                                .append(" | ").append(rs.getString(2)).append(" | ").append(rs.getString(3)).append(':').append(rs.getString(4))
                                .append(" | ").append(rs.getString(5)).append(" | ").append(String.valueOf(rs.getString(6)).replaceAll("\\s+", " "))
                                .append('\n');
                    }
                }
                try (PreparedStatement p = session.prepareStatement("SELECT locktype, relation::regclass, mode, granted FROM pg_locks"
                        + " WHERE pid = ? ORDER BY granted, locktype")) {
                    p.setInt(1, Integer.parseInt(sessionId));
                    out.append("\npg_locks of ").append(sessionId).append(" (locktype | relation | mode | granted):\n");
                    try (ResultSet rs = p.executeQuery()) {
                        while (rs.next()) {
                            out.append(rs.getString(1)).append(" | ").append(rs.getString(2)).append(" | ").append(rs.getString(3)).append(" | ")
                                    .append(rs.getBoolean(4)).append('\n');
                        }
                    }
                }
                return Optional.of(out.toString().strip());
            }

            BlockingPidsProbe() throws SQLException {
                open();
            }

            private void open() throws SQLException {
                session = take(IsolationLevel.READ_COMMITTED);
                try {
                    query = session.prepareStatement("SELECT pg_blocking_pids(?)");
                } catch (SQLException e) {
                    SessionPool.closeQuietly(session);
                    session = null;
                    throw e;
                }
            }

            @Override
            public Optional<Set<String>> waitsFor(String sessionId) throws SQLException {
                if (session == null) {
                    open();
                }
                try {
                    query.setInt(1, Integer.parseInt(sessionId));
                    try (ResultSet rs = query.executeQuery()) {
                        rs.next();
                        Array a = rs.getArray(1);
                        Object[] pids = a == null ? new Object[0] : (Object[]) a.getArray();
                        if (pids.length == 0) {
                            return Optional.empty();
                        }
                        Set<String> blockers = new LinkedHashSet<>();
                        for (Object pid : pids) {
                            blockers.add(String.valueOf(pid));
                        }
                        return Optional.of(Set.copyOf(blockers));
                    }
                } catch (SQLException e) {
                    if (!PostgresEngine.isConnectionError(e)) {
                        throw e;
                    }
                    close();
                    return Optional.empty();
                }
            }

            @Override
            public void close() {
                if (session != null) {
                    SessionPool.closeQuietly(session); // also closes the prepared statement
                    session = null;
                }
            }
        }

        /** Every session this database handed out must be closed (given back to the pool, where DISCARD ALL ended it). */
        @Override
        public void checkNoSessions() throws SQLException {
            long open = handedOut.stream().filter(c -> !isClosed(c)).count();
            if (open > 0) {
                throw new SQLException(open + " of its sessions are still open");
            }
        }

        /**
         * This database's own session for emptying and checking (from the pool, held while the database lives): not the
         * keeper, which every worker's schema DDL waits for.
         */
        private Connection checkingSession() throws SQLException {
            if (gen != generation || closed) {
                throw new SQLException("the PostgreSQL server was restarted, or the target closed, since this test database was made", "08006");
            }
            if (checking == null || checking.isClosed()) {
                checking = pool.take(session -> {
                });
            }
            return checking;
        }

        /**
         * {@code TRUNCATE … RESTART IDENTITY} of every table of the schema: each gets a new, empty file (as a new table has;
         * its indexes too) and the sequences its columns own start again. A sequence of its own (CREATE SEQUENCE) is not
         * restarted: if a run used it, the fingerprint differs and the schema is dropped.
         */
        @Override
        public void empty() throws SQLException {
            emptyAndRead();
        }

        /** The TRUNCATE, the fingerprint and the rows left, in one round trip. */
        @Override
        public ReusedDatabases.Emptied emptyAndRead() throws SQLException {
            synchronized (this) {
                sessions = 0; // the next run's sessions get the deadlock_timeouts a new database's get
                handedOut.removeIf(this::isClosed);
            }
            try (Statement s = checkingSession().createStatement()) {
                s.execute(truncateSql(schema) + "; " + fingerprintSql(schema) + "; " + rowsSql(schema));
                while (s.getResultSet() == null) {
                    if (!s.getMoreResults() && s.getUpdateCount() == -1) {
                        throw new SQLException("no fingerprint came back");
                    }
                }
                String fingerprint = text(s.getResultSet());
                if (!s.getMoreResults()) {
                    throw new SQLException("no row count came back");
                }
                try (ResultSet rs = s.getResultSet()) {
                    rs.next();
                    return new ReusedDatabases.Emptied(fingerprint, rs.getLong(1));
                }
            }
        }

        private static String text(ResultSet rs) throws SQLException {
            StringBuilder out = new StringBuilder();
            try (rs) {
                while (rs.next()) {
                    out.append(rs.getString(1)).append('\n');
                }
            }
            return out.toString();
        }

        @Override
        public long rows() throws SQLException {
            try (Statement s = checkingSession().createStatement(); ResultSet rs = s.executeQuery(rowsSql(schema))) {
                rs.next();
                return rs.getLong(1);
            }
        }

        @Override
        public String fingerprint() throws SQLException {
            try (Statement s = checkingSession().createStatement()) {
                return text(s.executeQuery(fingerprintSql(schema)));
            }
        }

        /** Ends sessions the user of this database left open, then drops the schema. */
        @Override
        public void close() {
            if (dbClosed) {
                return;
            }
            dbClosed = true;
            if (checking != null) {
                SessionPool.closeQuietly(checking);
                checking = null;
            }
            for (Connection c : handedOut) {
                if (!isClosed(c)) {
                    ((SessionPool.Pooled) c).discard();
                }
            }
            handedOut.clear();
            synchronized (lock) {
                if (gen == generation && !closed) {
                    namespace.drop(schema);
                }
                freeSchemas.push(schema);
            }
        }
    }
}
