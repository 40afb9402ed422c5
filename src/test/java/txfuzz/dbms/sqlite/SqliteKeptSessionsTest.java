package txfuzz.dbms.sqlite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static txfuzz.dbms.EngineTests.exec;
import static txfuzz.dbms.EngineTests.value;

import java.sql.Connection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import txfuzz.dbms.Database;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.StmtResult;
import txfuzz.exec.Trace;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;

/**
 * A run gets the sessions an earlier run of its file closed only where they answer as new ones: not after a session set
 * what a connection keeps (a pragma, its transaction), not to a run that reads what a connection counts, and never across
 * a schema change.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SqliteKeptSessionsTest {
    private SqliteTarget target;
    private Executor executor;

    @BeforeEach
    void start() {
        target = (SqliteTarget) Targets.create("sqlite");
        executor = new Executor(target, ExecutorConfig.defaults());
    }

    @AfterEach
    void stop() throws Exception {
        executor.close();
        target.close();
    }

    private static final String[] PARENT_CHILD = {"CREATE TABLE p(id INT PRIMARY KEY, v INT)", "CREATE TABLE c(id INT PRIMARY KEY, p INT REFERENCES p(id))",
            "INSERT INTO p VALUES (1, 10)"};

    private static Cases parentChild() {
        return Cases.on("sqlite").level(IsolationLevel.SERIALIZABLE).table("p").table("c").setup(PARENT_CHILD);
    }

    /** What the statement {@code sql} of {@code c} gave in {@code t}. */
    private static StmtResult resultOf(TestCase c, Trace t, String sql) {
        for (ExecutedStmt e : t.schedule()) {
            if (c.stmt(e.ref()).sql().equals(sql)) {
                return e.result();
            }
        }
        throw new AssertionError("not run: " + sql);
    }

    @Test
    void aCasesNextRunGetsTheSessionsItsLastRunClosed() throws Exception {
        TestCase c = parentChild().txn("UPDATE p SET v = v + 1").txn("SELECT v FROM p").order(1, 1, 1, 2, 2, 2);
        Trace first = executor.run(c);
        long[] before = target.sessionCounts();
        Trace second = executor.run(c);
        long[] after = target.sessionCounts();
        assertEquals(before[0], after[0], "no session opened for the second run");
        assertTrue(after[1] - before[1] >= 3, "setup, both transactions' sessions and the state read handed out again: " + (after[1] - before[1]));
        assertEquals(first.finalState(), second.finalState());
        assertEquals(resultOf(c, first, "SELECT v FROM p"), resultOf(c, second, "SELECT v FROM p"));
    }

    /** PRAGMA foreign_keys = OFF lasts as long as its connection: a session that ran it is closed, not kept. */
    @Test
    void aSessionThatSetAPragmaIsNotKept() throws Exception {
        TestCase off = parentChild().autocommit("PRAGMA foreign_keys = OFF").autocommit("PRAGMA foreign_keys = OFF")
                .autocommit("PRAGMA foreign_keys = OFF").order(1, 2, 3);
        executor.run(off);
        TestCase orphan = parentChild().autocommit("INSERT INTO c VALUES (1, 99)").autocommit("INSERT INTO c VALUES (2, 98)").order(1, 2);
        Trace t = executor.run(orphan);
        assertEquals(ErrorClass.CONSTRAINT, resultOf(orphan, t, "INSERT INTO c VALUES (1, 99)").errorClass());
        assertEquals(ErrorClass.CONSTRAINT, resultOf(orphan, t, "INSERT INTO c VALUES (2, 98)").errorClass());
    }

    /** last_insert_rowid() is the connection's: a run that reads it gets new sessions. */
    @Test
    void aRunThatReadsTheLastRowidGetsNewSessions() throws Exception {
        executor.run(parentChild().autocommit("INSERT INTO p VALUES (2, 20)").autocommit("INSERT INTO p VALUES (3, 30)").order(1, 2));
        TestCase read = parentChild().autocommit("SELECT last_insert_rowid()").autocommit("SELECT last_insert_rowid() + 0").order(1, 2);
        Trace t = executor.run(read);
        assertEquals(List.of(List.of("0")), resultOf(read, t, "SELECT last_insert_rowid()").rows());
        assertEquals(List.of(List.of("0")), resultOf(read, t, "SELECT last_insert_rowid() + 0").rows());
    }

    /** A session closed inside a transaction is closed for good (its transaction rolled back), not handed out again. */
    @Test
    void aSessionClosedInATransactionIsNotKept() throws Exception {
        TestCase c = parentChild().txn("SELECT v FROM p").order(1, 1, 1);
        try (Database db = target.freshDatabase()) {
            db.willRun(c);
            Connection open = db.connect(IsolationLevel.SERIALIZABLE, "deferred");
            exec(open, "CREATE TABLE t(a INT)", "BEGIN IMMEDIATE", "INSERT INTO t VALUES (1)");
            open.close();
            try (Connection next = db.connect(IsolationLevel.SERIALIZABLE, "deferred")) {
                exec(next, "BEGIN IMMEDIATE");
                assertEquals("0", value(next, "SELECT COUNT(*) FROM t"));
                exec(next, "COMMIT");
            }
        }
    }

    /**
     * A connection that read a schema another connection then changed refuses an upsert the new schema allows
     * (SQLite 3.54.1: "ON CONFLICT clause does not match any PRIMARY KEY or UNIQUE constraint"), where a new connection
     * runs it: kept sessions are closed when the file is reset for another case's tables.
     */
    @Test
    void noSessionIsKeptAcrossASchemaChange() throws Exception {
        Cases plain = Cases.on("sqlite").level(IsolationLevel.SERIALIZABLE).table("t0").setup("CREATE TABLE t0(c0 INT, c2 INT)");
        executor.run(plain.txn("SELECT * FROM t0").txn("SELECT c0 FROM t0").txn("SELECT c2 FROM t0").order(1, 1, 1, 2, 2, 2, 3, 3, 3));
        String upsert = "INSERT INTO t0 VALUES (3, 3) ON CONFLICT (c2) DO UPDATE SET c0 = 5";
        TestCase unique = Cases.on("sqlite").level(IsolationLevel.SERIALIZABLE).table("t0").setup("CREATE TABLE t0(c0 INT, c2 INT, UNIQUE (c2))")
                .autocommit(upsert).autocommit(upsert).autocommit(upsert).order(1, 2, 3);
        Trace t = executor.run(unique);
        for (ExecutedStmt e : t.schedule()) {
            assertNull(e.result().error(), e.ref() + ": " + e.result().error());
        }
    }
}
