package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Database;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.Target;
import txfuzz.dbms.h2.H2Target;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.CaseJson;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;

/**
 * A statement that hangs only in the serial replay (the concurrent run completes): the report gives
 * the serial script that hangs, marks the statement, attaches it as a case to replay, and carries the
 * engine's state at the hang. The hang is injected (a wrapper around real H2 that holds the marked
 * statement of every database after the first until it is cancelled), as no real engine here has one.
 */
class SerialReplayHangTest {
    private static final String MARK = "/*hang-in-replay*/";

    /** Real H2; from its second fresh database on, a statement containing {@link #MARK} runs until cancelled. */
    static final class ReplayHangingTarget extends DelegatingTarget {
        private final AtomicInteger databases = new AtomicInteger();

        ReplayHangingTarget(Target real) {
            super(real);
        }

        @Override
        public Database freshDatabase() throws SQLException {
            boolean replay = databases.incrementAndGet() > 1;
            return wrappingStatements(real.freshDatabase(), (c, s) -> replay ? hanging(s) : s);
        }

        private static Statement hanging(Statement s) {
            CountDownLatch cancelled = new CountDownLatch(1);
            return marked(s, MARK, cancelled::countDown, () -> {
                if (!cancelled.await(30, TimeUnit.SECONDS)) {
                    throw new SQLException("never cancelled");
                }
                throw new SQLException("Statement was canceled", "57014");
            });
        }
    }

    @Test
    void theReportGivesTheSerialScriptThatHangsAndTheEnginesState() throws Exception {
        TestCase c = Cases.on("h2").level(IsolationLevel.READ_COMMITTED).table("t")
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                .txn("UPDATE t SET v = 1 WHERE id = 1")
                .txn("UPDATE t SET v = 2 " + MARK + " WHERE id = 2")
                .order(1, 2, 1, 2, 1, 2);
        ExecutorConfig quick = new ExecutorConfig(Duration.ofMillis(200), Duration.ofMillis(500), Duration.ofSeconds(1));
        try (Target target = new ReplayHangingTarget(new H2Target()); Executor ex = new Executor(target, quick)) {
            Trace trace = ex.run(c);
            assertTrue(trace.hung().isEmpty(), "the concurrent run completes: " + trace);
            Verdict v = new WssOracle().judge(c, trace, ex);
            Violation hang = v.violations().stream().filter(x -> x.kind() == WssKind.REPLAY_HANG).findFirst()
                    .orElseThrow(() -> new AssertionError(v.toString()));
            assertTrue(hang.details().contains("/* T2 */ UPDATE t SET v = 2 " + MARK + " WHERE id = 2;   -- hangs here"), hang.details());
            assertTrue(hang.details().indexOf("/* T1 */ UPDATE t SET v = 1 WHERE id = 1;") < hang.details().indexOf("-- hangs here"),
                    "T1 committed first, so it runs first: " + hang.details());
            assertTrue(hang.details().contains("Stack of the thread running the statement:"), hang.details());
            TestCase serial = CaseJson.read(hang.attachments().get("replay-hang.case.json"), "replay-hang.case.json");
            assertEquals(c.setup(), serial.setup());
        }
    }
}
