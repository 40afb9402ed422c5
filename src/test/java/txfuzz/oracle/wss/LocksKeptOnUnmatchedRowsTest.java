package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import txfuzz.dbms.Target;
import txfuzz.dbms.TestServers;
import txfuzz.exec.Cases;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;

/**
 * Campaign mariadb-RU-s75-i712: an UPDATE whose WHERE bounds an indexed column from above ({@code c1 NOT IN ('')}) scans
 * that index and keeps the lock on the record that ended its range, which it never matched (MySQL bug #58157); a DELETE of
 * every row waits on it, and misses the row the holder then moves behind the scan. On the real server such a run is not
 * promised, on the locks the server itself reports; the same run with the DELETE made to leave a row nobody held stays a
 * bug candidate.
 */
class LocksKeptOnUnmatchedRowsTest {
    private static final String RULE = "which only the engine's own locks show held";
    private static final String DELETE_ALL = "DELETE FROM t0";

    /**
     * A = (0, NULL), B = (5, ''), an index on c1. T1's UPDATE matches nothing: its range scan of c1 (above NULL, below '')
     * ends at B's entry and keeps it locked, not A's. T2's DELETE deletes A and waits on B; T1 moves B to (1, ''), behind
     * the scan, and commits: the DELETE changes 1 row, where run after T1 it changes 2. Were A held too, the scan would
     * have waited on A and deleted both.
     */
    private static TestCase deleteWaitingOnTheRecordPastTheRange(IsolationLevel level) {
        return Cases.on("mariadb").level(level).table("t0")
                .setup("CREATE TABLE t0 (c0 INT, c1 VARCHAR(10), PRIMARY KEY (c0))", "CREATE INDEX i0 ON t0 (c1)",
                        "INSERT INTO t0 (c0, c1) VALUES (0, NULL)", "INSERT INTO t0 (c0, c1) VALUES (5, '')")
                .txn("UPDATE t0 SET c0 = COALESCE(0, 0) WHERE t0.c1 NOT IN ('')", "UPDATE t0 SET c0 = 1 WHERE t0.c0 = 5")
                .autocommit(DELETE_ALL)
                .order(1, 1, 2, 1, 1);
    }

    private static List<Violation> wssViolations(Target target, IsolationLevel level) throws Exception {
        return wssViolations(target, deleteWaitingOnTheRecordPastTheRange(level), new StmtRef(2, 0));
    }

    /** {@code c}'s wss violations on {@code target}, each of {@code waiting} having waited, and some violation found. */
    private static List<Violation> wssViolations(Target target, TestCase c, StmtRef... waiting) throws Exception {
        WssRun r = WssRun.of(target, c);
        for (StmtRef w : waiting) {
            assertTrue(r.trace().executed(w).orElseThrow().blocked(), w + " waits: " + r.trace());
        }
        List<Violation> found = r.verdict().violations().stream().filter(x -> x.kind() instanceof WssKind).toList();
        assertFalse(found.isEmpty(), "the final state differs from the serial replay: " + r.verdict() + "\n" + r.trace());
        return found;
    }

    /** Every violation not promised by the rule, {@code waitedOn} ("T2.0 waited on t0 row (5, )") named. */
    private static void assertNotPromisedByTheRule(List<Violation> found, String waitedOn) {
        assertTrue(found.stream().allMatch(v -> v.classification() == Classification.NOT_PROMISED && v.reference().contains(RULE)
                && v.reference().contains(waitedOn)), found.toString());
    }

    /** A negative control's run: some violation a bug candidate, none explained by the rule. */
    private static void assertBugCandidateTheRuleDoesNotExplain(List<Violation> found) {
        assertTrue(found.stream().anyMatch(v -> v.classification() == Classification.BUG_CANDIDATE), found.toString());
        assertTrue(found.stream().noneMatch(v -> v.reference() != null && v.reference().contains(RULE)), found.toString());
    }

    @ParameterizedTest
    @EnumSource(value = IsolationLevel.class, names = {"READ_COMMITTED", "READ_UNCOMMITTED"})
    void aDeleteThatWaitedOnARowTheHolderNeverMatchedIsNotPromised(IsolationLevel level) throws Exception {
        try (Target mariadb = TestServers.open("mariadb")) {
            assertNotPromisedByTheRule(wssViolations(mariadb, level), "T2.0 waited on t0 row (5, )");
        }
    }

    /** The control: T2's DELETE also leaves A, a committed row no transaction held. */
    @Test
    void aDeleteThatAlsoLeavesARowNobodyHeldStaysABugCandidate() throws Exception {
        try (Target mariadb = TestServers.open("mariadb")) {
            assertBugCandidateTheRuleDoesNotExplain(wssViolations(RewritingTarget.once(mariadb, DELETE_ALL, DELETE_ALL + " WHERE t0.c0 <> 0"),
                    IsolationLevel.READ_COMMITTED));
        }
    }

    private static final String UPDATE_EVERY_ROW = "UPDATE t1 SET c2 = 1";

    /**
     * Campaign mariadb-RU-s75-i2720, its shape: t1 holds B = (1, 0, 0). T1 inserts C = (6, 0, 0) and holds it; T2 inserts A =
     * (0, 0, 0), then its {@code UPDATE … WHERE t1.c1 IN (SELECT s0.c1 FROM t0 s0)} (t0 empty: it matches nothing; MariaDB
     * runs it as a semi-join, with no semi-consistent read) scans A and B, keeps B locked, and waits on C. T3's UPDATE of
     * every row passes A (no committed version) and waits on B; T1 commits, T2's UPDATE ends, T2 commits: T3 goes on from B
     * and changes B and C, not A, behind it; run after T1 and T2 it changes all three.
     */
    private static TestCase updateWaitingOnARowAWaitingWriteHeld(IsolationLevel level) {
        return Cases.on("mariadb").level(level).table("t0").table("t1")
                .setup("CREATE TABLE t0 (c1 INT)", "CREATE TABLE t1 (c0 INT, c1 INT, c2 INT, PRIMARY KEY (c0))",
                        "INSERT INTO t1 (c0, c1, c2) VALUES (1, 0, 0)")
                .txn("INSERT INTO t1 (c0, c1, c2) VALUES (6, 0, 0)")
                .txn("INSERT INTO t1 (c0, c1, c2) VALUES (0, 0, 0)", "UPDATE t1 SET c1 = (t1.c1 + 0) WHERE t1.c1 IN (SELECT s0.c1 FROM t0 s0)")
                .autocommit(UPDATE_EVERY_ROW)
                .order(1, 1, 2, 2, 2, 3, 1, 2);
    }

    /** T2's UPDATE waits on C, T3's on B. */
    private static List<Violation> waitingOnAWaitingWrite(Target target, IsolationLevel level) throws Exception {
        return wssViolations(target, updateWaitingOnARowAWaitingWriteHeld(level), new StmtRef(2, 2), new StmtRef(3, 0));
    }

    @ParameterizedTest
    @EnumSource(value = IsolationLevel.class, names = {"READ_COMMITTED", "READ_UNCOMMITTED"})
    void anUpdateWaitingOnARowAWriteHeldWhileItWaitedItselfIsNotPromised(IsolationLevel level) throws Exception {
        try (Target mariadb = TestServers.open("mariadb")) {
            assertNotPromisedByTheRule(waitingOnAWaitingWrite(mariadb, level), "T3.0 waited on t1 row (1, 0, 0)");
        }
    }

    /** The control: T3's UPDATE writes 7 into C, a row it met after its wait, which no data it could read gives. */
    @Test
    void anUpdateThatWritesAValueNoReadGivesAfterItsWaitStaysABugCandidate() throws Exception {
        try (Target mariadb = TestServers.open("mariadb")) {
            assertBugCandidateTheRuleDoesNotExplain(waitingOnAWaitingWrite(RewritingTarget.once(mariadb, UPDATE_EVERY_ROW,
                    "UPDATE t1 SET c2 = CASE WHEN t1.c0 = 6 THEN 7 ELSE 1 END"), IsolationLevel.READ_COMMITTED));
        }
    }
}
