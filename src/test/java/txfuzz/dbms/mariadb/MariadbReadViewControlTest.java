package txfuzz.dbms.mariadb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Target;
import txfuzz.dbms.TestServers;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.TrackedCases;
import txfuzz.exec.Trace;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.isolation.IsolationOracle;

/**
 * Issue 33 rule 2's negative controls on real MariaDB: REPEATABLE READ documents the cycles InnoDB's consistent read beside
 * its locking reads makes, never a plain consistent read that is not repeatable, nor a locking read whose lock let another
 * writer in. With {@link PlainReadsSeeNewestTarget} a transaction's second plain SELECT reads the newest committed row; with
 * {@link LockingReadsTakeNoLockTarget} a SELECT … FOR UPDATE locks nothing and the update after it is lost: each a bug
 * candidate. The same schedules on MariaDB as it is have no violation at all.
 */
class MariadbReadViewControlTest {
    /** T1 reads row 1 twice with plain SELECTs; between the two T2 updates it and commits. */
    static TestCase readTwiceAroundACommittedUpdate() {
        TrackedCases b = TrackedCases.on("mariadb").level(IsolationLevel.REPEATABLE_READ).table("t")
                .setup("CREATE TABLE t (k INT PRIMARY KEY, v INT, rid VARCHAR(100), wl VARCHAR(100))",
                        "INSERT INTO t (k, v, rid, wl) VALUES (1, 0, '1', ',0')", "INSERT INTO t (k, v, rid, wl) VALUES (2, 0, '2', ',0')");
        b.begin().read("SELECT x.rid, x.wl, x.v FROM t x WHERE x.k = 1", "k = 1", false, "t")
                .read("SELECT x.rid, x.wl, x.v FROM t x WHERE x.k = 1", "k = 1", false, "t").commit();
        b.begin().write("UPDATE t SET v = 1, wl = CONCAT(wl, ',2.1') WHERE k = 1", "t", "2.1", List.of(), false).postRead("t", "2.1").commit();
        return b.order(1, 1, 2, 2, 2, 2, 1, 1);
    }

    /** T1 reads row 1 FOR UPDATE, then adds 1 to it; T2 adds 1 to it in between (MariaDB makes T2 wait for T1's lock). */
    static TestCase updateAfterForUpdateAroundAnotherUpdate() {
        TrackedCases b = TrackedCases.on("mariadb").level(IsolationLevel.REPEATABLE_READ).table("t")
                .setup("CREATE TABLE t (k INT PRIMARY KEY, v INT, rid VARCHAR(100), wl VARCHAR(100))",
                        "INSERT INTO t (k, v, rid, wl) VALUES (1, 0, '1', ',0')");
        b.begin().read("SELECT x.rid, x.wl, x.v FROM t x WHERE x.k = 1 FOR UPDATE", "k = 1", true, "t")
                .write("UPDATE t SET v = v + 1, wl = CONCAT(wl, ',1.2') WHERE k = 1", "t", "1.2", List.of(), false).postRead("t", "1.2").commit();
        b.begin().write("UPDATE t SET v = v + 1, wl = CONCAT(wl, ',2.1') WHERE k = 1", "t", "2.1", List.of(), false).postRead("t", "2.1").commit();
        return b.order(1, 1, 2, 2, 2, 2, 1, 1, 1);
    }

    private static List<String> judged(Target target, TestCase c) throws Exception {
        try (Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            Verdict v = new IsolationOracle().judge(c, trace, ex);
            return v.violations().stream().map(x -> x.kind().label() + "/" + x.classification().label()).toList();
        }
    }

    @Test
    void aPlainReadThatSeesAConcurrentCommitIsABugCandidate() throws Exception {
        Target maria = TestServers.shared("mariadb"); // the JVM's server: never closed here
        assertEquals(List.of(), judged(maria, readTwiceAroundACommittedUpdate()), "the read view serves both reads");
        assertEquals(List.of("non-repeatable-read/bug-candidate"), judged(new PlainReadsSeeNewestTarget(maria), readTwiceAroundACommittedUpdate()));
    }

    @Test
    void aLostUpdateAfterALockingReadThatLockedNothingIsABugCandidate() throws Exception {
        Target maria = TestServers.shared("mariadb"); // the JVM's server: never closed here
        assertEquals(List.of(), judged(maria, updateAfterForUpdateAroundAnotherUpdate()), "T2 waits for T1's lock");
        // T1's UPDATE also re-reads the row T2 wrote, after its FOR UPDATE had read the older version: the same broken lock
        List<String> faulty = judged(new LockingReadsTakeNoLockTarget(maria), updateAfterForUpdateAroundAnotherUpdate());
        assertTrue(faulty.contains("lost-update/bug-candidate"), faulty.toString());
        assertTrue(faulty.stream().allMatch(v -> v.endsWith("/bug-candidate")), faulty.toString());
    }
}
