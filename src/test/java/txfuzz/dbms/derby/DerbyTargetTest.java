package txfuzz.dbms.derby;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static txfuzz.dbms.EngineTests.async;
import static txfuzz.dbms.EngineTests.awaitDone;
import static txfuzz.dbms.EngineTests.awaitWaiting;
import static txfuzz.dbms.EngineTests.error;
import static txfuzz.dbms.EngineTests.exec;
import static txfuzz.dbms.EngineTests.outcome;
import static txfuzz.dbms.EngineTests.rows;
import static txfuzz.dbms.EngineTests.sleep;
import static txfuzz.dbms.EngineTests.value;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.AbortScope;
import txfuzz.dbms.Database;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.LockProbe;
import txfuzz.dbms.Targets;

class DerbyTargetTest {
    private static final Duration SOON = Duration.ofSeconds(5);
    private static DerbyTarget target;

    @BeforeAll
    static void start() {
        target = (DerbyTarget) Targets.create("derby");
    }

    @AfterAll
    static void stop() {
        target.close();
    }

    private static Connection table(Database db, IsolationLevel level) throws SQLException {
        Connection c = db.connect(level, "default");
        exec(c, "CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)");
        return c;
    }

    /**
     * Waits until the (background) drop has ended {@code c}'s database. Each query runs on a thread of
     * its own: the drop interrupts every thread inside that database (Derby's
     * ContextService.notifyAllActiveThreads), and the interrupt must not land on the test's thread,
     * which every later test shares (it failed a later test's first UPDATE with 08000 "Connection
     * closed by unknown interrupt"; polling on the test's thread left it interrupted in 14 of 40 drops).
     */
    private static SQLException awaitGone(Connection c) {
        long deadline = System.nanoTime() + SOON.toNanos();
        while (System.nanoTime() < deadline) {
            SQLException e = outcome(async(c, "SELECT * FROM t"), SOON);
            if (e != null) {
                return e;
            }
            sleep(20);
        }
        return null;
    }

    @Test
    void describesItself() {
        assertTrue(target.version().startsWith("Apache Derby 10.16"), target.version());
        for (IsolationLevel l : target.isolationLevels()) {
            target.profile().at(l);
        }
        assertTrue(target.profile().at(IsolationLevel.SERIALIZABLE).serializableReads());
    }

    @Test
    void freshDatabasesAreIndependentAndClosingDropsThem() throws Exception {
        Database a = target.freshDatabase();
        Connection ca = table(a, IsolationLevel.READ_COMMITTED);
        try (Database b = target.freshDatabase(); Connection cb = b.connect(IsolationLevel.READ_COMMITTED, "default")) {
            assertEquals(ErrorClass.INVALID_STATEMENT, target.classify(error(cb, "SELECT * FROM t")), "b must not see a's table");
        }
        a.close();
        SQLException gone = awaitGone(ca);
        assertNotNull(gone, "the database must be dropped");
        assertEquals(ErrorClass.CONNECTION_LOST, target.classify(gone), gone.getSQLState() + " " + gone.getMessage());
    }

    @Test
    void everyLevelConnectsInSchemaApp() throws Exception {
        try (Database db = target.freshDatabase(); Connection setup = table(db, IsolationLevel.READ_COMMITTED)) {
            for (IsolationLevel level : target.isolationLevels()) {
                try (Connection c = db.connect(level, "default")) {
                    assertTrue(c.getAutoCommit());
                    assertEquals("APP", value(c, "VALUES CURRENT SCHEMA"));
                    assertEquals(DerbyEngine.derbyLevel(level), value(c, "VALUES CURRENT ISOLATION").trim());
                    assertEquals("2", value(c, "SELECT COUNT(*) FROM t"), "sees the setup connection's table");
                }
            }
            assertEquals(String.valueOf(DerbyEngine.DEADLOCK_TIMEOUT_S),
                    value(setup, "VALUES SYSCS_UTIL.SYSCS_GET_DATABASE_PROPERTY('derby.locks.deadlockTimeout')"));
            assertEquals(String.valueOf(DerbyEngine.WAIT_TIMEOUT_S),
                    value(setup, "VALUES SYSCS_UTIL.SYSCS_GET_DATABASE_PROPERTY('derby.locks.waitTimeout')"));
        }
    }

    @Test
    void setupSqlRunsInTheEngine() throws Exception {
        try (Database db = target.freshDatabase(); Connection c = db.connect(IsolationLevel.READ_COMMITTED, "default")) {
            for (String sql : target.sessionSetupSql(IsolationLevel.REPEATABLE_READ, "default")) {
                exec(c, sql);
            }
            assertEquals(Connection.TRANSACTION_REPEATABLE_READ, c.getTransactionIsolation());
        }
    }

    @Test
    void errorsAreClassifiedBySqlState() throws Exception {
        try (Database db = target.freshDatabase(); Connection c = table(db, IsolationLevel.READ_COMMITTED)) {
            exec(c, "CREATE TABLE p(id INT PRIMARY KEY)",
                    "CREATE TABLE ch(id INT PRIMARY KEY, pid INT REFERENCES p(id), n INT NOT NULL, c INT CHECK (c > 0))");
            for (String sql : List.of("INSERT INTO t VALUES (1, 5)", "INSERT INTO ch VALUES (1, 9, 1, 1)",
                    "INSERT INTO ch VALUES (1, NULL, NULL, 1)", "INSERT INTO ch VALUES (1, NULL, 1, 0)")) {
                assertEquals(ErrorClass.CONSTRAINT, target.classify(error(c, sql)), sql);
            }
            for (String sql : List.of("SELEC 1", "SELECT * FROM nosuch", "SELECT nosuch FROM t", "SELECT * FROM t ORDER BY id FOR UPDATE",
                    "SELECT * FROM t FULL JOIN p ON t.id = p.id")) {
                assertEquals(ErrorClass.INVALID_STATEMENT, target.classify(error(c, sql)), sql);
            }
            exec(c, "UPDATE t SET v = 2147483647 WHERE id = 2");
            for (String sql : List.of("SELECT 1 / v FROM t", "SELECT CAST('x' AS INT) FROM t", "UPDATE t SET v = v + 1 WHERE id = 2")) {
                assertEquals(ErrorClass.DATA, target.classify(error(c, sql)), sql);
            }
        }
        // an exception from inside the engine arrives as XJ001 "Java exception"
        assertEquals(ErrorClass.INTERNAL, target.classify(new SQLException("Java exception: ': java.lang.NullPointerException'.", "XJ001", 40000)));
        assertEquals(ErrorClass.INTERNAL, target.classify(new SQLException("Container 1,152 cannot be opened", "XSDG1", 45000)));
        // seen when a statement runs into the drop: not an engine failure
        assertEquals(ErrorClass.CONNECTION_LOST, target.classify(
                new SQLException("Java exception: ': org.apache.derby.shared.common.error.ShutdownException'.", "XJ001", 40000)));
    }

    @Test
    void theGeneratorsForUpdateAndMergeFormsAreAccepted() throws Exception {
        try (Database db = target.freshDatabase(); Connection c = table(db, IsolationLevel.READ_COMMITTED)) {
            exec(c, "CREATE TABLE s(k INT PRIMARY KEY, w INT)", "INSERT INTO s VALUES (1, 5), (3, 7)");
            rows(c, "SELECT x.v FROM t x WHERE x.id = 1 FOR UPDATE");
            exec(c, "MERGE INTO t USING s x ON (t.id = x.k) WHEN MATCHED AND x.w > 6 THEN DELETE"
                    + " WHEN MATCHED THEN UPDATE SET v = x.w WHEN NOT MATCHED THEN INSERT (id, v) VALUES (x.k, x.w)");
            assertEquals(List.of(List.of("1", "5"), List.of("2", "0"), List.of("3", "7")), rows(c, "SELECT * FROM t ORDER BY id"));
        }
    }

    @Test
    void aConstraintErrorUndoesOnlyItsStatement() throws Exception {
        try (Database db = target.freshDatabase(); Connection c = table(db, IsolationLevel.READ_COMMITTED)) {
            target.begin(c);
            exec(c, "UPDATE t SET v = 7 WHERE id = 2");
            assertEquals(AbortScope.STATEMENT, target.abortScope(target.classify(error(c, "INSERT INTO t VALUES (1, 1)"))));
            target.commit(c);
            assertEquals("7", value(c, "SELECT v FROM t WHERE id = 2"));
        }
    }

    /** A updates row 1 and holds it; B's update of row 1 from another thread waits for A. */
    @Test
    void theProbeSeesAWriterWaitForAnotherAndNamesTheBlocker() throws Exception {
        try (Database db = target.freshDatabase(); Connection a = table(db, IsolationLevel.READ_COMMITTED);
             Connection b = db.connect(IsolationLevel.READ_COMMITTED, "default"); LockProbe probe = db.lockProbe().orElseThrow()) {
            String ida = db.sessionId(a);
            String idb = db.sessionId(b);
            target.begin(a);
            target.begin(b);
            exec(a, "UPDATE t SET v = 1 WHERE id = 1");
            assertEquals(Optional.empty(), probe.waitsFor(idb));
            CompletableFuture<SQLException> bUpdate = async(b, "UPDATE t SET v = v + 10 WHERE id = 1");
            assertEquals(Optional.of(Set.of(ida)), awaitWaiting(probe, idb, SOON));
            assertEquals(Optional.empty(), probe.waitsFor(ida));
            target.commit(a);
            assertNull(outcome(bUpdate, SOON));
            assertEquals(Optional.empty(), probe.waitsFor(idb));
            target.commit(b);
            assertEquals("11", value(a, "SELECT v FROM t WHERE id = 1"));
        }
    }

    /** deadlockTimeout 0: the cycle is found the moment it closes; Derby picks one victim. */
    @Test
    void aDeadlockIsFoundAtOnceAndItsVictimRolledBack() throws Exception {
        try (Database db = target.freshDatabase(); Connection a = table(db, IsolationLevel.READ_COMMITTED);
             Connection b = db.connect(IsolationLevel.READ_COMMITTED, "default"); LockProbe probe = db.lockProbe().orElseThrow()) {
            String ida = db.sessionId(a);
            String idb = db.sessionId(b);
            target.begin(a);
            target.begin(b);
            exec(a, "UPDATE t SET v = 1 WHERE id = 1");
            exec(b, "UPDATE t SET v = 2 WHERE id = 2");
            CompletableFuture<SQLException> aWaits = async(a, "UPDATE t SET v = 1 WHERE id = 2");
            assertEquals(Optional.of(Set.of(idb)), awaitWaiting(probe, ida, SOON));
            long t0 = System.nanoTime();
            CompletableFuture<SQLException> bCloses = async(b, "UPDATE t SET v = 2 WHERE id = 1");
            awaitDone(CompletableFuture.anyOf(aWaits, bCloses), SOON);
            long millis = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(millis < 2_000, "deadlock found after " + millis + " ms");
            SQLException ea = outcome(aWaits, SOON);
            SQLException eb = outcome(bCloses, SOON);
            assertTrue(ea == null ^ eb == null, "exactly one victim: " + ea + " / " + eb);
            SQLException victimError = ea != null ? ea : eb;
            assertEquals(ErrorClass.DEADLOCK, target.classify(victimError), victimError.getMessage());
            assertEquals(AbortScope.TRANSACTION, target.abortScope(ErrorClass.DEADLOCK));
            Connection victim = ea != null ? a : b;
            Connection survivor = ea != null ? b : a;
            target.rollback(victim);
            target.commit(survivor);
            String v = ea != null ? "2" : "1";
            assertEquals(List.of(List.of("1", v), List.of("2", v)), rows(survivor, "SELECT * FROM t ORDER BY id"),
                    "the survivor's writes only: the victim's first update was rolled back too");
        }
    }

    /** A lock timeout (40XL1) rolls the whole transaction back, like a deadlock. */
    @Test
    void aLockTimeoutRollsTheWholeTransactionBack() throws Exception {
        try (Database db = target.freshDatabase(); Connection a = table(db, IsolationLevel.READ_COMMITTED);
             Connection b = db.connect(IsolationLevel.READ_COMMITTED, "default")) {
            exec(a, "CALL SYSCS_UTIL.SYSCS_SET_DATABASE_PROPERTY('derby.locks.waitTimeout', '1')");
            target.begin(a);
            target.begin(b);
            exec(a, "UPDATE t SET v = 1 WHERE id = 1");
            exec(b, "UPDATE t SET v = 2 WHERE id = 2");
            SQLException timeout = error(b, "UPDATE t SET v = 2 WHERE id = 1");
            assertEquals(ErrorClass.LOCK_TIMEOUT, target.classify(timeout), timeout.getSQLState());
            assertEquals(AbortScope.TRANSACTION, target.abortScope(ErrorClass.LOCK_TIMEOUT));
            target.rollback(b);
            target.commit(a);
            assertEquals("0", value(a, "SELECT v FROM t WHERE id = 2"), "b's first update was rolled back with it");
        }
    }

    @Test
    void closingReleasesABlockedSession() throws Exception {
        Database db = target.freshDatabase();
        Connection a = table(db, IsolationLevel.READ_COMMITTED);
        Connection b = db.connect(IsolationLevel.READ_COMMITTED, "default");
        LockProbe probe = db.lockProbe().orElseThrow();
        String idb = db.sessionId(b);
        target.begin(a);
        target.begin(b);
        exec(a, "UPDATE t SET v = 1 WHERE id = 1");
        CompletableFuture<SQLException> blocked = async(b, "UPDATE t SET v = 2 WHERE id = 1");
        assertTrue(awaitWaiting(probe, idb, SOON).isPresent());
        db.close();
        SQLException e = outcome(blocked, SOON);
        assertNotNull(e);
        assertEquals(ErrorClass.CONNECTION_LOST, target.classify(e), e.getSQLState() + " " + e.getMessage());
    }

    @Test
    void manyDatabasesLeaveNoThreadsBehind() throws Exception {
        try (DerbyTarget own = new DerbyTarget()) {
            own.freshDatabase().close(); // boots the engine and its timer thread
            int before = Thread.activeCount();
            for (int i = 0; i < 8; i++) {
                Database db = own.freshDatabase();
                try (Connection c = db.connect(IsolationLevel.READ_COMMITTED, "default")) {
                    exec(c, "CREATE TABLE t(id INT PRIMARY KEY)");
                }
                db.close();
            }
            own.close(); // waits for the background drops
            assertTrue(Thread.activeCount() <= before + 1, before + " threads before, " + Thread.activeCount() + " after");
        }
    }
}
