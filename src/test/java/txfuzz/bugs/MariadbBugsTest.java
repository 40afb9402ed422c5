package txfuzz.bugs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import txfuzz.bugs.PrintedSql.Outcome;
import txfuzz.bugs.PrintedSql.Run;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Targets;
import txfuzz.dbms.SharedServers;
import txfuzz.dbms.TestServers;
import txfuzz.dbms.versions.BundledVersions;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.exec.TxnStatus;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;
import txfuzz.oracle.explicit.ExplicitKind;
import txfuzz.oracle.explicit.ExplicitOracle;

/**
 * docs/bugs.md, mariadb-drop-after-deadlock-n-rec-locks: after a DELETE whose subquery reads its own
 * table loses a deadlock, DROP DATABASE trips InnoDB's assertion {@code table->n_rec_locks == 0}.
 * MariaDB 10.11.5 crashes; the bundled 11.4.5 runs the same schedule, with the same deadlock, and does
 * not. The crash surfaces from the executor (the target drops each case's database synchronously),
 * and the explicit oracle files it as an engine failure with the assertion as its evidence.
 * The test that crashes 10.11.5 starts its own server; the others share the JVM's 10.11.5 and bundled
 * servers ({@link SharedServers}, {@link TestServers}), which the class starts side by side first.
 */
class MariadbBugsTest {
    /** The 10.11.5 server {@link #mariadbDropAfterDeadlockCrashesOn10_11_5} crashes, started beside the shared ones. */
    private static CompletableFuture<Target> toCrash;

    @BeforeAll
    static void startTheServers() {
        SharedServers.startInBackground("mariadb", "10.11.5", BundledVersions.of("mariadb"));
        toCrash = CompletableFuture.supplyAsync(() -> Targets.create("mariadb", TargetOptions.version("10.11.5")));
    }

    @AfterAll
    static void closeTheCrashedServer() throws Exception {
        try {
            toCrash.get().close();
        } catch (ExecutionException notStarted) {
            // the test that asked for it reported why
        }
    }

    /**
     * docs/bugs.md, "Not listed": at READ COMMITTED a waiting UPDATE skips a row another transaction moved
     * to a smaller key — InnoDB's documented semi-consistent read, not a defect. Each printed block on
     * 10.11.5 and 11.4.5 checks one consequence of the documented rule: the skip; a DELETE (no
     * semi-consistent read), a move to a larger key, and REPEATABLE READ each change both rows, and so
     * does innodb_snapshot_isolation = ON on 11.4.5 (10.11.5 does not know that variable).
     */
    @Test
    void mariadbRcSemiConsistentUpdateSkipsARowMovedBehindItsScan() throws Exception {
        try (Target old = SharedServers.open("mariadb", "10.11.5"); Target bundled = TestServers.open("mariadb")) {
            for (Target maria : List.of(old, bundled)) {
                Run skip = PrintedSql.of("mariadb-rc-semi-consistent-update").run(maria);
                assertTrue(skip.of("UPDATE t0 SET c1 = c1 - 3").waited(), skip.toString());
                assertEquals(1, skip.of("UPDATE t0 SET c1 = c1 - 3").updateCount(), skip.toString());
                assertEquals(PrintedSql.rows("(0, 20) (1, 7)"), skip.last().rows(), skip.toString());

                Run delete = PrintedSql.of("mariadb-rc-semi-consistent-delete").run(maria);
                assertTrue(delete.of("DELETE FROM t0").waited(), delete.toString());
                assertEquals(2, delete.of("DELETE FROM t0").updateCount(), delete.toString());
                assertEquals(List.of(), delete.last().rows(), delete.toString());

                for (String both : List.of("mariadb-rc-semi-consistent-larger-key", "mariadb-rc-semi-consistent-repeatable-read")) {
                    Run r = PrintedSql.of(both).run(maria);
                    assertTrue(r.of("UPDATE t0 SET c1 = c1 - 3").waited(), r.toString());
                    assertEquals(2, r.of("UPDATE t0 SET c1 = c1 - 3").updateCount(), both + ": " + r);
                }
            }
            // innodb_snapshot_isolation, which turns semi-consistent reads off, is unknown to 10.11.5
            Run r = PrintedSql.of("mariadb-rc-semi-consistent-snapshot-isolation").run(bundled);
            assertTrue(r.of("UPDATE t0 SET c1 = c1 - 3").waited(), r.toString());
            assertEquals(2, r.of("UPDATE t0 SET c1 = c1 - 3").updateCount(), r.toString());
            assertEquals(PrintedSql.rows("(0, 17) (1, 7)"), r.last().rows(), r.toString());
        }
    }

    /** The reproducer of docs/bugs.md (from MariadbLifecycleTest, found with seed 1, case RR-182). */
    static TestCase deadlockedSelfReferencingDelete() {
        return Cases.on("mariadb").table("t").level(IsolationLevel.REPEATABLE_READ)
                .setup("CREATE TABLE t(a INT PRIMARY KEY, b INT, c INT)", "INSERT INTO t VALUES (2, 1, 0), (3, NULL, 0)")
                .txn("DELETE FROM t WHERE c IN (SELECT s.c FROM t s WHERE s.b > 0)")
                .txn("UPDATE t SET b = 5 WHERE a = 3", "INSERT INTO t VALUES (2, 0, 0)")
                .order(2, 2, 1, 1, 2, 1, 2);
    }

    /** The printed SQL with plain JDBC: dropping the database afterwards (closing it) kills 10.11.5 on the assertion. */
    @Test
    void mariadbDropAfterDeadlockCrashesOn10_11_5() throws Exception {
        try (Target maria = toCrash.join()) {
            IllegalStateException crash = assertThrows(IllegalStateException.class,
                    () -> PrintedSql.of("mariadb-drop-after-deadlock-n-rec-locks").run(maria));
            assertTrue(crash.getMessage().startsWith("MariaDB crashed during DROP DATABASE"), crash.getMessage());
            Violation v = ExplicitOracle.engineFailure("while running the case", crash);
            assertEquals(ExplicitKind.ENGINE_FAILURE, v.kind());
            assertEquals(Classification.BUG_CANDIDATE, v.classification());
            assertEquals("table->n_rec_locks == 0", ((ExplicitOracle.Failure) v.evidence()).assertion(), crash.getMessage());
        }
    }

    /** Fixed in the bundled server: the DELETE is still the deadlock victim, and the database drops cleanly (on the shared server: the drop must not take it down). */
    @Test
    void mariadbDropAfterDeadlockIsGoneFromTheBundledMariadb() throws Exception {
        try (Target maria = TestServers.open("mariadb"); Executor ex = new Executor(maria, ExecutorConfig.defaults())) {
            Trace trace = ex.run(deadlockedSelfReferencingDelete());
            // the schedule still reaches the deadlock the crash follows, so a clean run means the drop survived it
            assertEquals(ErrorClass.DEADLOCK, trace.executed(new StmtRef(1, 1)).orElseThrow().result().errorClass(), trace.toString());
            assertEquals(TxnStatus.ABORTED, trace.outcome(1).status(), trace.toString());
            // the printed SQL with plain JDBC: the same deadlock, and its database drops cleanly too
            Run printed = PrintedSql.of("mariadb-drop-after-deadlock-n-rec-locks").run(maria);
            Outcome delete = printed.of("DELETE FROM t WHERE c IN (SELECT s.c FROM t s WHERE s.b > 0)");
            assertEquals(1213, delete.failed() ? delete.error().getErrorCode() : 0, "the DELETE is the deadlock victim: " + printed);
            Trace next = ex.run(Cases.on("mariadb").table("t").setup("CREATE TABLE t(a INT)").autocommit("INSERT INTO t VALUES (1)").order(1));
            assertEquals(1, next.finalState().tables().get("t").size(), "the same server goes on: " + next);
        }
    }
}
