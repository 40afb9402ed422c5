package txfuzz.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.Engine;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Target;
import txfuzz.dbms.h2.H2Target;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;

/**
 * A cycle of waits the engine never ends is broken by txfuzz: the most recently blocked statement is cancelled and its
 * transaction aborted. H2 leaves such cycles when one wait is an INSERT waiting for another transaction's uncommitted
 * duplicate key: H2 retries that statement, so it waits for no transaction its deadlock detection follows, and H2
 * rolls the retried statement back each time, after which whoever waits for that transaction spins (measured on
 * 2.1.210 – 2.5.252: the waiter's thread uses a whole core) instead of waiting in Object.wait.
 *
 * <p>A row-lock wait in Object.wait ignores cancel() and ends only when its thread is interrupted, which H2's engine
 * says ({@link Engine#lockWaitEndsOnInterrupt()}); the control takes that away, and the victim is given up after the
 * cancel's and the abort's seconds, as before. A spinning waiter ignores the interrupt too; it is given up at once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StallBreakTest {
    /**
     * T1 inserts key u = 10; T2 locks row 2; T3 locks row 1, then inserts u = 10 too and retries, waiting for T1; T2
     * waits for T3's row 1 (spinning: T3 rolled back its retried INSERT); T1 waits for T2's row 2 in Object.wait. H2
     * sees no cycle: T3 waits for no transaction it follows.
     */
    private static final TestCase UNSEEN_CYCLE = Cases.on("h2").table("t")
            .setup("CREATE TABLE t(id INT PRIMARY KEY, u INT UNIQUE, v INT)", "INSERT INTO t VALUES (1, 1, 0), (2, 2, 0)")
            .txn("INSERT INTO t VALUES (3, 10, 0)", "UPDATE t SET v = 1 WHERE id = 2")
            .txn("UPDATE t SET v = 2 WHERE id = 2", "UPDATE t SET v = 2 WHERE id = 1")
            .txn("UPDATE t SET v = 3 WHERE id = 1", "INSERT INTO t VALUES (4, 10, 0)")
            .order(1, 2, 3, 1, 2, 3, 3, 2, 1, 1, 2, 3);

    /** The same two-way: T2 waits for T1's key and retries; T1 waits for T2's row, spinning, and is the victim. */
    private static final TestCase UNSEEN_CYCLE_OF_TWO = Cases.on("h2").table("t")
            .setup("CREATE TABLE t(id INT PRIMARY KEY, u INT UNIQUE, v INT)", "INSERT INTO t VALUES (1, 1, 0), (2, 2, 0)")
            .txn("INSERT INTO t VALUES (3, 10, 0)", "UPDATE t SET v = 1 WHERE id = 1")
            .txn("UPDATE t SET v = 2 WHERE id = 1", "INSERT INTO t VALUES (4, 10, 0)")
            .order(1, 2, 1, 2, 2, 1, 1, 2);

    private static final StmtRef T1_UPDATE = new StmtRef(1, 2);

    @Test
    void theVictimsLockWaitEndsWhenItsThreadIsInterrupted() throws Exception {
        try (Executor executor = new Executor(new H2Target(), ExecutorConfig.defaults())) {
            Trace trace = executor.run(UNSEEN_CYCLE);
            assertEquals(1, trace.stalls(), trace.toString());
            ExecutedStmt victim = trace.executed(T1_UPDATE).orElseThrow();
            // the interrupted wait ends as H2 ends a wait: a lock timeout, not a statement given up
            assertEquals(ErrorClass.LOCK_TIMEOUT, victim.result().errorClass(), trace.toString());
            assertEquals(TxnStatus.ABORTED, trace.outcome(1).status());
            assertTrue(trace.outcome(1).reason().startsWith("cancelled by txfuzz at T1.2"), trace.outcome(1).reason());
            // with T1 gone, T3's key is free and T2's row follows: both commit
            assertTrue(trace.outcome(3).status().committed(), trace.toString());
            assertTrue(trace.outcome(2).status().committed(), trace.toString());
            assertEquals(List.of(List.of("1", "1", "2"), List.of("2", "2", "2"), List.of("4", "10", "0")),
                    trace.finalState().tables().get("t"));
        }
    }

    @Test
    void withoutTheInterruptTheVictimIsGivenUp() throws Exception {
        try (Executor executor = new Executor(new InterruptIgnoringTarget(new H2Target()), ExecutorConfig.defaults())) {
            Trace trace = executor.run(UNSEEN_CYCLE);
            ExecutedStmt victim = trace.executed(T1_UPDATE).orElseThrow();
            assertEquals(ErrorClass.OTHER, victim.result().errorClass(), trace.toString());
            assertTrue(String.valueOf(victim.result().error()).contains("cancel and abort were ignored"), trace.toString());
            assertEquals(TxnStatus.ABORTED, trace.outcome(1).status());
        }
    }

    @Test
    void aSpinningVictimIsGivenUpAndTheNextStallCancelsTheOther() throws Exception {
        try (Executor executor = new Executor(new H2Target(), ExecutorConfig.defaults())) {
            Trace trace = executor.run(UNSEEN_CYCLE_OF_TWO);
            assertEquals(2, trace.stalls(), trace.toString());
            ExecutedStmt spinner = trace.executed(T1_UPDATE).orElseThrow();
            assertTrue(String.valueOf(spinner.result().error()).contains("cancel and interrupt were ignored"), trace.toString());
            // the retried INSERT checks for a cancel: it ends as cancelled
            ExecutedStmt retried = trace.executed(new StmtRef(2, 2)).orElseThrow();
            assertTrue(retried.result().failed() && !String.valueOf(retried.result().error()).contains("abandoned"), trace.toString());
            assertEquals(TxnStatus.ABORTED, trace.outcome(1).status());
            assertEquals(TxnStatus.ABORTED, trace.outcome(2).status());
        }
    }

    /** Real H2, but the executor is told its lock waits do not end on an interrupt. */
    private static final class InterruptIgnoringTarget extends DelegatingTarget {
        private final Engine engine;

        InterruptIgnoringTarget(Target real) {
            super(real);
            Engine realEngine = real.engine();
            this.engine = (Engine) Proxy.newProxyInstance(Engine.class.getClassLoader(), new Class<?>[] {Engine.class},
                    (proxy, m, args) -> m.getName().equals("lockWaitEndsOnInterrupt") ? Boolean.FALSE : invoke(realEngine, m, args));
        }

        @Override
        public Engine engine() {
            return engine;
        }
    }
}
