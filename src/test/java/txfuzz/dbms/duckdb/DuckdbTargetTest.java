package txfuzz.dbms.duckdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static txfuzz.dbms.EngineTests.error;
import static txfuzz.dbms.EngineTests.exec;
import static txfuzz.dbms.EngineTests.processThreads;
import static txfuzz.dbms.EngineTests.rows;
import static txfuzz.dbms.EngineTests.value;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.AbortScope;
import txfuzz.dbms.Database;
import txfuzz.dbms.Feature;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Targets;

class DuckdbTargetTest {
    private static final IsolationLevel SI = IsolationLevel.SNAPSHOT;
    private static DuckdbTarget target;

    @BeforeAll
    static void start() {
        target = (DuckdbTarget) Targets.create("duckdb");
    }

    @AfterAll
    static void stop() {
        target.close();
    }

    private static Connection table(Database db) throws SQLException {
        Connection c = db.connect(SI, "default");
        exec(c, "CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)");
        return c;
    }

    @Test
    void describesItself() {
        assertTrue(target.version().startsWith("DuckDB " + DuckdbEngine.bundledVersion()), target.version());
        assertEquals(List.of(SI), target.isolationLevels());
        assertEquals(SI, target.defaultIsolationLevel());
        assertFalse(target.profile().at(SI).serializableReads());
        assertFalse(target.dialect().has(Feature.FOREIGN_KEY));
    }

    @Test
    void freshDatabasesAreIndependentAndClosingClosesThem() throws Exception {
        Database a = target.freshDatabase();
        Connection ca = table(a);
        Connection ca2 = a.connect(SI, "default");
        assertEquals("2", value(ca2, "SELECT COUNT(*) FROM t"), "sessions of one database share it");
        try (Database b = target.freshDatabase(); Connection cb = b.connect(SI, "default")) {
            assertEquals(ErrorClass.INVALID_STATEMENT, target.classify(error(cb, "SELECT * FROM t")), "b must not see a's table");
        }
        a.close();
        assertTrue(ca.isClosed() && ca2.isClosed());
        assertEquals(ErrorClass.CONNECTION_LOST, target.classify(error(ca, "SELECT * FROM t")));
    }

    @Test
    void manyDatabasesLeaveNoThreadsBehind() throws Exception {
        target.freshDatabase().close();
        int before = processThreads();
        for (int i = 0; i < 20; i++) {
            try (Database db = target.freshDatabase(); Connection c = table(db); Connection d = db.connect(SI, "default")) {
                exec(d, "UPDATE t SET v = 1");
            }
        }
        int after = processThreads();
        assertTrue(after <= before + 2, before + " native threads before, " + after + " after");
    }

    @Test
    void setupSqlRunsInTheEngine() throws Exception {
        try (Database db = target.freshDatabase(); Connection c = db.connect(SI, "default")) {
            for (String sql : target.sessionSetupSql(SI, "default")) {
                exec(c, sql);
            }
            exec(c, target.beginSql());
            exec(c, "COMMIT");
            assertThrows(IllegalArgumentException.class, () -> db.connect(IsolationLevel.READ_COMMITTED, "default"));
        }
    }

    @Test
    void errorsAreClassifiedByTheirEngineType() throws Exception {
        try (Database db = target.freshDatabase(); Connection c = table(db)) {
            exec(c, "CREATE TABLE ch(id INT PRIMARY KEY, n INT NOT NULL, c INT CHECK (c > 0), u INT UNIQUE, s VARCHAR(10))",
                    "INSERT INTO ch VALUES (5, 1, 1, 1, 'a')");
            for (String sql : List.of("INSERT INTO t VALUES (1, 5)", "INSERT INTO ch VALUES (1, NULL, 1, 2, 'b')",
                    "INSERT INTO ch VALUES (1, 1, 0, 2, 'b')", "INSERT INTO ch VALUES (1, 1, 1, 1, 'b')")) {
                assertEquals(ErrorClass.CONSTRAINT, target.classify(error(c, sql)), sql);
            }
            for (String sql : List.of("SELEC 1", "SELECT * FROM nosuch", "SELECT nosuch FROM t", "SELECT * FROM t FOR UPDATE",
                    "REPLACE INTO t VALUES (3, 3)")) {
                assertEquals(ErrorClass.INVALID_STATEMENT, target.classify(error(c, sql)), sql);
            }
            for (String sql : List.of("SELECT CAST(s AS INT) FROM ch", "SELECT 2147483647::INT + v + 1 FROM t")) {
                assertEquals(ErrorClass.DATA, target.classify(error(c, sql)), sql);
            }
            assertEquals(ErrorClass.OTHER, target.classify(error(c, "COMMIT")), "no transaction is active");
        }
        assertEquals(ErrorClass.INTERNAL, target.classify(new SQLException("INTERNAL Error: Attempted to access index 3 within vector of size 3")));
        assertEquals(ErrorClass.CONNECTION_LOST,
                target.classify(new SQLException("FATAL Error: Failed: database has been invalidated because of a previous fatal error.")));
    }

    @Test
    void aConflictingUpdateFailsAtOnceAndAbortsTheTransaction() throws Exception {
        try (Database db = target.freshDatabase(); Connection a = table(db); Connection b = db.connect(SI, "default")) {
            assertEquals(Optional.empty(), db.lockProbe());
            target.begin(a);
            target.begin(b);
            exec(b, "UPDATE t SET v = 20 WHERE id = 2");
            exec(a, "UPDATE t SET v = 1 WHERE id = 1");
            SQLException conflict = error(b, "UPDATE t SET v = 2 WHERE id = 1"); // a has not committed yet
            assertEquals(ErrorClass.SERIALIZATION, target.classify(conflict), conflict.getMessage());
            assertEquals(AbortScope.TRANSACTION, target.abortScope(ErrorClass.SERIALIZATION));
            SQLException after = error(b, "SELECT 1");
            assertEquals(ErrorClass.IN_FAILED_TRANSACTION, target.classify(after), after.getMessage());
            target.rollback(b);
            target.commit(a);
            assertEquals(List.of(List.of("1", "1"), List.of("2", "0")), rows(b, "SELECT * FROM t ORDER BY id"), "b's first update is gone");
        }
    }

    /** DuckDB's own COMMIT returns normally on an aborted transaction; the adapter must not. */
    @Test
    void committingAnAbortedTransactionThrowsAndCommitsNothing() throws Exception {
        try (Database db = target.freshDatabase(); Connection a = table(db); Connection b = db.connect(SI, "default")) {
            target.begin(a);
            target.begin(b);
            exec(b, "UPDATE t SET v = 20 WHERE id = 2");
            exec(a, "UPDATE t SET v = 1 WHERE id = 1");
            error(b, "UPDATE t SET v = 2 WHERE id = 1");
            target.commit(a);
            SQLException refused = assertThrows(SQLException.class, () -> target.commit(b));
            assertEquals(ErrorClass.IN_FAILED_TRANSACTION, target.classify(refused), refused.getMessage());
            assertEquals(AbortScope.TRANSACTION, target.abortScope(target.classify(refused)));
            assertTrue(b.getAutoCommit(), "the session is usable again");
            assertEquals("0", value(b, "SELECT v FROM t WHERE id = 2"));
        }
    }

    @Test
    void concurrentInsertsOfOneKeyFailAtTheSecondCommit() throws Exception {
        try (Database db = target.freshDatabase(); Connection a = table(db); Connection b = db.connect(SI, "default")) {
            target.begin(a);
            target.begin(b);
            exec(a, "INSERT INTO t VALUES (3, 1)");
            exec(b, "INSERT INTO t VALUES (3, 2)");
            target.commit(a);
            SQLException e = assertThrows(SQLException.class, () -> target.commit(b));
            assertEquals(ErrorClass.SERIALIZATION, target.classify(e), e.getMessage());
            assertEquals("1", value(a, "SELECT v FROM t WHERE id = 3"));
        }
    }

    /** Unlike the other engines, DuckDB aborts the transaction on a constraint or data error too. */
    @Test
    void aConstraintOrDataErrorAbortsTheTransactionButASyntaxErrorDoesNot() throws Exception {
        try (Database db = target.freshDatabase(); Connection c = table(db)) {
            target.begin(c);
            exec(c, "UPDATE t SET v = 7 WHERE id = 2");
            assertEquals(AbortScope.STATEMENT, target.abortScope(target.classify(error(c, "SELEC 1"))));
            assertEquals("7", value(c, "SELECT v FROM t WHERE id = 2"), "still in the transaction");
            ErrorClass constraint = target.classify(error(c, "INSERT INTO t VALUES (1, 1)"));
            assertEquals(AbortScope.TRANSACTION, target.abortScope(constraint));
            assertEquals(ErrorClass.IN_FAILED_TRANSACTION, target.classify(error(c, "SELECT 1")));
            target.rollback(c);
            assertEquals("0", value(c, "SELECT v FROM t WHERE id = 2"));
            assertEquals(AbortScope.TRANSACTION, target.abortScope(ErrorClass.DATA));
        }
    }

    @Test
    void theDialectsStatementsRun() throws Exception {
        try (Database db = target.freshDatabase(); Connection c = table(db)) {
            exec(c, "CREATE TABLE s(k INT PRIMARY KEY, w INT)", "INSERT INTO s VALUES (1, 5), (3, 7)",
                    "INSERT INTO t (id, v) VALUES (2, 9) ON CONFLICT (id) DO UPDATE SET v = excluded.v",
                    "MERGE INTO t USING s x ON (t.id = x.k) WHEN MATCHED THEN UPDATE SET v = x.w WHEN NOT MATCHED THEN INSERT (id, v) VALUES (x.k, x.w)",
                    "CREATE TABLE d(x DOUBLE PRECISION, s VARCHAR(10))");
            assertEquals(List.of(List.of("1", "5"), List.of("2", "9"), List.of("3", "7")), rows(c, "SELECT * FROM t ORDER BY id"));
            rows(c, "SELECT * FROM t FULL JOIN s ON t.id = s.k");
        }
    }
}
