package txfuzz.oracle.equiv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.model.StmtRef;

@Tag("unit")
class ExecutionTest {

    @Test
    void statementsAreKeptInCompletionOrderNotSubmissionOrder() {
        // T1.S1 was submitted first but blocked and completed after T2.S1
        Execution e = new Execution(List.of(
                StmtExec.write(1, 1, "t").bwr(Item.of("t", 0, 0)).awr(Item.of("t", 0, 1)).completion(5).blocked().build(),
                StmtExec.read(2, 1).reads(Item.of("t", 0, 0)).completion(2).build()),
                Map.of(1, TxnEnd.COMMITTED, 2, TxnEnd.ABORTED));
        assertEquals(List.of(new StmtRef(2, 1), new StmtRef(1, 1)), e.stmts().stream().map(StmtExec::ref).toList());
        assertEquals(List.of(new StmtRef(1, 1)), e.committedStmts().stream().map(StmtExec::ref).toList());
    }

    @Test
    void malformedRecordsAreRejected() {
        Map<Integer, TxnEnd> ends = Map.of(1, TxnEnd.COMMITTED);
        StmtExec r = StmtExec.read(1, 1).build();
        assertThrows(IllegalArgumentException.class, () -> new Execution(List.of(r, r), ends), "twice");
        assertThrows(IllegalArgumentException.class, () -> new Execution(List.of(StmtExec.read(2, 1).build()), ends), "no end");
        assertThrows(IllegalArgumentException.class, () -> StmtExec.write(1, 1, "t").delete().awr(Item.of("t", 0, 1)).build());
        assertThrows(IllegalArgumentException.class, () -> new VersionSet("t", java.util.Set.of(Item.of("u", 1, 1))));
        assertThrows(IllegalArgumentException.class,
                () -> new Dependency(new StmtRef(1, 1), new StmtRef(1, 1), DepKind.ITEM_READ, java.util.Set.of(), "x"));
    }
}
