package txfuzz.oracle.equiv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Database;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.Target;
import txfuzz.dbms.TestServers;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.gen.CaseGenerator;
import txfuzz.gen.GenConfig;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Run;
import txfuzz.oracle.Verdict;

/**
 * The equiv oracle on real engines, both ways: generated cases at every level it judges, on all
 * seven engines, give no bug candidate and are really compared (decycled and replayed); the same
 * cases on an engine whose UPDATEs report one row too many inside a transaction are caught.
 */
class EquivOracleTest {
    private static final EquivOracle EQUIV = new EquivOracle();
    private static final CaseGenerator GENERATOR = new CaseGenerator(GenConfig.defaults().withInstrumentation(true));

    private static TestCase generated(Target t, IsolationLevel level, long iteration) {
        return EQUIV.prepare(GENERATOR.generate(t.name(), t.dialect(), level, t.modes().get(0), 11, iteration));
    }

    /** Judges {@code c}'s run; counts the cases the oracle really compared in {@code compared}. */
    private static Verdict judge(Executor ex, TestCase c, int[] compared) throws Exception {
        Trace trace = ex.run(c);
        Optional<EquivOracle.Examined> examined = EQUIV.examine(c, trace, ex);
        if (examined.isPresent() && !examined.get().outcome().checks().isEmpty()) {
            compared[0]++;
        }
        return EQUIV.judge(Run.controlled(c, trace), ex);
    }

    @Test
    void correctEnginesPassAtEveryLevelTheOracleJudges() throws Exception {
        int cases = 6;
        for (String dbms : List.of("h2", "hsqldb", "derby", "sqlite", "duckdb", "postgres", "mariadb")) {
            try (Target t = TestServers.open(dbms); Executor ex = new Executor(t, ExecutorConfig.defaults())) {
                for (IsolationLevel level : t.isolationLevels()) {
                    if (level == IsolationLevel.READ_UNCOMMITTED) {
                        continue;
                    }
                    int[] compared = {0};
                    for (long i = 0; i < cases; i++) {
                        TestCase c = generated(t, level, i);
                        Optional<EquivOracle.Examined> e = EQUIV.examine(c, ex.run(c), ex);
                        if (e.isPresent() && !e.get().outcome().checks().isEmpty()) {
                            compared[0]++;
                            assertTrue(!e.get().outcome().differs(), dbms + " " + level + " iteration " + i + ": " + e.get().outcome().checks());
                        }
                    }
                    // the oracle must have decided most cases, not stepped aside
                    assertTrue(compared[0] >= cases / 2, dbms + " " + level + ": only " + compared[0] + " of " + cases + " compared");
                }
            }
        }
    }

    @Test
    void anUpdateThatMiscountsInsideATransactionIsCaught() throws Exception {
        try (Target h2 = TestServers.open("h2"); Target faulty = new MiscountingUpdates(h2);
             Executor real = new Executor(h2, ExecutorConfig.defaults()); Executor wrong = new Executor(faulty, ExecutorConfig.defaults())) {
            int caught = 0;
            int withCommittedUpdate = 0;
            for (long i = 0; i < 30; i++) {
                TestCase c = generated(h2, IsolationLevel.READ_COMMITTED, i);
                assertTrue(real.run(c) != null);
                Verdict right = judge(real, c, new int[1]);
                assertTrue(right.isClean(), "iteration " + i + ": " + right);
                Verdict v = judge(wrong, c, new int[1]);
                if (!v.isClean()) {
                    caught++;
                    assertEquals(Classification.BUG_CANDIDATE, v.violations().get(0).classification());
                    assertTrue(v.violations().get(0).summary().startsWith("equiv-result: "), v.violations().get(0).summary());
                    assertTrue(v.violations().get(0).summary().contains("affected"), v.violations().get(0).summary());
                }
                if (c.transactions().stream().anyMatch(tx -> tx.statements().stream().anyMatch(s -> s.sql().startsWith("UPDATE ")))) {
                    withCommittedUpdate++;
                }
            }
            assertTrue(withCommittedUpdate > 0);
            assertTrue(caught > 0, "no miscounted UPDATE caught in 30 cases");
        }
    }

    /**
     * H2 2.3.232's REPEATABLE READ bug from the corpus: after an UPDATE that changes the primary key of
     * every row, the transaction's own SELECT returns the old and the new version of each row. The
     * READ COMMITTED control returns each row once.
     */
    @Test
    void aReadOfVersionsItsOwnTransactionReplacedIsCaught() throws Exception {
        try (Target h2 = TestServers.open("h2"); Executor ex = new Executor(h2, ExecutorConfig.defaults())) {
            TestCase bug = txfuzz.model.CaseJson.read(new String(getClass().getResourceAsStream(
                    "/corpus/bugs/h2-rr-key-change-both-versions.case.json").readAllBytes(), java.nio.charset.StandardCharsets.UTF_8), "corpus");
            Verdict v = EQUIV.judge(Run.controlled(bug, ex.run(bug)), ex);
            assertEquals(1, v.violations().size(), v.toString());
            assertEquals(EquivKind.OWN_WRITE_UNSEEN, v.violations().get(0).kind());
            assertEquals(Classification.BUG_CANDIDATE, v.violations().get(0).classification());
            assertTrue(v.violations().get(0).summary().contains("T1.S3 read"), v.violations().get(0).summary());
            TestCase control = txfuzz.model.CaseJson.read(new String(getClass().getResourceAsStream(
                    "/corpus/bugs/h2-rc-key-change-one-version.case.json").readAllBytes(), java.nio.charset.StandardCharsets.UTF_8), "corpus");
            assertTrue(EQUIV.judge(Run.controlled(control, ex.run(control)), ex).isClean());
        }
    }

    /**
     * Fault injection: inside a transaction (auto-commit off) every UPDATE reports one row more than it
     * changed; in autocommit it reports the truth. A transactional run then disagrees with the
     * non-transactional replay on the affected-row count.
     */
    private static final class MiscountingUpdates extends DelegatingTarget {
        MiscountingUpdates(Target real) {
            super(real);
        }

        @Override
        public String version() {
            return real.version() + " with miscounted UPDATEs inside transactions";
        }

        @Override
        public Database freshDatabase() throws SQLException {
            return wrappingConnections(real.freshDatabase(), c -> (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                        Object r = call(method, c, args);
                        return method.getName().equals("createStatement") ? miscounting(c, (Statement) r) : r;
                    }));
        }

        private Statement miscounting(Connection c, Statement s) {
            List<String> last = new ArrayList<>(List.of(""));
            return (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Statement.class}, (proxy, method, args) -> {
                if (method.getName().startsWith("execute") && args != null && args.length > 0 && args[0] instanceof String sql) {
                    last.set(0, sql);
                }
                Object r = call(method, s, args);
                if (method.getName().equals("getUpdateCount") && (Integer) r >= 0 && last.get(0).startsWith("UPDATE ") && !c.getAutoCommit()) {
                    return (Integer) r + 1;
                }
                return r;
            });
        }

        private static Object call(Method m, Object target, Object[] args) throws Throwable {
            try {
                return m.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }
}
