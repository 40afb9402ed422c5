package txfuzz.oracle.equiv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static txfuzz.oracle.equiv.PaperExample.T0S1;
import static txfuzz.oracle.equiv.PaperExample.T0S2;
import static txfuzz.oracle.equiv.PaperExample.T1S1;
import static txfuzz.oracle.equiv.PaperExample.T1S2;
import static txfuzz.oracle.equiv.PaperExample.T1S3;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.model.DbState;
import txfuzz.model.StmtRef;

@Tag("unit")
class ResultComparisonTest {

    private static final List<StmtRef> ORDER = List.of(T0S2, T1S1, T1S2, T1S3, T0S1);

    private static DbState state(List<List<String>> t1) {
        return new DbState(Map.of("t0", List.of(List.of("1", "162")), "t1", t1));
    }

    /** Fig. 9's transactional results. */
    private static Map<StmtRef, StmtOutcome> outcomes() {
        Map<StmtRef, StmtOutcome> m = new HashMap<>();
        m.put(T0S2, StmtOutcome.rows(List.of(List.of(2, 43, 8), List.of(3, 43, 53))));
        m.put(T1S1, StmtOutcome.rows(List.of(List.of(1, 20))));
        m.put(T1S2, StmtOutcome.rows(List.of(List.of(2, 43, 8))));
        m.put(T1S3, StmtOutcome.affected(2));
        m.put(T0S1, StmtOutcome.affected(1));
        return m;
    }

    private static RunResult transactional() {
        return new RunResult(outcomes(), state(List.of(List.of("2", "63", "8"), List.of("3", "63", "53"))));
    }

    @Test
    void identicalRunsAgree() {
        assertEquals(List.of(), ResultComparison.compare(transactional(), transactional(), ORDER));
    }

    @Test
    void figure9FinalStateDifferenceIsFound() {
        // Fig. 9: the SELECTs agree; the replayed T1.S3 updates one row, and t1 ends differently
        Map<StmtRef, StmtOutcome> o = outcomes();
        o.put(T1S3, StmtOutcome.affected(1));
        RunResult seq = new RunResult(o, state(List.of(List.of("2", "63", "8"), List.of("3", "43", "53"))));
        List<Difference> d = ResultComparison.compare(transactional(), seq, ORDER);
        assertEquals(2, d.size(), d.toString());
        assertEquals(Difference.Aspect.AFFECTED, d.get(0).aspect());
        assertEquals(T1S3, d.get(0).stmt());
        assertEquals(Difference.Aspect.STATE, d.get(1).aspect());
        assertEquals("t1", d.get(1).table());
        assertEquals(List.of(List.of("3", "63", "53")), d.get(1).onlyTransactional());
        assertEquals(List.of(List.of("3", "43", "53")), d.get(1).onlySequential());
    }

    @Test
    void aDifferenceInOneStatementsRowsIsFound() {
        Map<StmtRef, StmtOutcome> o = outcomes();
        o.put(T1S2, StmtOutcome.rows(List.of(List.of(2, 43, 8), List.of(3, 43, 53))));
        List<Difference> d = ResultComparison.compare(transactional(), new RunResult(o, transactional().finalState()), ORDER);
        assertEquals(1, d.size(), d.toString());
        assertEquals(Difference.Aspect.ROWS, d.get(0).aspect());
        assertEquals(T1S2, d.get(0).stmt());
        assertEquals(List.of(), d.get(0).onlyTransactional());
        assertEquals(List.of(List.of("3", "43", "53")), d.get(0).onlySequential());
        assertTrue(d.get(0).describe().startsWith("T1.S2: rows: transactional 1 row (2, 43, 8) vs. non-transactional 2 rows"),
                d.get(0).describe());
    }

    @Test
    void aDifferenceInAffectedCountIsFound() {
        Map<StmtRef, StmtOutcome> o = outcomes();
        o.put(T1S3, StmtOutcome.affected(1));
        List<Difference> d = ResultComparison.compare(transactional(), new RunResult(o, transactional().finalState()), ORDER);
        assertEquals(1, d.size(), d.toString());
        assertEquals(Difference.Aspect.AFFECTED, d.get(0).aspect());
        assertEquals(T1S3, d.get(0).stmt());
        assertEquals("affected 2", d.get(0).transactional());
        assertEquals("affected 1", d.get(0).sequential());
    }

    @Test
    void aDifferenceInErrorClassIsFound() {
        Map<StmtRef, StmtOutcome> t = outcomes();
        t.put(T0S1, StmtOutcome.error("CONSTRAINT"));
        Map<StmtRef, StmtOutcome> q = outcomes();
        q.put(T0S1, StmtOutcome.error("INTERNAL"));
        List<Difference> d = ResultComparison.compare(new RunResult(t, null), new RunResult(q, null), ORDER);
        assertEquals(1, d.size(), d.toString());
        assertEquals(Difference.Aspect.ERROR, d.get(0).aspect());
        assertEquals(T0S1, d.get(0).stmt());
        // an error against a success too
        assertEquals(Difference.Aspect.ERROR, ResultComparison.compare(T0S1, StmtOutcome.affected(1), StmtOutcome.error("X")).aspect());
        // same class, different messages: equal
        assertNull(ResultComparison.compare(T0S1, StmtOutcome.error("CONSTRAINT"), StmtOutcome.error("CONSTRAINT")));
    }

    @Test
    void rowsAreMultisetsAndFloatsAreNormalised() {
        StmtOutcome a = StmtOutcome.rows(List.of(List.of(1, 0.1 + 0.2), List.of(2, 1.0)));
        StmtOutcome b = StmtOutcome.rows(List.of(List.of(2, 1.0f), List.of(1, 0.3)));
        assertNull(ResultComparison.compare(T0S2, a, b));
        StmtOutcome twice = StmtOutcome.rows(List.of(List.of(1, 0.3), List.of(1, 0.3)));
        StmtOutcome once = StmtOutcome.rows(List.of(List.of(1, 0.3)));
        Difference d = ResultComparison.compare(T0S2, twice, once);
        assertEquals(Difference.Aspect.ROWS, d.aspect());
        assertEquals(List.of(List.of("1", "0.3")), d.onlyTransactional());
    }

    @Test
    void aStatementMissingFromOneRunIsADifferenceAndAbortedOnesAreNotCompared() {
        Map<StmtRef, StmtOutcome> q = outcomes();
        q.remove(T1S1);
        List<Difference> d = ResultComparison.compare(transactional(), new RunResult(q, transactional().finalState()), ORDER);
        assertEquals(Difference.Aspect.MISSING, d.get(0).aspect());
        Map<StmtRef, StmtOutcome> t = outcomes();
        t.put(new StmtRef(7, 1), StmtOutcome.affected(4)); // an aborted transaction's statement, not in the order
        assertEquals(List.of(), ResultComparison.compare(new RunResult(t, transactional().finalState()), transactional(), ORDER));
    }
}
