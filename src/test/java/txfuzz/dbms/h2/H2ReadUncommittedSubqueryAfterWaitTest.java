package txfuzz.dbms.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;

/**
 * A measurement behind H2's READ UNCOMMITTED rule DIRTY_SCAN_IN_KEY_ORDER (docs/bugs.md, "Others", h2-RU-s204-i225): a
 * waiting UPDATE evaluates its SET's subquery for each row when it gets there, on the data of that moment, uncommitted rows
 * included. The row before the one it waited for counts {@code t0} as it was before the wait; the waited-for row, which T1
 * locked and left as it was, counts T3's uncommitted rows, which T3 then rolls back. Correlated or not, the subquery runs
 * again. (The re-check rule, which runs a re-checked row's subqueries on the statement's snapshot and re-checks only rows
 * whose values changed, does not explain this; DirtyScanInKeyOrderTest shows the scan rule does.)
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class H2ReadUncommittedSubqueryAfterWaitTest {
    private static TestCase waitingUpdateWithSubquery(String subquery) {
        return Cases.on("h2").level(IsolationLevel.READ_UNCOMMITTED).table("t0").table("t1")
                .setup("CREATE TABLE t0 (c0 INT, c2 INT)", "CREATE TABLE t1 (c0 INT, c2 INT, c3 INT)",
                        "INSERT INTO t1 VALUES (1, 7, 0)", "INSERT INTO t1 VALUES (0, 1, 0)")
                .txn("UPDATE t1 SET c3 = c3 * 0 WHERE c2 = 1")
                .autocommit("UPDATE t1 SET c0 = COALESCE(" + subquery + ", 0)")
                .txn("INSERT INTO t0 VALUES (1, 0), (0, 0)", "ROLLBACK")
                .order(1, 1, 2, 3, 3, 1, 3);
    }

    @ParameterizedTest
    @ValueSource(strings = {"(SELECT COUNT(*) FROM t0 s0 WHERE s0.c2 <> t1.c2)", "(SELECT COUNT(*) FROM t0 s0 WHERE s0.c2 <> 99)"})
    void theWaitedForRowsSubqueryReadsTheDataAsItResumed(String subquery) throws Exception {
        try (Target h2 = Targets.create("h2"); Executor ex = new Executor(h2, ExecutorConfig.defaults())) {
            Trace run = ex.run(waitingUpdateWithSubquery(subquery));
            var update = run.executed(new StmtRef(2, 0)).orElseThrow();
            assertTrue(update.blocked(), "the UPDATE waits for T1's lock on the second row: " + run);
            assertEquals(2, update.result().updateCount(), run.toString());
            // the first row: t0 as before the wait (empty); the second: T3's two uncommitted rows, since rolled back
            assertEquals(List.of(List.of("0", "7", "0"), List.of("2", "1", "0")), run.finalState().tables().get("t1"), run.toString());
        }
    }
}
