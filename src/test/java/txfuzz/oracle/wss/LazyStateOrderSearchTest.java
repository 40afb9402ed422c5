package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.h2.H2Target;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.CommitDroppingTarget;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;

/**
 * The search of the serial orders other than the commit orders (up to six more replays) only words
 * what a report says was checked (its "rule it breaks" section), so it runs when a report asks for
 * that, once, and never for a judged run nobody reports. Real H2, with commits dropped so that no commit order gives the final state.
 */
class LazyStateOrderSearchTest {
    /** Two writers on different rows and a shared one; T3 deletes what is left at 0. */
    private static TestCase overlappingWriters() {
        return Cases.on("h2").table("t").level(IsolationLevel.READ_COMMITTED)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0), (3, 0)")
                .txn("UPDATE t SET v = v + 1 WHERE id = 1", "UPDATE t SET v = v + 1 WHERE id = 3")
                .txn("UPDATE t SET v = v + 10 WHERE id = 2", "UPDATE t SET v = v * 2 WHERE id = 3")
                .autocommit("DELETE FROM t WHERE v = 0")
                .order(1, 2, 1, 2, 1, 2, 3, 1, 2);
    }

    @Test
    void theSearchRunsOnlyWhenAHeadlineIsWrittenAndOnce() throws Exception {
        try (Executor ex = new Executor(new CommitDroppingTarget(new H2Target()), ExecutorConfig.defaults())) {
            TestCase c = overlappingWriters();
            Trace trace = ex.run(c);
            long before = StateOrderSearch.searches();
            Verdict v = new WssOracle().judge(c, trace, ex);
            List<Violation> stateViolations = v.violations().stream().filter(x -> x.kind() == WssKind.TX_WSS).toList();
            assertEquals(1, stateViolations.size(), v::toString);
            assertEquals(before, StateOrderSearch.searches(), "judging searches no orders");

            String checked = stateViolations.get(0).evidence().checked().orElseThrow();
            assertEquals(before + 1, StateOrderSearch.searches(), "what the report says was checked searches");
            assertTrue(checked.contains("serial order"), checked);
            assertEquals(checked, stateViolations.get(0).evidence().checked().orElseThrow());
            v.violations().forEach(x -> {
                x.headline();
                x.evidence().checked();
            });
            assertEquals(before + 1, StateOrderSearch.searches(), "one search per judged run, however often it is asked");
        }
    }
}
