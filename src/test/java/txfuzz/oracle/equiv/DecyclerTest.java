package txfuzz.oracle.equiv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
class DecyclerTest {

    private static Item t(int key, int version) {
        return Item.of("t", key, version);
    }

    /**
     * Two predicate writes of transactions a and b that each overwrite a row the other's predicate
     * looked at (rows 10a and 10b): a cycle of predicate-write edges. Plus a reader T9.S1 hanging off it.
     */
    private static List<StmtExec> cyclePair(int a, int b) {
        Item ra = t(10 * a, 0);
        Item rb = t(10 * b, 0);
        return List.of(
                StmtExec.write(a, 1, "t").predicate().vsr("t", ra, rb).bwr(ra).awr(t(10 * a, a)).build(),
                StmtExec.write(b, 1, "t").predicate().vsr("t", ra, rb).bwr(rb).awr(t(10 * b, b)).build());
    }

    private static Execution run(List<StmtExec> stmts, Set<StmtRef> removed) {
        Map<Integer, TxnEnd> ends = new HashMap<>();
        List<StmtExec> kept = new ArrayList<>();
        for (StmtExec s : stmts) {
            ends.put(s.ref().txn(), TxnEnd.COMMITTED);
            if (!removed.contains(s.ref())) {
                kept.add(s);
            }
        }
        return new Execution(kept, ends);
    }

    private static List<StmtExec> caseWithCycle() {
        List<StmtExec> stmts = new ArrayList<>(cyclePair(1, 2));
        stmts.add(StmtExec.read(9, 1).reads(t(10, 1)).build()); // reads T1.S1's version: outside the cycle
        return stmts;
    }

    @Test
    void removesOneStatementOfTheCycleAndReexecutes() {
        List<StmtExec> stmts = caseWithCycle();
        Execution first = run(stmts, Set.of());
        assertFalse(StatementDependencyGraph.build(first).acyclic());
        List<Set<StmtRef>> calls = new ArrayList<>();
        Decycler.Result r = Decycler.decycle(first, removed -> {
            calls.add(removed);
            return run(stmts, removed);
        }, 7, 5);
        assertFalse(r.gaveUp());
        assertTrue(r.graph().acyclic());
        assertEquals(1, r.reexecutions());
        assertEquals(1, r.removed().size());
        StmtRef gone = r.removed().iterator().next();
        assertTrue(Set.of(new StmtRef(1, 1), new StmtRef(2, 1)).contains(gone), gone.toString());
        assertEquals(List.of(r.removed()), calls);
        assertEquals(Decycler.Reason.CYCLE, r.steps().get(0).reason());
        assertEquals(List.of(Set.of(new StmtRef(1, 1), new StmtRef(2, 1))), r.steps().get(0).cycles());
        assertEquals(2, r.execution().stmts().size());
        assertTrue(r.execution().stmt(new StmtRef(9, 1)).isPresent(), "the reader was not on a cycle");
    }

    @Test
    void theChoiceIsDeterministicPerSeedAndVariesWithIt() {
        List<StmtExec> stmts = caseWithCycle();
        Set<StmtRef> chosen = new HashSet<>();
        for (long seed = 0; seed < 20; seed++) {
            long s = seed;
            Set<StmtRef> a = Decycler.decycle(run(stmts, Set.of()), removed -> run(stmts, removed), s, 5).removed();
            Set<StmtRef> b = Decycler.decycle(run(stmts, Set.of()), removed -> run(stmts, removed), s, 5).removed();
            assertEquals(a, b);
            chosen.addAll(a);
        }
        assertEquals(Set.of(new StmtRef(1, 1), new StmtRef(2, 1)), chosen);
    }

    @Test
    void anAcyclicRunIsReturnedWithoutReexecution() {
        Execution e = PaperExample.execution();
        Decycler.Result r = Decycler.decycle(e, removed -> {
            throw new AssertionError("no re-execution needed");
        }, 1, 5);
        assertFalse(r.gaveUp());
        assertEquals(0, r.reexecutions());
        assertTrue(r.removed().isEmpty());
        assertEquals(5, r.graph().nodes().size());
    }

    @Test
    void givesUpWhenEveryRunHasANewCycle() {
        int[] call = {0};
        Decycler.Result r = Decycler.decycle(run(cyclePair(1, 2), Set.of()), removed -> {
            call[0]++;
            return run(cyclePair(2 * call[0] + 1, 2 * call[0] + 2), Set.of());
        }, 3, 3);
        assertTrue(r.gaveUp());
        assertEquals(3, r.reexecutions());
        assertEquals(3, call[0]);
        assertEquals(3, r.steps().size());
        assertFalse(r.graph().acyclic());
        assertTrue(Decycler.decycle(run(cyclePair(1, 2), Set.of()), removed -> {
            throw new AssertionError();
        }, 3, 0).gaveUp());
    }

    @Test
    void blockedCommittedStatementsAreRemovedFirst() {
        List<StmtExec> stmts = List.of(
                StmtExec.write(1, 1, "t").bwr(t(0, 0)).awr(t(0, 1)).build(),
                StmtExec.write(2, 1, "t").predicate().vsr("t", t(0, 1)).blocked().build(),
                StmtExec.read(3, 1).reads(t(0, 1)).blocked().build());
        Map<Integer, TxnEnd> ends = Map.of(1, TxnEnd.COMMITTED, 2, TxnEnd.COMMITTED, 3, TxnEnd.ABORTED);
        Decycler.Result r = Decycler.decycle(new Execution(stmts, ends), removed -> new Execution(
                stmts.stream().filter(s -> !removed.contains(s.ref())).toList(), ends), 1, 5);
        assertFalse(r.gaveUp());
        assertEquals(Set.of(new StmtRef(2, 1)), r.removed(), "only the committed blocked statement: aborted ones are not in the graph");
        assertEquals(Decycler.Reason.BLOCKED, r.steps().get(0).reason());
    }

    @Test
    void aReexecutionThatStillRunsARemovedStatementIsRejected() {
        List<StmtExec> stmts = caseWithCycle();
        assertThrows(IllegalStateException.class,
                () -> Decycler.decycle(run(stmts, Set.of()), removed -> run(stmts, Set.of()), 1, 5));
    }
}
