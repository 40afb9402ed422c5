package txfuzz.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.model.TestCase;

/** A setup's rows go in as one transaction per run of INSERTs, between statements that run on their own, as before. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CaseSetupTest {
    @ParameterizedTest
    @ValueSource(strings = {"h2", "sqlite"})
    void rowsBetweenOtherStatementsAllArrive(String dbms) throws Exception {
        TestCase c = Cases.on(dbms).level(txfuzz.model.IsolationLevel.SERIALIZABLE).table("t").table("u")
                .setup("CREATE TABLE t (k INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 10)", "INSERT INTO t VALUES (2, 20)",
                        "CREATE INDEX tv ON t (v)", "CREATE TABLE u (k INT PRIMARY KEY)", "INSERT INTO u VALUES (7)")
                .txn("SELECT v FROM t WHERE k = 2").order(1, 1, 1);
        try (Target target = Targets.create(dbms); Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            Trace run = ex.run(c);
            assertEquals(List.of(List.of("1", "10"), List.of("2", "20")), run.finalState().tables().get("t"));
            assertEquals(List.of(List.of("7")), run.finalState().tables().get("u"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "sqlite"})
    void aRowTheEngineRefusesMakesTheCaseInvalid(String dbms) throws Exception {
        TestCase c = Cases.on(dbms).level(txfuzz.model.IsolationLevel.SERIALIZABLE).table("t")
                .setup("CREATE TABLE t (k INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 10)", "INSERT INTO t VALUES (1, 20)")
                .txn("SELECT v FROM t").order(1, 1, 1);
        try (Target target = Targets.create(dbms); Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            SetupFailedException e = assertThrows(SetupFailedException.class, () -> ex.run(c));
            assertTrue(e.getMessage().startsWith("setup failed at: INSERT INTO t VALUES (1, 20)"), e.getMessage());
        }
    }
}
