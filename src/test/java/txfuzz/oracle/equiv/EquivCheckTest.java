package txfuzz.oracle.equiv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.model.DbState;
import txfuzz.model.StmtRef;

/** The paper's example end to end, with the engine replaced by a tiny simulation of t0/t1. */
@Tag("unit")
class EquivCheckTest {

    private static DbState state(String t0Vkey, String row2Vkey, String row3Vkey) {
        return new DbState(Map.of("t0", List.of(List.of("1", t0Vkey)),
                "t1", List.of(List.of("2", row2Vkey, "8"), List.of("3", row3Vkey, "53"))));
    }

    /** Fig. 1(a) as MySQL ran it: T1.S3 updated both rows (the bug). */
    private static Execution buggyRun() {
        Execution e = PaperExample.execution();
        Map<StmtRef, StmtOutcome> o = new HashMap<>();
        o.put(PaperExample.T0S1, StmtOutcome.affected(1));
        o.put(PaperExample.T0S2, StmtOutcome.rows(List.of(List.of(2, 43, 8), List.of(3, 43, 53))));
        o.put(PaperExample.T1S1, StmtOutcome.rows(List.of(List.of(1, 20))));
        o.put(PaperExample.T1S2, StmtOutcome.rows(List.of(List.of(2, 43, 8))));
        o.put(PaperExample.T1S3, StmtOutcome.affected(2));
        return new Execution(e.stmts(), e.ends(), new RunResult(o, state("162", "63", "63")));
    }

    /** A correct engine running statements in autocommit: simulates the five statements on t0/t1. */
    private static RunResult correctReplay(List<StmtExec> order) {
        int[] t0 = {20};
        int[][] t1 = {{2, 43, 8}, {3, 43, 53}};
        Map<StmtRef, StmtOutcome> o = new HashMap<>();
        for (StmtExec s : order) {
            StmtRef r = s.ref();
            if (r.equals(PaperExample.T0S1)) {
                t0[0] = 162;
                o.put(r, StmtOutcome.affected(1));
            } else if (r.equals(PaperExample.T0S2)) {
                o.put(r, StmtOutcome.rows(List.of(List.of(t1[0][0], t1[0][1], t1[0][2]), List.of(t1[1][0], t1[1][1], t1[1][2]))));
            } else if (r.equals(PaperExample.T1S1)) {
                o.put(r, StmtOutcome.rows(List.of(List.of(1, t0[0]))));
            } else {
                List<List<Object>> rows = new ArrayList<>();
                int n = 0;
                for (int[] row : t1) {
                    if (row[2] <= t0[0]) {
                        if (r.equals(PaperExample.T1S2)) {
                            rows.add(List.of(row[0], row[1], row[2]));
                        } else {
                            row[1] = 63;
                            n++;
                        }
                    }
                }
                o.put(r, r.equals(PaperExample.T1S2) ? StmtOutcome.rows(rows) : StmtOutcome.affected(n));
            }
        }
        return new RunResult(o, state(String.valueOf(t0[0]), String.valueOf(t1[0][1]), String.valueOf(t1[1][1])));
    }

    @Test
    void theMysqlBugOfFigure1IsFoundByEveryOrder() {
        EquivCheck.Outcome out = EquivCheck.check(buggyRun(), removed -> {
            throw new AssertionError("acyclic: no re-execution");
        }, EquivCheckTest::correctReplay, 5, 3, 8);
        assertFalse(out.gaveUp());
        assertEquals(8, out.checks().size());
        assertTrue(out.differs());
        for (EquivCheck.OrderCheck c : out.checks()) {
            assertTrue(c.differences().stream().anyMatch(d -> d.aspect() == Difference.Aspect.STATE && "t1".equals(d.table())),
                    c.toString());
            assertTrue(c.differences().stream().anyMatch(d -> d.aspect() == Difference.Aspect.AFFECTED
                    && PaperExample.T1S3.equals(d.stmt())), c.toString());
        }
    }

    @Test
    void theExplanationNamesTheOrderTheDependenciesAndTheDifferences() {
        EquivCheck.Outcome out = EquivCheck.check(buggyRun(), removed -> {
            throw new AssertionError();
        }, EquivCheckTest::correctReplay, 5, 3, 1);
        String text = Explanation.of(out.decycling().graph(), out.checks().get(0));
        assertTrue(text.contains("T1.S3 before T0.S1 (predicate-anti)"), text);
        assertTrue(text.contains("However:"), text);
        assertTrue(text.contains("T1.S3: affected: transactional affected 2 vs. non-transactional affected 1"), text);
        assertTrue(text.contains("table t1: state:"), text);
    }

    @Test
    void aCorrectRunPassesEveryOrder() {
        Execution bug = buggyRun();
        Map<StmtRef, StmtOutcome> o = new HashMap<>(bug.result().outcomes());
        o.put(PaperExample.T1S3, StmtOutcome.affected(1));
        Execution ok = new Execution(bug.stmts(), bug.ends(), new RunResult(o, state("162", "63", "43")));
        EquivCheck.Outcome out = EquivCheck.check(ok, removed -> {
            throw new AssertionError();
        }, EquivCheckTest::correctReplay, 5, 3, 8);
        assertEquals(8, out.checks().size());
        assertFalse(out.differs(), out.checks().toString());
    }
}
