package txfuzz.bugs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import txfuzz.bugs.BugReplay.Result;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.exec.StmtResult;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;

/** The HSQLDB entry of docs/bugs.md, on the bundled HSQLDB: the test fails the day an upgrade fixes it. */
class HsqldbBugsTest {

    /**
     * hsqldb-mvlocks-merge-deleted-row-commit-npe: at REPEATABLE READ in MVLOCKS mode, T2's MERGE
     * updates a row T1 deleted and committed, T2's COMMIT then throws a NullPointerException, and
     * T2's earlier INSERT is in the database anyway.
     */
    @Test
    void hsqldbMvlocksMergeDeletedRowCommitNpeStillShowsOnTheBundledHsqldb() throws Exception {
        TestCase c = BugReplay.testCase("hsqldb-mvlocks-merge-deleted-row-commit-npe");
        try (Target hsqldb = Targets.create("hsqldb")) {
            Result r = BugReplay.replay(hsqldb, c, "wss", "explicit");
            assertEquals(1, r.trace().executed(new StmtRef(2, 2)).orElseThrow().result().updateCount(),
                    "the MERGE updates the deleted row: " + r.trace());
            StmtResult commit = r.trace().executed(new StmtRef(2, 3)).orElseThrow().result();
            assertEquals(ErrorClass.INTERNAL, commit.errorClass(), r.trace().toString());
            assertTrue(commit.error().message().contains("NullPointerException"), commit.error().message());
            // the failed transaction's INSERT stayed: atomicity broken, not only an error
            List<List<String>> t0 = r.trace().finalState().tables().get("t0");
            assertEquals(2, t0.size(), r.trace().toString());
            assertTrue(t0.contains(java.util.Collections.singletonList((String) null)), "T2's row (NULL) is there: " + t0);
            assertTrue(r.labels().containsAll(Set.of("explicit/engine-error/bug-candidate", "wss/tx-wss/bug-candidate")), r.toString());
            // control: MVCC mode, same schedule; the MERGE fails with a serialization failure and nothing is wrong
            TestCase mvcc = Cases.on("hsqldb").mode("mvcc").level(IsolationLevel.REPEATABLE_READ).table("t0").table("t1")
                    .setup("CREATE TABLE t0 (c1 INT)", "CREATE TABLE t1 (c0 INT, v INT)", "INSERT INTO t0 VALUES (13)", "INSERT INTO t1 VALUES (13, 0)")
                    .txn("DELETE FROM t1 WHERE c0 = 13")
                    .txn("INSERT INTO t0 VALUES (NULL)", "MERGE INTO t1 USING t0 x0 ON (t1.c0 = x0.c1) WHEN MATCHED THEN UPDATE SET v = 2")
                    .order(2, 2, 1, 1, 1, 2, 2);
            Result clean = BugReplay.replay(hsqldb, mvcc, "wss", "explicit");
            assertEquals(ErrorClass.SERIALIZATION, clean.trace().executed(new StmtRef(2, 2)).orElseThrow().result().errorClass(), clean.trace().toString());
            assertEquals(Set.of(), clean.labels(), clean.toString());
        }
    }
}
