package txfuzz.gen;

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
 * Every registered target runs ~120 generated cases statement by statement in autocommit. Setup
 * statements must all succeed; statements the target classifies as INVALID_STATEMENT must stay
 * rare. Picks up new targets from {@link Targets#names()} automatically.
 */
class GeneratedSqlValidityTest {
    /** Deeper runs: -Dgen.validity.cases=5000 -Dgen.validity.budgetMs=120000 -Dgen.validity.seed=7 */
    static final int CASES = Integer.getInteger("gen.validity.cases", 120);
    /** Slow engines (Derby creates each table slowly) run fewer cases; the suite must stay near a minute. */
    static final int MIN_CASES = 40;
    static final long BUDGET_MS = Long.getLong("gen.validity.budgetMs", 4_000);
    static final long SEED = Long.getLong("gen.validity.seed", 20240601L);

    static List<String> targets() {
        return Targets.names();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void generatedStatementsAreValid(String name) throws SQLException {
        try (Target target = TestServers.open(name)) {
            IsolationLevel level = target.defaultIsolationLevel();
            String mode = target.modes().get(0);
            StatementValidity.Result r = StatementValidity.run(name, target.dialect(), level, CASES, MIN_CASES, BUDGET_MS, SEED, () -> StatementValidity.fresh(target, level, mode),
                    target::classify);
            System.out.print(r.summary());
            assertTrue(r.setupFailed <= r.setupStatements / 200, "setup statements failed on " + name + ":\n" + r.summary());
            assertTrue(r.invalidShare() < 0.10, "too many invalid statements on " + name + ":\n" + r.summary());
        }
    }

}
