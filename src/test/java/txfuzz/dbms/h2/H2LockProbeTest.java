package txfuzz.dbms.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static txfuzz.dbms.EngineTests.async;
import static txfuzz.dbms.EngineTests.awaitWaiting;
import static txfuzz.dbms.EngineTests.exec;
import static txfuzz.dbms.EngineTests.outcome;
import static txfuzz.dbms.EngineTests.sleep;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Database;
import txfuzz.dbms.LockProbe;
import txfuzz.dbms.Targets;
import txfuzz.model.IsolationLevel;

/**
 * H2's lock probe on the real engine: a statement is waiting when H2 says so (BLOCKER_ID), or when it is a
 * row change H2 retries for another session's uncommitted row; never because it has run a while.
 */
class H2LockProbeTest {
    private static final Duration SOON = Duration.ofSeconds(10);
    /** Runs until cancelled, touching no table: busy, never waiting. */
    private static final String LONG_QUERY = "SELECT SUM(MOD(X, 7)) FROM SYSTEM_RANGE(1, 1000000000000)";

    /**
     * A holds an uncommitted row; B runs long without waiting for anything: a query, and a write of a table A has
     * not touched. Asked after H2 shows B executing longer than any lock-free statement on
     * a few rows takes, the probe must say B does not wait (it used to, from elapsed time alone).
     */
    @Test
    void aLongStatementThatWaitsForNothingIsNotWaitingWhileAnotherSessionHoldsUncommittedRows() throws Exception {
        H2Target target = (H2Target) Targets.create("h2");
        for (String busy : new String[] {LONG_QUERY, "UPDATE u SET v = (" + LONG_QUERY + ")"}) {
            try (Database db = target.freshDatabase(); Connection a = db.connect(IsolationLevel.READ_COMMITTED, "default");
                 Connection b = db.connect(IsolationLevel.READ_COMMITTED, "default");
                 Connection watcher = db.connect(IsolationLevel.READ_COMMITTED, "default");
                 LockProbe probe = db.lockProbe().orElseThrow()) {
                exec(a, "CREATE TABLE t (id INT PRIMARY KEY, v INT)", "CREATE TABLE u (id INT PRIMARY KEY, v INT)",
                        "INSERT INTO u VALUES (1, 0)");
                target.begin(a);
                exec(a, "INSERT INTO t VALUES (1, 1)");
                String idb = db.sessionId(b);
                Statement running = b.createStatement();
                CompletableFuture<SQLException> done = runAsync(running, busy);
                awaitExecutingLongerThanAnInvisibleWait(watcher, idb, busy);
                assertEquals(Optional.empty(), probe.waitsFor(idb), busy);
                running.cancel();
                outcome(done, SOON);
                target.rollback(a);
            }
        }
    }

    /**
     * The other way: B inserts a duplicate of A's uncommitted unique key. H2 retries B's insert, RUNNING, with no
     * BLOCKER_ID; the probe must still say B waits (blocker unnamed), and B goes on once A rolls back.
     */
    @Test
    void anInsertRetriedForAnotherSessionsUncommittedUniqueKeyIsWaiting() throws Exception {
        H2Target target = (H2Target) Targets.create("h2");
        try (Database db = target.freshDatabase(); Connection a = db.connect(IsolationLevel.READ_COMMITTED, "default");
             Connection b = db.connect(IsolationLevel.READ_COMMITTED, "default");
             LockProbe probe = db.lockProbe().orElseThrow()) {
            exec(a, "CREATE TABLE t (id INT PRIMARY KEY, u INT UNIQUE)");
            target.begin(a);
            exec(a, "INSERT INTO t VALUES (1, 1)");
            String idb = db.sessionId(b);
            CompletableFuture<SQLException> insert = async(b, "INSERT INTO t VALUES (2, 1)");
            assertEquals(Optional.of(Set.of()), awaitWaiting(probe, idb, SOON));
            target.rollback(a);
            assertNull(outcome(insert, SOON));
            assertEquals(Optional.empty(), probe.waitsFor(idb));
        }
    }

    private static CompletableFuture<SQLException> runAsync(Statement s, String sql) {
        CompletableFuture<SQLException> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                s.execute(sql);
                f.complete(null);
            } catch (SQLException e) {
                f.complete(e);
            }
        }, "h2-busy");
        t.setDaemon(true);
        t.start();
        return f;
    }

    /** Asks H2 (not a clock) until it shows {@code session} executing {@code sql} for longer than the probe's grace. */
    private static void awaitExecutingLongerThanAnInvisibleWait(Connection watcher, String session, String sql) throws SQLException {
        try (PreparedStatement q = watcher.prepareStatement("SELECT DATEDIFF('MILLISECOND', EXECUTING_STATEMENT_START, CURRENT_TIMESTAMP) > 100"
                + " FROM INFORMATION_SCHEMA.SESSIONS WHERE SESSION_ID = ? AND EXECUTING_STATEMENT = ?")) {
            q.setInt(1, Integer.parseInt(session));
            q.setString(2, sql);
            long deadline = System.nanoTime() + SOON.toNanos();
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = q.executeQuery()) {
                    if (rs.next() && rs.getBoolean(1)) {
                        return;
                    }
                }
                sleep(2);
            }
        }
        assertTrue(false, "H2 never showed " + sql + " executing");
    }
}
