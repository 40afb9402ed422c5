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
import txfuzz.dbms.TestServers;
import txfuzz.model.TestCase;

/** A setup's rows go in as one transaction per run of INSERTs (on a server, one batch), between statements that run on their own, as before. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CaseSetupTest {
    @ParameterizedTest
    @ValueSource(strings = {"h2", "sqlite", "postgres", "mariadb"})
    void rowsBetweenOtherStatementsAllArrive(String dbms) throws Exception {
        TestCase c = Cases.on(dbms).level(txfuzz.model.IsolationLevel.SERIALIZABLE).table("t").table("u")
                .setup("CREATE TABLE t (k INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 10)", "INSERT INTO t VALUES (2, 20)",
                        "CREATE INDEX tv ON t (v)", "CREATE TABLE u (k INT PRIMARY KEY)", "INSERT INTO u VALUES (7)")
                .txn("SELECT v FROM t WHERE k = 2").order(1, 1, 1);
        try (Target target = TestServers.open(dbms); Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            Trace run = ex.run(c);
            assertEquals(List.of(List.of("1", "10"), List.of("2", "20")), run.finalState().tables().get("t"));
            assertEquals(List.of(List.of("7")), run.finalState().tables().get("u"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "sqlite", "postgres", "mariadb"})
    void aRowTheEngineRefusesMakesTheCaseInvalid(String dbms) throws Exception {
        TestCase c = Cases.on(dbms).level(txfuzz.model.IsolationLevel.SERIALIZABLE).table("t")
                .setup("CREATE TABLE t (k INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 10)", "INSERT INTO t VALUES (1, 20)",
                        "INSERT INTO t VALUES (3, 30)")
                .txn("SELECT v FROM t").order(1, 1, 1);
        try (Target target = TestServers.open(dbms); Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            SetupFailedException e = assertThrows(SetupFailedException.class, () -> ex.run(c));
            // the refused row is named, whether the rows went one by one or as a server's batch
            assertTrue(e.getMessage().startsWith("setup failed at: INSERT INTO t VALUES (1, 20) — "), e.getMessage());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgres", "h2"})
    void aServersRowsGoAsOneBatchAnInProcessEnginesOneByOne(String dbms) throws Exception {
        TestCase c = Cases.on(dbms).level(txfuzz.model.IsolationLevel.SERIALIZABLE).table("t")
                .setup("CREATE TABLE t (k INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 10)", "INSERT INTO t VALUES (2, 20)",
                        "INSERT INTO t VALUES (3, 30)")
                .txn("SELECT v FROM t WHERE k = 2").order(1, 1, 1);
        try (Target real = TestServers.open(dbms); StatementCountingTarget target = new StatementCountingTarget(real);
             Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            Trace run = ex.run(c);
            assertEquals(3, run.finalState().tables().get("t").size());
            boolean server = real.engine().server();
            assertEquals(server ? 0 : 3, target.insertsAlone.get(), "INSERTs sent one at a time");
            assertEquals(server ? 1 : 0, target.batches.get(), "batches sent");
        }
    }

    /** A real engine whose statements count what reaches them: INSERTs executed alone, and batches. */
    private static final class StatementCountingTarget extends txfuzz.dbms.DelegatingTarget {
        final java.util.concurrent.atomic.AtomicInteger insertsAlone = new java.util.concurrent.atomic.AtomicInteger();
        final java.util.concurrent.atomic.AtomicInteger batches = new java.util.concurrent.atomic.AtomicInteger();

        StatementCountingTarget(Target real) {
            super(real);
        }

        @Override
        public txfuzz.dbms.Database freshDatabase() throws java.sql.SQLException {
            return wrappingStatements(real.freshDatabase(), (conn, st) -> (java.sql.Statement) java.lang.reflect.Proxy.newProxyInstance(
                    getClass().getClassLoader(), new Class<?>[] {java.sql.Statement.class}, (proxy, method, args) -> {
                        if (method.getName().equals("executeBatch")) {
                            batches.incrementAndGet();
                        } else if (method.getName().startsWith("execute") && args != null && String.valueOf(args[0]).startsWith("INSERT")) {
                            insertsAlone.incrementAndGet();
                        }
                        return invoke(st, method, args);
                    }));
        }

        @Override
        public void close() {
            // the real target is the test's to close
        }
    }
}
