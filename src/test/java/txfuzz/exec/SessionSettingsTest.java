package txfuzz.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.h2.H2Target;
import txfuzz.model.ExecutionMode;
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;

/**
 * On a real H2: a transaction's own level is the one its session runs at (H2 says so in INFORMATION_SCHEMA.SESSIONS), its
 * settings run on its session before it starts, and a setting the engine refuses is recorded in the trace, with the
 * engine's error, while the session goes on without it.
 */
class SessionSettingsTest {
    private static final String OWN_LEVEL = "SELECT ISOLATION_LEVEL FROM INFORMATION_SCHEMA.SESSIONS WHERE SESSION_ID = SESSION_ID()";

    @Test
    void aTransactionRunsAtItsOwnLevelWithItsOwnSettingsAndARefusedSettingIsRecorded() throws Exception {
        List<Txn> txns = List.of(
                new Txn(1, List.of(Stmt.of(StmtKind.SELECT, OWN_LEVEL)), List.of("SET LOCK_TIMEOUT 1234"), null),
                new Txn(2, List.of(Stmt.of(StmtKind.SELECT, OWN_LEVEL)), List.of("SET NO_SUCH_SETTING 1"), IsolationLevel.SERIALIZABLE));
        TestCase c = new TestCase(TestCase.FORMAT_VERSION, "h2", 0, 0, IsolationLevel.READ_COMMITTED, "default", ExecutionMode.PLAIN,
                List.of("t"), List.of("CREATE TABLE t(x INT)"), txns, List.of(1, 2));
        try (Executor ex = new Executor(new H2Target(), ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            assertEquals(List.of(List.of("READ COMMITTED")), trace.executed(new StmtRef(1, 0)).orElseThrow().result().rows());
            assertEquals(List.of(List.of("SERIALIZABLE")), trace.executed(new StmtRef(2, 0)).orElseThrow().result().rows());
            assertEquals(1, trace.refusedSettings().size(), trace.refusedSettings().toString());
            Trace.RefusedSetting r = trace.refusedSettings().get(0);
            assertEquals(2, r.txn());
            assertEquals("SET NO_SUCH_SETTING 1", r.setting());
            assertTrue(r.error().contains("NO_SUCH_SETTING"), r.error());
            String text = txfuzz.report.TraceText.render(c, trace);
            assertTrue(text.contains("T2's session runs at SERIALIZABLE"), text);
            assertTrue(text.contains("T1's session: SET LOCK_TIMEOUT 1234 -> ok"), text);
            assertTrue(text.contains("T2's session: SET NO_SUCH_SETTING 1 -> refused by the engine"), text);
        }
    }
}
