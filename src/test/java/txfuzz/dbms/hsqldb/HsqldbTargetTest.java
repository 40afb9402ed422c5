package txfuzz.dbms.hsqldb;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.AbortScope;
import txfuzz.dbms.Database;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.LockProbe;
import txfuzz.dbms.Targets;

class HsqldbTargetTest {
    private static final Duration SOON = Duration.ofSeconds(5);
    private static HsqldbTarget target;

    @BeforeAll
    static void start() {
        target = (HsqldbTarget) Targets.create("hsqldb");
    }

    @AfterAll
    static void stop() {
        target.close();
    }

    private static Connection table(Database db, IsolationLevel level, String mode) throws SQLException {
        Connection c = db.connect(level, mode);
        exec(c, "CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)");
        return c;
    }

    @Test
    void describesItself() {
        assertTrue(target.version().startsWith("HSQLDB 2.7"), target.version());
        assertEquals(List.of("mvcc", "locks", "mvlocks"), target.modes());
        for (String mode : target.modes()) {
            for (IsolationLevel l : target.isolationLevels()) {
                target.profile(mode).at(l);
            }
        }
        assertTrue(target.profile("locks").at(IsolationLevel.SERIALIZABLE).serializableReads());
        assertTrue(!target.profile().at(IsolationLevel.SERIALIZABLE).serializableReads(), "MVCC SERIALIZABLE is snapshot isolation");
        // MVLOCKS: writes as in 2PL (no deviation, no anomaly); read-only transactions read a snapshot
        for (IsolationLevel l : List.of(IsolationLevel.REPEATABLE_READ, IsolationLevel.SERIALIZABLE)) {
            var mvlocks = target.profile("mvlocks").at(l);
            assertTrue(!mvlocks.serializableReads() && mvlocks.deviations().isEmpty() && mvlocks.documentedAnomalies().isEmpty(), mvlocks.toString());
            assertTrue(mvlocks.reference().endsWith("#snc_tx_2pl_si"), mvlocks.reference());
        }
    }

    /**
     * MVCC's write skew is documented by the guide's own sentences (sessions-chapt, snc_tx_choosing and snc_tx_mvcc), not a
     * paraphrase, and not as a measurement.
     */
    @Test
    void mvccWriteSkewIsDocumentedInTheGuidesWords() {
        for (IsolationLevel l : List.of(IsolationLevel.REPEATABLE_READ, IsolationLevel.SERIALIZABLE)) {
            var mvcc = target.profile("mvcc").at(l);
            assertEquals(Set.of(txfuzz.history.Anomaly.WRITE_SKEW, txfuzz.history.Anomaly.G2_ITEM, txfuzz.history.Anomaly.G2),
                    mvcc.documentedAnomalies(), mvcc.toString());
            assertTrue(mvcc.documented().measured().isEmpty(), mvcc.toString());
            for (String sentence : List.of(HsqldbEngine.MVCC_IS_SNAPSHOT_ISOLATION, HsqldbEngine.SERIALIZABLE_NEEDS_2PL, HsqldbEngine.SAME_ROW_CONFLICT)) {
                assertTrue(mvcc.anomalyReference().contains("\"" + sentence) || mvcc.anomalyReference().contains(sentence + "\""), mvcc.anomalyReference());
            }
            assertTrue(mvcc.anomalyReference().startsWith(HsqldbEngine.DOCS_CHOOSING + " (\"When operating with the MVCC model"), mvcc.anomalyReference());
        }
        assertTrue(target.promise(IsolationLevel.SERIALIZABLE, "mvcc").manual().contains(HsqldbEngine.MVCC_IS_SNAPSHOT_ISOLATION));
    }

    @Test
    void freshDatabasesAreIndependentAndClosingDropsThem() throws Exception {
        Database a = target.freshDatabase();
        Connection ca = table(a, IsolationLevel.READ_COMMITTED, "mvcc");
        try (Database b = target.freshDatabase(); Connection cb = b.connect(IsolationLevel.READ_COMMITTED, "mvcc")) {
            assertEquals(ErrorClass.INVALID_STATEMENT, target.classify(error(cb, "SELECT * FROM t")), "b must not see a's table");
        }
        a.close();
        assertEquals(ErrorClass.CONNECTION_LOST, target.classify(error(ca, "SELECT * FROM t")));
        assertThrows(SQLException.class, () -> a.connect(IsolationLevel.READ_COMMITTED, "mvcc"), "the database is gone");
    }

    @Test
    void everyModeAndLevelConnects() throws Exception {
        try (Database db = target.freshDatabase()) {
            for (String mode : target.modes()) {
                for (IsolationLevel level : target.isolationLevels()) {
                    try (Connection c = db.connect(level, mode)) {
                        assertTrue(c.getAutoCommit());
                        assertEquals(mode.toUpperCase(), value(c,
                                "SELECT PROPERTY_VALUE FROM INFORMATION_SCHEMA.SYSTEM_PROPERTIES WHERE PROPERTY_NAME = 'hsqldb.tx'"));
                        int expected = switch (level) {
                            case READ_COMMITTED -> Connection.TRANSACTION_READ_COMMITTED;
                            case REPEATABLE_READ -> Connection.TRANSACTION_REPEATABLE_READ;
                            default -> Connection.TRANSACTION_SERIALIZABLE;
                        };
                        assertEquals(expected, c.getTransactionIsolation(), mode + " " + level);
                    }
                }
            }
            assertThrows(IllegalArgumentException.class, () -> db.connect(IsolationLevel.SNAPSHOT, "mvcc"));
            assertThrows(IllegalArgumentException.class, () -> db.connect(IsolationLevel.READ_COMMITTED, "optimistic"));
        }
    }

    @Test
    void setupSqlAndBeginRunInTheEngine() throws Exception {
        try (Database db = target.freshDatabase(); Connection c = db.connect(IsolationLevel.READ_COMMITTED, "mvcc")) {
            for (String sql : target.sessionSetupSql(IsolationLevel.REPEATABLE_READ, "locks")) {
                exec(c, sql);
            }
            assertEquals(Connection.TRANSACTION_REPEATABLE_READ, c.getTransactionIsolation());
            exec(c, target.beginSql());
            assertTrue(!c.getAutoCommit());
        }
    }

    @Test
    void errorsAreClassifiedByCode() throws Exception {
        try (Database db = target.freshDatabase(); Connection c = table(db, IsolationLevel.READ_COMMITTED, "mvcc")) {
            exec(c, "CREATE TABLE p(id INT PRIMARY KEY)",
                    "CREATE TABLE ch(id INT PRIMARY KEY, pid INT REFERENCES p(id), n INT NOT NULL, c INT CHECK (c > 0))");
            for (String sql : List.of("INSERT INTO t VALUES (1, 5)", "INSERT INTO ch VALUES (1, 9, 1, 1)",
                    "INSERT INTO ch VALUES (1, NULL, NULL, 1)", "INSERT INTO ch VALUES (1, NULL, 1, 0)")) {
                assertEquals(ErrorClass.CONSTRAINT, target.classify(error(c, sql)), sql);
            }
            for (String sql : List.of("SELEC 1", "SELECT * FROM nosuch", "SELECT nosuch FROM t", "INSERT INTO t VALUES (3, 1) ON CONFLICT DO NOTHING")) {
                assertEquals(ErrorClass.INVALID_STATEMENT, target.classify(error(c, sql)), sql);
            }
            for (String sql : List.of("SELECT 1 / 0 FROM t", "SELECT CAST('x' AS INT) FROM t")) {
                assertEquals(ErrorClass.DATA, target.classify(error(c, sql)), sql);
            }
        }
        // what cannot be provoked on purpose: HSQLDB's "General error" wraps exceptions from inside the engine
        assertEquals(ErrorClass.INTERNAL, target.classify(new SQLException("General error: java.lang.NullPointerException", "S1000", -458)));
    }

    @Test
    void mvccRepeatableReadFailsTheSecondWriterAtOnceAndRollsItsTransactionBack() throws Exception {
        try (Database db = target.freshDatabase(); Connection a = table(db, IsolationLevel.REPEATABLE_READ, "mvcc");
             Connection b = db.connect(IsolationLevel.REPEATABLE_READ, "mvcc")) {
            target.begin(a);
            target.begin(b);
            exec(b, "UPDATE t SET v = 20 WHERE id = 2");
            exec(a, "UPDATE t SET v = 1 WHERE id = 1");
            SQLException e = error(b, "UPDATE t SET v = 2 WHERE id = 1");
            assertEquals(ErrorClass.SERIALIZATION, target.classify(e), e.getMessage());
            assertEquals(AbortScope.TRANSACTION, target.abortScope(target.classify(e)));
            target.rollback(b); // what the executor sends; harmless after HSQLDB's own rollback
            target.commit(a);
            assertEquals(List.of(List.of("1", "1"), List.of("2", "0")), rows(a, "SELECT * FROM t ORDER BY id"), "b's first update is gone too");
        }
    }

    @Test
    void aConstraintErrorUndoesOnlyItsStatement() throws Exception {
        try (Database db = target.freshDatabase(); Connection c = table(db, IsolationLevel.READ_COMMITTED, "mvcc")) {
            target.begin(c);
            exec(c, "UPDATE t SET v = 7 WHERE id = 2");
            assertEquals(AbortScope.STATEMENT, target.abortScope(target.classify(error(c, "INSERT INTO t VALUES (1, 1)"))));
            target.commit(c);
            assertEquals("7", value(c, "SELECT v FROM t WHERE id = 2"));
        }
    }

    /** A updates row 1 and holds it; B's update of row 1 from another thread waits for A. */
    @ParameterizedTest
    @ValueSource(strings = {"mvcc", "locks", "mvlocks"})
    void theProbeSeesAWriterWaitForAnotherAndNamesTheBlocker(String mode) throws Exception {
        try (Database db = target.freshDatabase(); Connection a = table(db, IsolationLevel.READ_COMMITTED, mode);
             Connection b = db.connect(IsolationLevel.READ_COMMITTED, mode); LockProbe probe = db.lockProbe().orElseThrow()) {
            String ida = db.sessionId(a);
            String idb = db.sessionId(b);
            target.begin(a);
            target.begin(b);
            exec(a, "UPDATE t SET v = 1 WHERE id = 1");
            assertEquals(Optional.empty(), probe.waitsFor(ida));
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

    /** Crossing writes: the session whose wait would close the cycle fails at once with 40001. */
    @ParameterizedTest
    @ValueSource(strings = {"mvcc", "locks"})
    void aDeadlockFailsOneSideAndTheOtherGoesOn(String mode) throws Exception {
        try (Database db = target.freshDatabase(); Connection a = table(db, IsolationLevel.READ_COMMITTED, mode);
             Connection b = db.connect(IsolationLevel.READ_COMMITTED, mode); LockProbe probe = db.lockProbe().orElseThrow()) {
            // LOCKS locks whole tables, so the two resources are two tables
            exec(a, "CREATE TABLE u(id INT PRIMARY KEY, v INT)", "INSERT INTO u VALUES (1, 0), (2, 0)");
            String second = mode.equals("locks") ? "u" : "t";
            int secondRow = mode.equals("locks") ? 1 : 2;
            String ida = db.sessionId(a);
            String idb = db.sessionId(b);
            target.begin(a);
            target.begin(b);
            exec(a, "UPDATE t SET v = 1 WHERE id = 1");
            exec(b, "UPDATE " + second + " SET v = 2 WHERE id = " + secondRow);
            CompletableFuture<SQLException> aWaits = async(a, "UPDATE " + second + " SET v = 1 WHERE id = " + secondRow);
            assertEquals(Optional.of(Set.of(idb)), awaitWaiting(probe, ida, SOON));
            SQLException victim = error(b, "UPDATE t SET v = 2 WHERE id = 1");
            assertEquals(ErrorClass.SERIALIZATION, target.classify(victim), victim.getMessage());
            assertNull(outcome(aWaits, SOON), "b's abort releases a");
            target.rollback(b);
            target.commit(a);
            assertEquals("1", value(a, "SELECT v FROM " + second + " WHERE id = " + secondRow));
        }
    }

    @Test
    void lockProbeIsCheap() throws Exception {
        try (Database db = target.freshDatabase(); Connection a = table(db, IsolationLevel.READ_COMMITTED, "mvcc");
             LockProbe probe = db.lockProbe().orElseThrow()) {
            String id = db.sessionId(a);
            probe.waitsFor(id);
            long t0 = System.nanoTime();
            for (int i = 0; i < 200; i++) {
                probe.waitsFor(id);
            }
            long perCallMicros = (System.nanoTime() - t0) / 200 / 1000;
            assertTrue(perCallMicros < 5_000, "probe takes " + perCallMicros + " µs");
        }
    }

    @Test
    void closingReleasesABlockedSession() throws Exception {
        Database db = target.freshDatabase();
        Connection a = table(db, IsolationLevel.READ_COMMITTED, "locks");
        Connection b = db.connect(IsolationLevel.READ_COMMITTED, "locks");
        LockProbe probe = db.lockProbe().orElseThrow();
        String idb = db.sessionId(b);
        target.begin(a);
        target.begin(b);
        exec(a, "UPDATE t SET v = 1 WHERE id = 1");
        CompletableFuture<SQLException> blocked = async(b, "UPDATE t SET v = 2 WHERE id = 1");
        assertTrue(awaitWaiting(probe, idb, SOON).isPresent());
        db.close();
        SQLException e = outcome(blocked, SOON);
        assertTrue(e == null || target.classify(e) == ErrorClass.CONNECTION_LOST, String.valueOf(e));
    }

    @Test
    void idsParseHsqldbLists() {
        assertEquals(List.of(), HsqldbTarget.ids(null));
        assertEquals(List.of(), HsqldbTarget.ids(""));
        assertEquals(List.of("4"), HsqldbTarget.ids("4"));
        assertEquals(List.of("4", "5"), HsqldbTarget.ids("4,5"));
        assertEquals(List.of("4", "5"), HsqldbTarget.ids(" 4, 5 "));
    }
}
