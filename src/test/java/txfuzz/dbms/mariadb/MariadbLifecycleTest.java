package txfuzz.dbms.mariadb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static txfuzz.dbms.EngineTests.async;
import static txfuzz.dbms.EngineTests.exec;
import static txfuzz.dbms.EngineTests.outcome;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.cli.Main;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.Database;
import txfuzz.dbms.ErrorClass;

/**
 * Servers that die, and whole campaigns: each test starts (and stops) servers of its own. The campaign, which spends
 * its time running cases on a server of its own, starts in {@link #startTheCampaign} and runs while the other tests
 * start, kill and restart theirs; its test waits for it.
 */
class MariadbLifecycleTest {
    @TempDir
    static Path campaignOut;
    private static CompletableFuture<Integer> campaign;

    /** {@code txfuzz run --dbms mariadb}, in this JVM, on a thread of its own. */
    @BeforeAll
    static void startTheCampaign() {
        // no reduction: this is about the campaign loop on a started server, and reductions took most of its time
        campaign = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                campaign.complete(Main.execute("run", "--dbms", "mariadb", "--isolation", "all", "--tests", "30", "--seed", "7", "--out",
                        campaignOut.toString(), "--progress", "60s", "--reduce-time", "0"));
            } catch (Throwable e) {
                campaign.completeExceptionally(e);
            }
        }, "mariadb-campaign");
        t.setDaemon(true);
        t.start();
    }

    /**
     * A server that dies under a case: the running statement fails with a lost connection (the
     * explicit oracle's finding), and the next fresh database comes from a new server, so a campaign
     * goes on. The old process is gone; close() leaves no server behind.
     */
    @Test
    void aServerThatDiesIsRestartedForTheNextCase() throws Exception {
        MariadbTarget target = new MariadbTarget();
        long pid = target.server().pid();
        try {
            assertTrue(pid > 0 && ProcessHandle.of(pid).isPresent());
            aKilledSessionIsConnectionLostAndTheServerStays(target); // first, while the server lives: no start of its own
            Database db = target.freshDatabase();
            try (Connection c = db.connect(IsolationLevel.READ_COMMITTED, "default")) {
                CompletableFuture<SQLException> running = async(c, "SELECT SLEEP(30)");
                Thread.sleep(200);
                ProcessHandle.of(pid).orElseThrow().destroyForcibly();
                SQLException lost = outcome(running, Duration.ofSeconds(10));
                assertEquals(ErrorClass.CONNECTION_LOST, target.classify(lost), lost.getErrorCode() + "/" + lost.getSQLState() + " " + lost.getMessage());
            }
            // the case's end notices it too: dropping its database fails, and says the server died
            IllegalStateException gone = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, db::close);
            assertTrue(gone.getMessage().startsWith("MariaDB crashed during DROP DATABASE"), gone.getMessage());
            Executor ex = new Executor(target, ExecutorConfig.defaults());
            Trace trace = ex.run(Cases.on("mariadb").table("t")
                    .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)")
                    .txn("UPDATE t SET v = 1 WHERE id = 1")
                    .order(1, 1, 1));
            ex.close();
            assertEquals(List.of(List.of("1", "1")), trace.finalState().tables().get("t"));
            assertEquals(1, target.restarts());
            assertTrue(target.version().contains("restarted 1x"), target.version());
            long newPid = target.server().pid();
            assertNotEquals(pid, newPid);
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
            pid = newPid;
        } finally {
            target.close();
        }
        long stopped = pid;
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (ProcessHandle.of(stopped).map(ProcessHandle::isAlive).orElse(false) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertFalse(ProcessHandle.of(stopped).map(ProcessHandle::isAlive).orElse(false), "close() stops the server");
    }

    /**
     * A real crash txfuzz found in the bundled MariaDB 10.11.5 (seed 1, case RR-182, reduced by hand):
     * the deadlock victim is a DELETE whose subquery reads its own table; after both transactions end,
     * dropping the table trips "InnoDB: Failing assertion: table->n_rec_locks == 0" (dict0dict.cc line
     * 1872, signal 6) — at READ COMMITTED, REPEATABLE READ and SERIALIZABLE. 10.11.19 (Debian 12) does
     * not crash, nor does 11.4.5 (the bundled server), so the test pins 10.11.5. The target drops each
     * case's database synchronously, so the crash surfaces as an
     * engine failure of this very case (IllegalStateException from the executor, which the campaign
     * records as a finding), with the assertion in the message; the next case gets a new server.
     */
    @Test
    void mariadb10115CrashesDroppingATableAfterASelfReferencingDeleteLostADeadlock() throws Exception {
        try (MariadbTarget target = new MariadbTarget(txfuzz.dbms.TargetOptions.version("10.11.5"));
             Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            var c = Cases.on("mariadb").table("t").level(IsolationLevel.REPEATABLE_READ)
                    .setup("CREATE TABLE t(a INT PRIMARY KEY, b INT, c INT)", "INSERT INTO t VALUES (2, 1, 0), (3, NULL, 0)")
                    .txn("DELETE FROM t WHERE c IN (SELECT s.c FROM t s WHERE s.b > 0)")
                    .txn("UPDATE t SET b = 5 WHERE a = 3", "INSERT INTO t VALUES (2, 0, 0)")
                    .order(2, 2, 1, 1, 2, 1, 2);
            IllegalStateException crash = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> ex.run(c));
            assertTrue(crash.getMessage().contains("Failing assertion: table->n_rec_locks == 0"), crash.getMessage());
            assertTrue(crash.getMessage().startsWith("MariaDB crashed during DROP DATABASE"), crash.getMessage());
            // the crash report itself follows the one-line summary: what the server wrote last, signal and backtrace included
            assertTrue(crash.getMessage().contains("\n\nThe server's exit value ") && crash.getMessage().contains("got signal 6"), crash.getMessage());
            assertTrue(crash.getMessage().lines().count() > 10, crash.getMessage());
            Trace next = ex.run(Cases.on("mariadb").table("t").setup("CREATE TABLE t(a INT)", "INSERT INTO t VALUES (1)").autocommit("DELETE FROM t")
                    .order(1));
            assertEquals(List.of(), next.finalState().tables().get("t"));
            assertEquals(1, target.restarts());
        }
    }

    /**
     * A killed connection (not the server) is a lost connection too, and the server stays up. Was a test of its own
     * with a server of its own; {@link #aServerThatDiesIsRestartedForTheNextCase} runs it on its server before killing that.
     */
    private static void aKilledSessionIsConnectionLostAndTheServerStays(MariadbTarget target) throws Exception {
        try (Database db = target.freshDatabase();
             Connection c = db.connect(IsolationLevel.READ_COMMITTED, "default"); Connection other = db.connect(IsolationLevel.READ_COMMITTED, "default")) {
            CompletableFuture<SQLException> running = async(c, "SELECT SLEEP(30)");
            Thread.sleep(100);
            exec(other, "KILL " + db.sessionId(c));
            SQLException lost = outcome(running, Duration.ofSeconds(10));
            assertEquals(ErrorClass.CONNECTION_LOST, target.classify(lost), lost.getErrorCode() + " " + lost.getMessage());
            target.freshDatabase().close();
            assertEquals(0, target.restarts());
        }
    }

    /** The campaign end to end, as a user runs it: {@code txfuzz run --dbms mariadb} (started by {@link #startTheCampaign}). */
    @Test
    void aShortCampaignRunsAtEveryLevel() throws Exception {
        int code;
        try {
            code = campaign.get(10, TimeUnit.MINUTES);
        } catch (ExecutionException e) {
            throw new AssertionError("the campaign failed", e.getCause());
        }
        Path out = campaignOut;
        assertTrue(code == Main.OK || code == Main.FOUND, "exit code " + code);
        JsonNode summary = new ObjectMapper().readTree(Files.readString(out.resolve("summary.json")));
        assertEquals(30, summary.get("cases").asInt(), summary.toString());
        assertTrue(summary.get("transactions").asInt() > 30, summary.toString());
        System.out.println("mariadb campaign: " + summary);
    }
}
