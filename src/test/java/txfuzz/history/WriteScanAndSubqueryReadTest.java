package txfuzz.history;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static txfuzz.history.AnomalyTest.assertOnly;
import static txfuzz.history.History.row;

import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.model.IsolationLevel;

/**
 * Predicate reads the instrumentation now records (docs/history-format.md, "Write scans" and
 * "Subqueries"), as the history recorder writes them: a write's scan is a locking predicate read of
 * the versions it replaced, a row-local subquery a plain predicate read by its companion. Each
 * cycle here exists only through them; each negative has the same shape in an order that makes no
 * cycle.
 */
@Tag("unit")
class WriteScanAndSubqueryReadTest {
    private static Write insert(int stmt, String table, String row, long writer) {
        return new Write(stmt, table, row, WriteKind.INSERT, WList.of(writer));
    }

    private static Write update(int stmt, String table, String row, long... list) {
        return new Write(stmt, table, row, WriteKind.UPDATE, WList.of(list));
    }

    /** A later reader through both predicates: it reveals that the inserted rows match them. */
    private static History.Builder laterReader(History.Builder b, long id, RowVersion c1, RowVersion c2) {
        return b.txn(id).predicateRead("t", "c = 1", false, c1).predicateRead("t", "c = 2", false, c2).commit();
    }

    /**
     * T1: UPDATE t … WHERE c = 2 (matches nothing), INSERT a row with c = 1; T2: UPDATE t … WHERE
     * c = 1 (matches nothing), INSERT a row with c = 2. Each write's scan missed the row the other
     * inserted: two predicate anti-dependencies, G2, which only serializability proscribes.
     */
    @Test
    void writeSkewThroughTwoUpdateScansIsG2() {
        History.Builder b = History.builder()
                .txn(1).predicateRead("t", "c = 2", true).op(insert(1, "t", "r1", 1)).commit()
                .txn(2).predicateRead("t", "c = 1", true).op(insert(1, "t", "r2", 2)).commit();
        History h = laterReader(b, 3, row("r1", 1), row("r2", 2)).build();
        assertOnly(h, Anomaly.G2);
        Analysis an = IsolationChecker.analyze(h);
        assertTrue(an.judge(IsolationLevel.SERIALIZABLE, Set.of()).get(0).bugCandidate());
        assertFalse(an.judge(IsolationLevel.SNAPSHOT, Set.of()).get(0).proscribed(), "snapshot isolation permits G2");
        assertFalse(an.judge(IsolationLevel.REPEATABLE_READ, Set.of()).get(0).proscribed());
    }

    /** The same run with the scans' WHERE unknown (not row-local): no predicate dependency, so nothing is invented. */
    @Test
    void anUnknownScanPredicateInfersNoDependency() {
        History.Builder b = History.builder()
                .txn(1).predicateRead("t", null, true).op(insert(1, "t", "r1", 1)).commit()
                .txn(2).predicateRead("t", null, true).op(insert(1, "t", "r2", 2)).commit();
        History h = laterReader(b, 3, row("r1", 1), row("r2", 2)).build();
        assertOnly(h);
    }

    /** Serially, T2's UPDATE finds (and writes) T1's row and T1's scan precedes T2's insert: every edge points forward. */
    @Test
    void theSameWritesRunSeriallyAreNoAnomaly() {
        History.Builder b = History.builder()
                .txn(1).predicateRead("t", "c = 2", true).op(insert(1, "t", "r1", 1)).commit()
                .txn(2).predicateRead("t", "c = 1", true, row("r1", 1)).op(update(0, "t", "r1", 1, 2)).op(insert(1, "t", "r2", 2)).commit();
        History h = laterReader(b, 3, row("r1", 1, 2), row("r2", 2)).build();
        assertOnly(h);
    }

    /**
     * A DELETE's scan: T1 deletes the rows with c = 1 (there are none yet) and inserts one with c = 2;
     * T2 deletes those with c = 2 (none yet) and inserts one with c = 1. Same G2 as with UPDATEs.
     */
    @Test
    void writeSkewThroughTwoDeleteScansIsG2() {
        History.Builder b = History.builder()
                .txn(1).predicateRead("t", "c = 1", true).op(insert(1, "t", "r2", 1)).commit()
                .txn(2).predicateRead("t", "c = 2", true).op(insert(1, "t", "r1", 2)).commit();
        History h = laterReader(b, 3, row("r1", 2), row("r2", 1)).build();
        assertOnly(h, Anomaly.G2);
    }

    /**
     * UPDATE a … WHERE EXISTS (SELECT 1 FROM b s WHERE s.v = 1) and UPDATE b … WHERE EXISTS (SELECT
     * 1 FROM a s WHERE s.v = 1), each setting v = 0, from the same snapshot: each subquery read the
     * row the other then overwrote (its companion predicate read). Write skew, proscribed only by
     * serializability.
     */
    @Test
    void writeSkewThroughSubqueryReadsIsG2Item() {
        History h = History.builder()
                .txn(1).op(new Read(1, "a", "r1", WList.of(0), true)).op(update(1, "a", "r1", 0, 1))
                .stmt(3).predicateRead("b", "v = 1", false, row("r2", 0)).commit()
                .txn(2).op(new Read(1, "b", "r2", WList.of(0), true)).op(update(1, "b", "r2", 0, 2))
                .stmt(3).predicateRead("a", "v = 1", false, row("r1", 0)).commit()
                .build();
        assertOnly(h, Anomaly.WRITE_SKEW);
        Analysis an = IsolationChecker.analyze(h);
        assertTrue(an.judge(IsolationLevel.SERIALIZABLE, Set.of()).get(0).bugCandidate());
        assertFalse(an.judge(IsolationLevel.SNAPSHOT, Set.of()).get(0).proscribed());
    }

    /** Serially, T2's subquery sees T1's v = 0: it matches nothing and T2 writes nothing. */
    @Test
    void theSameSubqueryWritesRunSeriallyAreNoAnomaly() {
        History h = History.builder()
                .txn(1).op(new Read(1, "a", "r1", WList.of(0), true)).op(update(1, "a", "r1", 0, 1))
                .stmt(3).predicateRead("b", "v = 1", false, row("r2", 0)).commit()
                .txn(2).stmt(3).predicateRead("a", "v = 1", false).commit()
                .txn(3).predicateRead("a", "true", false, row("r1", 0, 1)).predicateRead("b", "true", false, row("r2", 0)).commit()
                .build();
        assertOnly(h);
    }

    /**
     * A subquery's predicate read that missed a row another transaction inserted into the
     * predicate, while that transaction missed the row this one inserted: G2 through subqueries.
     */
    @Test
    void subqueryPredicateReadsThatMissEachOthersInsertsAreG2() {
        History h = History.builder()
                .txn(1).predicateRead("b", "v = 1", false).op(insert(1, "a", "r1", 1)).commit()
                .txn(2).predicateRead("a", "v = 1", false).op(insert(1, "b", "r2", 2)).commit()
                .txn(3).predicateRead("a", "v = 1", false, row("r1", 1)).predicateRead("b", "v = 1", false, row("r2", 2)).commit()
                .build();
        assertOnly(h, Anomaly.G2);
    }
}
