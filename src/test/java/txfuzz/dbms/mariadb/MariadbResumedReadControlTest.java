package txfuzz.dbms.mariadb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import txfuzz.dbms.Target;
import txfuzz.dbms.WaitingWriteSkipsRowTarget;
import txfuzz.dbms.TestServers;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.wss.WssOracle;

/**
 * Issue 33 rule 9's negative control on real MariaDB: at READ COMMITTED and READ UNCOMMITTED a statement that waited reads
 * the newest committed version of the row it waited for (InnoDB's semi-consistent read, the RESUMED read point); nothing
 * else is documented. With {@link WaitingWriteSkipsRowTarget} a waiting UPDATE or DELETE changes no row though the row's
 * newest version still matches: a bug candidate, neither documented nor not promised. On MariaDB as it is the same
 * schedule changes the row after the wait and has no violation.
 */
class MariadbResumedReadControlTest {
    /** T1 changes row 1's c1 (its key stays); T2's {@code write} of row 1 waits for T1: once T1 commits the row still matches. */
    static TestCase writeWaitsForAnUpdateOfItsRow(IsolationLevel level, String write) {
        return Cases.on("mariadb").level(level).table("t0")
                .setup("CREATE TABLE t0 (c0 INT PRIMARY KEY, c1 INT)", "INSERT INTO t0 VALUES (1, 1), (2, 2)")
                .txn("UPDATE t0 SET c1 = c1 + 10 WHERE c0 = 1")
                .txn(write)
                .order(1, 1, 2, 2, 1, 2);
    }

    private record Judged(Trace trace, Verdict verdict) {
        List<String> labels() {
            return verdict.violations().stream().map(x -> x.kind().label() + "/" + x.classification().label()).toList();
        }

        boolean waited() {
            return trace.executed(new StmtRef(2, 1)).orElseThrow().blocked();
        }
    }

    private static Judged judge(Target target, TestCase c) throws Exception {
        try (Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            return new Judged(trace, new WssOracle().judge(c, trace, ex));
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "READ_COMMITTED|DELETE FROM t0 WHERE c0 = 1",
        "READ_COMMITTED|UPDATE t0 SET c1 = 0 WHERE c0 = 1",
        "READ_UNCOMMITTED|DELETE FROM t0 WHERE c0 = 1",
        "READ_UNCOMMITTED|UPDATE t0 SET c1 = 0 WHERE c0 = 1"})
    void aWaitingWriteThatSkipsARowStillMatchingIsABugCandidate(IsolationLevel level, String write) throws Exception {
        Target maria = TestServers.shared("mariadb"); // the JVM's server: never closed here
        Judged plain = judge(maria, writeWaitsForAnUpdateOfItsRow(level, write));
        assertTrue(plain.waited(), "the write waits for T1: " + plain.trace());
        assertEquals(List.of(), plain.labels(), "MariaDB changes the row after the wait: " + plain.trace());
        Judged faulty = judge(new WaitingWriteSkipsRowTarget(maria), writeWaitsForAnUpdateOfItsRow(level, write));
        assertTrue(faulty.waited(), "the injected write still waits: " + faulty.trace());
        assertEquals(0, faulty.trace().executed(new StmtRef(2, 1)).orElseThrow().result().updateCount(), faulty.trace().toString());
        assertTrue(faulty.verdict().violations().stream().anyMatch(x -> x.classification() == Classification.BUG_CANDIDATE), faulty.labels().toString());
        assertTrue(faulty.verdict().violations().stream().allMatch(x -> x.classification() == Classification.BUG_CANDIDATE), faulty.labels().toString());
    }
}
