package txfuzz.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import txfuzz.dbms.TestServers;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;

/**
 * Instrumented generation ({@link GenConfig#instrumented()}) is valid SQL on every registered
 * target: the rid/wl columns, tagged writes, companion statements and rewritten reads. Unlike the
 * plain generator's few-percent allowance, no statement may be invalid: a broken companion would
 * silently lose history.
 */
class InstrumentedSqlValidityTest {
    static final int CASES = Integer.getInteger("gen.instrumented.cases", 80);
    static final int MIN_CASES = 30;
    static final long BUDGET_MS = Long.getLong("gen.instrumented.budgetMs", 3_000);
    static final long SEED = Long.getLong("gen.instrumented.seed", 20250714L);

    static List<String> targets() {
        return Targets.names();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void instrumentedStatementsAreValid(String name) throws SQLException {
        try (Target target = TestServers.open(name)) {
            IsolationLevel level = target.defaultIsolationLevel();
            String mode = target.modes().get(0);
            StatementValidity.Result r = StatementValidity.run(GenConfig.defaults().withInstrumentation(true), name, target.dialect(), level,
                    CASES, MIN_CASES, BUDGET_MS, SEED, () -> StatementValidity.fresh(target, level, mode), target::classify);
            System.out.print("instrumented " + r.summary());
            assertEquals(0, r.setupFailed, "setup statements failed on " + name + ":\n" + r.summary());
            assertEquals(0, r.invalid, "invalid instrumented statements on " + name + ":\n" + r.summary());
            assertTrue(r.statements > 0);
        }
    }

}
