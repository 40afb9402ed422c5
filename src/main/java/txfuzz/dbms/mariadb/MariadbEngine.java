package txfuzz.dbms.mariadb;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.AbortScope;
import txfuzz.dbms.Basis;
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
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Engine;
import txfuzz.dbms.TargetOptions;

/** MariaDB (InnoDB) as txfuzz knows it without starting a server: the bundled 10.11's levels, dialect, documented behaviour and error codes; {@link MariadbTarget} is the live part, which refines the dialect for the server it reaches (MySQL by --url: {@link ServerInfo}). */
public final class MariadbEngine implements Engine {
    /** The maximum MariaDB accepts (about 3 years; MySQL would take up to 1073741824). */
    static final long LOCK_WAIT_TIMEOUT_S = 100_000_000L;
    /** MariaDB's default sql_mode, without NO_AUTO_CREATE_USER (MySQL 8 does not know it). */
    static final String SQL_MODE = "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION";
    static final String KB_SET_TRANSACTION = "https://mariadb.com/kb/en/set-transaction/";
    /** MariaDB's page on READ UNCOMMITTED, quoted for what the level allows (its dirty reads). */
    static final String KB_READ_UNCOMMITTED = "https://mariadb.com/docs/server/reference/sql-statements/transactions/transactions-read-uncommitted";
    static final String MYSQL_LEVELS = "https://dev.mysql.com/doc/refman/8.0/en/innodb-transaction-isolation-levels.html";
    static final String MYSQL_CONSISTENT_READ = "https://dev.mysql.com/doc/refman/8.0/en/innodb-consistent-read.html";
    static final String MDEV_26687 = "https://jira.mariadb.org/browse/MDEV-26687";
    static final String MYSQL_LOCKING_READS = "https://dev.mysql.com/doc/refman/8.0/en/innodb-locking-reads.html";
    /** What InnoDB's REPEATABLE READ documents about cycles, in the manual's words: which reads see the snapshot, which do not, which lock. */
    static final String REPEATABLE_READ_DOCUMENTED = MYSQL_CONSISTENT_READ + " (\"all consistent reads within the same transaction read the"
            + " snapshot established by the first such read in that transaction\"; \"The snapshot of the database state applies to SELECT"
            + " statements within a transaction, not necessarily to DML statements\"; \"If you want to see the 'freshest' state of the"
            + " database, use either the READ COMMITTED isolation level or a locking read\"; \"A consistent read does not set any locks on"
            + " the tables it accesses, and therefore other sessions are free to modify those tables\": lost update, read-write skew, a"
            + " locking re-read, and write skew, also where one of its reads was a locking read, each left by a plain read of a read view"
            + " older than a commit it follows; Hermitage) and " + MYSQL_LOCKING_READS + " (SELECT ... FOR SHARE: \"Other sessions can read the"
            + " rows, but cannot modify them until your transaction commits. If any of these rows were changed by another transaction that"
            + " has not yet committed, your query waits until that transaction ends and then uses the latest values.\"; SELECT ... FOR"
            + " UPDATE: \"Other transactions are blocked from updating those rows\"; \"All locks set by FOR SHARE and FOR UPDATE queries are"
            + " released when the transaction is committed or rolled back\")";
    /** "A locking read, an UPDATE, or a DELETE generally set record locks on every index record that is scanned". */
    static final String MYSQL_LOCKS_SET = "https://dev.mysql.com/doc/refman/8.0/en/innodb-locks-set.html";
    /** The clustered index: rows in PRIMARY KEY order; without one, the first UNIQUE NOT NULL key or a hidden row id. */
    static final String MYSQL_CLUSTERED_INDEX = "https://dev.mysql.com/doc/refman/8.0/en/innodb-index-types.html";
    /**
     * The mode that runs every session with {@code innodb_snapshot_isolation=ON} (MariaDB 10.6.18, 10.11.8,
     * 11.4+; ON by default from 11.6.2): a locking read or DML that finds a row changed after the
     * transaction's read view fails with error 1020 instead of acting on the newer version. The default
     * mode keeps the server's setting.
     */
    static final String SNAPSHOT_ISOLATION_MODE = "snapshot-isolation";
    static final List<String> MODES = List.of("default", SNAPSHOT_ISOLATION_MODE);

    @Override
    public String defaultVersion() {
        return "MariaDB " + txfuzz.dbms.versions.BundledVersions.of("mariadb");
    }

    /** The binaries txfuzz starts the server from (listed by 'txfuzz targets --versions'). */
    @Override
    public java.util.Optional<txfuzz.dbms.versions.MavenArtifact> artifact() {
        return java.util.Optional.of(MariadbBinaries.ARTIFACT);
    }

    /** MariaDB 11.4.5's notes: https://mariadb.com/kb/en/mariadb-11-4-5-release-notes/ (the Knowledge Base's spelling). */
    @Override
    public java.util.Optional<String> releaseNotes(String mavenVersion) {
        return mavenVersion.matches("[0-9]+(\\.[0-9]+)+")
                ? java.util.Optional.of("https://mariadb.com/kb/en/mariadb-" + mavenVersion.replace('.', '-') + "-release-notes/")
                : java.util.Optional.empty();
    }

    @Override
    public boolean server() {
        return true;
    }

    /** Starts the bundled server, or reaches {@code options.url()}. */
    @Override
    public Target open(TargetOptions options) {
        return new MariadbTarget(this, options);
    }

    /**
     * innodb_snapshot_isolation (MariaDB 10.6.18, 10.11.8, 11.4 and later; global and session, dynamic): set per session,
     * so a server reached by --url is not changed for anyone else (https://mariadb.com/kb/en/innodb-system-variables/#innodb_snapshot_isolation).
     */
    @Override
    public List<txfuzz.dbms.EngineSetting> settings() {
        return List.of(txfuzz.dbms.EngineSetting.oneOf("innodb_snapshot_isolation", "session variable SET SESSION innodb_snapshot_isolation = …",
                "https://mariadb.com/kb/en/innodb-system-variables/#innodb_snapshot_isolation", "SET SESSION innodb_snapshot_isolation = %s",
                "ON", "OFF"));
    }

    /** Concurrency tests are mysqltest files (mysql-test/main). */
    @Override
    public java.util.Optional<txfuzz.dbms.RegressionTestFormat> regressionTestFormat() {
        return java.util.Optional.of(txfuzz.dbms.RegressionTestFormat.MYSQLTEST);
    }

    @Override
    public String name() {
        return "mariadb";
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
     * not on MySQL (error 1093). {@link Feature#CURRENT_READS}: plain SELECTs read the snapshot, locking
     * reads and DML the newest committed data ({@value #MYSQL_CONSISTENT_READ}: "The snapshot of the
     * database state applies to SELECT statements within a transaction, not necessarily to DML
     * statements"; {@value #MYSQL_LOCKING_READS}), so the equiv oracle does not take a plain version-set
     * read for what such a statement read.
     */
    @Override
    public Dialect dialect() {
        EnumSet<Feature> f = Dialect.core();
        f.addAll(Set.of(Feature.JOIN_RIGHT, Feature.FOR_UPDATE, Feature.LOCK_IN_SHARE_MODE, Feature.REPLACE, Feature.INSERT_ON_DUPLICATE_KEY,
                Feature.UNCHANGED_ROWS_NOT_WRITTEN, Feature.DELETE_RETURNING, Feature.CURRENT_READS));
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
     *     case cannot express. What is <em>not</em> documented: that a transaction keeps reading its
     *     snapshot of a row its own DML touched — "If a transaction does update or delete rows committed
     *     by a different transaction, those changes do become visible to the current transaction"
     *     (same page). An UPDATE that matches such a row but sets it to the values it already holds
     *     leaves it unwritten, and the transaction's next SELECT shows the snapshot's version: MariaDB
     *     took that as a bug (MDEV-26642) and fixed it with innodb_snapshot_isolation=ON (10.6.18,
     *     10.11.8, 11.4.2), which fails the UPDATE with 1020 instead; with the variable OFF, 11.4.5's
     *     default, the row stays hidden (measured: NoOpUpdateVisibilityTest). So it is a bug candidate
     *     (the isolation oracle's internal-consistency check) in both modes where it shows.</li>
     * <li>SERIALIZABLE: as REPEATABLE READ, but plain SELECTs in a transaction become LOCK IN SHARE MODE
     *     (newest committed data, shared next-key locks to commit); an autocommit SELECT is a consistent
     *     read of the newest committed data, which is its place in commit order anyway. So reads, too,
     *     must match the commit-order serial schedule.</li>
     * </ul>
     */
    /**
     * REPEATABLE READ reads a consistent snapshot but writes the newest row versions, so it loses updates: it keeps only
     * READ COMMITTED's promise, unless innodb_snapshot_isolation (this engine's snapshot-isolation mode) makes it snapshot isolation.
     */
    @Override
    public txfuzz.dbms.LevelPromise promise(IsolationLevel level, String mode) {
        if (level != IsolationLevel.REPEATABLE_READ) {
            return txfuzz.dbms.Engine.super.promise(level, mode);
        }
        return checkMode(mode).equals(SNAPSHOT_ISOLATION_MODE)
                ? new txfuzz.dbms.LevelPromise(txfuzz.dbms.Promise.SNAPSHOT_ISOLATION,
                        "https://mariadb.com/kb/en/innodb-system-variables/#innodb_snapshot_isolation")
                : new txfuzz.dbms.LevelPromise(txfuzz.dbms.Promise.READ_COMMITTED,
                        "https://mariadb.com/kb/en/innodb-system-variables/#innodb_snapshot_isolation (OFF: REPEATABLE READ may lose updates)");
    }

    @Override
    public Profile profile() {
        Map<IsolationLevel, LevelSemantics> m = new EnumMap<>(IsolationLevel.class);
        // Locking scans (UPDATE, DELETE) lock "every index record that is scanned", in the order of the index they scan
        // (for a full scan the clustered index, in PRIMARY KEY order, or insertion order without a key), and at READ COMMITTED "only index records, not the
        // gaps before them": a scan that waited on a row goes on from it with the newest committed versions, so a row
        // inserted or moved before that row meanwhile is not seen (Deviation.LOCKING_SCAN_IN_KEY_ORDER).
        String rc = MYSQL_LEVELS + "#isolevel_read-committed and " + KB_SET_TRANSACTION
                + "#read-committed: semi-consistent reads for UPDATE and no gap locks at READ COMMITTED and READ UNCOMMITTED"
                + " (WriteCheck §6.4; " + MDEV_26687 + "); locking scans lock the records they scan in index order, " + MYSQL_LOCKS_SET
                + ", the clustered index in PRIMARY KEY order (without one, the first UNIQUE NOT NULL key's; without either, a hidden row id"
                + " in insertion order), " + MYSQL_CLUSTERED_INDEX;
        // The manual's sentences for what a write sees at READ COMMITTED and READ UNCOMMITTED: no gap locks, and an UPDATE of a
        // locked row reads its newest committed version (a statement that waited read as it resumed: the RESUMED read point,
        // not as submitted and not PostgreSQL's re-check, which InnoDB does not describe and which are judged by the standard
        // level alone, issue 33 rule 9); a locking scan locks every record it scans, in the index's order.
        Basis noGapLocks = new Basis.Documented("For locking reads (SELECT with FOR UPDATE or FOR SHARE), UPDATE statements, and DELETE"
                + " statements, InnoDB locks only index records, not the gaps before them, and thus permits the free insertion of new"
                + " records next to locked records. [...] For UPDATE statements, if a row is already locked, InnoDB performs a"
                + " \"semi-consistent\" read, returning the latest committed version to MySQL so that MySQL can determine whether the"
                + " row matches the WHERE condition of the UPDATE.", MYSQL_LEVELS + "#isolevel_read-committed",
                java.util.EnumSet.of(Deviation.ReadPoint.RESUMED));
        Basis scanOrder = new Basis.Documented("A locking read, an UPDATE, or a DELETE generally set record locks on every index record"
                + " that is scanned in the processing of the SQL statement.", MYSQL_LOCKS_SET);
        // At READ COMMITTED an INSERT … SELECT that waited on a key it inserts had read its SELECT before, as a consistent read
        // (campaign mariadb-RC-s75-i2453).
        Basis scanOrderReadCommitted = new Basis.Documented("A locking read, an UPDATE, or a DELETE generally set record locks on every"
                + " index record that is scanned in the processing of the SQL statement. [...] INSERT INTO T SELECT ... FROM S WHERE ..."
                + " sets an exclusive index record lock (without a gap lock) on each row inserted into T. If the transaction isolation"
                + " level is READ COMMITTED, InnoDB does the search on S as a consistent read (no locks).", MYSQL_LOCKS_SET);
        // A statement may keep locks on rows its WHERE never matched: a range scan through a secondary index, the record that
        // ended its range (campaign mariadb-RU-s75-i712; MySQL bug #58157); an UPDATE with an IN subquery on its own table, the
        // rows its subquery read (mariadb-RC-s75-i6969; MDEV-36832); an UPDATE waiting itself, the rows it scanned before
        // (mariadb-RU-s75-i2720). The manual says the opposite, so it is measured, and a lock held longer only
        // makes another write wait, which the key-order scan then describes.
        Basis keptLocks = new Basis.Measured("a statement keeps the lock on a row its WHERE did not match, as the server reports"
                + " after running it on the same data (a range scan through a secondary index, `WHERE c1 < ''` or `c1 NOT IN ('')`, keeps"
                + " the record that ended its range, the first index record past it, to the end of its transaction, at READ COMMITTED"
                + " and READ UNCOMMITTED alike, known upstream as MySQL bug #58157, https://bugs.mysql.com/bug.php?id=58157; an UPDATE"
                + " with an IN subquery on its own table, which MariaDB runs as a multi-table update, keeps the locks its subquery took"
                + " on the rows it read, campaign mariadb-RC-s75-i6969, known upstream as MDEV-36832, whose fix, MariaDB/server pull request"
                + " #4682, makes such a subquery a consistent read; an UPDATE … WHERE c1 IN (SELECT …), run as a semi-join, waiting on"
                + " another transaction's row still holds the rows its scan met before it, matched or not, campaign"
                + " mariadb-RU-s75-i2720); the manual says \"Record locks for nonmatching rows are released after MySQL has"
                + " evaluated the WHERE condition\", " + MYSQL_LEVELS + "#isolevel_read-committed", "LocksKeptOnUnmatchedRowsTest",
                "a lock held longer only makes another write wait longer: no read of uncommitted data and no overwrite of an uncommitted"
                + " write comes of it, so the level's promise holds, and what the waiting write then read is the documented key-order scan");
        // Every level permits a run equivalent to a serial one; below SERIALIZABLE nothing promises that order is the commit
        // order: a write whose duplicate-key check read a key before another transaction inserted it and committed first
        // (mariadb-RR-s68-i6638) is serializable with the writer last (Deviation.SOME_SERIAL_ORDER, in orders that keep real time).
        // An UPDATE's semi-consistent read passes a row another transaction inserted and has not committed, while the same
        // transaction's plain reads see it (campaign mariadb-RU-s74-i5168): each half has its sentence ("allows dirty reads";
        // "returning the latest committed version to MySQL"), not the two together, so what it explains is not promised.
        // A waiting write's subqueries read one read view, opened by the first of them to run, before the wait or after it
        // (campaign seed 70: i257, i6509, i9105). The manual says each consistent read at READ COMMITTED "sets and reads its own
        // fresh snapshot", not that a subquery run again after a wait keeps the view of before it: no sentence describes it,
        // it keeps PL-2, so what it explains is not promised. At READ UNCOMMITTED, where no read view is kept, each row's
        // subqueries may read the data, uncommitted writes included, as the scan read that row (mariadb-RU-s78-i9020).
        m.put(IsolationLevel.READ_UNCOMMITTED, LevelSemantics.permits(KB_READ_UNCOMMITTED + ": \"This lowest isolation level allows dirty"
                + " reads, where a transaction can see uncommitted changes. [...] SELECT statements are performed in a non-locking fashion, but a"
                + " possible earlier version of a row might be used.\" And " + rc, Deviation.DIRTY_VISIBILITY, Deviation.STATEMENT_SNAPSHOT_WITH_RECHECK,
                        Deviation.SOME_SERIAL_ORDER, Deviation.LOCKING_SCAN_WITH_ONE_SUBQUERY_SNAPSHOT, Deviation.DIRTY_READS_BESIDE_SEMI_CONSISTENT_UPDATES)
                .basedOn(Deviation.STATEMENT_VISIBILITY, noGapLocks)
                .basedOn(Deviation.LOCKING_SCAN_IN_KEY_ORDER, scanOrder)
                .basedOn(Deviation.LOCKING_SCAN_WITH_LOCKS_KEPT_ON_UNMATCHED_ROWS, keptLocks)
                .requiring(Deviation.Precondition.WRITERS_WAIT_FOR_LOCKED_ROWS).arbitratingUpserts(Deviation.UpsertArbitration.LATEST_COMMITTED));
        // A DML statement's subquery is a consistent read, "its own fresh snapshot", taken when the statement starts, while its
        // target rows are read by the locking scan at their newest committed version after a wait: PostgreSQL's
        // statement snapshot with re-check. No InnoDB sentence describes the combination; it keeps PL-2 (campaign seed 33,
        // mariadb-RC-s33-i213), so what it explains is not promised.
        m.put(IsolationLevel.READ_COMMITTED, LevelSemantics.permits(rc, Deviation.STATEMENT_SNAPSHOT_WITH_RECHECK, Deviation.SOME_SERIAL_ORDER,
                        Deviation.LOCKING_SCAN_WITH_ONE_SUBQUERY_SNAPSHOT)
                .basedOn(Deviation.STATEMENT_VISIBILITY, noGapLocks)
                .basedOn(Deviation.LOCKING_SCAN_IN_KEY_ORDER, scanOrderReadCommitted)
                .basedOn(Deviation.LOCKING_SCAN_WITH_LOCKS_KEPT_ON_UNMATCHED_ROWS, keptLocks)
                .requiring(Deviation.Precondition.WRITERS_WAIT_FOR_LOCKED_ROWS).arbitratingUpserts(Deviation.UpsertArbitration.LATEST_COMMITTED));
        // Plain SELECTs read the read view of the transaction's first consistent read; locking reads and DML read the
        // newest committed rows and lock them to the end, so their anti-dependencies, like ww edges, only put one commit
        // before another. A cycle the manual describes therefore has a transaction entered at its commit and left by a plain
        // read of an older read view (lost update, read-write skew, a locking re-read: Hermitage's P4/G-single for MySQL;
        // write skew, either read locking or not: campaign seed 33 i254, i494, i502); a non-repeatable read or read skew
        // between plain reads, or a lost update after SELECT ... FOR UPDATE, is the read view or the lock failing: a bug
        // candidate (CycleCondition.CLOSED_BY_LOCKING_READ_OR_DML; controls: MariadbReadViewControlTest, DocumentedShapesTest).
        m.put(IsolationLevel.REPEATABLE_READ, new LevelSemantics(Set.of(Deviation.SOME_SERIAL_ORDER), false, MYSQL_CONSISTENT_READ
                + " (plain SELECTs read a snapshot; writes and locking reads read the newest committed rows under next-key locks)")
                .onlyIn(CycleCondition.CLOSED_BY_LOCKING_READ_OR_DML, REPEATABLE_READ_DOCUMENTED,
                        Anomaly.G_SINGLE, Anomaly.G_NONADJACENT, Anomaly.G2_ITEM, Anomaly.G2));
        m.put(IsolationLevel.SERIALIZABLE, LevelSemantics.strict(MYSQL_LEVELS + "#isolevel_serializable"));
        return new Profile(m);
    }

    /**
     * With innodb_snapshot_isolation=ON (the snapshot-isolation mode, or a session's own SET: {@link #sessionMode}) REPEATABLE
     * READ is snapshot isolation: "Whether or not to use snapshot isolation (write/write conflict detection within InnoDB). If
     * enabled, an error DB_RECORD_CHANGED (HA_ERR_RECORD_CHANGED, ER_CHECKREAD) is raised if an attempt is made to acquire a
     * lock on a record that does not exist in the current read view" (KB). A lost update or read skew (one anti-dependency,
     * G-single; or G-nonadjacent) ends in 1020 instead; write skew (two adjacent anti-dependencies), which snapshot isolation
     * permits by definition (Berenson et al. 1995 §4.2, A5B), stays documented.
     */
    @Override
    public Profile profile(String mode) {
        Profile base = profile();
        if (!checkMode(mode).equals(SNAPSHOT_ISOLATION_MODE)) {
            return base;
        }
        Map<IsolationLevel, LevelSemantics> m = new EnumMap<>(base.levels());
        m.put(IsolationLevel.REPEATABLE_READ, new LevelSemantics(Set.of(), false, MYSQL_CONSISTENT_READ
                + " (plain SELECTs read a snapshot; writes and locking reads of rows changed since it fail with 1020: "
                + SNAPSHOT_ISOLATION_KB + ")")
                .documenting(SNAPSHOT_ISOLATION_KB + " (innodb_snapshot_isolation=ON: snapshot isolation, write/write conflict detection;"
                        + " write skew, which snapshot isolation permits, stays possible)", Anomaly.G2_ITEM, Anomaly.G2));
        return new Profile(m);
    }

    static final String SNAPSHOT_ISOLATION_KB = "https://mariadb.com/kb/en/innodb-system-variables/#innodb_snapshot_isolation";

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
        return Engine.super.abortScope(c);
    }

    /**
     * BEGIN, START TRANSACTION and DDL commit the open transaction first
     * (https://mariadb.com/kb/en/sql-statements-that-cause-an-implicit-commit/); a temporary table's CREATE or DROP does not.
     */
    @Override
    public boolean commitsOpenTransaction(String statement) {
        String s = statement.strip().toUpperCase(java.util.Locale.ROOT).replaceAll("\\s+", " ");
        return !s.matches("^(CREATE|DROP) TEMPORARY .*") && !s.startsWith("BEGIN NOT ATOMIC")
                && s.matches("^(BEGIN|START TRANSACTION|CREATE|ALTER|DROP|RENAME|TRUNCATE|LOCK TABLES?|ANALYZE TABLE|OPTIMIZE TABLE|REPAIR TABLE|FLUSH|GRANT|REVOKE)\\b.*");
    }

    /** Read-only transactions (START TRANSACTION READ ONLY, with or without a consistent snapshot): imported, never generated. */
    @Override
    public List<String> importedBeginVariants() {
        return List.of("START TRANSACTION READ ONLY", "START TRANSACTION WITH CONSISTENT SNAPSHOT READ ONLY", "START TRANSACTION READ ONLY WITH CONSISTENT SNAPSHOT");
    }

    /** START TRANSACTION WITH CONSISTENT SNAPSHOT takes InnoDB's read view at once, not at the first read. */
    @Override
    public List<String> beginVariants() {
        return List.of("START TRANSACTION", "START TRANSACTION WITH CONSISTENT SNAPSHOT");
    }

    @Override
    public List<String> sessionSetupSql(IsolationLevel level, String mode) {
        checkLevel(level);
        List<String> out = new java.util.ArrayList<>(List.of("SET SESSION TRANSACTION ISOLATION LEVEL " + level.sql(),
                "SET SESSION innodb_lock_wait_timeout = " + LOCK_WAIT_TIMEOUT_S, "SET SESSION sql_mode = '" + SQL_MODE + "'"));
        if (checkMode(mode).equals(SNAPSHOT_ISOLATION_MODE)) {
            out.add("SET SESSION innodb_snapshot_isolation = ON");
        }
        return out;
    }

    /**
     * From EXPLAIN: the plan's first table is {@code name}, read by a full scan (the clustered index, in its key
     * order) or through its clustered index ({@link ClusteredIndex}: PRIMARY, or on a table without one the
     * UNIQUE NOT NULL index InnoDB clusters by — measured on 11.4.5: EXPLAIN shows that index by name, e.g.
     * {@code type=index key=c3} for a full scan of it). A DELETE without WHERE shows "Deleting all rows": InnoDB
     * has no handler call that does that, so the server falls back to deleting row by row in a full scan
     * (measured on 11.4.5 by LockingScanInKeyOrderTest: the scan misses a row moved before the row it waited
     * on). A secondary index or another table first is not known to scan in key order.
     */
    @Override
    public java.util.Optional<Boolean> scansInClusteredKeyOrder(java.sql.Connection c, String sql, String table, String name)
            throws SQLException {
        String clustered = ClusteredIndex.of(c, table).map(ClusteredIndex::name).orElse("PRIMARY");
        try (java.sql.Statement s = c.createStatement(); java.sql.ResultSet rs = s.executeQuery("EXPLAIN " + sql)) {
            if (!rs.next()) {
                return java.util.Optional.empty();
            }
            String first = rs.getString("table");
            String type = rs.getString("type");
            String key = rs.getString("key");
            if (first == null && type == null && "Deleting all rows".equals(rs.getString("Extra")) && !rs.next()) {
                return java.util.Optional.of(true);
            }
            if (first == null || type == null || !first.equalsIgnoreCase(name)) {
                return java.util.Optional.of(false);
            }
            boolean fullScan = type.equals("ALL") && key == null;
            return java.util.Optional.of(fullScan || clustered.equalsIgnoreCase(key));
        }
    }

    /**
     * A secondary index read in its order (EXPLAIN's type {@code range}, {@code index}, {@code ref}, {@code ref_or_null}):
     * InnoDB keeps each secondary index record with the clustered index's key after the index's columns ("In InnoDB, each
     * record in a secondary index contains the primary key columns for the row, as well as the columns specified for the
     * secondary index", {@link #MYSQL_CLUSTERED_INDEX}), so its entries are in the order of both.
     */
    @Override
    public java.util.Optional<List<String>> secondaryIndexScanOrder(java.sql.Connection c, String sql, String table, String name)
            throws SQLException {
        java.util.Optional<ClusteredIndex> clustered = ClusteredIndex.of(c, table);
        String clusteredName = clustered.map(ClusteredIndex::name).orElse("PRIMARY");
        String key;
        try (java.sql.Statement s = c.createStatement(); java.sql.ResultSet rs = s.executeQuery("EXPLAIN " + sql)) {
            if (!rs.next()) {
                return java.util.Optional.empty();
            }
            String first = rs.getString("table");
            key = rs.getString("key");
            if (first == null || key == null || !first.equalsIgnoreCase(name) || clusteredName.equalsIgnoreCase(key)
                    || !INDEX_ORDER_ACCESS.contains(rs.getString("type"))) {
                return java.util.Optional.empty();
            }
        }
        java.util.Optional<List<String>> columns = IndexColumns.ascending(c, table, key);
        if (columns.isEmpty()) {
            return java.util.Optional.empty();
        }
        List<String> order = new java.util.ArrayList<>(columns.get());
        clustered.ifPresent(k -> k.columns().stream().filter(col -> order.stream().noneMatch(col::equalsIgnoreCase)).forEach(order::add));
        return java.util.Optional.of(List.copyOf(order));
    }

    /** EXPLAIN's access types that read an index's entries in its order. */
    private static final java.util.Set<String> INDEX_ORDER_ACCESS = java.util.Set.of("range", "index", "ref", "ref_or_null");

    /** From InnoDB's data dictionary ({@link ClusteredIndex}): the PRIMARY KEY, or the UNIQUE NOT NULL index InnoDB clusters by. */
    @Override
    public java.util.Optional<List<String>> clusteredKey(java.sql.Connection c, String table) {
        return ClusteredIndex.of(c, table).map(ClusteredIndex::columns);
    }

    /**
     * InnoDB clusters a table with neither a PRIMARY KEY nor a UNIQUE NOT NULL index by GEN_CLUST_INDEX, "a synthetic
     * column that contains row ID values … [which] increases monotonically as new rows are inserted. Thus, the rows
     * ordered by the row ID are physically in order of insertion" ({@link #MYSQL_CLUSTERED_INDEX});
     * a scan that uses no index reads that clustered index.
     */
    @Override
    public java.util.Optional<String> insertionOrderRead(String quotedTable) {
        return java.util.Optional.of("SELECT * FROM " + quotedTable + " USE INDEX ()");
    }

    /** {@code FOR UPDATE SKIP LOCKED} (MariaDB 10.6 and later, InnoDB); {@code USE INDEX ()} reads the clustered index. */
    @Override
    public java.util.Optional<String> lockedRowsSkippingRead(String quotedTable, String column) {
        return java.util.Optional.of("SELECT " + quote(column) + " FROM " + quotedTable + " USE INDEX () FOR UPDATE SKIP LOCKED");
    }

    @Override
    public String quote(String identifier) {
        return "`" + identifier.replace("`", "``") + "`";
    }

    @Override
    public List<String> modes() {
        return MODES;
    }

    private static final java.util.regex.Pattern SNAPSHOT_SETTING = java.util.regex.Pattern.compile(
            "^\\s*SET\\s+(?:SESSION\\s+|@@(?:SESSION\\.)?)?innodb_snapshot_isolation\\s*=\\s*'?(ON|OFF|1|0|TRUE|FALSE)'?\\s*;?\\s*$",
            java.util.regex.Pattern.CASE_INSENSITIVE);

    /**
     * A session that sets innodb_snapshot_isolation for itself runs as the mode that sets it for every session does: ON is
     * {@link #SNAPSHOT_ISOLATION_MODE} (the 1020 write conflict instead of a lost update), OFF the default mode's OFF.
     */
    @Override
    public String sessionMode(String mode, List<String> settings) {
        String m = checkMode(mode);
        for (String s : settings) {
            java.util.regex.Matcher v = SNAPSHOT_SETTING.matcher(s);
            if (v.find()) {
                String value = v.group(1).toUpperCase(java.util.Locale.ROOT);
                m = value.equals("ON") || value.equals("1") || value.equals("TRUE") ? SNAPSHOT_ISOLATION_MODE : "default";
            }
        }
        return m;
    }

    /** {@code mode} (null: "default"); IllegalArgumentException for a mode MariaDB does not have. */
    String checkMode(String mode) {
        String m = mode == null ? "default" : mode.toLowerCase(java.util.Locale.ROOT);
        if (!MODES.contains(m)) {
            throw new IllegalArgumentException("MariaDB has no mode '" + mode + "'; it has " + MODES);
        }
        return m;
    }

    IsolationLevel checkLevel(IsolationLevel level) {
        if (!isolationLevels().contains(level)) {
            throw new IllegalArgumentException("MariaDB has no isolation level " + level + "; it offers " + isolationLevels());
        }
        return level;
    }
}
