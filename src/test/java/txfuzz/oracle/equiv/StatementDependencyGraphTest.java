package txfuzz.oracle.equiv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static txfuzz.oracle.equiv.PaperExample.T0S1;
import static txfuzz.oracle.equiv.PaperExample.T0S2;
import static txfuzz.oracle.equiv.PaperExample.T1S1;
import static txfuzz.oracle.equiv.PaperExample.T1S2;
import static txfuzz.oracle.equiv.PaperExample.T1S3;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.model.StmtRef;

@Tag("unit")
class StatementDependencyGraphTest {

    private static final StmtRef SI = new StmtRef(1, 1);
    private static final StmtRef SJ = new StmtRef(2, 1);

    private static Item t(int key, int version) {
        return Item.of("t", key, version);
    }

    /** Si (T1.S1) and Sj (T2.S1), both committed, in this completion order. */
    private static StatementDependencyGraph graph(StmtExec.Builder si, StmtExec.Builder sj) {
        return StatementDependencyGraph.build(new Execution(List.of(si.completion(0).build(), sj.completion(1).build()),
                Map.of(1, TxnEnd.COMMITTED, 2, TxnEnd.COMMITTED)));
    }

    /** Fig. 3's Si: update t set value = 1; --- (0,0) -> (0,1). */
    private static StmtExec.Builder updateToOne() {
        return StmtExec.write(1, 1, "t").sql("update t set value = 1").predicate().vsr("t", t(0, 0)).bwr(t(0, 0)).awr(t(0, 1));
    }

    // ---- the paper's worked example (Fig. 1, 4, 6, 9) ----

    @Test
    void paperExampleHasExactlyTheEdgesOfFigure6() {
        StatementDependencyGraph g = StatementDependencyGraph.build(PaperExample.execution());
        Map<StatementDependencyGraph.Link, Set<DepKind>> expected = Map.of(
                new StatementDependencyGraph.Link(T0S2, T1S3), EnumSet.of(DepKind.ITEM_ANTI, DepKind.PREDICATE_ANTI),
                new StatementDependencyGraph.Link(T1S2, T1S3), EnumSet.of(DepKind.ITEM_ANTI, DepKind.PREDICATE_ANTI),
                new StatementDependencyGraph.Link(T1S1, T0S1), EnumSet.of(DepKind.ITEM_ANTI, DepKind.PREDICATE_ANTI),
                new StatementDependencyGraph.Link(T1S2, T0S1), EnumSet.of(DepKind.PREDICATE_ANTI),
                // §3.2: "T1.S3 is (stmt-predicate-anti) depended on T0.S1" (via the subquery over t0)
                new StatementDependencyGraph.Link(T1S3, T0S1), EnumSet.of(DepKind.PREDICATE_ANTI));
        assertEquals(expected, g.links(), g.toString());
        assertEquals(5, g.nodes().size());
        assertTrue(g.acyclic());
        // Fig. 9: in the first round T1.S1, T1.S2 and T0.S2 have in-degree zero
        Set<StmtRef> sources = new TreeSet<>();
        for (StmtRef v : g.graph().vertexSet()) {
            if (g.graph().inDegreeOf(v) == 0) {
                sources.add(v);
            }
        }
        assertEquals(new TreeSet<>(List.of(T0S2, T1S1, T1S2)), sources);
    }

    @Test
    void paperExampleHasNoIntraTransactionOrderEdges() {
        // §3.1: statement order is not a dependency; Fig. 9 replays T0.S2 before T0.S1
        StatementDependencyGraph g = StatementDependencyGraph.build(PaperExample.execution());
        assertTrue(g.kinds(T0S1, T0S2).isEmpty());
        assertTrue(g.kinds(T1S1, T1S2).isEmpty());
    }

    @Test
    void mermaidAndDotDrawEveryNodeAndEdge() {
        StatementDependencyGraph g = StatementDependencyGraph.build(PaperExample.execution());
        String m = g.mermaid();
        assertTrue(m.startsWith("flowchart LR\n"), m);
        assertTrue(m.contains("T0_S2 -->|\"item-anti, predicate-anti\"| T1_S3"), m);
        assertTrue(m.contains("T1_S3 -->|\"predicate-anti\"| T0_S1"), m);
        assertTrue(m.contains("T1_S1[\"T1.S1: select * from t0\"]"), m);
        assertFalse(m.contains(":::cycle"), m);
        String d = g.dot();
        assertTrue(d.startsWith("digraph"), d);
        assertTrue(d.contains("T1_S2 -> T0_S1 [label=\"predicate-anti\"];"), d);
        assertEquals(5, d.lines().filter(l -> l.contains(" -> ")).count(), d);
    }

    // ---- one hand-built history per kind (Fig. 3), each with a negative ----

    @Test
    void itemRead() {
        StatementDependencyGraph g = graph(updateToOne(), StmtExec.read(2, 1).reads(t(0, 1)));
        assertEquals(EnumSet.of(DepKind.ITEM_READ), g.kinds(SI, SJ));
        StatementDependencyGraph no = graph(updateToOne(), StmtExec.read(2, 1).reads(t(0, 0)));
        assertFalse(no.has(SI, SJ, DepKind.ITEM_READ));
    }

    @Test
    void itemWrite() {
        StatementDependencyGraph g = graph(updateToOne(), StmtExec.write(2, 1, "t").bwr(t(0, 1)).awr(t(0, 2)));
        assertEquals(EnumSet.of(DepKind.ITEM_WRITE), g.kinds(SI, SJ));
        StatementDependencyGraph no = graph(updateToOne(), StmtExec.write(2, 1, "t").bwr(t(7, 0)).awr(t(7, 2)));
        assertTrue(no.links().isEmpty(), no.toString());
    }

    @Test
    void itemAnti() {
        // Sj reads (0,0) though Si installed (0,1): the reader precedes the writer
        StatementDependencyGraph g = graph(updateToOne(), StmtExec.read(2, 1).reads(t(0, 0)));
        assertEquals(EnumSet.of(DepKind.ITEM_ANTI), g.kinds(SJ, SI));
        assertTrue(g.kinds(SI, SJ).isEmpty());
        StatementDependencyGraph no = graph(updateToOne(), StmtExec.read(2, 1).reads(t(0, 1)));
        assertFalse(no.has(SJ, SI, DepKind.ITEM_ANTI));
    }

    @Test
    void predicateRead() {
        // select * from t where value = 0 --- empty, but its predicate looked at (0,1)
        StatementDependencyGraph g = graph(updateToOne(), StmtExec.read(2, 1).predicate().vsr("t", t(0, 1)));
        assertEquals(EnumSet.of(DepKind.PREDICATE_READ), g.kinds(SI, SJ));
        StatementDependencyGraph no = graph(updateToOne(), StmtExec.read(2, 1).predicate().vsr("t", t(0, 0)));
        assertFalse(no.has(SI, SJ, DepKind.PREDICATE_READ));
        // a read without predicate has no predicate dependencies at all
        StatementDependencyGraph plain = graph(updateToOne(), StmtExec.read(2, 1).vsr("t", t(0, 1)));
        assertTrue(plain.links().isEmpty(), plain.toString());
    }

    @Test
    void predicateWriteCase2SjUsesAVersionSiInstalled() {
        // update t set value = 2 where value = 0 --- changes nothing
        StatementDependencyGraph g = graph(updateToOne(), StmtExec.write(2, 1, "t").predicate().vsr("t", t(0, 1)));
        assertEquals(EnumSet.of(DepKind.PREDICATE_WRITE), g.kinds(SI, SJ));
        StatementDependencyGraph no = graph(updateToOne(), StmtExec.write(2, 1, "t").predicate().vsr("t", t(0, 0)));
        assertFalse(no.has(SI, SJ, DepKind.PREDICATE_WRITE));
    }

    @Test
    void predicateWriteCase1SjOverwritesSisVersionSet() {
        // Si: update t set value = 1 where id = 0, its predicate also looked at row 5; Sj then updates row 5
        StmtExec.Builder si = StmtExec.write(1, 1, "t").predicate().vsr("t", t(0, 0), t(5, 7)).bwr(t(0, 0)).awr(t(0, 1));
        StatementDependencyGraph g = graph(si, StmtExec.write(2, 1, "t").bwr(t(5, 7)).awr(t(5, 8)));
        assertEquals(EnumSet.of(DepKind.PREDICATE_WRITE), g.kinds(SI, SJ));
        StmtExec.Builder si2 = StmtExec.write(1, 1, "t").predicate().vsr("t", t(0, 0)).bwr(t(0, 0)).awr(t(0, 1));
        StatementDependencyGraph no = graph(si2, StmtExec.write(2, 1, "t").bwr(t(5, 7)).awr(t(5, 8)));
        assertTrue(no.links().isEmpty(), no.toString());
    }

    @Test
    void predicateAnti() {
        // select * from t where value = 1 --- empty: it looked at (0,0), which Si overwrites
        StatementDependencyGraph g = graph(updateToOne(), StmtExec.read(2, 1).predicate().vsr("t", t(0, 0)));
        assertEquals(EnumSet.of(DepKind.PREDICATE_ANTI), g.kinds(SJ, SI));
        StatementDependencyGraph no = graph(updateToOne(), StmtExec.read(2, 1).predicate().vsr("t", t(0, 1)));
        assertFalse(no.has(SJ, SI, DepKind.PREDICATE_ANTI));
    }

    @Test
    void valueWriteCase2() {
        // insert into t values (1, (select min(value) from t)) --- insert (1, 1)
        StatementDependencyGraph g = graph(updateToOne(), StmtExec.write(2, 1, "t").valueWrite().vsr("t", t(0, 1)).awr(t(1, 1)));
        assertEquals(EnumSet.of(DepKind.VALUE_WRITE), StatementDependencyGraph.build(g.execution(), false).kinds(SI, SJ));
        // with unborn versions also predicate-write: Si's predicate ran before row 1 existed
        assertEquals(EnumSet.of(DepKind.PREDICATE_WRITE, DepKind.VALUE_WRITE), g.kinds(SI, SJ));
        // insert into t values (1, 5): no value read, no dependency (the paper's inference)
        StatementDependencyGraph no = StatementDependencyGraph.build(graph(updateToOne(), StmtExec.write(2, 1, "t").awr(t(1, 5))).execution(), false);
        assertTrue(no.links().isEmpty(), no.toString());
    }

    @Test
    void valueWriteCase1() {
        // Si: insert into u values (9, (select min(value) from t)) reads (0,0); Sj overwrites (0,0)
        StmtExec.Builder si = StmtExec.write(1, 1, "u").valueWrite().vsr("t", t(0, 0)).awr(Item.of("u", 9, 0));
        StatementDependencyGraph g = graph(si, StmtExec.write(2, 1, "t").bwr(t(0, 0)).awr(t(0, 1)));
        assertEquals(EnumSet.of(DepKind.VALUE_WRITE), g.kinds(SI, SJ));
        StmtExec.Builder constant = StmtExec.write(1, 1, "u").vsr("t", t(0, 0)).awr(Item.of("u", 9, 0));
        StatementDependencyGraph no = graph(constant, StmtExec.write(2, 1, "t").bwr(t(0, 0)).awr(t(0, 1)));
        assertTrue(no.links().isEmpty(), no.toString());
    }

    // ---- what is left out ----

    @Test
    void statementsOfAbortedTransactionsAreDismissed() {
        Execution e = new Execution(List.of(updateToOne().completion(0).build(), StmtExec.read(2, 1).reads(t(0, 1)).completion(1).build()),
                Map.of(1, TxnEnd.ABORTED, 2, TxnEnd.COMMITTED));
        StatementDependencyGraph g = StatementDependencyGraph.build(e);
        assertEquals(List.of(SJ), g.nodes().stream().map(StmtExec::ref).toList());
        assertTrue(g.dependencies().isEmpty());
    }

    @Test
    void noEdgeBetweenStatementsOfOneTransactionOnDifferentData() {
        Execution e = new Execution(List.of(
                StmtExec.write(1, 1, "t").bwr(t(0, 0)).awr(t(0, 1)).build(),
                StmtExec.read(1, 2).predicate().vsr("u", Item.of("u", 3, 3)).reads(Item.of("u", 3, 3)).build()),
                Map.of(1, TxnEnd.COMMITTED));
        assertTrue(StatementDependencyGraph.build(e).links().isEmpty());
    }

    @Test
    void deleteOrdersLaterPredicateReadsThatNoLongerSeeTheRow() {
        StmtExec.Builder delete = StmtExec.write(1, 1, "t").delete().predicate().vsr("t", t(0, 0), t(1, 1)).bwr(t(0, 0));
        StmtExec.Builder reader = StmtExec.read(2, 1).predicate().vsr("t", t(1, 1)).reads(t(1, 1));
        StatementDependencyGraph g = graph(delete, reader);
        assertEquals(EnumSet.of(DepKind.PREDICATE_READ), g.kinds(SI, SJ));
        assertTrue(g.dependencies().get(0).rule().startsWith("dead version"));
        // the paper's inference alone has no edge here
        StatementDependencyGraph paperOnly = StatementDependencyGraph.build(new Execution(
                List.of(delete.completion(0).build(), reader.completion(1).build()), Map.of(1, TxnEnd.COMMITTED, 2, TxnEnd.COMMITTED)), false);
        assertTrue(paperOnly.links().isEmpty());
        // a reader that still saw the row precedes the delete instead (predicate-anti)
        StatementDependencyGraph stillSaw = graph(delete, StmtExec.read(2, 1).predicate().vsr("t", t(0, 0), t(1, 1)).reads(t(0, 0)));
        assertTrue(stillSaw.kinds(SI, SJ).isEmpty());
        assertEquals(EnumSet.of(DepKind.ITEM_ANTI, DepKind.PREDICATE_ANTI), stillSaw.kinds(SJ, SI));
    }

    @Test
    void reinsertingADeletedKeyIsAnItemWrite() {
        StmtExec.Builder delete = StmtExec.write(1, 1, "t").delete().bwr(t(0, 0));
        StatementDependencyGraph g = graph(delete, StmtExec.write(2, 1, "t").awr(t(0, 9)));
        assertEquals(EnumSet.of(DepKind.ITEM_WRITE), g.kinds(SI, SJ));
    }

    @Test
    void cyclesAreFoundAndDrawn() {
        // write skew at statement level: each reads what the other overwrites
        Execution e = new Execution(List.of(
                StmtExec.read(1, 1).reads(t(0, 0)).build(),
                StmtExec.read(2, 1).reads(t(1, 0)).build(),
                StmtExec.write(1, 2, "t").bwr(t(1, 0)).awr(t(1, 1)).build(),
                StmtExec.write(2, 2, "t").bwr(t(0, 0)).awr(t(0, 2)).build()),
                Map.of(1, TxnEnd.COMMITTED, 2, TxnEnd.COMMITTED));
        StatementDependencyGraph g = StatementDependencyGraph.build(e);
        // item-anti T1.S1 -> T2.S2 and T2.S1 -> T1.S2: no cycle without statement order
        assertTrue(g.acyclic(), g.toString());
        Execution cyc = new Execution(List.of(
                StmtExec.write(1, 1, "t").predicate().vsr("t", t(0, 0), t(1, 0)).bwr(t(0, 0)).awr(t(0, 1)).build(),
                StmtExec.write(2, 1, "t").predicate().vsr("t", t(0, 0), t(1, 0)).bwr(t(1, 0)).awr(t(1, 2)).build()),
                Map.of(1, TxnEnd.COMMITTED, 2, TxnEnd.COMMITTED));
        StatementDependencyGraph c = StatementDependencyGraph.build(cyc);
        assertFalse(c.acyclic(), c.toString());
        assertEquals(Set.of(SI, SJ), c.cycleNodes());
        assertTrue(c.mermaid().contains(":::cycle"));
        assertTrue(c.dot().contains("color=red"));
    }

    // ---- unborn versions (an addition: an INSERT overwrites the unborn version others used) ----

    /** T1.S1 inserts row 9 (AWR only); T2.S1, an UPDATE whose predicate ran over t before the row existed. */
    @Test
    void aStatementThatRanWithoutAnInsertedRowComesBeforeTheInsert() {
        StmtExec.Builder update = StmtExec.write(2, 1, "t").predicate().vsr("t", t(0, 0)).bwr(t(0, 0)).awr(t(0, 1));
        StmtExec.Builder insert = StmtExec.write(1, 1, "t").vsr("t", t(0, 1)).awr(t(9, 5));
        StatementDependencyGraph g = StatementDependencyGraph.build(new Execution(
                List.of(update.completion(0).build(), insert.completion(1).build()), Map.of(1, TxnEnd.COMMITTED, 2, TxnEnd.COMMITTED)));
        assertTrue(g.has(SJ, SI, DepKind.PREDICATE_WRITE), g.toString());
        // the paper's inference alone has no edge that keeps the UPDATE from being replayed after the INSERT
        StatementDependencyGraph paper = StatementDependencyGraph.build(new Execution(
                List.of(update.completion(0).build(), insert.completion(1).build()), Map.of(1, TxnEnd.COMMITTED, 2, TxnEnd.COMMITTED)), false);
        assertTrue(paper.kinds(SJ, SI).isEmpty(), paper.toString());
    }

    @Test
    void aStatementThatSawTheInsertedRowGetsNoUnbornEdge() {
        StmtExec.Builder insert = StmtExec.write(1, 1, "t").vsr("t", t(0, 0)).awr(t(9, 5));
        StmtExec.Builder read = StmtExec.read(2, 1).predicate().vsr("t", t(0, 0), t(9, 5)).reads(t(9, 5));
        StatementDependencyGraph g = graph(insert, read);
        assertTrue(g.kinds(SJ, SI).isEmpty(), g.toString());
        assertTrue(g.has(SI, SJ, DepKind.ITEM_READ), g.toString());
    }

    @Test
    void aStatementAfterACommittedDeleteOfTheRowGetsNoUnbornEdge() {
        StmtRef delete = new StmtRef(3, 1);
        StmtExec ins = StmtExec.write(1, 1, "t").vsr("t").awr(t(9, 5)).completion(0).build();
        StmtExec del = StmtExec.write(3, 1, "t").predicate().delete().vsr("t", t(9, 5)).bwr(t(9, 5)).completion(1).build();
        StmtExec read = StmtExec.read(2, 1).predicate().vsr("t").completion(2).build();
        StatementDependencyGraph g = StatementDependencyGraph.build(new Execution(List.of(ins, del, read),
                Map.of(1, TxnEnd.COMMITTED, 2, TxnEnd.COMMITTED, 3, TxnEnd.COMMITTED)));
        assertTrue(g.kinds(SJ, SI).isEmpty(), g.toString());
        assertTrue(g.has(delete, SJ, DepKind.PREDICATE_READ), g.toString());
        assertTrue(g.acyclic(), g.toString());
    }
}
