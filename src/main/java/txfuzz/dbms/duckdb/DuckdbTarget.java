package txfuzz.dbms.duckdb;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.Database;
import txfuzz.dbms.Engine;
import txfuzz.dbms.Jdbc;
import txfuzz.dbms.LockProbe;
import txfuzz.dbms.OpenSessions;
import txfuzz.dbms.ReusedDatabases;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;

/**
 * DuckDB, one in-memory database instance per test case ({@code jdbc:duckdb:} opens a new private
 * one); every session is a {@code DuckDBConnection.duplicate()} of its first connection, and the
 * instance goes away when the last of them closes. {@code threads = 1}: test cases are tiny, and so
 * an open database costs no worker thread.
 *
 * <p>DuckDB has one isolation level, snapshot isolation (JDBC isolation settings are ignored), and
 * optimistic concurrency control: it never waits for a lock. Writing a row another live or
 * since-committed transaction wrote fails at once ("TransactionContext Error: Conflict on update!"),
 * before the first writer commits, and aborts the transaction: every later statement fails with
 * "Current transaction is aborted (please ROLLBACK)". Concurrent inserts of one key are caught at the
 * second COMMIT ("Failed to commit: PRIMARY KEY or UNIQUE constraint violation"). Any other error
 * raised while a statement executes (constraint, data) aborts the transaction as well.
 *
 * <p>A COMMIT of an aborted transaction — by JDBC's commit() or by SQL — returns normally and rolls
 * it back. {@link #commit} therefore asks first (a {@code SELECT 1} fails in an aborted transaction)
 * and throws instead of pretending to commit.
 */
public final class DuckdbTarget implements Target {

    /** A new private in-memory database. */
    static final String URL = "jdbc:duckdb:";

    private final DuckdbEngine engine;
    private final Jdbc jdbc;
    private final String version;

    /** The bundled DuckDB. */
    public DuckdbTarget() {
        this(new DuckdbEngine(), Engine.inProcessDriver(new DuckdbEngine(), TargetOptions.none(), URL));
    }

    DuckdbTarget(DuckdbEngine engine, Jdbc jdbc) {
        this.engine = engine;
        this.jdbc = jdbc;
        try (Connection c = jdbc.connect(URL, properties())) {
            version = "DuckDB " + c.getMetaData().getDatabaseProductVersion();
        } catch (SQLException e) {
            throw new IllegalStateException("DuckDB does not start: " + e.getMessage(), e);
        }
    }

    private static Properties properties() {
        Properties p = new Properties();
        p.setProperty("threads", "1");
        return p;
    }

    @Override
    public DuckdbEngine engine() {
        return engine;
    }

    @Override
    public String version() {
        return version;
    }

    /**
     * On unless -Dtxfuzz.duckdb.reuse=false (or -Dtxfuzz.reuse=false). A reused instance is emptied and then
     * checkpointed ({@link DuckdbDatabase#reset()}): without the checkpoint it carried the size of every earlier
     * run's changes towards the next automatic checkpoint, and a checkpoint in the middle of a case changes what
     * that case's statements answer (docs/performance.md, "Resetting a database between runs").
     */
    private final ReusedDatabases<DuckdbDatabase> databases = new ReusedDatabases<>(this::createDatabase,
            ReusedDatabases.ENABLED && !"false".equals(System.getProperty("txfuzz.duckdb.reuse")));

    private DuckdbDatabase createDatabase() throws SQLException {
        return new DuckdbDatabase(jdbc);
    }

    @Override
    public Database freshDatabase() throws SQLException {
        return databases.take();
    }

    @Override
    public ReusedDatabases.Counts databaseReuse() {
        return databases.counts();
    }

    /**
     * Transactions are opened and ended with SQL (BEGIN TRANSACTION, COMMIT, ROLLBACK), JDBC
     * autocommit left on, as in DuckDB's own client. (The driver's setAutoCommit(true) commits, so
     * after a failed COMMIT it throws "cannot commit - no transaction is active" over the real error.)
     * DuckDB's BEGIN takes its snapshot lazily, at the first statement, like JDBC's.
     */
    @Override
    public void begin(Connection c) throws SQLException {
        execute(c, "BEGIN TRANSACTION");
    }

    /**
     * Commits, unless DuckDB already aborted the transaction: then it rolls back and throws (an
     * IN_FAILED_TRANSACTION error), because DuckDB's own COMMIT would return normally without
     * committing. A failure inside the commit itself (a key inserted concurrently: "Failed to
     * commit: PRIMARY KEY or UNIQUE constraint violation") is thrown as DuckDB reports it; the
     * transaction is over either way.
     */
    @Override
    public void commit(Connection c) throws SQLException {
        try {
            execute(c, "SELECT 1");
        } catch (SQLException e) {
            if (!String.valueOf(e.getMessage()).contains(DuckdbEngine.ABORTED)) {
                throw e;
            }
            try {
                execute(c, "ROLLBACK");
            } catch (SQLException alreadyOver) {
                e.addSuppressed(alreadyOver);
            }
            throw new SQLException(firstLine(e) + " — COMMIT refused: DuckDB had aborted the transaction, it was rolled back", e);
        }
        execute(c, "COMMIT");
    }

    @Override
    public void rollback(Connection c) throws SQLException {
        execute(c, "ROLLBACK");
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Override
    public void close() {
        databases.close();
    }

    /**
     * What a case can leave in a DuckDB instance: its catalog objects (the user's, not DuckDB's own); the settings
     * are read apart ({@link DuckdbDatabase#settingsQuery}). Macros are left out: listing them (duckdb_functions())
     * costs 70-130 ms, more than a new instance, and no generated case creates one.
     */
    private static final String CATALOG = "SELECT 'schema', schema_name, '' FROM duckdb_schemas() WHERE NOT internal"
            + " UNION ALL SELECT 'table', schema_name || '.' || table_name, '' FROM duckdb_tables() WHERE NOT internal"
            + " UNION ALL SELECT 'view', schema_name || '.' || view_name, '' FROM duckdb_views() WHERE NOT internal"
            + " UNION ALL SELECT 'index', schema_name || '.' || index_name, '' FROM duckdb_indexes()"
            + " UNION ALL SELECT 'sequence', schema_name || '.' || sequence_name, '' FROM duckdb_sequences()"
            + " UNION ALL SELECT 'type', schema_name || '.' || type_name, '' FROM duckdb_types() WHERE NOT internal"
            + " ORDER BY 1, 2";

    /**
     * The settings compared after a reset: those that change what a statement returns or how transactions behave
     * (a case reaches them with SET or SET GLOBAL, which last for the instance). Others are not compared: see settingsQuery.
     */
    private static final java.util.Set<String> COMPARED_SETTINGS = java.util.Set.of("threads", "default_null_order", "default_order",
            "default_collation", "preserve_insertion_order", "integer_division", "immediate_transaction_mode", "search_path", "TimeZone",
            "Calendar", "ieee_floating_point_ops", "scalar_subquery_error_on_multiple_rows", "order_by_non_integer_literal",
            "max_expression_depth", "enable_external_access", "checkpoint_threshold");

    /** Schemas every instance has. */
    private static final java.util.Set<String> OWN_SCHEMAS = java.util.Set.of("main", "pg_catalog", "information_schema");

    /** First line of a message (DuckDB appends the query with a caret on later lines). */
    private static String firstLine(SQLException e) {
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    private static final class DuckdbDatabase implements ReusedDatabases.Reusable {
        private final Connection first;
        private final OpenSessions sessions = new OpenSessions();
        /** The settings as the new instance had them, set back by {@link #reset()} where a case changed one. */
        private final java.util.Map<String, String> settingsWhenNew;
        /**
         * current_setting() of {@link #COMPARED_SETTINGS}, in one row: duckdb_settings() itself costs 12-30 ms a
         * call, and current_setting() of all its 167 settings 16-60 ms, more than the reset saves.
         */
        private final String settingsQuery;

        DuckdbDatabase(Jdbc jdbc) throws SQLException {
            first = jdbc.connect(URL, properties());
            try {
                java.util.Map<String, String> listed = new java.util.TreeMap<>();
                try (Statement s = first.createStatement(); java.sql.ResultSet rs = s.executeQuery("SELECT name, value FROM duckdb_settings()")) {
                    while (rs.next()) {
                        listed.put(rs.getString(1), String.valueOf(rs.getString(2)));
                    }
                }
                listed.keySet().retainAll(COMPARED_SETTINGS);
                List<String> readable = new java.util.ArrayList<>();
                for (String name : listed.keySet()) {
                    try (Statement s = first.createStatement(); java.sql.ResultSet rs = s.executeQuery(currentSetting(name))) {
                        readable.add(name);
                    } catch (SQLException notReadableSo) {
                        // a setting current_setting() cannot show: not compared
                    }
                }
                listed.keySet().retainAll(readable);
                settingsWhenNew = listed;
                settingsQuery = "SELECT " + String.join(", ", readable.stream().map(n -> "CAST(current_setting('" + n + "') AS VARCHAR)").toList());
            } catch (SQLException e) {
                first.close();
                throw e;
            }
        }

        private static String currentSetting(String name) {
            return "SELECT CAST(current_setting('" + name.replace("'", "''") + "') AS VARCHAR)";
        }

        /** Each compared setting's value now, by name. */
        private java.util.Map<String, String> settings() throws SQLException {
            java.util.Map<String, String> out = new java.util.TreeMap<>();
            List<String> names = List.copyOf(settingsWhenNew.keySet());
            try (Statement s = first.createStatement(); java.sql.ResultSet rs = s.executeQuery(settingsQuery)) {
                rs.next();
                for (int i = 0; i < names.size(); i++) {
                    out.put(names.get(i), String.valueOf(rs.getString(i + 1)));
                }
            }
            return out;
        }

        /**
         * Refuses while a session of the last run is open, then drops the schemas a case made, the views,
         * tables (a table others reference after them), sequences and types of main, sets changed settings back,
         * and checkpoints.
         *
         * <p>The checkpoint is what makes the instance new again below the catalog. An in-memory DuckDB adds the
         * estimated size of every committed change (the undo buffer's size, a new index's size) to a counter, and a
         * commit that takes it past {@code checkpoint_threshold} (16 MiB) checkpoints the instance, which sets it back
         * to 0. A new instance starts at 0 and no single case comes near 16 MiB, so a case never sees a checkpoint;
         * a reused one carried the counter of every earlier run and so, every few hundred runs, checkpointed in the
         * middle of one: rows committed before the checkpoint stay in their row group and later ones go to a new one,
         * so an UPDATE of a key column (DuckDB's delete and insert, one scanned chunk at a time) checks the first
         * group's new keys against the second's old ones: {@code UPDATE t1 SET c0 = c0 + 1} failed with "Duplicate
         * key" (duckdb-SI-s1-i245) where it succeeds on a new instance. The counter cannot be read with SQL (in
         * memory, pragma database_size gives no wal_size), so it cannot be compared: CHECKPOINT sets it to 0, last,
         * after the drops whose own size it counts. It fails while another transaction writes, which drops the instance.
         */
        @Override
        public void reset() throws SQLException {
            int open = sessions.stillOpen();
            if (open > 0) {
                throw new SQLException(open + " session(s) of the last run still open");
            }
            try (Statement s = first.createStatement()) {
                for (String schema : names(s, "SELECT schema_name FROM duckdb_schemas() WHERE NOT internal")) {
                    if (!OWN_SCHEMAS.contains(schema)) {
                        s.execute("DROP SCHEMA " + quoted(schema) + " CASCADE");
                    }
                }
                for (String view : names(s, "SELECT view_name FROM duckdb_views() WHERE NOT internal")) {
                    s.execute("DROP VIEW " + quoted(view));
                }
                dropTables();
                for (String sequence : names(s, "SELECT sequence_name FROM duckdb_sequences()")) {
                    s.execute("DROP SEQUENCE " + quoted(sequence));
                }
                for (String type : names(s, "SELECT type_name FROM duckdb_types() WHERE NOT internal")) {
                    s.execute("DROP TYPE " + quoted(type));
                }
            }
            java.util.Map<String, String> now = settings();
            for (var e : settingsWhenNew.entrySet()) {
                if (!e.getValue().equals(now.get(e.getKey()))) {
                    try (Statement s = first.createStatement()) {
                        s.execute("SET GLOBAL " + e.getKey() + " = '" + e.getValue().replace("'", "''") + "'");
                    } catch (SQLException notSettableSo) {
                        // left to the fingerprint check
                    }
                }
            }
            try (Statement s = first.createStatement()) {
                s.execute("CHECKPOINT");
            }
        }

        /** Tables that others reference cannot go first: drop what can be dropped until nothing is left or nothing moves. */
        private void dropTables() throws SQLException {
            List<String> left;
            try (Statement s = first.createStatement()) {
                left = names(s, "SELECT table_name FROM duckdb_tables() WHERE NOT internal");
            }
            while (!left.isEmpty()) {
                List<String> stuck = new java.util.ArrayList<>();
                SQLException last = null;
                for (String table : left) {
                    // a statement per attempt: DuckDB's driver closes a statement that raised an error
                    try (Statement s = first.createStatement()) {
                        s.execute("DROP TABLE " + quoted(table));
                    } catch (SQLException e) {
                        stuck.add(table);
                        last = e;
                    }
                }
                if (stuck.size() == left.size()) {
                    throw last;
                }
                left = stuck;
            }
        }

        private static List<String> names(Statement s, String sql) throws SQLException {
            List<String> out = new java.util.ArrayList<>();
            try (java.sql.ResultSet rs = s.executeQuery(sql)) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
            return out;
        }

        private static String quoted(String name) {
            return "\"" + name.replace("\"", "\"\"") + "\"";
        }

        @Override
        public String fingerprint() throws SQLException {
            return ReusedDatabases.rows(first, CATALOG) + settings();
        }

        /**
         * A new connection to {@code first}'s instance: DuckDBConnection.duplicate(), called by name,
         * since the driver may come from a class loader of its own (another version) whose
         * DuckDBConnection is not txfuzz's.
         */
        private Connection duplicate() throws SQLException {
            try {
                return (Connection) first.getClass().getMethod("duplicate").invoke(first);
            } catch (java.lang.reflect.InvocationTargetException e) {
                if (e.getCause() instanceof SQLException s) {
                    throw s;
                }
                throw new IllegalStateException("DuckDBConnection.duplicate() failed", e.getCause());
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("this DuckDB driver has no DuckDBConnection.duplicate()", e);
            }
        }

        @Override
        public Connection connect(IsolationLevel level, String mode) throws SQLException {
            DuckdbEngine.checkLevel(level);
            if (mode != null && !mode.equals("default")) {
                throw new IllegalArgumentException("DuckDB has only the mode 'default', not '" + mode + "'");
            }
            return sessions.register(duplicate());
        }

        @Override
        public String sessionId(Connection c) {
            return sessions.id(c);
        }

        /** DuckDB never waits for a lock: conflicts fail at once. */
        @Override
        public Optional<LockProbe> lockProbe() {
            return Optional.empty();
        }

        /** Closing the last connection to the instance frees the database. */
        @Override
        public void close() {
            sessions.closeAll();
            try {
                first.close();
            } catch (SQLException ignored) {
                // closed already
            }
        }
    }
}
