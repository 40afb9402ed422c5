package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import txfuzz.dbms.Target;
import txfuzz.dbms.TestServers;
import txfuzz.exec.Cases;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;

/**
 * Campaign mariadb-RC-s66-i49: at READ COMMITTED InnoDB reads an {@code INSERT … SELECT}'s SELECT as a consistent read at
 * the statement's start ("InnoDB does the search on S as a consistent read (no locks)", MySQL manual, locks set by SQL
 * statements) and checks the new rows' keys against the newest committed rows: T1 deletes row 0 and holds it; T2's
 * {@code INSERT … SELECT} of every row into the same table reads row 0, waits on T1's lock of its key, and inserts it once
 * T1 commits. Run after T1 it inserts nothing. The statement snapshot with re-check explains it (not promised: it keeps
 * PL-2) though MariaDB's simulations keep the keys, where the INSERT fails on the snapshot that still holds row 0. Runs on
 * the real MariaDB server.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class InsertSelectFromItsSnapshotTest {
    private static final String INSERT_SELECT = "INSERT INTO t0 (c0, c2, c3) SELECT (x0.c0 + 0), '', COALESCE(x0.c0, 0) FROM t0 x0";

    private static TestCase insertSelectBehindADelete() {
        return Cases.on("mariadb").table("t0").level(IsolationLevel.READ_COMMITTED)
                .setup("CREATE TABLE t0 (c0 INT, c2 VARCHAR(10), c3 INT, PRIMARY KEY (c0))", "INSERT INTO t0 VALUES (0, '', 0)")
                .txn("DELETE FROM t0")
                .autocommit(INSERT_SELECT)
                .order(1, 1, 2, 1);
    }

    private static List<Violation> judged(Target target) throws Exception {
        WssRun run = WssRun.of(target, insertSelectBehindADelete());
        assertTrue(run.trace().executed(new StmtRef(2, 0)).orElseThrow().blocked(), "the INSERT waits on T1's deleted key: " + run.trace());
        List<Violation> found = run.verdict().violations();
        assertFalse(found.isEmpty(), "the INSERT changes a row, run after T1 none: " + found);
        return found;
    }

    @Test
    void anInsertSelectReadsItsSnapshotAndChecksItsKeysAgainstTheNewestRows() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            List<Violation> found = judged(maria);
            assertTrue(found.stream().allMatch(v -> v.classification() == Classification.NOT_PROMISED), found.toString());
        }
    }

    /** The control: the INSERT … SELECT inserting a row its snapshot does not give (c2 = 'x', the same key) stays a bug candidate. */
    @Test
    void anInsertSelectThatInsertsARowItsSnapshotDoesNotGiveStaysABugCandidate() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            Target faulty = RewritingTarget.once(maria, INSERT_SELECT, INSERT_SELECT.replace("'', COALESCE", "'x', COALESCE"));
            List<Violation> found = judged(faulty);
            assertTrue(found.stream().anyMatch(v -> v.classification() == Classification.BUG_CANDIDATE), found.toString());
        }
    }
}
