package txfuzz.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.dbms.TestServers;
import txfuzz.model.TestCase;

/** The execution protocol on every DBMS {@link Targets#names()} knows (servers: the test JVM's shared ones). */
class ExecutorContractTest {

    static List<String> names() {
        return Targets.names();
    }

    /**
     * Two transactions on different rows, begun together and run one after the other (so that
     * SQLite, one writer at a time, need not refuse either): both commit, in order, and the final
     * state holds both writes.
     */
    @ParameterizedTest
    @MethodSource("names")
    void aTinyTwoTransactionCaseRunsAndCommits(String name) throws Exception {
        try (Target t = TestServers.open(name); Executor executor = new Executor(t, ExecutorConfig.defaults())) {
            TestCase c = Cases.on(name).level(t.defaultIsolationLevel()).mode(t.modes().get(0)).table("t")
                    .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)", "INSERT INTO t VALUES (2, 0)")
                    .txn("UPDATE t SET v = 1 WHERE id = 1")
                    .txn("UPDATE t SET v = 2 WHERE id = 2")
                    .order(1, 2, 1, 1, 2, 2);
            Trace trace = executor.run(c);
            assertTrue(trace.outcome(1).status().committed(), name + ": " + trace);
            assertTrue(trace.outcome(2).status().committed(), name + ": " + trace);
            assertEquals(List.of(1, 2), trace.endOrder(), name);
            assertEquals(0, trace.blockedCount(), name);
            assertEquals(List.of(List.of("1", "1"), List.of("2", "2")), trace.finalState().tables().get("t"), name);
        }
    }
}
