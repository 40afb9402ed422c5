package txfuzz.dbms.h2;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.Dialect;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Feature;
import txfuzz.history.Anomaly;
import txfuzz.history.CycleCondition;
import txfuzz.dbms.LevelSemantics;
import txfuzz.dbms.Profile;
import txfuzz.dbms.SqlStates;
import txfuzz.dbms.Target;

import txfuzz.dbms.Engine;
import txfuzz.dbms.TargetOptions;

/** H2 2.x as txfuzz knows it without starting it; {@link H2Target} is the live part. */
public final class H2Engine implements Engine {
    /** Far above a test case's lifetime, so a blocked statement stays blocked until its blocker ends. */
    static final int LOCK_TIMEOUT_MS = 600_000;
    private static final String DOCS = "https://h2database.com/html/advanced.html#transaction_isolation";
    private static final String WRITE_SKEW_DOCUMENTED = DOCS + " (SERIALIZABLE: \"this isolation level in H2 currently doesn't ensure"
            + " equivalence of concurrent and serializable execution of transactions that perform write operations\": write skew)";
    /** What H2 measurably does at REPEATABLE READ and its manual does not say, and why the manual's promise holds under it. */
    private static final txfuzz.dbms.Basis.Measured TABLE_SNAPSHOTS_MEASURED = new txfuzz.dbms.Basis.Measured(
            "each table is read from a snapshot taken when the transaction first reads it, or reads a table it has a foreign key to",
            "SnapshotRulesTest, TableSnapshotPointsTest, SnapshotReadsTest, IsolationOracleEngineTest",
            "a row read again repeats, so the manual's REPEATABLE READ promise holds (" + DOCS + ": \"Dirty reads and non-repeatable reads"
                    + " aren't possible, phantom reads are possible\", a non-repeatable read being a re-read of \"the same row\"); read skew"
                    + " across tables, which Adya's PL-2.99 would proscribe, is not among the phenomena H2 rules out (only SNAPSHOT:"
                    + " \"Dirty reads, non-repeatable reads, and phantom reads aren't possible. This isolation level is very expensive in"
                    + " databases with many tables\")");
    /**
     * What a waiting UPDATE, DELETE or MERGE does at READ COMMITTED (H2's DataChangeStatement.lockAndRecheckCondition): the
     * same as PostgreSQL documents; H2's manual does not say it.
     */
    private static final txfuzz.dbms.Basis.Measured RECHECK_MEASURED = new txfuzz.dbms.Basis.Measured(
            "a statement reads the data committed before it began; an UPDATE, DELETE or MERGE that waited for a row lock re-checks that"
                    + " row on its newest committed version, its subqueries still reading the statement's snapshot; a MERGE locks every"
                    + " target row its ON join matched, acted on or not, and takes a source row whose matched row was deleted meanwhile"
                    + " or no longer matches the source row it was joined to on the snapshot as NOT MATCHED",
            "H2ReadCommittedRecheckTest, MergeLocksMatchedRowsTest",
            "every statement reads committed data only, so the manual's READ COMMITTED promise holds (" + DOCS + ": \"Dirty reads aren't"
                    + " possible; non-repeatable reads and phantom reads are possible\"), as does Adya's PL-2");

    /** The same at READ UNCOMMITTED, where a statement's data include other transactions' uncommitted writes. */
    private static final txfuzz.dbms.Basis.Measured DIRTY_RECHECK_MEASURED = new txfuzz.dbms.Basis.Measured(
            "a statement reads the data as they are when it begins, uncommitted writes included; an UPDATE, DELETE or MERGE that"
                    + " waited for a row lock re-checks that row on what is left of it once the holder ended (a row the holder"
                    + " inserted and rolled back is gone), the subqueries of its WHERE still reading what the statement began with"
                    + " (where H2 runs a subquery again for the waited-for row on the data as it resumed, the dirty scan in key order"
                    + " below applies); a MERGE re-checks every target row its ON join matched, as at READ COMMITTED",
            "DirtyRecheckTest, H2ReadCommittedRecheckTest, SnapshotRulesTest, H2ReadUncommittedSubqueryAfterWaitTest, MergeLocksMatchedRowsTest",
            "READ UNCOMMITTED promises no more than its writes waiting for each other (" + DOCS + ": \"Dirty reads, non-repeatable"
                    + " reads, and phantom reads are possible\"), and Adya's PL-1 proscribes only dirty writes");

    /**
     * What a waiting UPDATE or DELETE reads at READ UNCOMMITTED (H2ReadUncommittedSubqueryAfterWaitTest, DirtyScanInKeyOrderTest):
     * H2 reads each row, and runs that row's subqueries, when its scan gets there; H2's manual does not say it.
     */
    private static final txfuzz.dbms.Basis.Measured DIRTY_SCAN_MEASURED = new txfuzz.dbms.Basis.Measured(
            "an UPDATE or DELETE that waited for a row lock read the rows before that row in scan order (the table's"
                    + " _ROWID_: insertion order, or an integer PRIMARY KEY), with their SET and WHERE subqueries, on the data as"
                    + " they were when it began, and that row (even one the holder left as it was, or locked with SELECT ... FOR"
                    + " UPDATE; its WHERE is not tested again when the holder left it as it was) and the rows after it, with"
                    + " their subqueries, on the data as they were when it resumed; uncommitted writes included both times. The scan"
                    + " walks the rows the table held when it began: a row deleted then, even by a transaction that rolled back"
                    + " while it waited, is skipped; a row inserted meanwhile is not met",
            "DirtyScanInKeyOrderTest, H2ReadUncommittedSubqueryAfterWaitTest",
            "READ UNCOMMITTED promises no more than its writes waiting for each other (" + DOCS + ": \"Dirty reads, non-repeatable"
                    + " reads, and phantom reads are possible\"), and Adya's PL-1 proscribes only dirty writes");

    /**
     * H2 looks for a cycle when a wait begins (Transaction.waitFor checks isDeadlocked before it waits), so a cycle of
     * row-lock waits ends at once. A cycle through a wait H2 does not track (an INSERT waiting for another
     * transaction's uncommitted duplicate key, say) never ends before LOCK_TIMEOUT: waiting longer learns nothing.
     */
    @Override
    public java.util.Optional<java.time.Duration> deadlockDetectionDelay() {
        return java.util.Optional.of(java.time.Duration.ZERO);
    }

    /**
     * H2 waits for a row lock in Object.wait, checking no cancel flag, and neither cancel() nor closing the connection
     * ends it; an interrupt does, with a lock-timeout error (measured on the bundled 2.5.252: StallBreakTest).
     */
    @Override
    public boolean lockWaitEndsOnInterrupt() {
        return true;
    }

    @Override
    public String defaultVersion() {
        return "H2 " + org.h2.engine.Constants.FULL_VERSION;
    }

    /** The settings of this engine's target, for a finding's Repro.java. */
    @Override
    public java.util.Optional<txfuzz.dbms.StandaloneJdbc> standaloneJdbc() {
        return java.util.Optional.of(new txfuzz.dbms.StandaloneJdbc("jdbc:h2:mem:repro;DB_CLOSE_DELAY=-1", null, null, false, false));
    }

    @Override
    public java.util.Optional<txfuzz.dbms.versions.MavenArtifact> artifact() {
        return java.util.Optional.of(new txfuzz.dbms.versions.MavenArtifact("com.h2database", "h2"));
    }

    /** H2 keeps one changelog for every release (https://h2database.com/html/changelog.html), not a page per release. */
    @Override
    public java.util.Optional<String> releaseNotes(String mavenVersion) {
        return java.util.Optional.of("https://h2database.com/html/changelog.html");
    }

    @Override
    public Target open(TargetOptions options) {
        return new H2Target(this, Engine.inProcessDriver(this, options, H2Target.PROBE_URL), options == null ? java.util.Map.of() : options.settings());
    }

    /** MODE: H2's compatibility modes, a database URL setting (https://h2database.com/html/features.html#compatibility). */
    @Override
    public List<txfuzz.dbms.EngineSetting> settings() {
        return List.of(txfuzz.dbms.EngineSetting.oneOf("MODE", "H2 database URL setting ;MODE=…", "https://h2database.com/html/features.html#compatibility",
                "SET MODE %s",
                "REGULAR", "STRICT", "LEGACY", "DB2", "Derby", "HSQLDB", "MSSQLServer", "MariaDB", "MySQL", "Oracle", "PostgreSQL"));
    }

    @Override
    public String name() {
        return "h2";
    }

    @Override
    public List<IsolationLevel> isolationLevels() {
        return List.of(IsolationLevel.READ_UNCOMMITTED, IsolationLevel.READ_COMMITTED, IsolationLevel.REPEATABLE_READ,
                IsolationLevel.SNAPSHOT, IsolationLevel.SERIALIZABLE);
    }

    /**
     * H2 stores a table's rows by a row key (_ROWID_): the PRIMARY KEY's column when it is one ascending TINYINT, SMALLINT,
     * INTEGER or BIGINT column (MVTable's main index column), else a hidden number that grows with each insert. Measured on
     * 2.5.252 (H2ScanOrderTest): _ROWID_ of a BIGINT PRIMARY KEY table is the key, of a composite one the insertion
     * order.
     */
    @Override
    public java.util.Optional<List<String>> clusteredKey(Connection c, String table) throws SQLException {
        List<String> keyColumns = new java.util.ArrayList<>();
        String name = table.toUpperCase(java.util.Locale.ROOT);
        try (ResultSet rs = c.getMetaData().getPrimaryKeys(c.getCatalog(), c.getSchema(), name)) {
            while (rs.next()) {
                keyColumns.add(rs.getString("COLUMN_NAME"));
            }
        }
        if (keyColumns.size() != 1) {
            return java.util.Optional.of(List.of());
        }
        try (ResultSet rs = c.getMetaData().getColumns(c.getCatalog(), c.getSchema(), name, keyColumns.get(0))) {
            boolean integer = rs.next() && ROW_KEY_TYPES.contains(rs.getInt("DATA_TYPE"));
            return java.util.Optional.of(integer ? keyColumns : List.of());
        }
    }

    private static final Set<Integer> ROW_KEY_TYPES = Set.of(java.sql.Types.TINYINT, java.sql.Types.SMALLINT, java.sql.Types.INTEGER,
            java.sql.Types.BIGINT);

    /** A table without an integer row key ({@link #clusteredKey}) is stored in _ROWID_ order, the order of its inserts. */
    @Override
    public java.util.Optional<String> insertionOrderRead(String quotedTable) {
        return java.util.Optional.of("SELECT * FROM " + quotedTable + " ORDER BY _ROWID_");
    }

    /**
     * Whether the plan reads the table by its primary index, in row-key order: EXPLAIN's first index comment names the
     * table's "tableScan", or its PRIMARY KEY's index where that key is the row key ({@link #clusteredKey}).
     */
    @Override
    public java.util.Optional<Boolean> scansInClusteredKeyOrder(Connection c, String sql, String table, String name) throws SQLException {
        String plan;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("EXPLAIN " + sql)) {
            if (!rs.next()) {
                return java.util.Optional.empty();
            }
            plan = rs.getString(1);
        }
        java.util.regex.Matcher m = FIRST_INDEX_COMMENT.matcher(plan);
        if (!m.find()) {
            return java.util.Optional.of(false);
        }
        if (m.group(3) != null) {
            return java.util.Optional.of(m.group(2).equalsIgnoreCase(table));
        }
        if (clusteredKey(c, table).orElse(List.of()).isEmpty()) {
            return java.util.Optional.of(false);
        }
        try (java.sql.PreparedStatement p = c.prepareStatement("SELECT 1 FROM INFORMATION_SCHEMA.INDEXES WHERE INDEX_NAME = ? AND TABLE_NAME = ?"
                + " AND INDEX_TYPE_NAME = 'PRIMARY KEY'")) {
            p.setString(1, m.group(2));
            p.setString(2, table.toUpperCase(java.util.Locale.ROOT));
            try (ResultSet rs = p.executeQuery()) {
                return java.util.Optional.of(rs.next());
            }
        }
    }

    /** EXPLAIN's first comment: {@code /* SCHEMA.TABLE.tableScan *}{@code /} or {@code /* SCHEMA.INDEX: condition *}{@code /}. */
    private static final java.util.regex.Pattern FIRST_INDEX_COMMENT = java.util.regex.Pattern.compile("^[^/]*/\\*\\s*(\\w+)\\.(\\w+)(\\.tableScan)?[\\s:*]");

    @Override
    public Dialect dialect() {
        EnumSet<Feature> f = Dialect.core();
        f.addAll(Set.of(Feature.JOIN_RIGHT, Feature.FOR_UPDATE, Feature.MERGE));
        return new Dialect("h2", f, "DOUBLE PRECISION", "VARCHAR(10)");
    }

    /** SNAPSHOT is snapshot isolation, and so is SERIALIZABLE ("doesn't ensure serializability"; write skew is documented). */
    @Override
    public txfuzz.dbms.LevelPromise promise(IsolationLevel level, String mode) {
        return switch (level) {
            case SNAPSHOT, SERIALIZABLE -> new txfuzz.dbms.LevelPromise(txfuzz.dbms.Promise.SNAPSHOT_ISOLATION, WRITE_SKEW_DOCUMENTED);
            default -> txfuzz.dbms.Engine.super.promise(level, mode);
        };
    }

    @Override
    public Profile profile() {
        Map<IsolationLevel, LevelSemantics> m = new EnumMap<>(IsolationLevel.class);
        m.put(IsolationLevel.READ_UNCOMMITTED, LevelSemantics.permits(DOCS, Deviation.STATEMENT_VISIBILITY)
                .basedOn(Deviation.DIRTY_VISIBILITY, new txfuzz.dbms.Basis.Documented("Dirty reads, non-repeatable reads, and phantom reads are possible.", DOCS))
                .basedOn(Deviation.STATEMENT_SNAPSHOT_WITH_RECHECK, DIRTY_RECHECK_MEASURED)
                .basedOn(Deviation.DIRTY_SCAN_IN_KEY_ORDER, DIRTY_SCAN_MEASURED)
                .requiring(Deviation.Precondition.WRITERS_WAIT_FOR_LOCKED_ROWS)
                .lockingMergeRows(Deviation.MergeLocks.MATCHED_ROWS));
        // Statement visibility is what the standard level permits (no basis needed); the re-check is measured.
        m.put(IsolationLevel.READ_COMMITTED, LevelSemantics.permits(DOCS, Deviation.STATEMENT_VISIBILITY)
                .basedOn(Deviation.STATEMENT_SNAPSHOT_WITH_RECHECK, RECHECK_MEASURED)
                .requiring(Deviation.Precondition.WRITERS_WAIT_FOR_LOCKED_ROWS)
                .lockingMergeRows(Deviation.MergeLocks.MATCHED_ROWS));
        // H2 takes the snapshot of each table when the transaction first reads it (measured on 2.5.252, pinned in
        // SnapshotRulesTest, TableSnapshotPointsTest, SnapshotReadsTest and IsolationOracleEngineTest: a table the
        // transaction has not read yet shows what others committed since it began; docs/isolation-tables.md). A statement
        // that only writes a table does not take its snapshot: INSERT ... VALUES (even failing on a key), UPDATE t SET c = 5,
        // DELETE FROM t without WHERE, with a constant one or with one whose subquery uses only its own columns; a SELECT,
        // a subquery of t, an INSERT's SELECT, a WHERE or SET using a column of t (a correlated subquery's too), a
        // MERGE ... USING do (docs/verdicts.md). Reading a table also takes the snapshots of the tables with a foreign key
        // to it (snapshotsTakenWith below). SNAPSHOT and SERIALIZABLE take every table's at the first statement.
        // Not STATEMENT_VISIBILITY (READ COMMITTED's rule): a statement reading a table again from its newest committed
        // rows is the non-repeatable read the manual rules out ("Dirty reads and non-repeatable reads aren't possible").
        // H2 says even its SERIALIZABLE does not serialize transactions that write: the weaker
        // REPEATABLE READ cannot either, so write skew is documented there too.
        // Read skew and read-write skew follow from those per-table snapshots only across tables: the transaction's reader
        // misses a commit in the table it had read and sees it in another table it reads (or writes) first afterwards. The
        // manual's promise holds under that: REPEATABLE READ rules out only a re-read of the same row ("non-repeatable read"),
        // and only SNAPSHOT promises one snapshot of every table; but the manual does not describe it, so it is measured and
        // not promised, never documented (issue 33 rule 7). Within one table, one snapshot serves every read, so read skew or
        // read-write skew there stays a bug candidate (CycleCondition.ACROSS_TABLE_SNAPSHOTS), as do lost update and
        // non-repeatable read; so only these two named forms, not G-single, are covered.
        m.put(IsolationLevel.REPEATABLE_READ, LevelSemantics.permits(DOCS).basedOn(Deviation.TABLE_SNAPSHOTS, TABLE_SNAPSHOTS_MEASURED)
                .documenting(WRITE_SKEW_DOCUMENTED + "; REPEATABLE READ is weaker than SERIALIZABLE", Anomaly.WRITE_SKEW, Anomaly.G2_ITEM, Anomaly.G2)
                .measuredIn(CycleCondition.ACROSS_TABLE_SNAPSHOTS, TABLE_SNAPSHOTS_MEASURED, Anomaly.READ_SKEW, Anomaly.READ_WRITE_SKEW)
                // An UPDATE or DELETE of a row changed and committed after the table's snapshot fails (measured): first-committer-wins.
                // Checked against per-table snapshots; with one snapshot at the transaction's first statement the check made false
                // bug candidates (bench, seed 1, h2-RR-s1-i22 and i287). Measured exceptions, no manual words, in which nothing is
                // lost and the check blames nothing (the run is the serial order with the other writer first): a row committed
                // with the values the snapshot shows is no conflict (H2 compares values, as at SNAPSHOT and SERIALIZABLE:
                // PR #2374, issue #2167), and a waiting UPDATE ... SET c = constant, the transaction's first statement on the
                // table, updates the other's committed row (SET c = c + 10 fails; SNAPSHOT and SERIALIZABLE fail both).
                .requiring(Deviation.Precondition.WRITERS_WAIT_FOR_LOCKED_ROWS, Deviation.Precondition.MEASURED_FIRST_COMMITTER_WINS));
        m.put(IsolationLevel.SNAPSHOT, LevelSemantics.permits(DOCS, Deviation.TRANSACTION_SNAPSHOT).requiring(Deviation.Precondition.MEASURED_FIRST_COMMITTER_WINS));
        // H2's SERIALIZABLE is snapshot isolation plus a check on updated rows; write skew is documented.
        m.put(IsolationLevel.SERIALIZABLE, LevelSemantics.permits(DOCS).basedOn(Deviation.TRANSACTION_SNAPSHOT, new txfuzz.dbms.Basis.Documented(
                        "this isolation level in H2 currently doesn't ensure equivalence of concurrent and serializable execution of"
                        + " transactions that perform write operations", DOCS))
                .documenting(WRITE_SKEW_DOCUMENTED, Anomaly.WRITE_SKEW, Anomaly.G2_ITEM, Anomaly.G2).requiring(Deviation.Precondition.MEASURED_FIRST_COMMITTER_WINS));
        return new Profile(m);
    }

    /**
     * At REPEATABLE READ a statement that reads a table takes the snapshot of every table with a foreign key to it, and of
     * theirs in turn (measured on 2.5.252 with plain JDBC, pinned in TableSnapshotPointsTest): after T2 reads t0, a row T1
     * commits into t2 ({@code FOREIGN KEY (c1) REFERENCES t0}) is not visible to T2's first read of t2, nor into t3
     * referencing t2; reading t2 does not take t0's (nor a sibling's) snapshot. It is the foreign key, not an index: an
     * index, a UNIQUE or a CHECK on t2 links nothing; a key added by ALTER TABLE, NOCHECK too, does. (H2's
     * SessionLocal adds the tables of a table's constraints to a REPEATABLE READ statement's snapshot, recursively.)
     */
    @Override
    public Map<String, Set<String>> snapshotsTakenWith(Connection c) throws SQLException {
        // referenced table -> referencing table; what a read takes with it is everything reachable from the table read
        org.jgrapht.graph.SimpleDirectedGraph<String, org.jgrapht.graph.DefaultEdge> references =
                new org.jgrapht.graph.SimpleDirectedGraph<>(org.jgrapht.graph.DefaultEdge.class);
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT fk.TABLE_NAME, pk.TABLE_NAME"
                + " FROM INFORMATION_SCHEMA.REFERENTIAL_CONSTRAINTS r"
                + " JOIN INFORMATION_SCHEMA.TABLE_CONSTRAINTS fk ON fk.CONSTRAINT_SCHEMA = r.CONSTRAINT_SCHEMA AND fk.CONSTRAINT_NAME = r.CONSTRAINT_NAME"
                + " JOIN INFORMATION_SCHEMA.TABLE_CONSTRAINTS pk ON pk.CONSTRAINT_SCHEMA = r.UNIQUE_CONSTRAINT_SCHEMA"
                + " AND pk.CONSTRAINT_NAME = r.UNIQUE_CONSTRAINT_NAME WHERE fk.TABLE_SCHEMA = SCHEMA()")) {
            while (rs.next()) {
                String child = rs.getString(1).toLowerCase(java.util.Locale.ROOT);
                String parent = rs.getString(2).toLowerCase(java.util.Locale.ROOT);
                if (!child.equals(parent)) {
                    references.addVertex(parent);
                    references.addVertex(child);
                    references.addEdge(parent, child);
                }
            }
        }
        Map<String, Set<String>> out = new java.util.HashMap<>();
        for (String table : references.vertexSet()) {
            Set<String> reached = new java.util.HashSet<>();
            new org.jgrapht.traverse.BreadthFirstIterator<>(references, table).forEachRemaining(reached::add);
            reached.remove(table);
            if (!reached.isEmpty()) {
                out.put(table, Set.copyOf(reached));
            }
        }
        return out;
    }

    @Override
    public ErrorClass classify(SQLException e) {
        int code = e.getErrorCode();
        switch (code) {
            case 40001:
                return ErrorClass.DEADLOCK;
            case 90131: // concurrent update: first updater wins at REPEATABLE READ and above
                return ErrorClass.SERIALIZATION;
            case 50200:
                return ErrorClass.LOCK_TIMEOUT;
            case 50000: // "General error": an exception from inside the engine
                return ErrorClass.INTERNAL;
            case 90067: // connection broken
            case 90098: // database closed
            case 90121: // database called at VM shutdown
                return ErrorClass.CONNECTION_LOST;
            default:
                break;
        }
        ErrorClass standard = SqlStates.byStandardClass(e);
        if (standard != null) {
            return standard;
        }
        String state = e.getSQLState();
        if (state != null && state.startsWith("9")) {
            // 90xxx: H2's own codes are about invalid statements (unknown function, wrong type ...)
            return ErrorClass.INVALID_STATEMENT;
        }
        return state != null && state.startsWith("HY") ? ErrorClass.INTERNAL : ErrorClass.OTHER;
    }

    @Override
    public List<String> sessionSetupSql(IsolationLevel level, String mode) {
        return List.of("SET LOCK_TIMEOUT " + LOCK_TIMEOUT_MS, "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL " + level.sql());
    }

    @Override
    public void dropKeyConstraints(Connection c) throws SQLException {
        List<String> drops = new java.util.ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT TABLE_NAME, CONSTRAINT_NAME FROM "
                + "INFORMATION_SCHEMA.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = SCHEMA() AND CONSTRAINT_TYPE IN "
                + "('FOREIGN KEY', 'UNIQUE', 'PRIMARY KEY') ORDER BY CASE CONSTRAINT_TYPE WHEN 'FOREIGN KEY' THEN 0 ELSE 1 END")) {
            while (rs.next()) {
                drops.add("ALTER TABLE \"" + rs.getString(1) + "\" DROP CONSTRAINT \"" + rs.getString(2) + "\"");
            }
        }
        try (Statement s = c.createStatement()) {
            for (String sql : drops) {
                s.execute(sql);
            }
            List<String> indexes = new java.util.ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT INDEX_NAME FROM INFORMATION_SCHEMA.INDEXES WHERE TABLE_SCHEMA = SCHEMA() "
                    + "AND INDEX_TYPE_NAME = 'UNIQUE INDEX'")) {
                while (rs.next()) {
                    indexes.add(rs.getString(1));
                }
            }
            for (String index : indexes) {
                s.execute("DROP INDEX \"" + index + "\"");
            }
        }
    }
}
