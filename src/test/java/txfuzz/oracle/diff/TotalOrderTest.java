package txfuzz.oracle.diff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static txfuzz.oracle.diff.Traces.state0;
import static txfuzz.oracle.diff.Traces.trace;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.exec.Cases;
import txfuzz.exec.Trace;
import txfuzz.exec.TxnStatus;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;

/** Rows compare as lists only where the ORDER BY includes a key unique for the rows returned, decided from the parsed query and schema. */
class TotalOrderTest {
    private static final TestCase SCHEMA = Cases.on("h2").table("t0").level(IsolationLevel.READ_COMMITTED)
            .setup("CREATE TABLE t0 (c0 INT, c1 VARCHAR(10), c2 INT NOT NULL, PRIMARY KEY (c0), UNIQUE (c2))",
                    "CREATE TABLE t1 (k INT PRIMARY KEY, u VARCHAR(10) UNIQUE, n INT)",
                    "CREATE TABLE t2 (a INT NOT NULL, b VARCHAR(10) NOT NULL, PRIMARY KEY (a, b))",
                    "CREATE TABLE t3 (d INT NOT NULL, e INT)", "CREATE UNIQUE INDEX i3 ON t3 (d)")
            .txn("SELECT c0 FROM t0")
            .order(1, 1, 1);

    private static boolean ordered(String sql) {
        return TotalOrder.of(SCHEMA, true).totallyOrders(sql);
    }

    private static boolean orderedAcrossEngines(String sql) {
        return TotalOrder.of(SCHEMA, false).totallyOrders(sql);
    }

    @Test
    void anOrderByThatIncludesAUniqueKeyGivesATotalOrder() {
        assertTrue(ordered("SELECT x0.c0, x0.c1 FROM t0 x0 ORDER BY x0.c0"), "the primary key, qualified by the alias");
        assertTrue(ordered("SELECT c1 FROM t0 WHERE c1 > 'a' ORDER BY c0 DESC"), "unqualified, descending, not selected");
        assertTrue(ordered("SELECT t0.c1 FROM t0 ORDER BY t0.c1, t0.c0"), "the key after another column breaks its ties");
        assertTrue(ordered("SELECT x.c1 FROM t0 x ORDER BY x.c2"), "a UNIQUE constraint on a NOT NULL column");
        assertTrue(ordered("SELECT * FROM t2 ORDER BY b, a"), "every column of a composite primary key");
        assertTrue(ordered("SELECT e FROM t3 ORDER BY d"), "a CREATE UNIQUE INDEX on a NOT NULL column");
        assertTrue(ordered("SELECT c0 AS k0 FROM t0 ORDER BY k0"), "a select item's alias for the key");
        assertTrue(ordered("SELECT x0.c2, COUNT(*) FROM t0 x0 GROUP BY x0.c2 ORDER BY x0.c2"), "one row per group of a NOT NULL column");
        assertTrue(ordered("SELECT c0, c1 FROM t0 WHERE c0 = 1 ORDER BY c0 FOR UPDATE"), "a locking read");
        assertTrue(orderedAcrossEngines("SELECT c1 FROM t0 ORDER BY c0"), "a numeric key sorts alike on every engine");
    }

    @Test
    void anythingElseComparesAsAMultiset() {
        assertFalse(ordered("SELECT c0 FROM t0"), "no ORDER BY");
        assertFalse(ordered("SELECT c0 FROM t0 ORDER BY c1"), "not a key");
        assertFalse(ordered("SELECT * FROM t1 ORDER BY u"), "UNIQUE but nullable: two NULLs tie");
        assertFalse(ordered("SELECT * FROM t2 ORDER BY a"), "part of a composite key");
        assertFalse(ordered("SELECT n, COUNT(*) FROM t1 GROUP BY n ORDER BY n"), "the NULL group sorts first or last, as each engine likes");
        assertFalse(ordered("SELECT c1, COUNT(*) FROM t0 GROUP BY c1, c2 ORDER BY c2"), "not every grouping column ordered");
        assertFalse(ordered("SELECT x0.c0 FROM t0 x0 JOIN t1 x1 ON x0.c0 = x1.k ORDER BY x0.c0"), "a join: one table's key is not unique in it");
        assertFalse(ordered("SELECT c0 FROM t0 UNION SELECT k FROM t1 ORDER BY 1"), "a set operation");
        assertFalse(ordered("SELECT c0 + 1 AS c0 FROM t0 ORDER BY c0"), "the alias names an expression, not the key");
        assertFalse(ordered("SELECT x0.c0 FROM t0 x0 ORDER BY y.c0"), "another table's column");
        assertFalse(ordered("SELECT DISTINCT c1 FROM t0 ORDER BY c0"), "DISTINCT may fold rows of different keys into one");
        assertFalse(ordered("SELECT c0 FROM t9 ORDER BY c0"), "a table the schema does not declare");
        assertFalse(ordered("SELEKT c0 FROM t0 ORDER BY c0"), "what the parser cannot read");
        assertFalse(orderedAcrossEngines("SELECT * FROM t2 ORDER BY a, b"), "text keys collate differently on other engines");
    }

    /** In the comparison: the same rows in another order diverge under an ORDER BY on the key, and agree otherwise. */
    @Test
    void theComparisonComparesOrderedRowsAsLists() {
        TestCase c = Cases.on("h2").table("t").level(IsolationLevel.READ_COMMITTED)
                .setup("CREATE TABLE t (k INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                .txn("SELECT k, v FROM t ORDER BY k", "SELECT k, v FROM t ORDER BY v")
                .order(1, 1, 1, 1);
        List<List<String>> up = List.of(List.of("1", "0"), List.of("2", "0"));
        List<List<String>> down = List.of(List.of("2", "0"), List.of("1", "0"));
        List<List<String>> setup = up;
        Trace asc = trace().ok(1, 0).rows(1, 1, up).rows(1, 2, up).ok(1, 3).ended(1, TxnStatus.COMMITTED, 3).state(setup);
        Trace byKeyReversed = trace().ok(1, 0).rows(1, 1, down).rows(1, 2, up).ok(1, 3).ended(1, TxnStatus.COMMITTED, 3).state(setup);
        Trace tiesReversed = trace().ok(1, 0).rows(1, 1, up).rows(1, 2, down).ok(1, 3).ended(1, TxnStatus.COMMITTED, 3).state(setup);
        Rules rules = Rules.of(c, true);
        Comparison keyed = TraceComparison.compare(c, new SideRun(state0(setup), asc), new SideRun(state0(setup), byKeyReversed), rules);
        assertEquals(DivergenceKind.ROWS, keyed.divergence().kind(), "ORDER BY k: another order is another result");
        assertEquals(Traces.ref(1, 1), keyed.divergence().at());
        assertEquals(Comparison.Status.AGREE,
                TraceComparison.compare(c, new SideRun(state0(setup), asc), new SideRun(state0(setup), tiesReversed), rules).status(),
                "ORDER BY v: rows tied on v may come in any order");
        assertEquals(Comparison.Status.AGREE,
                TraceComparison.compare(c, new SideRun(state0(setup), asc), new SideRun(state0(setup), byKeyReversed), Rules.multisets(true)).status(),
                "as multisets, the order never counts");
    }
}
