package txfuzz.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import txfuzz.dbms.Database;
import txfuzz.dbms.h2.H2Target;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;

/** A serial run hands a free session to its next transaction; anything that could tell the difference keeps sessions apart. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RunSessionsTest {
    private static Cases threeReadingTheirSession(String lastRead) {
        return Cases.on("h2").table("t").setup("CREATE TABLE t (k INT PRIMARY KEY)")
                .autocommit("SELECT SESSION_ID()").autocommit("SELECT SESSION_ID()").txn(lastRead);
    }

    /** The engine's session id each transaction's SELECT returned, in transaction order. */
    private static List<String> sessionIds(Trace trace, TestCase c) {
        return c.transactions().stream().map(t -> new StmtRef(t.id(), t.explicit() ? 1 : 0))
                .map(ref -> trace.executed(ref).orElseThrow().result().rows().get(0).get(0)).toList();
    }

    @Test
    void aSerialRunsNextTransactionRunsOnTheFreeSessionOfItsLevel() throws Exception {
        try (H2Target h2 = new H2Target(); Executor ex = new Executor(h2, ExecutorConfig.defaults())) {
            TestCase serial = threeReadingTheirSession("SELECT SESSION_ID()").order(1, 2, 3, 3, 3);
            List<String> ids = sessionIds(ex.run(serial), serial);
            assertEquals(1, ids.stream().distinct().count(), "one session for the serial run: " + ids);
        }
    }

    @Test
    void aConcurrentRunOpensASessionPerTransaction() throws Exception {
        try (H2Target h2 = new H2Target(); Executor ex = new Executor(h2, ExecutorConfig.defaults())) {
            TestCase interleaved = Cases.on("h2").table("t").setup("CREATE TABLE t (k INT PRIMARY KEY)")
                    .txn("SELECT SESSION_ID()").txn("SELECT SESSION_ID()").order(1, 2, 1, 2, 1, 2);
            List<String> ids = sessionIds(ex.run(interleaved), interleaved);
            assertEquals(2, ids.stream().distinct().count(), ids.toString());
        }
    }

    @Test
    void aStatementThatReadsAValueOfItsSessionKeepsEveryTransactionOnASessionOfItsOwn() throws Exception {
        try (H2Target h2 = new H2Target(); Executor ex = new Executor(h2, ExecutorConfig.defaults())) {
            TestCase serial = threeReadingTheirSession("SELECT SESSION_ID() + COALESCE(@v, 0)").order(1, 2, 3, 3, 3);
            List<String> ids = sessionIds(ex.run(serial), serial);
            assertEquals(3, ids.stream().distinct().count(), "a session each: " + ids);
        }
    }

    @Test
    void whatDependsOnASessionIsToldFromItsText() {
        for (String sql : List.of("SELECT currval('s')", "INSERT INTO t VALUES (LAST_INSERT_ID())", "SELECT @v", "SELECT @@identity",
                "SELECT IDENTITY()")) {
            assertTrue(Stmt.of(StmtKind.SELECT, sql).dependsOnSession(), sql);
        }
        assertTrue(Stmt.of(StmtKind.OTHER, "SET @v = 1").dependsOnSession());
        assertFalse(Stmt.of(StmtKind.UPDATE, "UPDATE t SET c = c + 1 WHERE k = 2").dependsOnSession());
        assertFalse(Stmt.of(StmtKind.SELECT, "SELECT c FROM t WHERE c <> 'identity'").dependsOnSession());
    }

    @Test
    void aSessionInATransactionOrCancelledIsNotHandedOn() throws Exception {
        try (H2Target h2 = new H2Target(); Database db = h2.freshDatabase()) {
            TestCase serial = threeReadingTheirSession("SELECT SESSION_ID()").order(1, 2, 3, 3, 3);
            RunSessions sessions = new RunSessions(h2, db, serial, true);
            assertTrue(sessions.shared());
            List<Txn> txns = serial.transactions();
            Session first = sessions.sessionFor(txns.get(0));
            assertSame(first, sessions.sessionFor(txns.get(1)), "free: handed on");

            assertFalse(first.execute(Stmt.begin()).failed());
            Session whileOpen = sessions.sessionFor(txns.get(1));
            assertNotSame(first, whileOpen, "its transaction is still open");
            assertFalse(first.execute(Stmt.commit()).failed());
            assertTrue(first.freeForAnotherTransaction(), "ended: free again");

            whileOpen.cancel(false);
            assertFalse(whileOpen.freeForAnotherTransaction(), "a cancelled session is never handed on");
            Session after = sessions.sessionFor(txns.get(2));
            assertNotSame(whileOpen, after);
            assertEquals(3, sessions.all().size());
            assertNotEquals(whileOpen.engineId(), after.engineId());
            sessions.all().forEach(Session::close);
        }
    }

    @Test
    void aConcurrentRunsSessionsAreNeverShared() throws Exception {
        try (H2Target h2 = new H2Target(); Database db = h2.freshDatabase()) {
            TestCase serial = threeReadingTheirSession("SELECT SESSION_ID()").order(1, 2, 3, 3, 3);
            RunSessions sessions = new RunSessions(h2, db, serial, false);
            assertFalse(sessions.shared());
            Session first = sessions.sessionFor(serial.transactions().get(0));
            assertNotSame(first, sessions.sessionFor(serial.transactions().get(1)));
            sessions.all().forEach(Session::close);
        }
    }
}
