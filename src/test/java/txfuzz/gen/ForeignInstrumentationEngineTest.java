package txfuzz.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import txfuzz.dbms.TestServers;
import txfuzz.campaign.InstrumentationSelfCheck;
import txfuzz.campaign.Judge;
import txfuzz.campaign.Oracles;
import txfuzz.dbms.Engine;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Oracle;

/**
 * On the real engine, a generated program instrumented by {@link ForeignInstrumentation} from its
 * plain twin is judged as the generator's own instrumented case is: every oracle that needs row
 * tracking, each case prepared by every such oracle first (the version-set reads), gives the same
 * violations, and the instrumentation self-check can compare it with its plain twin statement for
 * statement. Its SQL text is JSqlParser's spelling of the statements, so this is what shows that text runs.
 */
class ForeignInstrumentationEngineTest {
    private static final int CASES = 5;

    /** The oracles that need row tracking, made for {@code target}. */
    private static txfuzz.campaign.OracleSet trackingOracles(Target target) {
        List<String> names = Oracles.names().stream().filter(n -> Oracles.needInstrumentation(List.of(n))).toList();
        return Oracles.create(names, txfuzz.oracle.OracleContext.of(target, ExecutorConfig.defaults()));
    }

    private static TestCase prepared(TestCase c, List<Oracle> oracles) {
        for (Oracle o : oracles) {
            c = o.prepare(c);
        }
        return c;
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgres", "hsqldb", "derby", "sqlite", "duckdb", "mariadb"})
    void judgedAsTheGeneratorsOwnCase(String engineName) throws Exception {
        Engine engine = Targets.engine(engineName);
        GenConfig gen = GenConfig.defaults();
        // REPEATABLE READ where the engine has it (a level between the extremes), else the one it has
        IsolationLevel level = engine.isolationLevels().contains(IsolationLevel.REPEATABLE_READ) ? IsolationLevel.REPEATABLE_READ
                : engine.isolationLevels().get(0);
        int violations = 0;
        int agreeing = 0;
        try (Target target = TestServers.open(engineName); Executor ex = new Executor(target, ExecutorConfig.defaults());
             txfuzz.campaign.OracleSet set = trackingOracles(target)) {
            List<Oracle> oracles = set.oracles();
            assertTrue(!oracles.isEmpty());
            for (int i = 0; i < CASES; i++) {
                TestCase plain = new CaseGenerator(gen).generate(engineName, engine.dialect(), level, "default", 11, i);
                TestCase own = prepared(new CaseGenerator(gen.withInstrumentation(true))
                        .generate(engineName, engine.dialect(), level, "default", 11, i), oracles);
                ForeignInstrumentation.Instrumented fi = ForeignInstrumentation.instrument(plain, engine.dialect());
                assertTrue(fi.rowTrackingComplete(), "iteration " + i + ": " + fi.unhandled());
                TestCase foreign = prepared(fi.testCase(), oracles);

                Trace ownTrace = ex.run(own);
                Trace foreignTrace = ex.run(foreign);
                List<String> ownLabels = ForeignInstrumentationCorpusTest.labels(new Judge(oracles, ex).judge(own, ownTrace));
                List<String> foreignLabels = ForeignInstrumentationCorpusTest.labels(new Judge(oracles, ex).judge(foreign, foreignTrace));
                assertEquals(ownLabels, foreignLabels, engineName + " seed 11 iteration " + i);
                violations += foreignLabels.size();

                // whether the twins agree can turn on whether a statement was seen waiting (the self-check runs a
                // disagreeing twin twice for that reason): only that they line up statement for statement is asserted
                InstrumentationSelfCheck.Result foreignCheck = InstrumentationSelfCheck.run(foreign, foreignTrace, plain, ex).result();
                assertTrue(foreignCheck.comparable(), "iteration " + i + ": " + foreignCheck.differences());
                if (foreignCheck.agrees()) {
                    agreeing++;
                }
            }
        }
        System.out.println("foreign-engine " + engineName + ": " + CASES + " cases judged alike (" + violations + " violation labels), "
                + agreeing + " agree with their plain twin");
    }
}
