package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Target;
import txfuzz.dbms.TestServers;
import txfuzz.exec.Cases;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;

/**
 * Campaign mariadb-RU-s74-i5168: at READ UNCOMMITTED a transaction's INSERT … SELECT reads another transaction's
 * uncommitted row, while its UPDATE of the same table passes that row without waiting (the semi-consistent read finds no
 * committed version of it). On the real server such a run is not promised; the same run with the UPDATE made to miss a
 * committed row nobody held stays a bug candidate.
 */
class SemiConsistentUpdatesBesideDirtyReadsTest {
    private static final String RULE = "dirty reads beside semi-consistent updates";
    private static final String UPDATE_ALL = "UPDATE t1 SET c2 = t1.c0";

    /**
     * T2 inserts (1, 1, 0) and holds it; T1 copies t1's keys into t0 (reading T2's row: 1), then updates every row of t1:
     * the committed (7, 1, 0) to c2 = 7, passing T2's row; T1 commits, T2 rolls back. Run alone, T1 copies only 7.
     */
    private static TestCase dirtyCopyBesideAnUpdateThatPassesTheRow() {
        return Cases.on("mariadb").level(IsolationLevel.READ_UNCOMMITTED).table("t0").table("t1")
                .setup("CREATE TABLE t0 (c0 INT)", "CREATE TABLE t1 (c0 INT, c1 INT, c2 INT)", "INSERT INTO t1 VALUES (7, 1, 0)")
                .txn("INSERT INTO t0 (c0) SELECT (x0.c0 + 0) FROM t1 x0", UPDATE_ALL)
                .txn("INSERT INTO t1 (c0, c1, c2) VALUES (1, 1, 0)", "ROLLBACK")
                .order(2, 2, 1, 1, 1, 1, 2);
    }

    private static List<Violation> wssViolations(Target target) throws Exception {
        WssRun r = WssRun.of(target, dirtyCopyBesideAnUpdateThatPassesTheRow());
        assertFalse(r.trace().executed(new txfuzz.model.StmtRef(1, 2)).orElseThrow().blocked(), "T1's UPDATE does not wait: " + r.trace());
        List<Violation> found = r.verdict().violations().stream().filter(x -> x.kind() instanceof WssKind).toList();
        assertFalse(found.isEmpty(), "the final state differs from the serial replay: " + r.verdict() + "\n" + r.trace());
        return found;
    }

    @Test
    void anUpdateThatPassedAnUncommittedRowBesideADirtyReadIsNotPromised() throws Exception {
        try (Target mariadb = TestServers.open("mariadb")) {
            List<Violation> found = wssViolations(mariadb);
            assertTrue(found.stream().allMatch(v -> v.classification() == Classification.NOT_PROMISED && v.reference().contains(RULE)),
                    found.toString());
        }
    }

    /** The control: T1's UPDATE also misses (7, 1, 0), a committed row no transaction held. */
    @Test
    void anUpdateThatAlsoMissesACommittedRowStaysABugCandidate() throws Exception {
        try (Target mariadb = TestServers.open("mariadb")) {
            List<Violation> found = wssViolations(RewritingTarget.once(mariadb, UPDATE_ALL, UPDATE_ALL + " WHERE t1.c0 <> 7"));
            assertTrue(found.stream().anyMatch(v -> v.classification() == Classification.BUG_CANDIDATE), found.toString());
            assertTrue(found.stream().noneMatch(v -> v.reference() != null && v.reference().contains(RULE)), found.toString());
        }
    }
}
