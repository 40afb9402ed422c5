package txfuzz.dbms.mariadb;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
 * Issue 33 rule 2's negative control on real MariaDB: REPEATABLE READ documents cycles closed by a locking read or DML
 * (InnoDB's consistent read beside its locking reads), never a plain consistent read that is not repeatable. With
 * {@link PlainReadsSeeNewestTarget} a transaction's second plain SELECT reads the newest committed row: a bug candidate.
 * The same schedule on MariaDB as it is reads its read view twice and has no violation at all.
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
}
