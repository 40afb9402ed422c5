package txfuzz.oracle.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;
import txfuzz.oracle.Violation;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;

/** Linearising a run into a controlled case of chosen transactions keeps their statements' order and their anomaly. */
class WitnessCaseTest {
    @Test
    void theWitnessOfACycleReplaysItsAnomalyAndRenumbersTheTransactions() throws Exception {
        // a bystander T1 first, then the H2 read-skew pair as T2 and T3
        TestCase pair = IsolationOracleEngineTest.readSkewAcrossTables(IsolationLevel.REPEATABLE_READ);
        List<Txn> txns = new java.util.ArrayList<>();
        txns.add(new Txn(1, List.of(Stmt.begin(), pair.txn(1).statements().get(1), Stmt.commit())));
        for (Txn t : pair.transactions()) {
            txns.add(new Txn(t.id() + 1, t.statements()));
        }
        List<Integer> order = new java.util.ArrayList<>(List.of(1, 1, 1));
        pair.order().forEach(id -> order.add(id + 1));
        TestCase three = pair.withTransactions(txns, order);
        try (Target h2 = Targets.create("h2"); Executor ex = new Executor(h2, ExecutorConfig.defaults())) {
            Trace trace = ex.run(three);
            assertEquals(List.of("read-skew"), kinds(three, trace, ex));

            TestCase witness = WitnessCase.of(three, trace, Set.of(2, 3));
            assertEquals(pair.transactions(), witness.transactions(), "T2, T3 become T1, T2 with their statements as they were");
            assertEquals(pair.order(), witness.order(), "in the order their statements completed");
            assertEquals(List.of("read-skew"), kinds(witness, ex.run(witness), ex));

            TestCase alone = WitnessCase.of(three, trace, Set.of(2));
            assertEquals(List.of(), kinds(alone, ex.run(alone), ex), "one transaction has no cycle");
        }
    }

    private static List<String> kinds(TestCase c, Trace t, Executor ex) throws Exception {
        return new IsolationOracle().judge(c, t, ex).violations().stream().map(vi -> vi.kind().label()).toList();
    }
}
