package txfuzz.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import txfuzz.dbms.Target;
import txfuzz.dbms.TestServers;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.gen.pattern.AnomalyPattern;
import txfuzz.gen.pattern.PatternCatalogue;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;

/** Pattern cases on PostgreSQL and MariaDB (the test JVM's shared servers). */
class PatternCaseServerTest {
    static final int SEEDS = 20;
    static final long BUDGET_MS = Long.getLong("gen.pattern.budgetMs", 6_000);

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"postgres", "mariadb"})
    void fewStatementsAreInvalid(String name) throws Exception {
        Target target = TestServers.shared(name);
        PatternCaseChecks.Validity v = PatternCaseChecks.run(target, target.defaultIsolationLevel(), SEEDS, BUDGET_MS);
        System.out.print(v.summary());
        assertEquals(0, v.setupFailed, v.summary());
        assertTrue(v.share() < 0.10, v.summary());
    }

    /**
     * The engine's BEGIN variants run in the session (START TRANSACTION [WITH CONSISTENT SNAPSHOT]):
     * lost-update cases, whose transactions never wait on each other, begin without error.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"postgres", "mariadb"})
    void beginVariantsRunInTheSession(String name) throws Exception {
        Target target = TestServers.shared(name);
        AnomalyPattern p = PatternCatalogue.bundled().byName("lost-update").orElseThrow();
        int variants = 0;
        try (Executor executor = new Executor(target, ExecutorConfig.defaults())) {
            for (long i = 0; i < 8; i++) {
                TestCase c = new PatternCaseGenerator(PatternCaseChecks.INSTRUMENTED).generate(p, name, target.dialect(),
                        IsolationLevel.REPEATABLE_READ, target.modes().get(0), 23, i);
                Trace trace = executor.run(c);
                for (var t : c.transactions()) {
                    if (t.statements().get(0).beginVariant().isPresent()) {
                        variants++;
                    }
                    ExecutedStmt begin = trace.executed(new StmtRef(t.id(), 0)).orElseThrow();
                    assertFalse(begin.result().failed(), name + ": " + t.statements().get(0).sql() + ": " + begin.result());
                }
                assertEquals(2, trace.outcomes().size(), name + ": " + trace);
            }
        }
        assertTrue(variants > 0, name + ": no transaction began with a variant");
    }
}
