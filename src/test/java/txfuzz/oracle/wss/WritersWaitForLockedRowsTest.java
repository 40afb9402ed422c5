package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.LevelSemantics;
import txfuzz.dbms.Profile;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;

/**
 * Issue 11 item 4, second rule: statement-level visibility ("each write saw only committed data")
 * explains a lock-based engine's state only if the writes that did not wait changed no row an
 * uncommitted concurrent write held. DuckDB lets a transaction delete a row another one has updated
 * and not committed, without waiting or failing (found by this project on 1.4.4); declared as a
 * lock-based READ COMMITTED engine, that is the injected fault: the DELETE chooses the row by its
 * committed version, both commit, and the state is the one the never-waiting simulation gives.
 */
class WritersWaitForLockedRowsTest {
    private static final WssOracle WSS = new WssOracle();
    private static final String REFERENCE = "a lock-based READ COMMITTED engine (injected claim)";

    /** DuckDB with its SNAPSHOT level claimed to be statement-level visibility, with or without the waiting rule. */
    private static final class ClaimsLockBasedWriters extends DelegatingTarget {
        private final boolean writersWait;

        ClaimsLockBasedWriters(Target real, boolean writersWait) {
            super(real);
            this.writersWait = writersWait;
        }

        @Override
        public String version() {
            return real.version() + " claimed lock-based" + (writersWait ? " (writers wait)" : "");
        }

        /** The claim is the whole of it: the level promises READ COMMITTED, not DuckDB's snapshot isolation. */
        @Override
        public txfuzz.dbms.LevelPromise promise(IsolationLevel level, String mode) {
            return new txfuzz.dbms.LevelPromise(txfuzz.dbms.Promise.READ_COMMITTED, REFERENCE);
        }

        @Override
        public Profile profile() {
            Map<IsolationLevel, LevelSemantics> levels = new HashMap<>(real.profile().levels());
            LevelSemantics rc = LevelSemantics.permits(REFERENCE, Deviation.STATEMENT_VISIBILITY);
            levels.put(IsolationLevel.SNAPSHOT, writersWait ? rc.requiring(Deviation.Precondition.WRITERS_WAIT_FOR_LOCKED_ROWS) : rc);
            return new Profile(levels);
        }

        @Override
        public Profile profile(String mode) {
            return profile();
        }
    }

    private static Verdict judge(Target target, TestCase c) throws Exception {
        try (Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            return WSS.judge(c, trace, ex);
        }
    }

    /** T1 changes a of row 1 and holds it; T2 then runs {@code t2} (which reads a); T1 commits, then T2. */
    private static TestCase secondWriterReadsA(String dbms, IsolationLevel level, String t2) {
        return Cases.on(dbms).table("t").level(level)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, a INT, b INT)", "INSERT INTO t VALUES (1, 0, 0), (2, 0, 0)")
                .txn("UPDATE t SET a = 1 WHERE id = 1")
                .txn(t2)
                .order(1, 1, 2, 2, 1, 2);
    }

    /**
     * Deletes the row T1 holds if a is still 0: a lock-based engine waits for T1, re-checks the newest
     * version (a = 1) and deletes nothing; DuckDB does not wait, deletes on the committed a = 0, and both commit.
     */
    private static final String SAME_ROW = "DELETE FROM t WHERE id = 1 AND a = 0";
    /** Reads the row T1 holds, writes another. */
    private static final String OTHER_ROW = "UPDATE t SET b = (SELECT a FROM t WHERE id = 1) + 1 WHERE id = 2";

    /** The classifications of the run's wss violations (transaction- and statement-level replays). */
    private static List<Classification> wssClassifications(Verdict v) {
        List<Classification> c = v.violations().stream().filter(x -> x.kind() instanceof WssKind).map(Violation::classification).toList();
        assertTrue(!c.isEmpty(), "the state differs from the serial replay: " + v);
        return c;
    }

    @Test
    void aWriteThatChangedAHeldRowWithoutWaitingIsNotExplainedByStatementVisibility() throws Exception {
        try (Target duckdb = Targets.create("duckdb", TargetOptions.version("1.4.4.0"))) {
            TestCase c = secondWriterReadsA("duckdb", IsolationLevel.SNAPSHOT, SAME_ROW);
            // T2.1 deleted row 1 while T1 held it, without waiting: no documented rule explains that.
            // Without the rule the statement-level simulation does not explain it either (its delete of the
            // committed version collides with T1's change), so both claims must give the same verdict.
            for (boolean writersWait : List.of(true, false)) {
                List<Classification> v = wssClassifications(judge(new ClaimsLockBasedWriters(duckdb, writersWait), c));
                assertTrue(v.stream().allMatch(Classification.BUG_CANDIDATE::equals), v.toString());
            }
        }
    }

    @Test
    void aWriteOfARowNobodyHeldIsStillExplainedByStatementVisibility() throws Exception {
        // T2 reads the committed a of row 1 (no lock needed to read) and writes row 2, which nobody holds.
        try (Target duckdb = Targets.create("duckdb", TargetOptions.version("1.4.4.0"))) {
            List<Classification> v = wssClassifications(judge(new ClaimsLockBasedWriters(duckdb, true), secondWriterReadsA("duckdb", IsolationLevel.SNAPSHOT, OTHER_ROW)));
            // statement visibility keeps the READ COMMITTED the target claims: no promise broken
            assertTrue(v.stream().allMatch(Classification.NOT_PROMISED::equals), v.toString());
        }
    }

    @Test
    void lockBasedEnginesMakeTheSecondWriterWaitAndPass() throws Exception {
        // The same schedule on H2 and PostgreSQL at READ COMMITTED: T2.1 waits for T1, reads a = 1, deletes nothing.
        for (String dbms : List.of("h2", "postgres")) {
            try (Target t = Targets.create(dbms)) {
                assertTrue(t.profile().at(IsolationLevel.READ_COMMITTED).requires(Deviation.Precondition.WRITERS_WAIT_FOR_LOCKED_ROWS), dbms);
                Verdict v = judge(t, secondWriterReadsA(dbms, IsolationLevel.READ_COMMITTED, SAME_ROW));
                assertTrue(v.isClean(), dbms + ": " + v);
            }
        }
    }
}
