package txfuzz.oracle.pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import txfuzz.dbms.Target;
import txfuzz.dbms.TestServers;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.exec.TrackedCases;
import txfuzz.history.History;
import txfuzz.model.IsolationLevel;
import txfuzz.model.PatternOrigin;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Violation;
import txfuzz.oracle.HistoryRecorder;
import txfuzz.oracle.isolation.IsolationOracle;

/**
 * Hand-written instrumented cases with the origin a generator would write, run on real engines:
 * whether the engine let the run realise the pattern, and if not, how it prevented it.
 */
class PatternRealisationTest {
    private static final String SCHEMA = "CREATE TABLE t (k INT PRIMARY KEY, v INT, rid VARCHAR(100), wl VARCHAR(100))";
    private static final Map<String, PatternOrigin.Item> X = Map.of("x", new PatternOrigin.Item("t", "k = 1", "1"));

    private record Ran(TestCase c, Trace trace, History history) {
        PatternRealisation realisation() {
            return PatternRealisation.of(c, trace, history);
        }
    }

    private static Ran run(String dbms, TestCase c) throws Exception {
        try (Target target = TestServers.open(dbms); Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            return new Ran(c, trace, HistoryRecorder.record(c, trace));
        }
    }

    private static TrackedCases update(TrackedCases b, int txn, int v) {
        String tag = txn + "." + b.next();
        return b.write("UPDATE t SET v = " + v + ", wl = wl || '," + tag + "' WHERE k = 1", "t", tag, List.of(), false).postRead("t", tag);
    }

    /** lost-update R1[x0] W2[x1] C2 W1[x2] C1: T1 = BEGIN, R1 (1), W1 (2, post-read 3), C1 (4); T2 = BEGIN, W2 (1, post-read 2), C2 (3). */
    static TestCase lostUpdate(String dbms, IsolationLevel level) {
        TrackedCases b = TrackedCases.on(dbms).level(level).table("t").setup(SCHEMA, "INSERT INTO t (k, v, rid, wl) VALUES (1, 0, '1', ',0')");
        b.begin().read("SELECT rid, wl, v FROM t WHERE k = 1", "k = 1", false, "t");
        update(b, 1, 11).commit();
        update(b.begin(), 2, 22).commit();
        TestCase c = b.order(1, 1, 2, 2, 2, 2, 1, 1, 1);
        return c.withOrigin(new PatternOrigin("lost-update", "R1[x0] W2[x1] C2 W1[x2] C1", X,
                List.of(new StmtRef(1, 1), new StmtRef(2, 1), new StmtRef(2, 3), new StmtRef(1, 2), new StmtRef(1, 4))));
    }

    /** dirty-write W1[x1] W2[x2] C1 C2: each transaction BEGIN, W (1, post-read 2), C (3). */
    static TestCase dirtyWrite(String dbms, IsolationLevel level) {
        TrackedCases b = TrackedCases.on(dbms).level(level).table("t").setup(SCHEMA, "INSERT INTO t (k, v, rid, wl) VALUES (1, 0, '1', ',0')");
        update(b.begin(), 1, 11).commit();
        update(b.begin(), 2, 22).commit();
        TestCase c = b.order(1, 1, 1, 2, 2, 1, 2, 2);
        return c.withOrigin(new PatternOrigin("dirty-write", "W1[x1] W2[x2] C1 C2", X,
                List.of(new StmtRef(1, 1), new StmtRef(2, 1), new StmtRef(1, 3), new StmtRef(2, 3))));
    }

    /** At READ COMMITTED T2 has committed before T1 writes: nothing waits, T1 writes over x1 and the update of T2 is lost. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"h2", "postgres"})
    void aLostUpdateAtReadCommittedIsRealised(String dbms) throws Exception {
        Ran r = run(dbms, lostUpdate(dbms, IsolationLevel.READ_COMMITTED));
        assertEquals(PatternRealisation.Verdict.REALISED, r.realisation().verdict(), r.realisation() + "\n" + r.trace());
    }

    /** At REPEATABLE READ both engines refuse T1's write over a version committed after its snapshot. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"h2", "postgres"})
    void aLostUpdateAtRepeatableReadIsPreventedByAbortingTheWriter(String dbms) throws Exception {
        Ran r = run(dbms, lostUpdate(dbms, IsolationLevel.REPEATABLE_READ));
        PatternRealisation p = r.realisation();
        assertEquals(PatternRealisation.Verdict.NOT_REALISED, p.verdict(), p + "\n" + r.trace());
        assertTrue(p.reason().startsWith("T1 was aborted by the engine at its UPDATE (W1[x2])"), p.reason());
    }

    /** H2 makes the second writer wait for the first's commit: the pattern's W2[x2] cannot happen while T1 is open. */
    @Test
    void aDirtyWriteIsPreventedByTheSecondWriterWaiting() throws Exception {
        Ran r = run("h2", dirtyWrite("h2", IsolationLevel.READ_COMMITTED));
        PatternRealisation p = r.realisation();
        assertEquals(PatternRealisation.Verdict.NOT_REALISED, p.verdict(), p + "\n" + r.trace());
        assertEquals("T2's UPDATE (W2[x2]) waited for a lock", p.reason());
    }

    /** A realised lost update judged at a level that proscribes it: the violation names the pattern it saw. */
    @Test
    void theIsolationOracleNamesTheCataloguePatternOfItsCycle() throws Exception {
        Ran r = run("h2", lostUpdate("h2", IsolationLevel.READ_COMMITTED));
        List<Violation> vs = IsolationOracle.violations(r.history(), IsolationLevel.REPEATABLE_READ, Set.of(), null);
        Violation v = vs.stream().filter(x -> x.kind().label().equals("lost-update")).findFirst().orElseThrow(() -> new AssertionError(vs));
        assertTrue(v.summary().contains("matches the catalogue's lost-update pattern R1[x0] W2[x1] C2 W1[x2] C1"), v.summary());
        assertTrue(v.details().contains("lost-update pattern"), v.details());
        IsolationOracle.Witnessed w = (IsolationOracle.Witnessed) v.evidence();
        assertEquals("lost-update", w.patterns().get(0), w.patterns().toString());
        assertEquals("rw ww · one table", w.shape().orElseThrow());
    }

    @Test
    void aCaseWithoutOriginOrTrackingIsNotCheckable() throws Exception {
        TestCase c = lostUpdate("h2", IsolationLevel.READ_COMMITTED);
        Ran r = run("h2", c);
        assertEquals(PatternRealisation.Verdict.NOT_CHECKABLE, PatternRealisation.of(c.withOrigin(null), r.trace(), r.history()).verdict());
        PatternOrigin untracked = new PatternOrigin("lost-update", c.origin().ops(), Map.of("x", new PatternOrigin.Item("t", "k = 1", null)),
                c.origin().steps());
        PatternRealisation p = PatternRealisation.of(c.withOrigin(untracked), r.trace(), r.history());
        assertEquals(PatternRealisation.Verdict.NOT_CHECKABLE, p.verdict());
        assertTrue(p.reason().contains("no row tracking"), p.reason());
    }

    /** non-repeatable-read R1[x0] W2[x1] C2 R1[x1] C1: T1 = BEGIN, R1 (1), R1 (2), C1 (3); T2 = BEGIN, W2 (1, post-read 2), C2 (3). */
    static TestCase nonRepeatableRead(String dbms, IsolationLevel level) {
        TrackedCases b = TrackedCases.on(dbms).level(level).table("t").setup(SCHEMA, "INSERT INTO t (k, v, rid, wl) VALUES (1, 0, '1', ',0')");
        b.begin().read("SELECT rid, wl, v FROM t WHERE k = 1", "k = 1", false, "t").read("SELECT rid, wl, v FROM t WHERE k = 1", "k = 1", false, "t")
                .commit();
        update(b.begin(), 2, 22).commit();
        TestCase c = b.order(1, 1, 2, 2, 2, 2, 1, 1);
        return c.withOrigin(new PatternOrigin("non-repeatable-read", "R1[x0] W2[x1] C2 R1[x1] C1", X,
                List.of(new StmtRef(1, 1), new StmtRef(2, 1), new StmtRef(2, 3), new StmtRef(1, 2), new StmtRef(1, 3))));
    }

    /** At READ COMMITTED the second read sees T2's committed write; at REPEATABLE READ H2's snapshot keeps showing x0. */
    @Test
    void aNonRepeatableReadIsRealisedAtReadCommittedAndPreventedBySnapshotAtRepeatableRead() throws Exception {
        Ran rc = run("h2", nonRepeatableRead("h2", IsolationLevel.READ_COMMITTED));
        assertEquals(PatternRealisation.Verdict.REALISED, rc.realisation().verdict(), rc.realisation().toString());
        Ran rr = run("h2", nonRepeatableRead("h2", IsolationLevel.REPEATABLE_READ));
        assertEquals("R1[x1] read x0", rr.realisation().reason(), rr.realisation() + "\n" + rr.trace());
    }

    /**
     * W1[x1] D2[x2] C1 C2 on H2, whose DELETE is a tag-update, a post-read and a delete by tag: the
     * tag-update waits for T1, so the step waited, although the DELETE statement itself did not.
     */
    @Test
    void aDeleteWhoseTagUpdateWaitedWaited() throws Exception {
        TrackedCases b = TrackedCases.on("h2").level(IsolationLevel.READ_COMMITTED).table("t")
                .setup(SCHEMA, "INSERT INTO t (k, v, rid, wl) VALUES (1, 0, '1', ',0')");
        update(b.begin(), 1, 11).commit();
        b.begin().tag("t", " WHERE k = 1", "2.3").postRead("t", "2.3")
                .write("DELETE FROM t WHERE wl LIKE '%,2.3'", "t", "2.3", List.of(), true).commit();
        TestCase c = b.order(1, 1, 1, 2, 2, 1, 2, 2, 2).withOrigin(new PatternOrigin("delete-over-dirty-write", "W1[x1] D2[x2] C1 C2", X,
                List.of(new StmtRef(1, 1), new StmtRef(2, 3), new StmtRef(1, 3), new StmtRef(2, 4))));
        Ran r = run("h2", c);
        PatternRealisation p = r.realisation();
        assertEquals("T2's DELETE (D2[x2]) waited for a lock (at its tag-update)", p.reason(), p + "\n" + r.trace());
    }
}
