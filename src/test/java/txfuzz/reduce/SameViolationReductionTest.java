package txfuzz.reduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.model.CaseJson;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Violation;
import txfuzz.oracle.explicit.ExplicitOracle;
import txfuzz.oracle.wss.WssEvidence;
import txfuzz.oracle.wss.WssKind;
import txfuzz.oracle.wss.WssOracle;
import txfuzz.dbms.h2.H2Target;

/** A reduction keeps the violation it was asked to keep: the same statement of the case as found, the same error or direction. */
class SameViolationReductionTest {

    static TestCase resource(String name) throws Exception {
        return CaseJson.read(Path.of(SameViolationReductionTest.class.getResource(name).toURI()));
    }

    private static Violation outcomeAt(TestCase c, Executor ex, StmtRef at) throws Exception {
        return new WssOracle().judge(c, ex.run(c), ex).violations().stream()
                .filter(v -> v.kind() == WssKind.WRITE_OUTCOME && at.equals(((WssEvidence) v.evidence()).statement())).findFirst()
                .orElseThrow(() -> new AssertionError("no write-outcome at " + at + " in " + CaseJson.write(c)));
    }

    /**
     * H2 2.5.252, {@code run --tests 300 --seed 1}, iteration 85 at READ UNCOMMITTED: T2.1 {@code DELETE FROM t0 WHERE t0.c2
     * LIKE '_b'} deleted more rows than in the serial replay (documented). The reduction renumbers the transactions and
     * simplifies the statement to {@code DELETE FROM t0}, the text of another statement of the original (T2.2): by its
     * origin it is still T2.1, and the reduced case still shows T2.1's violation, the same way.
     */
    @Test
    void aNormalReductionStillReducesAndKnowsWhereItsStatementCameFrom() throws Exception {
        TestCase c = resource("h2-RU-s1-i85.case.json");
        try (Executor ex = new Executor(new H2Target(), ExecutorConfig.defaults())) {
            StmtRef like = new StmtRef(2, 1);
            Violation v = outcomeAt(c, ex, like);
            assertEquals("changed more rows than serial", v.evidence().identity().orElseThrow().direction());
            Reduction r = new Reducer(ex, List.of(new WssOracle(), new ExplicitOracle()), new ReduceConfig(Duration.ofSeconds(60))).reduce(c, v);
            assertTrue(r.changed(), r.end().toString());
            assertTrue(r.statementsAfter() <= 2 && r.statementsBefore() == 10, r.statementsAfter() + " of " + r.statementsBefore());
            StmtRef now = ((WssEvidence) r.violation().evidence()).statement();
            assertEquals(like, r.originOf(now), CaseJson.write(r.reduced()));
            assertTrue(v.sameAs(r.violation(), r::originOf));
            // a fresh run of the reduced case shows it again
            assertTrue(new WssOracle().judge(r.reduced(), ex.run(r.reduced()), ex).violations().stream().anyMatch(x -> v.sameAs(x, r::originOf)));
        }
    }

    /**
     * The same case asked to keep a write-outcome at T4.3, which its runs never show (they show T2.1's): there is nothing of
     * that violation to reduce, so the case stays as found, and the record says what the runs showed instead.
     */
    @Test
    void aViolationTheCaseNoLongerShowsIsNotReducedAndTheReportSaysWhy() throws Exception {
        TestCase c = resource("h2-RU-s1-i85.case.json");
        try (Executor ex = new Executor(new H2Target(), ExecutorConfig.defaults())) {
            Violation atLike = outcomeAt(c, ex, new StmtRef(2, 1));
            WssEvidence e = (WssEvidence) atLike.evidence();
            Violation elsewhere = atLike.withEvidence(new WssEvidence(e.kind(), new StmtRef(4, 3), e.actual(), e.sql(), e.orders(), e.direction()));
            Reduction r = new Reducer(ex, List.of(new WssOracle()), new ReduceConfig(Duration.ofSeconds(30))).reduce(c, elsewhere);
            assertEquals(Reduction.End.VIOLATION_LOST, r.end());
            assertFalse(r.changed());
            assertEquals(c, r.reduced());
            assertTrue(r.otherOfKind() != null && r.otherOfKind().summary().startsWith("write-outcome at T2.1"), String.valueOf(r.otherOfKind()));
            txfuzz.report.ReductionRecord record = txfuzz.report.ReductionRecord.unchanged(r.end(), r);
            assertEquals("violation-lost", record.status());
            assertTrue(record.note().contains("write-outcome at T2.1"), record.note());
        }
    }

    /**
     * H2 2.5.252, {@code run --tests 300 --seed 1}, iteration 186 at READ COMMITTED: T3.1 {@code UPDATE t0 SET c0 = 4 WHERE
     * t0.c1 < 'bdd'} changed no row where the serial replay failed on the primary key. The old reduction ended on a write
     * that changed fewer rows than the replay: the other direction. The reduced case keeps T3.1 failing the same way.
     */
    @Test
    void aReductionThatWouldDriftOntoTheOtherDirectionKeepsTheOriginalOne() throws Exception {
        TestCase c = resource("h2-RC-s1-i186.case.json");
        try (Executor ex = new Executor(new H2Target(), ExecutorConfig.defaults())) {
            StmtRef update = new StmtRef(3, 1);
            Violation v = outcomeAt(c, ex, update);
            assertEquals("succeeded, serial failed", v.evidence().identity().orElseThrow().direction());
            // what the reducer that accepted any write-outcome kept: a write that changed fewer rows than in the replay
            TestCase drifted = resource("h2-RC-s1-i186.drifted.case.json");
            Violation there = outcomeAt(drifted, ex, new StmtRef(2, 1));
            assertEquals("changed fewer rows than serial", there.evidence().identity().orElseThrow().direction());
            assertFalse(v.sameAs(there, ref -> update), "the other direction is another violation, whichever statement it came from");
            Reduction r = new Reducer(ex, List.of(new WssOracle(), new ExplicitOracle()), new ReduceConfig(Duration.ofSeconds(60))).reduce(c, v);
            assertTrue(r.changed(), r.end().toString());
            assertTrue(r.statementsAfter() < r.statementsBefore(), r.statementsAfter() + " of " + r.statementsBefore());
            StmtRef now = ((WssEvidence) r.violation().evidence()).statement();
            assertEquals(update, r.originOf(now), CaseJson.write(r.reduced()));
            assertEquals("succeeded, serial failed", r.violation().evidence().identity().orElseThrow().direction());
            assertTrue(r.refused() > 0, "steps that showed only another write-outcome came up, and were refused");
            // the report says which statement of the case as found the renumbered one is
            assertEquals(now.equals(update) ? null : now + " is T3.1 of the case as found", txfuzz.report.ReductionRecord.of(r).note());
        }
    }

    /**
     * Derby 10.16.1.1, found by {@code run --dbms derby --generator pattern --isolation all --seed 24}: a row-tracked pattern
     * case whose T2 UPDATE with a scalar COUNT(*) subquery over a UNIQUE column fails with XJ001 (ArrayIndexOutOfBounds) and
     * closes the connection. Only the explicit oracle judges it, so the tracking goes, and the crash comes down to that one
     * statement, run by itself (autocommit), on the tables it names.
     */
    @Test
    void derbysSingleStatementCrashReducesToTheStatementAlone() throws Exception {
        TestCase c = resource("derby-s24-i1-crash.case.json");
        try (Target derby = Targets.create("derby"); Executor ex = new Executor(derby, ExecutorConfig.defaults())) {
            Violation v = ReducerTest.violationOf(c, ex, new ExplicitOracle(), "engine-error");
            assertEquals(new StmtRef(2, 1), ((ExplicitOracle.Failure) v.evidence()).statement(), v.summary());
            Reduction r = new Reducer(ex, List.of(new ExplicitOracle()), new ReduceConfig(Duration.ofSeconds(120))).reduce(c, v);
            TestCase red = r.reduced();
            assertTrue(r.changed(), r.end().toString());
            assertEquals(1, red.transactions().size(), CaseJson.write(red));
            assertFalse(red.txn(1).explicit(), "one autocommit statement: " + CaseJson.write(red));
            String sql = red.txn(1).statements().get(0).sql();
            assertTrue(sql.startsWith("UPDATE t2 SET ") && sql.contains("COUNT(*)") && !sql.contains("wl"), sql);
            assertFalse(TrackingStripper.tracked(red), "no row tracking left: " + CaseJson.write(red));
            assertEquals(new StmtRef(2, 1), r.originOf(new StmtRef(1, 0)), "the statement is the one that crashed in the case as found");
            assertTrue(v.sameAs(r.violation(), r::originOf), r.violation().summary());
            assertEquals(0, r.refused(), "no other statement crashed on the way");
            assertNull(r.otherOfKind());
        }
    }
}
