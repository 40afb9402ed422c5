package txfuzz.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import txfuzz.dbms.Database;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Target;
import txfuzz.dbms.h2.H2Target;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.explicit.ExplicitKind;
import txfuzz.oracle.explicit.ExplicitOracle;

/**
 * Negative control of the rule that a hung statement the engine ends with a lock-wait error was waiting, not hung: a
 * lock timeout that txfuzz's own interrupt caused does not count. A wrapper around real H2 makes a marked statement hang
 * without waiting on any lock (H2 sees nothing running), ignore cancel(), and end with H2's lock-timeout error only when
 * its thread is interrupted, which txfuzz does to a stall's victim on H2. The hang must still come out, as the explicit
 * oracle's hang.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InterruptedHangTest {
    private static final String MARK = "/*hang-until-interrupted*/";

    /** Real H2; a statement containing {@link #MARK} sleeps until its thread is interrupted, then fails as H2's lock timeout. */
    private static final class HangingUntilInterruptedTarget extends DelegatingTarget {
        HangingUntilInterruptedTarget(Target real) {
            super(real);
        }

        @Override
        public Database freshDatabase() throws SQLException {
            return wrappingStatements(real.freshDatabase(), (c, s) -> hanging(s));
        }

        private static Statement hanging(Statement s) {
            return marked(s, MARK, () -> { }, () -> { // cancel() is ignored, as H2 ignores it in a lock wait
                try {
                    Thread.sleep(30_000);
                    throw new SQLException("never interrupted");
                } catch (InterruptedException e) {
                    throw new SQLException("Timeout trying to lock table", "HYT00", 50200);
                }
            });
        }
    }

    @Test
    void aHangEndedByTxfuzzsInterruptIsStillAHang() throws Exception {
        TestCase c = Cases.on("h2").table("t")
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                .txn("UPDATE t SET v = 1 WHERE id = 1")
                .txn("UPDATE t SET v = 2 " + MARK + " WHERE id = 2")
                .order(1, 2, 1, 2, 1, 2);
        ExecutorConfig quick = new ExecutorConfig(Duration.ofMillis(200), Duration.ofMillis(500), Duration.ofSeconds(1));
        try (Target target = new HangingUntilInterruptedTarget(new H2Target()); Executor ex = new Executor(target, quick)) {
            Trace trace = ex.run(c);
            StmtRef marked = new StmtRef(2, 1);
            assertEquals(ErrorClass.LOCK_TIMEOUT, trace.executed(marked).orElseThrow().result().errorClass(),
                    "the interrupt ended it, as H2 ends an interrupted wait: " + trace);
            assertEquals(List.of(marked), trace.hung(), trace.toString());
            Verdict v = new ExplicitOracle().judge(c, trace, ex);
            assertTrue(v.violations().stream().anyMatch(x -> x.kind() == ExplicitKind.HANG), v.toString());
        }
    }
}
