package txfuzz.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import java.sql.SQLException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import txfuzz.dbms.Database;
import txfuzz.dbms.DatabaseCountingTarget;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.LockProbe;
import txfuzz.dbms.Target;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.h2.H2Target;
import txfuzz.model.TestCase;

/** A serial replay asked for again is the engine's first answer; a concurrent case runs every time. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SerialRunsTest {
    private static Cases twoWriters() {
        return Cases.on("h2").table("t").setup("CREATE TABLE t (k INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)")
                .txn("UPDATE t SET v = v + 1 WHERE k = 1").txn("UPDATE t SET v = v * 10 WHERE k = 1");
    }

    @Test
    void aSerialCaseAskedForAgainIsNotRunAgain() throws Exception {
        DatabaseCountingTarget h2 = new DatabaseCountingTarget(new H2Target());
        try (h2; Executor ex = new Executor(h2, ExecutorConfig.defaults())) {
            TestCase serial = twoWriters().order(1, 1, 1, 2, 2, 2);
            Trace first = ex.runSerial(serial);
            assertSame(first, ex.runSerial(twoWriters().order(1, 1, 1, 2, 2, 2)), "an equal case is the same replay");
            assertEquals(1, h2.databases());
            assertEquals(List.of(List.of("1", "10")), first.finalState().tables().get("t"));

            ex.forgetSerialRuns();
            Trace afresh = ex.runSerial(serial);
            assertNotSame(first, afresh);
            assertEquals(first, afresh);
            assertEquals(2, h2.databases());
        }
    }

    @Test
    void aConcurrentCaseIsNeverTakenForASerialOne() throws Exception {
        try (H2Target h2 = new H2Target(); Executor ex = new Executor(h2, ExecutorConfig.defaults())) {
            TestCase interleaved = twoWriters().order(1, 2, 1, 2, 1, 2);
            assertThrows(IllegalArgumentException.class, () -> ex.runSerial(interleaved));
        }
    }

    @Test
    void serialMeansEachTransactionsStatementsTogether() {
        assertTrue(Executor.isSerial(List.of(1, 1, 2, 2, 3)));
        assertTrue(Executor.isSerial(List.of(3, 1, 1, 2)));
        assertTrue(Executor.isSerial(List.of()));
        assertFalse(Executor.isSerial(List.of(1, 2, 1)));
        assertFalse(Executor.isSerial(List.of(1, 1, 2, 3, 2)));
    }

    @Test
    void aSlowStatementOfASerialRunOpensNoLockProbe() throws Exception {
        ProbeCountingTarget h2 = new ProbeCountingTarget(new H2Target());
        try (h2; Executor ex = new Executor(h2, ExecutorConfig.defaults())) {
            int runs = 8;
            for (int i = 0; i < runs; i++) {
                ex.forgetSerialRuns();
                ex.runSerial(twoWriters().order(1, 1, 1, 2, 2, 2));
            }
            // every statement took 3 ms and none waited: without the grace each run opens one; with it, only a run that a
            // loaded machine held up for the whole grace could (half of them leaves room for that)
            assertTrue(h2.probes.get() <= runs / 2, h2.probes.get() + " of " + runs + " serial runs opened a lock probe");

            // the counter sees a probe where one is needed: T2's update waits for T1's row lock
            Trace blocked = ex.run(twoWriters().order(1, 2, 1, 2, 1, 2));
            assertTrue(blocked.schedule().stream().anyMatch(ExecutedStmt::blocked), "T2's update waited");
            assertTrue(h2.probes.get() > 0, "a statement that waits is probed");
        }
    }

    /** A real engine whose statements each take 3 ms longer (well over the first poll), counting the lock probes asked for. */
    private static final class ProbeCountingTarget extends DelegatingTarget {
        final AtomicInteger probes = new AtomicInteger();

        ProbeCountingTarget(Target real) {
            super(real);
        }

        @Override
        public Database freshDatabase() throws SQLException {
            Database slowed = wrappingStatements(real.freshDatabase(), (c, s) -> (java.sql.Statement) java.lang.reflect.Proxy.newProxyInstance(
                    getClass().getClassLoader(), new Class<?>[] {java.sql.Statement.class}, (proxy, method, args) -> {
                        if (method.getName().startsWith("execute")) {
                            Thread.sleep(3);
                        }
                        return invoke(s, method, args);
                    }));
            return new Database() {
                @Override
                public java.sql.Connection connect(IsolationLevel level, String mode) throws SQLException {
                    return slowed.connect(level, mode);
                }

                @Override
                public String sessionId(java.sql.Connection c) throws SQLException {
                    return slowed.sessionId(c);
                }

                @Override
                public Optional<LockProbe> lockProbe() throws SQLException {
                    probes.incrementAndGet();
                    return slowed.lockProbe();
                }

                @Override
                public void close() {
                    slowed.close();
                }
            };
        }
    }
}
