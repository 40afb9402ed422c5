package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Verdict;

/**
 * Issue 21 item 1 (PostgreSQL REPEATABLE READ, seed 15): a plain INSERT whose key a concurrent transaction had
 * deleted waits for it and, once it commits, succeeds — PostgreSQL checks keys on the newest index entries
 * ("Index Uniqueness Checks": the inserter waits for the deleter and repeats the test), not on the snapshot. The
 * snapshot simulation ran the key check on the snapshot, where the deleted row is still there, so it could not
 * explain the run and the snapshot reads that did change the state came out as a bug candidate. Real PostgreSQL.
 */
public class InsertKeyCheckTest {
    /**
     * T2 deletes every row on a snapshot that predates T1's INSERT of key 3, so key 3 survives (snapshot
     * isolation); T3's INSERT of key 4, sent before T2 commits, waits for T2's delete of key 4 and then succeeds.
     */
    public static TestCase insertAfterConcurrentDelete() {
        return Cases.on("postgres").level(IsolationLevel.REPEATABLE_READ).table("t")
                .setup("CREATE TABLE t (k INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (4, 0), (8, 0)")
                .txn("INSERT INTO t VALUES (3, 0) ON CONFLICT (k) DO UPDATE SET v = t.v + 1")
                .txn("DELETE FROM t WHERE k <> 8", "DELETE FROM t WHERE k = 8")
                .txn("INSERT INTO t VALUES (4, 5)")
                .order(2, 2, 2, 3, 3, 3, 1, 1, 1, 2);
    }

    @Test
    void anInsertThatWaitedForADeleteOfItsKeyIsSnapshotIsolationNotABug() throws Exception {
        TestCase c = insertAfterConcurrentDelete();
        try (Target pg = Targets.create("postgres"); Executor ex = new Executor(pg, ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            assertTrue(trace.executed(new StmtRef(3, 1)).orElseThrow().blocked(), "T3's INSERT waits for T2: " + trace);
            assertEquals(List.of(List.of("3", "0"), List.of("4", "5")), trace.finalState().tables().get("t"), trace.toString());
            Verdict v = new WssOracle().judge(c, trace, ex);
            // the state differs from the commit-order replay (T2 would have deleted key 3) and that is documented
            assertTrue(v.violations().stream().anyMatch(x -> x.kind() == WssKind.TX_WSS), v.toString());
            assertTrue(v.violations().stream().allMatch(x -> x.classification() == Classification.DOCUMENTED), v.toString());

            // the other way: T2 deletes on a snapshot that shows key 3 (T1 commits before T2 starts), so the run is the
            // commit-order replay's and nothing is reported — the oracle is not simply silent on this shape
            TestCase serial = Cases.on("postgres").level(IsolationLevel.REPEATABLE_READ).table("t")
                    .setup("CREATE TABLE t (k INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (4, 0), (8, 0)")
                    .txn("INSERT INTO t VALUES (3, 0) ON CONFLICT (k) DO UPDATE SET v = t.v + 1")
                    .txn("DELETE FROM t WHERE k <> 8", "DELETE FROM t WHERE k = 8")
                    .txn("INSERT INTO t VALUES (4, 5)")
                    .order(1, 1, 1, 2, 2, 2, 3, 3, 2, 3);
            Trace t2 = ex.run(serial);
            assertEquals(List.of(List.of("4", "5")), t2.finalState().tables().get("t"), t2.toString());
            assertTrue(new WssOracle().judge(serial, t2, ex).isClean(), t2.toString());
        }
    }
}
