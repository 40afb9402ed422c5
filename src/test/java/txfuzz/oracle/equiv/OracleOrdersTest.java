package txfuzz.oracle.equiv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static txfuzz.oracle.equiv.PaperExample.T0S1;
import static txfuzz.oracle.equiv.PaperExample.T0S2;
import static txfuzz.oracle.equiv.PaperExample.T1S1;
import static txfuzz.oracle.equiv.PaperExample.T1S2;
import static txfuzz.oracle.equiv.PaperExample.T1S3;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.model.StmtRef;

@Tag("unit")
class OracleOrdersTest {

    private static void assertRespectsEveryEdge(StatementDependencyGraph g, List<StmtRef> order) {
        assertEquals(g.nodes().size(), order.size(), order.toString());
        assertEquals(g.nodes().size(), new HashSet<>(order).size(), "each statement once: " + order);
        for (StatementDependencyGraph.Link l : g.graph().edgeSet()) {
            assertTrue(order.indexOf(l.from()) < order.indexOf(l.to()), l + " broken by " + order);
        }
    }

    @Test
    void thePaperExampleHasEightOrdersAllFound() {
        StatementDependencyGraph g = StatementDependencyGraph.build(PaperExample.execution());
        List<List<StmtRef>> orders = OracleOrders.orders(g, 42, 20);
        assertEquals(8, orders.size(), orders.toString());
        assertEquals(8, new HashSet<>(orders).size());
        orders.forEach(o -> assertRespectsEveryEdge(g, o));
        assertTrue(orders.contains(List.of(T0S2, T1S1, T1S2, T1S3, T0S1)), "Fig. 9's order");
        orders.forEach(o -> assertEquals(T0S1, o.get(4), "T0.S1 must come last: " + o));
    }

    @Test
    void theCapIsHonouredAndOrdersAreDistinct() {
        StatementDependencyGraph g = StatementDependencyGraph.build(PaperExample.execution());
        for (int k = 1; k <= 8; k++) {
            List<List<StmtRef>> orders = OracleOrders.orders(g, 3, k);
            assertEquals(k, orders.size());
            assertEquals(k, new HashSet<>(orders).size());
        }
    }

    private static StatementDependencyGraph unconstrained(int n) {
        List<StmtExec> stmts = new ArrayList<>();
        Map<Integer, TxnEnd> ends = new HashMap<>();
        for (int i = 1; i <= n; i++) {
            stmts.add(StmtExec.read(i, 1).reads(Item.of("t", i, 0)).build());
            ends.put(i, TxnEnd.COMMITTED);
        }
        return StatementDependencyGraph.build(new Execution(stmts, ends));
    }

    @Test
    void deterministicPerSeedAndDifferentAcrossSeeds() {
        StatementDependencyGraph g = unconstrained(6); // 720 orders
        List<List<StmtRef>> a = OracleOrders.orders(g, 11, 10);
        assertEquals(a, OracleOrders.orders(g, 11, 10));
        assertEquals(10, new HashSet<>(a).size());
        a.forEach(o -> assertRespectsEveryEdge(g, o));
        assertNotEquals(a, OracleOrders.orders(g, 12, 10));
        Set<StmtRef> firsts = new HashSet<>();
        for (long seed = 0; seed < 30; seed++) {
            firsts.add(OracleOrders.orders(g, seed, 1).get(0).get(0));
        }
        assertTrue(firsts.size() > 2, "random choice among in-degree-zero statements: " + firsts);
    }

    @Test
    void aGraphWithFewerOrdersThanTheCapYieldsAllOfThem() {
        StatementDependencyGraph g = unconstrained(4); // 4! = 24 orders
        List<List<StmtRef>> orders = OracleOrders.orders(g, 2, 30);
        assertEquals(24, orders.size());
        assertEquals(24, new HashSet<>(orders).size());
    }

    @Test
    void aCyclicGraphIsRefused() {
        Execution cyc = new Execution(List.of(
                StmtExec.write(1, 1, "t").predicate().vsr("t", Item.of("t", 0, 0), Item.of("t", 1, 0)).bwr(Item.of("t", 0, 0))
                        .awr(Item.of("t", 0, 1)).build(),
                StmtExec.write(2, 1, "t").predicate().vsr("t", Item.of("t", 0, 0), Item.of("t", 1, 0)).bwr(Item.of("t", 1, 0))
                        .awr(Item.of("t", 1, 2)).build()),
                Map.of(1, TxnEnd.COMMITTED, 2, TxnEnd.COMMITTED));
        assertThrows(IllegalArgumentException.class, () -> OracleOrders.orders(StatementDependencyGraph.build(cyc), 1, 3));
    }

    @Test
    void statementsOfAnOrderCarryTheirSql() {
        StatementDependencyGraph g = StatementDependencyGraph.build(PaperExample.execution());
        List<StmtExec> s = OracleOrders.statements(g, List.of(T0S2, T1S1, T1S2, T1S3, T0S1));
        assertEquals("select * from t1", s.get(0).sql());
        assertEquals("update t0 set vkey = 162", s.get(4).sql());
    }
}
