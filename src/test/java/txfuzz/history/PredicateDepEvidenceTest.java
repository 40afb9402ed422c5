package txfuzz.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static txfuzz.history.History.row;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A predicate dependency keeps its read as an operation and gets its evidence (the predicate read as written, the writer's
 * statement) when it is asked for: the {@link Dep} must be the one the inference would have made whole.
 */
@Tag("unit")
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class PredicateDepEvidenceTest {
    @Test
    void aPredicateDependencyCarriesItsReadAndTheWritersStatement() {
        History h = History.builder()
                .txn(1).session(1).read("r9", 0).predicateRead("t", "c1 < 5", false, row("r1", 0)).commit()
                .txn(2).session(2).read("r8", 0).read("r7", 0).insert("r2").commit() // the insert is T2's statement 2
                .txn(3).session(3).predicateRead("t", "c1 < 5", true, row("r1", 0), row("r2", 2)).commit()
                .build();
        PredicateRead first = (PredicateRead) h.transactions().get(0).ops().get(1);
        for (History form : List.of(h, HistoryColumns.of(h).history())) {
            DependencyGraph g = DependencyGraph.infer(form);
            List<Dep> predicate = g.edges.asList().stream().filter(Dep::predicate).toList();
            assertEquals(1, predicate.size(), predicate.toString());
            Dep d = predicate.get(0);
            assertEquals(DepType.RW, d.type());
            assertEquals(1, d.from());
            assertEquals(2, d.to());
            assertEquals("r2", d.row().rowId());
            assertEquals(first, d.pred());
            assertEquals(1, d.readerStmt());
            assertEquals(2, d.writerStmt());
            assertEquals(d, g.graph().getEdge(1L, 2L));
        }
        History phantom = History.builder()
                .txn(1).predicateRead("t", "c1 < 5", false, row("r1", 0)).predicateRead("t", "c1 < 5", false, row("r1", 0), row("r2", 2)).commit()
                .txn(2).insert("r2").commit()
                .build();
        String explanation = IsolationChecker.analyze(phantom).findings().get(0).explanation();
        assertTrue(explanation.contains("predicate read of t (`c1 < 5`)"), explanation); // the predicate, from the read made when asked for
    }
}
