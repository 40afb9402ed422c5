package txfuzz.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import txfuzz.dbms.Database;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Targets;
import txfuzz.exec.ConcurrentRunnerTest.Hang;
import txfuzz.exec.ConcurrentRunnerTest.HangingTarget;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Run;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.explicit.ExplicitKind;
import txfuzz.oracle.explicit.ExplicitOracle;

/**
 * When a statement is a hang on the real MariaDB 10.11.5 (issue 11, item 7): only when no view of the
 * engine shows it waiting and the engine does not end it with a deadlock. One server for the class (not the
 * JVM's shared 10.11.5: the deadlock tests crash it); the deadlock case runs last, since the server then crashes
 * dropping its database (below), and the probe test before it leaves its database, where the same drop would
 * crash it, to the server's close.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MariadbHangVerdictTest {
    private static final ExplicitOracle EXPLICIT = new ExplicitOracle();
    /**
     * Pinned: the deadlock cases below are 10.11.5's behaviour. MariaDB 11.4.5 (the bundled server)
     * tells the victim of that deadlock at once, where 10.11.5 lets its DELETE wait again until the
     * other transaction ends.
     */
    private static final TargetOptions MARIADB_10_11 = TargetOptions.version("10.11.5");
    private static Target target;

    @BeforeAll
    static void start() {
        target = Targets.create("mariadb", MARIADB_10_11);
    }

    @AfterAll
    static void stop() {
        if (target != null) {
            target.close();
        }
    }

    /**
     * A statement that does not finish while the engine shows it idle (a fault-injecting wrapper
     * holds it in the driver): a hang, with the probes' answers and the process-list state as evidence.
     */
    @Test
    @Order(1)
    void aStatementThatNoEngineViewShowsWaitingIsStillAHang() throws Exception {
        HangingTarget hanging = new HangingTarget(target, Hang.CANCELLABLE);
        TestCase c = Cases.on("mariadb").table("t").level(IsolationLevel.REPEATABLE_READ)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)")
                .txn("UPDATE t SET v = 1 WHERE id = 1", "SELECT v " + ConcurrentRunnerTest.HANG + " FROM t")
                .order(1, 1, 1, 1);
        try (Executor ex = new Executor(hanging, new ExecutorConfig(Duration.ofMillis(200), Duration.ofMillis(500), Duration.ofSeconds(1)))) {
            Trace trace = ex.run(c);
            StmtRef hung = new StmtRef(1, 2);
            assertEquals(List.of(hung), trace.hung(), trace.toString());
            HangEvidence e = trace.hangEvidence().get(hung);
            assertNotNull(e, trace.toString());
            assertTrue(e.probesAsked() >= Executor.MIN_HANG_PROBES, e.describe());
            assertEquals(0, e.probesSawWaiting(), e.describe());
            assertTrue(e.probedMillis() >= 900, e.describe());
            assertTrue(e.activities().size() >= 1, "the process list was asked: " + e.describe());
            Verdict v = EXPLICIT.judge(Run.controlled(c, trace), ex);
            assertEquals(1, v.violations().size(), v.toString());
            assertEquals(ExplicitKind.HANG, v.violations().get(0).kind());
            ExplicitOracle.Hang evidence = (ExplicitOracle.Hang) v.violations().get(0).evidence();
            assertEquals(e, evidence.engine());
            assertTrue(v.violations().get(0).details().contains("lock-probe answers"), v.violations().get(0).details());
            // the engine's own views, as a maintainer asks for them: the process list with the hung session, InnoDB's transactions
            assertTrue(e.engineState().contains("information_schema.PROCESSLIST") && e.engineState().contains("(the hung statement's)"),
                    e.engineState());
            assertTrue(e.engineState().contains("SHOW ENGINE INNODB STATUS, TRANSACTIONS:"), e.engineState());
            assertTrue(v.violations().get(0).details().contains(e.engineState()), v.violations().get(0).details());
        } finally {
            hanging.releaseAll();
        }
    }

    /**
     * The case of issue 11, item 7. T2's DELETE waits for row 2, which T1 updated; T1 then updates
     * row 1, which T2's DELETE had locked: a deadlock, and InnoDB picks T2. But the DELETE ... WHERE
     * EXISTS (SELECT ... FROM t) does not return the error: InnoDB rolled T2's transaction back and the
     * statement goes on and waits again, in a transaction SHOW ENGINE INNODB STATUS prints as "not
     * started" without a thread id, so the lock probe answered "not waiting" and after the statement
     * timeout txfuzz cancelled it as a hang (the engine then reported the deadlock). It is a deadlock.
     */
    @Test
    @Order(3)
    void aDeadlockVictimThatWaitsAgainWithoutItsThreadIdIsADeadlockNotAHang() throws Exception {
        TestCase c = Cases.on("mariadb").table("t").level(IsolationLevel.REPEATABLE_READ)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0), (3, 0)")
                .txn("UPDATE t SET v = 1 WHERE id = 2", "UPDATE t SET v = 1 WHERE id = 1")
                .txn("DELETE FROM t WHERE EXISTS (SELECT 1 FROM t AS x WHERE x.id = t.id + 1)")
                .order(1, 2, 1, 2, 1, 1, 2);
        // a statement timeout far above the run: before the fix the executor spent it all on T2.1,
        // which the probe said was running, and then called T2.1 hung
        ExecutorConfig patient = new ExecutorConfig(Duration.ofMillis(500), Duration.ofSeconds(2), Duration.ofSeconds(10));
        try (Executor ex = new Executor(target, patient)) {
            Database db = target.freshDatabase();
            long start = System.nanoTime();
            Trace trace = ex.run(c, db);
            long ms = (System.nanoTime() - start) / 1_000_000;
            try {
                db.close();
            } catch (IllegalStateException serverCrashed) {
                // MariaDB 10.11.5 leaks a record lock of the victim ("not started, 1 lock struct(s)")
                // and asserts table->n_rec_locks == 0 in DROP DATABASE: an engine bug of its own
            }
            Verdict v = EXPLICIT.judge(Run.controlled(c, trace), ex);
            assertTrue(trace.hung().isEmpty(), trace.toString());
            assertTrue(v.violations().stream().noneMatch(x -> x.kind() == ExplicitKind.HANG), v.toString());
            assertEquals(TxnStatus.ABORTED, trace.outcome(2).status(), trace.toString());
            assertEquals(ErrorClass.DEADLOCK, trace.executed(new StmtRef(2, 1)).orElseThrow().result().errorClass(), trace.toString());
            assertEquals(TxnStatus.COMMITTED, trace.outcome(1).status(), trace.toString());
            assertTrue(trace.executed(new StmtRef(2, 1)).orElseThrow().blocked(), trace.toString());
            assertTrue(ms < 5_000, "T2.1 was seen waiting, not left to run out the statement timeout: " + ms + " ms");
        }
    }

    /**
     * The lock probe itself, on the same schedule driven by hand: once the DELETE is the deadlock
     * victim and waits again, the probe says it waits for T1's session (it said "not waiting").
     * Its database is not dropped: that too crashes the server (the victim's leaked record lock, as
     * below); the class's server goes on to the deadlock case, in a database of its own, and closing
     * the server deletes this one.
     */
    @Test
    @Order(2)
    void theProbeSeesTheDeadlockVictimWaitAgain() throws Exception {
        Database db = target.freshDatabase();
        java.sql.Connection setup = db.connect(IsolationLevel.REPEATABLE_READ, null);
        try (java.sql.Statement s = setup.createStatement()) {
            s.execute("CREATE TABLE t(id INT PRIMARY KEY, v INT)");
            s.execute("INSERT INTO t VALUES (1, 0), (2, 0), (3, 0)");
        }
        java.sql.Connection a = db.connect(IsolationLevel.REPEATABLE_READ, null);
        java.sql.Connection b = db.connect(IsolationLevel.REPEATABLE_READ, null);
        a.setAutoCommit(false);
        b.setAutoCommit(false);
        String aId = db.sessionId(a);
        String bId = db.sessionId(b);
        try (txfuzz.dbms.LockProbe probe = db.lockProbe().orElseThrow()) {
            a.createStatement().execute("UPDATE t SET v = 1 WHERE id = 2");
            java.util.concurrent.CompletableFuture<String> delete = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    b.createStatement().execute("DELETE FROM t WHERE EXISTS (SELECT 1 FROM t AS x WHERE x.id = t.id + 1)");
                    return "ok";
                } catch (java.sql.SQLException e) {
                    return e.getSQLState() + "/" + e.getErrorCode();
                }
            });
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (probe.waitsFor(bId).isEmpty() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(java.util.Optional.of(java.util.Set.of(aId)), probe.waitsFor(bId), "the DELETE waits for row 2");
            a.createStatement().execute("UPDATE t SET v = 1 WHERE id = 1"); // the deadlock: T2 is the victim
            Thread.sleep(200);
            assertTrue(!delete.isDone(), "the victim's DELETE has not returned: " + (delete.isDone() ? delete.get() : ""));
            for (int i = 0; i < 5; i++) {
                assertEquals(java.util.Optional.of(java.util.Set.of(aId)), probe.waitsFor(bId), "answer " + i);
                Thread.sleep(50);
            }
            a.commit();
            assertEquals("40001/1213", delete.get(5, java.util.concurrent.TimeUnit.SECONDS), "the deadlock surfaces at last");
        }
        for (java.sql.Connection c : List.of(setup, a, b)) {
            c.close();
        }
    }
}
