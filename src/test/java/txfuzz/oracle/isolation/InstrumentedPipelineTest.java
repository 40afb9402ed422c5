package txfuzz.oracle.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import txfuzz.dbms.TestServers;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.gen.CaseGenerator;
import txfuzz.gen.GenConfig;
import txfuzz.history.Analysis;
import txfuzz.history.History;
import txfuzz.history.HistoryJson;
import txfuzz.history.IsolationChecker;
import txfuzz.model.DbState;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;
import txfuzz.dbms.Target;
import txfuzz.oracle.HistoryRecorder;

/**
 * Generated instrumented cases run serially (T1's statements, then T2's, …) on each embedded
 * engine: a serial history has no anomaly, so any finding is a recorder (or instrumentation) bug.
 * The same cases uninstrumented end in the same state once rid and wl are dropped: the tracking
 * does not change which rows a statement touches.
 */
class InstrumentedPipelineTest {
    static final int CASES = Integer.getInteger("isolation.pipeline.cases", 40);
    static final long BUDGET_MS = Long.getLong("isolation.pipeline.budgetMs", 5_000);
    static final long SEED = Long.getLong("isolation.pipeline.seed", 424242L);

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"h2", "hsqldb", "derby", "sqlite", "duckdb"})
    void serialRunsHaveNoAnomaliesAndTheSameStateAsUninstrumented(String name) throws Exception {
        try (Target target = TestServers.open(name); Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            IsolationLevel level = target.isolationLevels().get(target.isolationLevels().size() - 1);
            String mode = target.modes().get(0);
            CaseGenerator plainGen = new CaseGenerator(GenConfig.defaults());
            CaseGenerator trackedGen = new CaseGenerator(GenConfig.defaults().withInstrumentation(true));
            long deadline = System.nanoTime() + BUDGET_MS * 1_000_000L;
            int cases = 0;
            int ops = 0;
            for (int i = 0; i < CASES && (i < 10 || System.nanoTime() < deadline); i++) {
                TestCase tracked = serial(trackedGen.generate(name, target.dialect(), level, mode, SEED, i));
                TestCase plain = serial(plainGen.generate(name, target.dialect(), level, mode, SEED, i));
                Trace t = ex.run(tracked);
                Trace p = ex.run(plain);
                assertEquals(p.finalState(), withoutTracking(t.finalState()), () -> "case " + tracked.iteration() + ": states differ\n"
                        + String.join("\n", plain.setup()));
                History h = HistoryRecorder.record(tracked, t);
                Analysis a = IsolationChecker.analyze(h);
                assertTrue(a.findings().isEmpty(), () -> "case " + tracked.iteration() + " on " + name + ": " + a.findings().get(0).summary()
                        + "\n" + a.findings().get(0).explanation() + "\n" + HistoryJson.write(h));
                cases++;
                ops += h.transactions().stream().mapToInt(x -> x.ops().size()).sum();
            }
            System.out.printf("instrumented pipeline %s: %d serial cases, %d ops, no anomaly%n", name, cases, ops);
            assertTrue(ops > cases, "the histories must not be empty");
        }
    }

    /** The case with its transactions one after another, in id order. */
    static TestCase serial(TestCase c) {
        List<Integer> order = new ArrayList<>();
        for (Txn t : c.transactions()) {
            for (int k = 0; k < t.statements().size(); k++) {
                order.add(t.id());
            }
        }
        return c.withTransactions(c.transactions(), order);
    }

    /** The state without each table's last two columns (rid, wl). */
    static DbState withoutTracking(DbState s) {
        Map<String, List<List<String>>> out = new LinkedHashMap<>();
        s.tables().forEach((table, rows) -> out.put(table, rows.stream().map(r -> r.subList(0, r.size() - 2)).toList()));
        return new DbState(out);
    }
}
