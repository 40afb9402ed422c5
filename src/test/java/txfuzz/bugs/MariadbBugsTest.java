package txfuzz.bugs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Targets;
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
 * Each test starts its own server.
 */
class MariadbBugsTest {

    /** The reproducer of docs/bugs.md (from MariadbLifecycleTest, found with seed 1, case RR-182). */
    static TestCase deadlockedSelfReferencingDelete() {
        return Cases.on("mariadb").table("t").level(IsolationLevel.REPEATABLE_READ)
                .setup("CREATE TABLE t(a INT PRIMARY KEY, b INT, c INT)", "INSERT INTO t VALUES (2, 1, 0), (3, NULL, 0)")
                .txn("DELETE FROM t WHERE c IN (SELECT s.c FROM t s WHERE s.b > 0)")
                .txn("UPDATE t SET b = 5 WHERE a = 3", "INSERT INTO t VALUES (2, 0, 0)")
                .order(2, 2, 1, 1, 2, 1, 2);
    }

    @Test
    void mariadbDropAfterDeadlockCrashesOn10_11_5() throws Exception {
        try (Target maria = Targets.create("mariadb", TargetOptions.version("10.11.5"));
             Executor ex = new Executor(maria, ExecutorConfig.defaults())) {
            IllegalStateException crash = assertThrows(IllegalStateException.class, () -> ex.run(deadlockedSelfReferencingDelete()));
            assertTrue(crash.getMessage().startsWith("MariaDB crashed during DROP DATABASE"), crash.getMessage());
            Violation v = ExplicitOracle.engineFailure("while running the case", crash);
            assertEquals(ExplicitKind.ENGINE_FAILURE, v.kind());
            assertEquals(Classification.BUG_CANDIDATE, v.classification());
            assertEquals("table->n_rec_locks == 0", ((ExplicitOracle.Failure) v.evidence()).assertion(), crash.getMessage());
        }
    }

    /** Fixed in the bundled server: the DELETE is still the deadlock victim, and the database drops cleanly. */
    @Test
    void mariadbDropAfterDeadlockIsGoneFromTheBundledMariadb() throws Exception {
        try (Target maria = Targets.create("mariadb"); Executor ex = new Executor(maria, ExecutorConfig.defaults())) {
            Trace trace = ex.run(deadlockedSelfReferencingDelete());
            // the schedule still reaches the deadlock the crash follows, so a clean run means the drop survived it
            assertEquals(ErrorClass.DEADLOCK, trace.executed(new StmtRef(1, 1)).orElseThrow().result().errorClass(), trace.toString());
            assertEquals(TxnStatus.ABORTED, trace.outcome(1).status(), trace.toString());
            Trace next = ex.run(Cases.on("mariadb").table("t").setup("CREATE TABLE t(a INT)").autocommit("INSERT INTO t VALUES (1)").order(1));
            assertEquals(1, next.finalState().tables().get("t").size(), "the same server goes on: " + next);
        }
    }
}
