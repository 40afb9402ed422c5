package txfuzz.bugs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import txfuzz.bugs.BugReplay.Result;
import txfuzz.bugs.PrintedSql.Outcome;
import txfuzz.bugs.PrintedSql.Run;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.exec.StmtResult;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;

/**
 * The HSQLDB entry of docs/bugs.md: its printed SQL on every release of the page's range, and its case
 * file through the oracles on the bundled HSQLDB (that test fails the day an upgrade fixes it).
 */
class HsqldbBugsTest {
    /** Every HSQLDB release on Maven Central from 2.6.0 to the bundled 2.7.4. */
    static final List<String> RELEASES = List.of("2.6.0", "2.6.1", "2.7.0", "2.7.1", "2.7.2", "2.7.3", "2.7.4");

    /**
     * The printed SQL, as a SQL client sends it: the MERGE updates the deleted row, the text COMMIT fails
     * with "General error" (S1000 / -458), the failed transaction keeps a reader in a third session waiting
     * until its ROLLBACK, and its INSERT is there afterwards. (The MVCC control is in the oracle test.)
     */
    @Test
    void hsqldbMvlocksMergeDeletedRowCommitNpeOnEachVersion() throws Exception {
        for (String v : RELEASES) {
            try (Target hsqldb = Targets.create("hsqldb", TargetOptions.version(v))) {
                Run r = PrintedSql.of("hsqldb-mvlocks-merge-deleted-row-commit-npe").run(hsqldb);
                assertEquals(1, r.of("MERGE INTO t1 USING t0 x0 ON (t1.c0 = x0.c1) WHEN MATCHED THEN UPDATE SET v = 2").updateCount(), r.toString());
                Outcome commit = r.of("COMMIT", 2);
                assertEquals("T2", commit.step().session(), r.toString());
                assertTrue(commit.failed(), r.toString());
                assertEquals("S1000", commit.error().getSQLState(), r.toString());
                assertEquals(-458, commit.error().getErrorCode(), r.toString());
                Outcome blockedRead = r.of("SELECT * FROM t0", 1);
                assertTrue(blockedRead.waited(), "T3's read waits for the failed transaction: " + r);
                assertFalse(r.of("ROLLBACK").failed(), r.toString());
                assertEquals(PrintedSql.rows("(13) (NULL)"), blockedRead.rows(), r.toString());
                assertEquals(PrintedSql.rows("(13) (NULL)"), r.of("SELECT * FROM t0", 2).rows(), "the rolled-back INSERT stays: " + r);
            }
        }
    }

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
