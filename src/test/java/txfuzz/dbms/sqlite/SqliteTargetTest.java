package txfuzz.dbms.sqlite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static txfuzz.dbms.EngineTests.error;
import static txfuzz.dbms.EngineTests.exec;
import static txfuzz.dbms.EngineTests.rows;
import static txfuzz.dbms.EngineTests.value;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.AbortScope;
import txfuzz.dbms.Database;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Targets;

class SqliteTargetTest {
    private static final IsolationLevel SER = IsolationLevel.SERIALIZABLE;
    private static SqliteTarget target;

    @BeforeAll
    static void start() {
        target = (SqliteTarget) Targets.create("sqlite");
    }

    @AfterAll
    static void stop() {
        target.close();
    }

    private static Connection table(Database db, String mode) throws SQLException {
        Connection c = db.connect(SER, mode);
        exec(c, "CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)");
        return c;
    }

    private static Path file(Connection c) throws SQLException {
        return Path.of(value(c, "SELECT file FROM pragma_database_list WHERE name = 'main'"));
    }

    @Test
    void describesItself() {
        assertTrue(target.version().startsWith("SQLite 3."), target.version());
        assertEquals(List.of(SER), target.isolationLevels());
        assertEquals(SER, target.defaultIsolationLevel());
        assertEquals(List.of("deferred", "immediate"), target.modes());
        target.profile().at(SER);
        assertEquals("BEGIN IMMEDIATE", target.beginSql("immediate"));
    }

    @Test
    void eachDatabaseIsItsOwnWalFileAndClosingDeletesIt() throws Exception {
        Database a = target.freshDatabase();
        Connection ca = table(a, "deferred");
        Path fa = file(ca);
        try (Database b = target.freshDatabase(); Connection cb = b.connect(SER, "deferred")) {
            assertEquals(ErrorClass.INVALID_STATEMENT, target.classify(error(cb, "SELECT * FROM t")), "b must not see a's table");
            assertFalse(fa.equals(file(cb)));
        }
        assertEquals("wal", value(ca, "PRAGMA journal_mode"));
        assertEquals("0", value(ca, "PRAGMA busy_timeout"));
        assertEquals("1", value(ca, "PRAGMA foreign_keys"));
        assertEquals("0", value(ca, "PRAGMA synchronous"));
        assertTrue(Files.exists(fa));
        a.close();
        assertTrue(ca.isClosed());
        assertFalse(Files.exists(fa), "closing deletes the file");
        assertFalse(Files.exists(Path.of(fa + "-wal")));
        assertFalse(Files.exists(Path.of(fa + "-shm")));
    }

    @Test
    void closingTheTargetDeletesItsDirectory() throws Exception {
        Path dir;
        try (SqliteTarget own = new SqliteTarget(); Database db = own.freshDatabase(); Connection c = db.connect(SER, "deferred")) {
            dir = file(c).getParent();
            assertTrue(Files.isDirectory(dir));
            db.close();
            own.close();
        }
        assertFalse(Files.exists(dir));
    }

    @Test
    void setupSqlRunsInTheEngine() throws Exception {
        try (Database db = target.freshDatabase(); Connection c = db.connect(SER, "deferred")) {
            for (String sql : target.sessionSetupSql(SER, "deferred")) {
                exec(c, sql);
            }
            exec(c, target.beginSql());
            exec(c, "COMMIT");
        }
    }

    @Test
    void errorsAreClassifiedByResultCode() throws Exception {
        try (Database db = target.freshDatabase(); Connection c = table(db, "deferred")) {
            exec(c, "CREATE TABLE p(id INT PRIMARY KEY)",
                    "CREATE TABLE ch(id INT PRIMARY KEY, pid INT REFERENCES p(id), n INT NOT NULL, c INT CHECK (c > 0), u INT UNIQUE)",
                    "CREATE TABLE ip(id INTEGER PRIMARY KEY)",
                    "INSERT INTO ch VALUES (5, NULL, 1, 1, 1)");
            for (String sql : List.of("INSERT INTO t VALUES (1, 5)", "INSERT INTO ch VALUES (1, 9, 1, 1, 2)",
                    "INSERT INTO ch VALUES (1, NULL, NULL, 1, 2)", "INSERT INTO ch VALUES (1, NULL, 1, 0, 2)", "INSERT INTO ch VALUES (1, NULL, 1, 1, 1)")) {
                assertEquals(ErrorClass.CONSTRAINT, target.classify(error(c, sql)), sql);
            }
            for (String sql : List.of("SELEC 1", "SELECT * FROM nosuch", "SELECT nosuch FROM t", "SELECT * FROM t FOR UPDATE",
                    "MERGE INTO t USING p ON (t.id = p.id) WHEN MATCHED THEN DELETE")) {
                assertEquals(ErrorClass.INVALID_STATEMENT, target.classify(error(c, sql)), sql);
            }
            for (String sql : List.of("SELECT abs(-9223372036854775808)", "SELECT sum(x) FROM (SELECT 9223372036854775807 AS x UNION ALL SELECT 1)",
                    "INSERT INTO ip VALUES ('abc')")) {
                assertEquals(ErrorClass.DATA, target.classify(error(c, sql)), sql);
            }
            assertEquals(ErrorClass.OTHER, target.classify(error(c, "COMMIT")), "no transaction is active");
        }
        assertEquals(ErrorClass.INTERNAL, target.classify(new SQLiteException("[SQLITE_CORRUPT] database disk image is malformed", SQLiteErrorCode.SQLITE_CORRUPT)));
        assertEquals(ErrorClass.INTERNAL, target.classify(new SQLiteException("[SQLITE_IOERR_SHORT_READ]", SQLiteErrorCode.SQLITE_IOERR_SHORT_READ)));
    }

    @Test
    void aClosedConnectionIsLost() throws Exception {
        Database db = target.freshDatabase();
        Connection c = table(db, "deferred");
        db.close();
        assertEquals(ErrorClass.CONNECTION_LOST, target.classify(error(c, "SELECT * FROM t")));
    }

    @Test
    void aSecondWriterFailsAtOnceWithBusyAndItsTransactionStaysOpenForRollback() throws Exception {
        try (Database db = target.freshDatabase(); Connection a = table(db, "deferred"); Connection b = db.connect(SER, "deferred")) {
            assertEquals(Optional.empty(), db.lockProbe());
            target.begin(a);
            target.begin(b);
            exec(a, "UPDATE t SET v = 1 WHERE id = 1");
            long t0 = System.nanoTime();
            SQLException busy = error(b, "UPDATE t SET v = 2 WHERE id = 2");
            assertTrue(System.nanoTime() - t0 < 1_000_000_000L, "no waiting");
            assertEquals(ErrorClass.BUSY, target.classify(busy), busy.getMessage());
            assertEquals(AbortScope.TRANSACTION, target.abortScope(ErrorClass.BUSY));
            assertEquals("0", value(b, "SELECT v FROM t WHERE id = 1"), "b is still in its transaction, reading");
            target.rollback(b); // what the executor sends: accepted, the transaction was open
            target.commit(a);
            assertEquals(List.of(List.of("1", "1"), List.of("2", "0")), rows(b, "SELECT * FROM t ORDER BY id"));
        }
    }

    @Test
    void aStaleReaderThatWritesGetsBusySnapshot() throws Exception {
        try (Database db = target.freshDatabase(); Connection a = table(db, "deferred"); Connection b = db.connect(SER, "deferred")) {
            target.begin(a);
            assertEquals("0", value(a, "SELECT v FROM t WHERE id = 1")); // a's snapshot starts here
            exec(b, "UPDATE t SET v = 5 WHERE id = 2"); // autocommit
            assertEquals("0", value(a, "SELECT v FROM t WHERE id = 2"), "a keeps its snapshot");
            SQLException stale = error(a, "UPDATE t SET v = 1 WHERE id = 1");
            assertEquals(ErrorClass.BUSY, target.classify(stale));
            assertTrue(stale instanceof SQLiteException se && se.getResultCode() == SQLiteErrorCode.SQLITE_BUSY_SNAPSHOT, stale.getMessage());
            target.rollback(a);
        }
    }

    @Test
    void immediateModeTakesTheWriteLockAtBegin() throws Exception {
        try (Database db = target.freshDatabase(); Connection a = table(db, "immediate"); Connection b = db.connect(SER, "immediate")) {
            target.begin(a);
            SQLException busy = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class, () -> target.begin(b));
            assertEquals(ErrorClass.BUSY, target.classify(busy));
            target.commit(a);
            target.begin(b); // free again after a's COMMIT
            target.rollback(b);
        }
    }

    @Test
    void aConstraintErrorUndoesOnlyItsStatement() throws Exception {
        try (Database db = target.freshDatabase(); Connection c = table(db, "deferred")) {
            target.begin(c);
            exec(c, "UPDATE t SET v = 7 WHERE id = 2");
            assertEquals(AbortScope.STATEMENT, target.abortScope(target.classify(error(c, "INSERT INTO t VALUES (1, 1)"))));
            target.commit(c);
            assertEquals("7", value(c, "SELECT v FROM t WHERE id = 2"));
        }
    }

    @Test
    void theDialectsUpsertsRun() throws Exception {
        try (Database db = target.freshDatabase(); Connection c = table(db, "deferred")) {
            exec(c, "INSERT INTO t (id, v) VALUES (1, 9) ON CONFLICT (id) DO UPDATE SET v = excluded.v",
                    "INSERT INTO t (id, v) VALUES (2, 9) ON CONFLICT (id) DO NOTHING",
                    "REPLACE INTO t (id, v) VALUES (3, 3)",
                    "CREATE TABLE d(x DOUBLE PRECISION, s VARCHAR(10))");
            assertEquals(List.of(List.of("1", "9"), List.of("2", "0"), List.of("3", "3")), rows(c, "SELECT * FROM t ORDER BY id"));
        }
    }
}
