package txfuzz.oracle.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import txfuzz.dbms.TestServers;
import txfuzz.exec.TrackedCases;
import txfuzz.history.Analysis;
import txfuzz.history.Anomaly;
import txfuzz.history.History;
import txfuzz.history.HistoryJson;
import txfuzz.history.IsolationChecker;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.dbms.Target;
import txfuzz.oracle.HistoryRecorder;

/**
 * The pipeline catches a real anomaly: at READ COMMITTED two transactions read a row, then both
 * overwrite it with a constant (as if computed from what they read). The second write loses the
 * first: T2 -rw→ T1 -ww→ T2, a lost update, found by the checker from the recorded history.
 */
class LostUpdateTest {
    static TestCase lostUpdate(String dbms) {
        TrackedCases b = TrackedCases.on(dbms).level(IsolationLevel.READ_COMMITTED).table("t")
                .setup("CREATE TABLE t (k INT PRIMARY KEY, v INT, rid VARCHAR(100), wl VARCHAR(100))",
                        "INSERT INTO t (k, v, rid, wl) VALUES (1, 0, '1', ',0')");
        for (int id = 1; id <= 2; id++) {
            String tag = id + ".2";
            b.begin()
                    .read("SELECT x.rid, x.wl, x.v FROM t x WHERE x.k = 1", "k = 1", false, "t")
                    .write("UPDATE t SET v = " + (4 + id) + ", wl = wl || '," + tag + "' WHERE k = 1", "t", tag, List.of(), false)
                    .postRead("t", tag)
                    .commit();
        }
        // both read; T1 writes and commits; then T2 writes on top of T1's version
        return b.order(1, 1, 2, 2, 1, 1, 1, 2, 2, 2);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"h2", "postgres"})
    void aLostUpdateAtReadCommittedIsFound(String dbms) throws Exception {
        try (Target target = TestServers.open(dbms)) {
            TestCase c = lostUpdate(dbms);
            History h = HistoryRecorder.record(c, HistoryRecorderTest.run(target, c));
            assertEquals(List.of("pred 1 t k = 1 [1=T0]", "read 2 t 1 T0,T1 L", "write 2 t 1 update T0,T1,T2"),
                    HistoryRecorderTest.ops(h.transactions().get(1)), HistoryJson.write(h));
            Analysis a = IsolationChecker.analyze(h);
            assertTrue(a.observed().contains(Anomaly.LOST_UPDATE), () -> a.findings() + "\n" + HistoryJson.write(h));
            assertTrue(a.observed().contains(Anomaly.G_SINGLE));
            // permitted at READ COMMITTED, proscribed at REPEATABLE READ
            assertTrue(a.judge(IsolationLevel.READ_COMMITTED, java.util.Set.of()).stream().noneMatch(f -> f.bugCandidate()));
            assertTrue(a.judge(IsolationLevel.REPEATABLE_READ, java.util.Set.of()).stream().anyMatch(f -> f.bugCandidate()));
        }
    }
}
