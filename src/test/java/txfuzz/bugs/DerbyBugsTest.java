package txfuzz.bugs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import txfuzz.bugs.BugReplay.Result;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;

/** The Derby entry of docs/bugs.md, on the bundled Derby: the test fails the day an upgrade fixes it. */
class DerbyBugsTest {

    /**
     * derby-ru-merge-stale-row-lost-update: at READ UNCOMMITTED, T2's MERGE … WHEN MATCHED THEN UPDATE
     * reads a row T1 has changed, waits for T1's lock, and after T1 changed the row again and committed
     * writes its SET over the version it read before waiting: T1's second update is lost.
     */
    @Test
    void derbyRuMergeStaleRowLostUpdateStillShowsOnTheBundledDerby() throws Exception {
        TestCase c = BugReplay.testCase("derby-ru-merge-stale-row-lost-update");
        try (Target derby = Targets.create("derby")) {
            Result r = BugReplay.replay(derby, c, "wss", "explicit");
            assertEquals(Set.of("wss/stmt-wss/bug-candidate", "wss/tx-wss/bug-candidate"), r.labels(), r.toString());
            assertEquals(List.of(List.of("9", "12")), r.trace().finalState().tables().get("t0"),
                    "1 + 10 + 1: T1's committed + 100 is gone (any serial order gives 112): " + r.trace());
            // controls: the same schedule at READ COMMITTED, and at READ UNCOMMITTED with an UPDATE in place of the MERGE
            Result committed = BugReplay.replay(derby, c.withIsolation(IsolationLevel.READ_COMMITTED), "wss", "explicit");
            assertEquals(Set.of(), committed.labels(), committed.toString());
            assertEquals(List.of(List.of("9", "112")), committed.trace().finalState().tables().get("t0"), committed.trace().toString());
            Result update = BugReplay.replay(derby, withT2Statement(c, "UPDATE t0 SET c3 = c3 + 1 WHERE c0 IN (SELECT x0.c0 + 7 FROM t1 x0)"),
                    "wss", "explicit");
            assertEquals(Set.of(), update.labels(), update.toString());
            assertEquals(List.of(List.of("9", "112")), update.trace().finalState().tables().get("t0"), update.trace().toString());
        }
    }

    private static TestCase withT2Statement(TestCase c, String sql) {
        Txn t2 = c.txn(2);
        List<txfuzz.model.Stmt> stmts = new java.util.ArrayList<>(t2.statements());
        stmts.set(1, txfuzz.model.Stmt.of(txfuzz.model.StmtKind.UPDATE, sql));
        return c.withTransactions(List.of(c.txn(1), new Txn(2, stmts)), c.order());
    }
}
