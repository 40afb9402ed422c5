package txfuzz.reduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import txfuzz.dbms.h2.H2Target;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.model.CaseJson;
import txfuzz.model.TestCase;
import txfuzz.oracle.Violation;
import txfuzz.oracle.explicit.ExplicitOracle;

/**
 * The reducer judges its candidates with a short statement timeout and keeps a result only when a run with the
 * executor's own settings shows the violation: a hang is reduced in seconds, and a statement that is merely slow never
 * becomes a reduced hang.
 */
class QuickHangSearchTest {

    /**
     * H2 2.5.252: T1's autocommit {@code SELECT … FOR UPDATE} is the deadlock victim and T2's UPDATE then waits for T1
     * after T1 has ended (the known hang of {@code h2-for-update-deadlock-victim-keeps-waiters}; reduced from the
     * {@code bench} warm-up's seed 1000004, iteration 117), with an index, a row and a third transaction added as noise.
     * With every hanging run lasting the 2 s statement timeout it did not reach a fixed point in 40 s (30 runs, 36 s); the
     * search reaches one in about 10 s, and the verdict it reports comes from a run with the 2 s timeout.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aHangReducesToAFixedPointAndItsVerdictIsAFullTimeoutRun() throws Exception {
        TestCase c = SameViolationReductionTest.resource("h2-waits-for-ended-noisy.case.json");
        try (Executor ex = new Executor(new H2Target(), ExecutorConfig.defaults())) {
            Violation v = firstOf(c, ex, "waits-for-ended");
            Reduction r = new Reducer(ex, List.of(new ExplicitOracle()), new ReduceConfig(Duration.ofSeconds(40))).reduce(c, v);
            assertTrue(r.changed(), r.end().toString());
            assertEquals(Reduction.End.FIXED_POINT, r.end(), "reduced in " + r.runs() + " runs, " + r.seconds() + " s");
            assertEquals(2, r.reduced().transactions().size(), CaseJson.write(r.reduced()));
            assertTrue(v.sameAs(r.violation(), r::originOf), r.violation().summary());
            ExplicitOracle.Hang hang = assertInstanceOf(ExplicitOracle.Hang.class, r.violation().evidence());
            assertTrue(hang.engine().probedMillis() >= 1500,
                    "the verdict is a run with the executor's 2 s timeout, not the search's: " + hang.engine().describe());
        }
    }

    /** The first violation of {@code kind} in a few runs of {@code c}: a hang can depend on how the threads meet. */
    private static Violation firstOf(TestCase c, Executor ex, String kind) throws Exception {
        for (int i = 0; i < 9; i++) {
            var found = new ExplicitOracle().judge(c, ex.run(c), ex).violations().stream().filter(x -> x.kind().label().equals(kind)).findFirst();
            if (found.isPresent()) {
                return found.get();
            }
        }
        throw new AssertionError("no " + kind + " in 9 runs of " + CaseJson.write(c));
    }

    /**
     * The control: a statement that sleeps 800 ms without waiting on a lock is hung for the search's short timeout but
     * not for the executor's 2 s. A "hang" seen only with the short timeout is what the search finds and reduces; the
     * run with the executor's settings does not show it, so the search starts over with those settings, where the case as
     * given does not fail: nothing is reduced.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aStatementOnlyTheShortTimeoutCallsHungIsNeverAReducedHang() throws Exception {
        TestCase c = CaseJson.read("""
                {"formatVersion": 1, "dbms": "h2", "seed": 1, "iteration": 1, "isolation": "READ_COMMITTED", "mode": "default",
                 "execution": "PLAIN", "tables": ["t0"],
                 "setup": ["CREATE TABLE t0 (c0 INT PRIMARY KEY, c1 INT)", "INSERT INTO t0 (c0, c1) VALUES (1, 1)",
                           "INSERT INTO t0 (c0, c1) VALUES (2, 2)", "CREATE ALIAS SLEEP_MS FOR 'java.lang.Thread.sleep'"],
                 "transactions": [
                   {"id": 1, "statements": [{"kind": "BEGIN", "sql": "BEGIN", "needsTransaction": false},
                                            {"kind": "UPDATE", "sql": "UPDATE t0 SET c1 = 5 WHERE c0 = 1", "needsTransaction": false},
                                            {"kind": "SELECT", "sql": "SELECT SLEEP_MS(800) FROM t0 WHERE c0 = 2", "needsTransaction": false},
                                            {"kind": "COMMIT", "sql": "COMMIT", "needsTransaction": false}]},
                   {"id": 2, "statements": [{"kind": "SELECT", "sql": "SELECT c1 FROM t0", "needsTransaction": false}]}],
                 "order": [1, 1, 2, 1, 1]}
                """, "the sleeping case");
        ExecutorConfig full = ExecutorConfig.defaults();
        try (Executor ex = new Executor(new H2Target(), full);
             Executor shortTimeout = ex.withConfig(new ExecutorConfig(full.blockTimeout(), full.stallTimeout(), Reducer.SEARCH_STATEMENT_TIMEOUT))) {
            Violation v = ReducerTest.violationOf(c, shortTimeout, new ExplicitOracle(), "hang");
            assertTrue(new ExplicitOracle().judge(c, ex.run(c), ex).violations().isEmpty(), "with the 2 s timeout the sleep is no hang");
            Reduction r = new Reducer(ex, List.of(new ExplicitOracle()), new ReduceConfig(Duration.ofSeconds(60))).reduce(c, v);
            assertFalse(r.changed(), "a hang only the short timeout sees was reduced: " + CaseJson.write(r.reduced()));
            assertEquals(Reduction.End.NOT_FAILING, r.end());
            assertTrue(r.runs() > Reducer.ORIGINAL_TRIES + Reducer.VERIFICATIONS,
                    "the search ran with the short timeout and found the 'hang' before the full timeout overruled it: " + r.runs() + " runs");
        }
    }
}
