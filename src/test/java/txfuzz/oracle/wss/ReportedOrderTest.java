package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.h2.H2Target;
import txfuzz.exec.Cases;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;

/**
 * Issue 21 item 3 (MariaDB seed 22): a tx-wss reported against the recorded commit order T1 → T3 → T2 while
 * T3 → T2 → T1, an order the run could not rule out (the transactions ended in one resumption sweep), gives
 * the final state. When a commit order the run cannot rule out gives the state, the violations left are
 * compared with that order. Real H2 runs and replays.
 */
class ReportedOrderTest {
    /**
     * T2 and T3 (autocommit) wait for T1's row lock and resume when T1 rolls back, so their order is the
     * engine's: T2 first gives v = 12, T3 first 22. T4's UPDATE u SET x = 0 WHERE x = 0 ran before T5's
     * INSERT committed (0 rows), while the commit-order replay runs it after (1 row): a write-outcome
     * that every order keeps, with the same state either way.
     */
    private static TestCase twoWaitersAndAnOutcome() {
        return Cases.on("h2").level(IsolationLevel.READ_COMMITTED).table("t").table("u")
                .setup("CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 1)", "CREATE TABLE u (x INT)")
                .txn("UPDATE t SET v = v + 0 WHERE id = 1", "ROLLBACK")
                .autocommit("UPDATE t SET v = v * 2 WHERE id = 1")
                .autocommit("UPDATE t SET v = v + 10 WHERE id = 1")
                .txn("UPDATE u SET x = 0 WHERE x = 0")
                .autocommit("INSERT INTO u VALUES (0)")
                .order(4, 4, 5, 4, 1, 1, 2, 3, 1);
    }

    /**
     * The run as the executor records it when T2's and T3's statements finish in one sweep ({@code together})
     * and, if {@code misrecorded}, with their ends the other way round from the engine's (what the campaign saw):
     * the recorded order is then not the one the engine committed in.
     */
    private static Trace recorded(Trace real, boolean together, boolean misrecorded) {
        List<ExecutedStmt> schedule = real.schedule().stream().map(e -> e.ref().txn() == 2 || e.ref().txn() == 3
                ? new ExecutedStmt(e.ref(), e.result(), e.blocked(), e.submitSeq(), e.completedBefore(), together ? 99 : -1) : e).toList();
        List<Integer> ends = new ArrayList<>(real.endOrder());
        if (misrecorded) {
            java.util.Collections.swap(ends, ends.indexOf(2), ends.indexOf(3));
        }
        return new Trace(schedule, real.outcomes(), ends, real.finalState(), real.stalls(), real.hung());
    }

    /**
     * {@code run} with T2's and T3's statements and ends in the order the engine let them through, as the final state shows
     * it (they finished in one sweep, whose recorded order need not be the engine's).
     */
    private static Trace withWaitersInEngineOrder(Trace run) {
        boolean t2First = run.finalState().tables().get("t").equals(List.of(List.of("1", "12")));
        List<Integer> ends = new ArrayList<>(run.endOrder());
        List<ExecutedStmt> schedule = new ArrayList<>(run.schedule());
        if ((ends.indexOf(2) < ends.indexOf(3)) != t2First) {
            java.util.Collections.swap(ends, ends.indexOf(2), ends.indexOf(3));
            java.util.Collections.swap(schedule, run.position(new StmtRef(2, 0)), run.position(new StmtRef(3, 0)));
        }
        return new Trace(schedule, run.outcomes(), ends, run.finalState(), run.stalls(), run.hung());
    }

    private static Set<String> labels(Verdict v) {
        return v.violations().stream().map(x -> x.kind().label() + "/" + x.classification().label()).collect(Collectors.toSet());
    }

    @Test
    void violationsAreComparedWithTheCommitOrderTheRunCannotRuleOutThatGivesTheState() throws Exception {
        TestCase c = twoWaitersAndAnOutcome();
        H2Target h2 = new H2Target();
        try (Executor ex = new Executor(h2, ExecutorConfig.defaults())) {
            Trace run = ex.run(c);
            assertEquals(0, run.executed(new StmtRef(4, 1)).orElseThrow().result().updateCount(), run.toString());
            // T2 and T3 end in one sweep, which records them in an order of its own: the engine's shows in v (T2 first: 12)
            Trace real = withWaitersInEngineOrder(run);
            Trace wrong = recorded(real, true, true);
            // the premise: the recorded order's replay does not give the final state
            Trace replay = ex.run(SerialSchedule.transactionLevel(c, wrong).testCase());
            assertNotEquals(real.finalState().tables().get("t"), replay.finalState().tables().get("t"), replay.toString());

            Verdict right = new WssOracle().judge(c, recorded(real, true, false), ex);
            Verdict judged = new WssOracle().judge(c, wrong, ex);
            // only T4's outcome is left, and it breaks no promise of H2's READ COMMITTED; no lost write is claimed
            assertEquals(Set.of("write-outcome/not-promised"), labels(right), right.toString());
            assertEquals(labels(right), labels(judged), judged.toString());
            Violation outcome = judged.violations().get(0);
            WssEvidence e = (WssEvidence) outcome.evidence();
            List<Integer> engineOrder = SerialSchedule.fcrfsCommitted(real);
            assertEquals(engineOrder, e.orders().compared(), "compared with the order that gives the state");
            String headline = e.checked().orElseThrow(); // what was checked: the rule section, not the title
            assertTrue(headline.contains("in commit order " + SerialOrders.describe(engineOrder)), headline);
            assertTrue(headline.contains("the run recorded " + SerialOrders.describe(SerialSchedule.fcrfsCommitted(wrong))), headline);

            // and when the run rules the engine's order out (they did not end together), the lost write is reported
            Verdict ruledOut = new WssOracle().judge(c, recorded(real, false, true), ex);
            assertTrue(labels(ruledOut).stream().anyMatch(l -> l.startsWith("tx-wss/")), ruledOut.toString());
        }
    }
}
