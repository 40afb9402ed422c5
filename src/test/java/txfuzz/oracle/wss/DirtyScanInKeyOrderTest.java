package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;

/**
 * H2 at READ UNCOMMITTED reads each row of a waiting UPDATE, and runs its SET's subquery, when its scan reaches the row:
 * the rows before the waited-for one as the data were when it began, that row and the rest as they were when it resumed
 * (the profile's DIRTY_SCAN_IN_KEY_ORDER). h2-RU-s204-i225 was a false bug candidate of this shape.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DirtyScanInKeyOrderTest {
    private static final String SUBQUERY = "COALESCE((SELECT COUNT(*) FROM t0 s0 WHERE s0.c2 <> t1.c2), 0)";
    private static final String WAITING_UPDATE = "UPDATE t1 SET c0 = " + SUBQUERY;

    /**
     * T1 locks t1's second row and leaves it as it was; T2's UPDATE of every row (no key: the rows in insertion order)
     * changes the first and waits for the second; T3 inserts two rows into t0, which T2 counts for the rows from the
     * second on, and rolls back.
     */
    static TestCase waitingUpdateWithSubquery(String update, String... rows) {
        List<String> setup = new java.util.ArrayList<>(List.of("CREATE TABLE t0 (c0 INT, c2 INT)", "CREATE TABLE t1 (c0 INT, c2 INT, c3 INT)"));
        for (String row : rows) {
            setup.add("INSERT INTO t1 VALUES " + row);
        }
        return Cases.on("h2").level(IsolationLevel.READ_UNCOMMITTED).table("t0").table("t1")
                .setup(setup.toArray(String[]::new))
                .txn("UPDATE t1 SET c3 = c3 * 0 WHERE c2 = 1")
                .autocommit(update)
                .txn("INSERT INTO t0 VALUES (1, 0), (0, 0)", "ROLLBACK")
                .order(1, 1, 2, 3, 3, 1, 3);
    }

    @Test
    void theRowsFromTheWaitedForOneOnReadTheDataAsItResumed() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            WssRun run = WssRun.of(h2, waitingUpdateWithSubquery(WAITING_UPDATE, "(1, 7, 0)", "(0, 1, 0)", "(5, 3, 0)"));
            assertTrue(run.trace().executed(new StmtRef(2, 0)).orElseThrow().blocked(), run.trace().toString());
            assertEquals(List.of(List.of("0", "7", "0"), List.of("2", "1", "0"), List.of("2", "3", "0")),
                    run.trace().finalState().tables().get("t1"), run.trace().toString());
            assertTrue(run.verdict().violations().stream().anyMatch(x -> x.classification() == Classification.NOT_PROMISED
                    && x.reference().contains("dirty scan in key order")), run.verdict().toString());
            WssRun.assertNoBugCandidate(run.verdict());
        }
    }

    /** h2-RU-s204-i225, reduced: two rows, the second waited for. */
    @Test
    void theFalseCandidateOfSeed204IsExplained() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            WssRun run = WssRun.of(h2, waitingUpdateWithSubquery(WAITING_UPDATE, "(1, 7, 0)", "(0, 1, 0)"));
            assertEquals(List.of(List.of("0", "7", "0"), List.of("2", "1", "0")), run.trace().finalState().tables().get("t1"), run.trace().toString());
            WssRun.assertNoBugCandidate(run.verdict());
        }
    }

    /** The control: the row after the waited-for one made to read the data as the UPDATE began (a stale read after the wait). */
    @Test
    void aRowAfterTheWaitedForOneReadAsItBeganStaysABugCandidate() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            String stale = "UPDATE t1 SET c0 = CASE WHEN c2 = 3 THEN 0 ELSE " + SUBQUERY + " END";
            WssRun run = WssRun.of(new ReplacedBesideUncommittedWriteTarget(h2, WAITING_UPDATE, stale),
                    waitingUpdateWithSubquery(WAITING_UPDATE, "(1, 7, 0)", "(0, 1, 0)", "(5, 3, 0)"));
            assertEquals(List.of(List.of("0", "3", "0"), List.of("0", "7", "0"), List.of("2", "1", "0")), // sorted
                    run.trace().finalState().tables().get("t1"), run.trace().toString());
            assertTrue(run.verdict().violations().stream().anyMatch(x -> x.classification() == Classification.BUG_CANDIDATE), run.verdict().toString());
        }
    }

    /** The control: the waited-for row itself read as the UPDATE began. */
    @Test
    void theWaitedForRowReadAsItBeganStaysABugCandidate() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            String stale = "UPDATE t1 SET c0 = CASE WHEN c2 = 1 THEN 0 ELSE " + SUBQUERY + " END";
            WssRun run = WssRun.of(new ReplacedBesideUncommittedWriteTarget(h2, WAITING_UPDATE, stale),
                    waitingUpdateWithSubquery(WAITING_UPDATE, "(1, 7, 0)", "(0, 1, 0)", "(5, 3, 0)"));
            assertEquals(List.of(List.of("0", "1", "0"), List.of("0", "7", "0"), List.of("2", "3", "0")), // sorted
                    run.trace().finalState().tables().get("t1"), run.trace().toString());
            assertTrue(run.verdict().violations().stream().anyMatch(x -> x.classification() == Classification.BUG_CANDIDATE), run.verdict().toString());
        }
    }

    /**
     * h2-RU-s211-i275, reduced: T1 deletes every row of t1 (integer key: scanned in key order) and inserts key 1 again; T2's
     * UPDATE of every row waits for that new row 1; T1 rolls back. T2 then updates row 1 as it is again, and skips row 8,
     * which its scan had met deleted (it walks the table as it was when it began).
     */
    static TestCase waitingUpdateBesideADeleteRolledBack(String firstWrite) {
        return Cases.on("h2").level(IsolationLevel.READ_UNCOMMITTED).table("t1")
                .setup("CREATE TABLE t1 (c0 INT, c2 VARCHAR(10), PRIMARY KEY (c0))", "INSERT INTO t1 (c0, c2) VALUES (8, 'a')",
                        "INSERT INTO t1 (c0, c2) VALUES (1, 'a')")
                .txn(firstWrite, "INSERT INTO t1 (c0, c2) VALUES (1, '')", "ROLLBACK")
                .autocommit("UPDATE t1 SET c2 = ''")
                .order(1, 1, 1, 2, 1);
    }

    @Test
    void aRowDeletedWhenTheScanBeganIsSkippedAfterTheWait() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            WssRun run = WssRun.of(h2, waitingUpdateBesideADeleteRolledBack("DELETE FROM t1"));
            assertEquals(1, run.trace().executed(new StmtRef(2, 0)).orElseThrow().result().updateCount(), run.trace().toString());
            assertEquals(List.of(List.of("1", ""), List.of("8", "a")), run.trace().finalState().tables().get("t1"), run.trace().toString());
            WssRun.assertNoBugCandidate(run.verdict());
        }
    }

    /** The control: T1 deletes only row 1, so row 8 was there all along; the UPDATE made to skip it stays a bug candidate. */
    @Test
    void aRowThereAllAlongSkippedAfterTheWaitStaysABugCandidate() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            String update = "UPDATE t1 SET c2 = ''";
            WssRun run = WssRun.of(new ReplacedBesideUncommittedWriteTarget(h2, update, update + " WHERE c0 <> 8"),
                    waitingUpdateBesideADeleteRolledBack("DELETE FROM t1 WHERE c0 = 1"));
            assertEquals(List.of(List.of("1", ""), List.of("8", "a")), run.trace().finalState().tables().get("t1"), run.trace().toString());
            assertTrue(run.verdict().violations().stream().anyMatch(x -> x.classification() == Classification.BUG_CANDIDATE), run.verdict().toString());
        }
    }

    /** A row inserted and committed while the UPDATE waited, after the waited-for row in key order, is not met (measured). */
    @Test
    void aRowInsertedWhileTheScanWaitedIsNotMet() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            TestCase c = Cases.on("h2").level(IsolationLevel.READ_UNCOMMITTED).table("t1")
                    .setup("CREATE TABLE t1 (c0 INT, c2 VARCHAR(10), PRIMARY KEY (c0))", "INSERT INTO t1 (c0, c2) VALUES (8, 'a')",
                            "INSERT INTO t1 (c0, c2) VALUES (1, 'a')")
                    .txn("UPDATE t1 SET c2 = 'x' WHERE c0 = 1", "COMMIT")
                    .autocommit("UPDATE t1 SET c2 = c2 || '!'")
                    .autocommit("INSERT INTO t1 (c0, c2) VALUES (9, 'n')")
                    .order(1, 1, 2, 3, 1);
            WssRun run = WssRun.of(h2, c);
            assertTrue(run.trace().executed(new StmtRef(2, 0)).orElseThrow().blocked(), run.trace().toString());
            assertEquals(List.of(List.of("1", "x!"), List.of("8", "a!"), List.of("9", "n")), run.trace().finalState().tables().get("t1"),
                    run.trace().toString());
            WssRun.assertNoBugCandidate(run.verdict());
        }
    }
}
