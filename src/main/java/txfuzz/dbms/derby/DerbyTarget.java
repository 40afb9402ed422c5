package txfuzz.dbms.derby;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.Database;
import txfuzz.dbms.Engine;
import txfuzz.dbms.Jdbc;
import txfuzz.dbms.LockProbe;
import txfuzz.dbms.ReusedDatabases;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;

/**
 * Apache Derby (embedded), one in-memory database per test case ({@code jdbc:derby:memory:txfuzz_N}),
 * dropped with {@code ;drop=true}. Pure row locking, no MVCC.
 *
 * <p>Lock settings are database properties, set when the database is created:
 * {@code derby.locks.waitTimeout} 10 s (well above any wait the executor lets run: it breaks a stall
 * after 2 s; but a statement it had to abandon — Derby cannot cancel one, and aborting its connection
 * waits for the statement — gives up its locks after at most this long, instead of holding up the
 * rest of the case and the final read for minutes; 40XL1 after it) and
 * {@code derby.locks.deadlockTimeout} 0. Derby looks for a deadlock once per lock wait, after
 * deadlockTimeout seconds (default 20); at 0 it looks the moment a statement starts to wait, which is
 * exactly when a cycle can close, and then waits normally. Measured: a crossing-update deadlock is
 * reported in ~10 ms instead of 20 s, with no busy waiting. (System properties {@code derby.locks.*}
 * take precedence over database properties: a user who sets them overrides ours.)
 *
 * <p>Sessions are told apart in Derby's lock tables by their user name: each connection logs in as
 * its own user (no authentication is configured, so any name is accepted) and then works in schema
 * APP. {@code SYSCS_DIAG.TRANSACTION_TABLE} maps a transaction id to that user name, and
 * {@code SYSCS_DIAG.LOCK_TABLE} says which transaction waits for which lock.
 *
 * <p>Dropping an in-memory database costs 500 ms: Derby sleeps that long after shutting it down
 * ("give running threads a chance to detect the shutdown"), then frees the storage. So
 * {@link Database#close} hands the drop to a background thread and returns at once; {@link #close}
 * waits for pending drops. Creating a database costs 50–120 ms of real work (system catalogs), so
 * the next test case's database is created in the background while the current one runs.
 *
 * <p>derby.log: Derby writes a block to it at every database boot and shutdown. Unless the user
 * set a {@code derby.stream.error.*} property, it goes to {@code OutputStream.nullOutputStream()}
 * (derby.stream.error.method), which discards it: a JDK method, which a Derby loaded on its own
 * (another version, {@code --version}) can call too, where a field of txfuzz's would be out of its sight.
 */
public final class DerbyTarget implements Target {
    static {
        if (System.getProperty("derby.stream.error.file") == null && System.getProperty("derby.stream.error.field") == null
                && System.getProperty("derby.stream.error.method") == null) {
            System.setProperty("derby.stream.error.method", "java.io.OutputStream.nullOutputStream");
        }
    }

    /** Any in-memory database URL: to find the driver. */
    static final String PROBE_URL = "jdbc:derby:memory:txfuzz";

    private static final AtomicLong NEXT_DB = new AtomicLong();
    private static final AtomicLong NEXT_SESSION = new AtomicLong();

    /** Background work: creating the next database, dropping used ones. */
    private final ExecutorService dropper = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "txfuzz-derby");
        t.setDaemon(true);
        return t;
    });
    private final DerbyEngine engine;
    private final Jdbc jdbc;
    private volatile String version;
    /** The next test case's database, being created in the background. */
    private Future<DerbyDatabase> spare;
    private boolean closed;

    /** The bundled Derby. */
    public DerbyTarget() {
        this(new DerbyEngine(), Engine.inProcessDriver(new DerbyEngine(), TargetOptions.none(), PROBE_URL));
    }

    DerbyTarget(DerbyEngine engine, Jdbc jdbc) {
        this.engine = engine;
        this.jdbc = jdbc;
    }

    @Override
    public DerbyEngine engine() {
        return engine;
    }

    @Override
    public String version() {
        String v = version;
        if (v == null) {
            try {
                newDatabase().close();
                v = version;
            } catch (SQLException e) {
                throw new IllegalStateException("Derby does not start: " + e.getMessage(), e);
            }
        }
        return v;
    }

    /**
     * -Dtxfuzz.derby.keepTables=true keeps a case's tables between its runs. Off by default: on kept tables some generated
     * cases ran otherwise than on new databases (seed 7, iterations 1 and 9: a read saw other rows; in 1 of 4 runs, where
     * nine runs on new databases agreed), so a verdict could depend on which database a run got (docs/performance.md).
     */
    static final String KEEP_TABLES_PROPERTY = "txfuzz.derby.keepTables";
    private final boolean keepTables = ReusedDatabases.KEEP_TABLES && Boolean.getBoolean(KEEP_TABLES_PROPERTY);

    /**
     * Databases kept with a setup's tables for the next run of the same setup (per thread): emptied by DELETE (and identity
     * columns restarted), checked against the catalog right after the DDL ran (ReusedDatabases). The database keeps what
     * Derby compiled for it (its statement cache is per database). A database of another setup is dropped, as before.
     */
    private final ReusedDatabases<DerbyDatabase> databases = new ReusedDatabases<>(this::newDatabase, keepTables, true);

    @Override
    public Database freshDatabase() throws SQLException {
        return databases.take();
    }

    @Override
    public ReusedDatabases.Counts databaseReuse() {
        return databases.counts();
    }

    /**
     * Hands out the database created in the background during the previous test case (Derby spends
     * 50–120 ms creating one), and starts creating the next.
     */
    private DerbyDatabase newDatabase() throws SQLException {
        Future<DerbyDatabase> ready;
        synchronized (this) {
            ready = spare;
            spare = null;
        }
        DerbyDatabase db = null;
        if (ready != null) {
            try {
                db = ready.get();
            } catch (ExecutionException | InterruptedException e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                db = null; // a failed background creation: try again here, where the error can be reported
            }
        }
        if (db == null) {
            db = create();
        }
        synchronized (this) {
            if (spare == null && !closed) {
                try {
                    spare = dropper.submit(this::create);
                } catch (RejectedExecutionException closing) {
                    // the target is closing: no more spares
                }
            }
        }
        if (version == null) {
            version = db.engineVersion();
        }
        return db;
    }

    private DerbyDatabase create() throws SQLException {
        bootOnce(jdbc);
        return new DerbyDatabase("txfuzz_" + NEXT_DB.incrementAndGet());
    }

    /** The Derby engines (one per loaded version) this JVM has booted. */
    private static final Set<Jdbc> BOOTED = ConcurrentHashMap.newKeySet();

    /**
     * Boots {@code jdbc}'s engine if it has not booted yet: one engine at a time in this JVM, and never two in one
     * clock millisecond. A booting Derby registers a JMX bean named after a UUID made of its system directory's hash
     * (the same for every version in one JVM) and the boot's millisecond; of two engines booting in one millisecond
     * (two releases side by side) one gets InstanceAlreadyExistsException, ends its boot half done (reported to
     * derby.log only), and every later connect of that release fails with a NullPointerException in
     * AutoloadedDriver (seen with 10.11.1.1 beside the other releases; reproduced with two 10.11 loaders).
     */
    private static void bootOnce(Jdbc jdbc) {
        if (BOOTED.contains(jdbc)) {
            return;
        }
        synchronized (BOOTED) {
            if (BOOTED.contains(jdbc)) {
                return;
            }
            try {
                jdbc.connect("jdbc:derby:memory:txfuzz_boot").close();
            } catch (SQLException expected) {
                // XJ004 "Database not found": the engine is up, no database was created
            }
            long bootedAt = System.currentTimeMillis();
            while (System.currentTimeMillis() <= bootedAt) {
                Thread.onSpinWait(); // at most a millisecond: the next engine's UUIDs start in a later one
            }
            BOOTED.add(jdbc);
        }
    }

    /** Drops the spare database and waits (boundedly) for the databases still being dropped. */
    @Override
    public void close() {
        databases.close();
        Future<DerbyDatabase> unused;
        synchronized (this) {
            closed = true;
            unused = spare;
            spare = null;
        }
        if (unused != null) {
            try {
                unused.get().close();
            } catch (ExecutionException e) {
                // nothing was created
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        dropper.shutdown();
        try {
            dropper.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static int jdbcLevel(IsolationLevel level) {
        return switch (level) {
            case READ_UNCOMMITTED -> Connection.TRANSACTION_READ_UNCOMMITTED;
            case READ_COMMITTED -> Connection.TRANSACTION_READ_COMMITTED;
            case REPEATABLE_READ -> Connection.TRANSACTION_REPEATABLE_READ;
            case SERIALIZABLE -> Connection.TRANSACTION_SERIALIZABLE;
            default -> throw new IllegalArgumentException("Derby has no isolation level " + level);
        };
    }

    /**
     * What DDL makes, one query per catalog, each row led by what it is: schemas, tables, columns (type, default, identity),
     * indexes (by their descriptor; an index backing a constraint by its constraint), constraints, CHECK texts, foreign-key
     * rules, sequences (identity columns' own included, with their next values as Derby peeks at them: the catalog's
     * CURRENTVALUE is where preallocation stopped), triggers, views, routines, the index
     * statistics Derby keeps, and the database properties a case could set.
     */
    private static final List<String> FINGERPRINT = List.of(
            // what reads as text, in one query: Derby compiles each query once per database, and a new database's
            // fingerprint is taken after every new setup's DDL
            "SELECT 'schema ' || schemaname FROM SYS.SYSSCHEMAS"
                    + " UNION ALL SELECT 'table ' || s.schemaname || '.' || t.tablename || ' ' || t.tabletype || ' ' || t.lockgranularity"
                    + " FROM SYS.SYSTABLES t JOIN SYS.SYSSCHEMAS s ON s.schemaid = t.schemaid WHERE t.tabletype <> 'S'"
                    + " UNION ALL SELECT 'constraint ' || t.tablename || ' ' || c.constraintname || ' ' || c.type || ' ' || c.state || ' '"
                    + " || " + num("c.referencecount") + " FROM SYS.SYSCONSTRAINTS c JOIN SYS.SYSTABLES t ON t.tableid = c.tableid"
                    + " UNION ALL SELECT 'foreign key ' || c.constraintname || ' ' || f.deleterule || ' ' || f.updaterule"
                    + " FROM SYS.SYSFOREIGNKEYS f JOIN SYS.SYSCONSTRAINTS c ON c.constraintid = f.constraintid"
                    + " UNION ALL SELECT 'sequence ' || s.schemaname || '.' || q.sequencename || ' '"
                    + " || " + num("SYSCS_UTIL.SYSCS_PEEK_AT_SEQUENCE(s.schemaname, q.sequencename)") + " || ' ' || " + num("q.startvalue")
                    + " || ' ' || " + num("q.increment") + " || ' ' || " + num("q.maximumvalue") + " || ' ' || " + num("q.minimumvalue")
                    + " || ' ' || q.cycleoption FROM SYS.SYSSEQUENCES q JOIN SYS.SYSSCHEMAS s ON s.schemaid = q.schemaid"
                    + " UNION ALL SELECT 'trigger ' || triggername || ' ' || event || ' ' || firingtime || ' ' || type || ' ' || state"
                    + " FROM SYS.SYSTRIGGERS"
                    + " UNION ALL SELECT 'routine ' || alias || ' ' || aliastype FROM SYS.SYSALIASES WHERE systemalias = false"
                    + " UNION ALL SELECT 'statistics ' || t.tablename || ' ' || s.type FROM SYS.SYSSTATISTICS s"
                    + " JOIN SYS.SYSTABLES t ON t.tableid = s.referenceid"
                    + " UNION ALL SELECT 'properties ' || " + property("derby.locks.waitTimeout") + " || ' ' || " + property("derby.locks.deadlockTimeout")
                    + " || ' ' || " + property("derby.locks.escalationThreshold") + " || ' ' || " + property("derby.database.sqlAuthorization")
                    + " || ' ' || " + property("derby.language.sequence.preallocator") + " || ' ' || " + property("derby.storage.indexStats.auto")
                    + " FROM SYS.SYSSCHEMAS WHERE schemaname = 'SYS' ORDER BY 1",
            // LONG VARCHAR, which Derby does not let a UNION or an ORDER BY take
            "SELECT 'check', c.constraintname, k.checkdefinition FROM SYS.SYSCHECKS k JOIN SYS.SYSCONSTRAINTS c"
                    + " ON c.constraintid = k.constraintid ORDER BY 2",
            "SELECT 'view', t.tablename, v.viewdefinition FROM SYS.SYSVIEWS v JOIN SYS.SYSTABLES t ON t.tableid = v.tableid ORDER BY 2",
            // what Derby keeps as objects (types, defaults, index descriptors), which no SQL turns into text
            "SELECT 'column', t.tablename, c.columnnumber, c.columnname, c.columndatatype, c.columndefault, c.autoincrementvalue,"
                    + " c.autoincrementstart, c.autoincrementinc, c.autoincrementcycle FROM SYS.SYSCOLUMNS c JOIN SYS.SYSTABLES t"
                    + " ON t.tableid = c.referenceid WHERE t.tabletype <> 'S' ORDER BY 2, 3",
            "SELECT 'index', t.tablename, CASE WHEN g.isconstraint THEN '' ELSE g.conglomeratename END, g.isconstraint, g.descriptor"
                    + " FROM SYS.SYSCONGLOMERATES g JOIN SYS.SYSTABLES t ON t.tableid = g.tableid WHERE t.tabletype <> 'S' AND g.isindex"
                    + " ORDER BY 2, 3");

    private static String num(String expression) {
        return "COALESCE(TRIM(CAST(" + expression + " AS CHAR(24))), '-')";
    }

    private static String property(String name) {
        return "COALESCE(CAST(SYSCS_UTIL.SYSCS_GET_DATABASE_PROPERTY('" + name + "') AS VARCHAR(200)), '-')";
    }

    /** The user's tables, with the identity column of each (or null) and its start. */
    private static final String TABLES = "SELECT s.schemaname, t.tablename, c.columnname, c.autoincrementstart FROM SYS.SYSTABLES t"
            + " JOIN SYS.SYSSCHEMAS s ON s.schemaid = t.schemaid LEFT JOIN SYS.SYSCOLUMNS c ON c.referenceid = t.tableid"
            + " AND c.autoincrementinc IS NOT NULL WHERE t.tabletype = 'T'";

    private final class DerbyDatabase implements ReusedDatabases.KeepsTables {
        private final String url;
        private final Connection keeper;
        private final List<Connection> opened = new CopyOnWriteArrayList<>();
        private final Map<Connection, String> users = new ConcurrentHashMap<>();
        private final AtomicBoolean closed = new AtomicBoolean();

        DerbyDatabase(String name) throws SQLException {
            this.url = "jdbc:derby:memory:" + name;
            this.keeper = jdbc.connect(url + ";create=true");
            try (Statement s = keeper.createStatement()) {
                s.execute("CALL SYSCS_UTIL.SYSCS_SET_DATABASE_PROPERTY('derby.locks.waitTimeout', '" + DerbyEngine.WAIT_TIMEOUT_S + "')");
                s.execute("CALL SYSCS_UTIL.SYSCS_SET_DATABASE_PROPERTY('derby.locks.deadlockTimeout', '" + DerbyEngine.DEADLOCK_TIMEOUT_S + "')");
            } catch (SQLException e) {
                close();
                throw e;
            }
            if (keepTables) {
                // compiles the catalog queries now, mostly in the background (the spare database): Derby compiles per
                // database, and the fingerprint taken right after a setup's DDL would otherwise pay it (~40 ms)
                try {
                    fingerprint();
                    tables();
                } catch (SQLException e) {
                    // the check will fail the same way and the database is not kept
                }
            }
        }

        String engineVersion() throws SQLException {
            var md = keeper.getMetaData();
            return md.getDatabaseProductName() + " " + md.getDatabaseProductVersion();
        }

        @Override
        public Connection connect(IsolationLevel level, String mode) throws SQLException {
            int isolation = jdbcLevel(level);
            if (mode != null && !mode.equals("default")) {
                throw new IllegalArgumentException("Derby has only the mode 'default', not '" + mode + "'");
            }
            String user = "TXFUZZ" + NEXT_SESSION.incrementAndGet();
            Connection c = jdbc.connect(url, user, "");
            opened.add(c);
            users.put(c, user);
            try (Statement s = c.createStatement()) {
                s.execute("SET SCHEMA " + DerbyEngine.SCHEMA); // the default schema would be the user's own
            }
            c.setTransactionIsolation(isolation); // in autocommit mode: there is no transaction to commit yet
            return c;
        }

        @Override
        public String sessionId(Connection c) throws SQLException {
            String user = users.get(c);
            return user != null ? user : c.getMetaData().getUserName();
        }

        /**
         * SYSCS_DIAG.LOCK_TABLE joined to SYSCS_DIAG.TRANSACTION_TABLE (for the user name, which is
         * the session id). A session waits when it has a lock row in state WAIT; its blockers are the
         * other sessions holding (GRANT) a lock on the same object. Empty set when Derby says it waits
         * but no holder shows (it queues behind another waiter).
         */
        @Override
        public Optional<LockProbe> lockProbe() throws SQLException {
            Connection probe = jdbc.connect(url, "TXFUZZ_PROBE", "");
            opened.add(probe);
            probe.setTransactionIsolation(Connection.TRANSACTION_READ_UNCOMMITTED);
            PreparedStatement q = probe.prepareStatement(
                    "SELECT t.USERNAME, l.XID, l.TYPE, l.TABLENAME, l.LOCKNAME, l.STATE"
                            + " FROM SYSCS_DIAG.LOCK_TABLE l JOIN SYSCS_DIAG.TRANSACTION_TABLE t ON l.XID = t.XID");
            return Optional.of(new LockProbe() {
                @Override
                public Optional<Set<String>> waitsFor(String sessionId) throws SQLException {
                    record Row(String user, String xid, String lock, boolean waiting) {
                    }
                    List<Row> rows = new ArrayList<>();
                    try (ResultSet rs = q.executeQuery()) {
                        while (rs.next()) {
                            rows.add(new Row(rs.getString(1), rs.getString(2),
                                    rs.getString(3) + "|" + rs.getString(4) + "|" + rs.getString(5), "WAIT".equals(rs.getString(6))));
                        }
                    }
                    Set<String> blockers = new LinkedHashSet<>();
                    boolean waits = false;
                    for (Row w : rows) {
                        if (!w.waiting() || !sessionId.equals(w.user())) {
                            continue;
                        }
                        waits = true;
                        for (Row h : rows) {
                            if (!h.waiting() && h.lock().equals(w.lock()) && !h.xid().equals(w.xid()) && h.user() != null
                                    && !h.user().equals(sessionId)) {
                                blockers.add(h.user());
                            }
                        }
                    }
                    return waits ? Optional.of(Set.copyOf(blockers)) : Optional.empty();
                }

                @Override
                public void close() {
                    closeQuietly(probe);
                }
            });
        }

        /** Every session this database opened (the lock probe's included) must be closed. */
        @Override
        public void checkNoSessions() throws SQLException {
            opened.removeIf(DerbyTarget::isClosed);
            users.keySet().removeIf(DerbyTarget::isClosed);
            if (!opened.isEmpty()) {
                throw new SQLException(opened.size() + " of its sessions are still open");
            }
        }

        private record Table(String name, String identity, long start) {
        }

        private List<Table> tables() throws SQLException {
            List<Table> out = new ArrayList<>();
            try (Statement s = keeper.createStatement(); ResultSet rs = s.executeQuery(TABLES)) {
                while (rs.next()) {
                    out.add(new Table(quoted(rs.getString(1)) + "." + quoted(rs.getString(2)), rs.getString(3), rs.getLong(4)));
                }
            }
            return out;
        }

        /**
         * DELETE of every table, referencing tables before the ones they reference (a DELETE a foreign key refuses is tried
         * again after the others), and an identity column that moved restarted at its start. Not TRUNCATE TABLE: Derby
         * refuses it on a table a foreign key references, it does not restart identity, and it gives the table new
         * conglomerates, so every statement Derby compiled on the table would be compiled again.
         */
        @Override
        public void empty() throws SQLException {
            List<Table> left = tables();
            try (Statement s = keeper.createStatement()) {
                for (int pass = 0; !left.isEmpty(); pass++) {
                    List<Table> refused = new ArrayList<>();
                    SQLException last = null;
                    for (Table t : left) {
                        try {
                            s.executeUpdate("DELETE FROM " + t.name());
                        } catch (SQLException e) {
                            if (!"23503".equals(e.getSQLState()) || pass > left.size()) {
                                throw e;
                            }
                            refused.add(t);
                            last = e;
                        }
                    }
                    if (refused.size() == left.size() && last != null) {
                        throw last; // a cycle of foreign keys
                    }
                    left = refused;
                }
                for (Table t : tables()) {
                    if (t.identity() == null) {
                        continue;
                    }
                    String[] name = t.name().split("\\.", 2);
                    long next;
                    try (ResultSet rs = s.executeQuery("VALUES SYSCS_UTIL.SYSCS_PEEK_AT_IDENTITY(" + literal(unquoted(name[0])) + ", "
                            + literal(unquoted(name[1])) + ")")) {
                        rs.next();
                        next = rs.getLong(1);
                    }
                    if (next != t.start()) {
                        s.execute("ALTER TABLE " + t.name() + " ALTER COLUMN " + quoted(t.identity()) + " RESTART WITH " + t.start());
                    }
                }
            }
        }

        @Override
        public long rows() throws SQLException {
            long n = 0;
            try (Statement s = keeper.createStatement()) {
                for (Table t : tables()) {
                    try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + t.name())) {
                        rs.next();
                        n += rs.getLong(1);
                    }
                }
            }
            return n;
        }

        @Override
        public String fingerprint() throws SQLException {
            StringBuilder out = new StringBuilder();
            for (String q : FINGERPRINT) {
                out.append(ReusedDatabases.rows(keeper, q));
            }
            return out.toString();
        }

        /**
         * Drops the database in the background (Derby sleeps 500 ms in every drop). The drop shuts the
         * database down first, which also ends statements still waiting for a lock (08006); only then
         * are the connections closed — closing a connection whose statement waits would wait with it.
         */
        @Override
        public void close() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            try {
                dropper.execute(this::drop);
            } catch (RejectedExecutionException targetClosed) {
                drop();
            }
        }

        private void drop() {
            try {
                jdbc.connect(url + ";drop=true").close();
            } catch (SQLException expected) {
                // 08006 "Database ... dropped" is how Derby reports success
            }
            closeQuietly(keeper);
            for (Connection c : opened) {
                closeQuietly(c);
            }
            opened.clear();
            users.clear();
        }
    }

    private static boolean isClosed(Connection c) {
        try {
            return c.isClosed();
        } catch (SQLException e) {
            return true;
        }
    }

    private static String quoted(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    private static String unquoted(String quoted) {
        return quoted.substring(1, quoted.length() - 1).replace("\"\"", "\"");
    }

    private static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException ignored) {
            // the database is gone already
        }
    }
}
