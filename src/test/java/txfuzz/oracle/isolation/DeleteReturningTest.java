package txfuzz.oracle.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.exec.TrackedCases;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.history.History;
import txfuzz.history.Op;
import txfuzz.history.PredicateRead;
import txfuzz.history.Read;
import txfuzz.history.Write;
import txfuzz.history.WriteKind;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.HistoryRecorder;
import txfuzz.oracle.Run;

/**
 * Where the dialect has it, row tracking runs a DELETE as {@code DELETE … RETURNING rid, wl}: no
 * tag-update, no companions; the returned rows are the versions it read and deleted. On SQLite
 * (real, in process): T1 updates row 1 and commits, T2 deletes rows with v >= 1 and commits.
 */
class DeleteReturningTest {

    private static TestCase deleteAfterUpdate(String predicate) {
        TrackedCases c = TrackedCases.on("sqlite").level(IsolationLevel.SERIALIZABLE).table("t")
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT, rid VARCHAR(100), wl VARCHAR(1000))",
                        "INSERT INTO t VALUES (1, 0, '1', ',0'), (2, 5, '2', ',0'), (3, -1, '3', ',0')");
        c.begin().writeScanning("UPDATE t SET v = 1, wl = wl || ',1.1' WHERE id = 1", "t", "1.1", "id = 1").postRead("t", "1.1").commit();
        c.begin();
        c.current().add(txfuzz.model.Stmt.of(txfuzz.model.StmtKind.DELETE, "DELETE FROM t WHERE t.v >= 1 RETURNING rid, wl",
                txfuzz.model.Tracking.write("t", "2.1", List.of(), true, predicate)));
        return c.commit().serial();
    }

    private static History recorded(TestCase c) throws Exception {
        try (Target t = Targets.create("sqlite"); Executor ex = new Executor(t, ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            assertEquals(2, trace.executed(new txfuzz.model.StmtRef(2, 1)).orElseThrow().result().updateCount(),
                    "a write with RETURNING counts the rows it returned");
            assertEquals(List.of(List.of("3", "-1", "3", ",0")), trace.finalState().tables().get("t"));
            assertEquals(List.of(), new IsolationOracle().judge(Run.controlled(c, trace), ex).violations());
            return HistoryRecorder.record(Run.controlled(c, trace));
        }
    }

    private static List<Op> opsOfT2(History h) {
        return h.transactions().stream().filter(t -> t.id() == 2).findFirst().orElseThrow().ops();
    }

    @Test
    void theReturnedVersionsAreAPredicateReadThenTombstones() throws Exception {
        List<Op> ops = opsOfT2(recorded(deleteAfterUpdate("v >= 1")));
        PredicateRead scan = (PredicateRead) ops.get(0);
        assertEquals("v >= 1", scan.predicate());
        assertTrue(scan.locking());
        assertEquals(List.of("1:T0,T1", "2:T0"), scan.rows().stream().map(v -> v.row() + ":" + v.wList()).sorted().toList());
        List<String> tombstones = ops.stream().filter(o -> o instanceof Write w && w.kind() == WriteKind.DELETE)
                .map(o -> ((Write) o).row() + ":" + ((Write) o).wList()).sorted().toList();
        assertEquals(List.of("1:T0,T1,T2", "2:T0,T2"), tombstones);
    }

    @Test
    void withoutARowLocalWhereEachReturnedVersionIsALockingRead() throws Exception {
        List<Op> ops = opsOfT2(recorded(deleteAfterUpdate(null)));
        assertEquals(2, ops.stream().filter(o -> o instanceof Read r && r.locking()).count(), ops.toString());
        assertTrue(ops.stream().noneMatch(o -> o instanceof PredicateRead), ops.toString());
    }
}
