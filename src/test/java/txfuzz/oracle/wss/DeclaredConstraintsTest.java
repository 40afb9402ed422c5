package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;

/**
 * A final state that breaks a constraint the schema declares is no documented behaviour's outcome: H2's
 * foreign-key check that does not lock the parent row (docs/bugs.md, h2-fk-check-does-not-lock-parent) leaves a
 * child without its parent, which the wss simulations (each write alone on the data it saw) reproduced and called
 * documented at every level. Now each such violation stays a bug candidate and says which constraint; the same
 * schedule without the foreign key, where the engine does the same and breaks nothing, does not.
 */
class DeclaredConstraintsTest {
    private static final WssOracle WSS = new WssOracle();

    /** T2 inserts a child of parent -2 and holds it; T1 deletes the parent at once and commits; T2 commits. */
    private static TestCase orphan(IsolationLevel level, boolean foreignKey) {
        return Cases.on("h2").level(level).table("t0").table("t1")
                .setup("CREATE TABLE t0 (c0 INT PRIMARY KEY)",
                        "CREATE TABLE t1 (c0 INT PRIMARY KEY, c1 INT" + (foreignKey ? " REFERENCES t0 (c0)" : "") + ")",
                        "INSERT INTO t0 VALUES (-2)")
                .txn("DELETE FROM t0 WHERE c0 = -2")
                .txn("INSERT INTO t1 VALUES (1, -2)")
                .order(2, 2, 1, 1, 1, 2);
    }

    private static Verdict judge(Target h2, TestCase c) throws Exception {
        try (Executor ex = new Executor(h2, ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            assertEquals(List.of(List.of("1", "-2")), trace.finalState().tables().get("t1"), "H2 left the child: " + trace);
            assertEquals(List.of(), trace.finalState().tables().get("t0"), "H2 deleted the parent: " + trace);
            return WSS.judge(c, trace, ex);
        }
    }

    @Test
    void anOrphanLeftByTheRunIsABugCandidateAtEveryLevel() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            for (IsolationLevel level : List.of(IsolationLevel.READ_COMMITTED, IsolationLevel.REPEATABLE_READ, IsolationLevel.SNAPSHOT,
                    IsolationLevel.SERIALIZABLE)) {
                List<Violation> state = judge(h2, orphan(level, true)).violations().stream()
                        .filter(v -> v.kind() instanceof WssKind k && k.stateDiffers()).toList();
                assertFalse(state.isEmpty(), level + ": the final state differs from every serial order");
                assertTrue(state.stream().allMatch(v -> v.classification() == Classification.BUG_CANDIDATE), level + ": " + state);
                assertTrue(state.stream().allMatch(v -> v.details().contains("breaks a constraint the schema declares")), level + ": " + state);
            }
        }
    }

    @Test
    void theSameRunWithoutTheForeignKeyBreaksNothing() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            for (IsolationLevel level : List.of(IsolationLevel.READ_COMMITTED, IsolationLevel.REPEATABLE_READ)) {
                Verdict v = judge(h2, orphan(level, false));
                assertTrue(v.violations().stream().noneMatch(x -> x.classification() == Classification.BUG_CANDIDATE), level + ": " + v);
                assertTrue(v.violations().stream().noneMatch(x -> x.details().contains("breaks a constraint")), level + ": " + v);
            }
        }
    }

    @Test
    void onlyAStateTheSchemaForbidsIsCalledBroken() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            TestCase c = orphan(IsolationLevel.READ_COMMITTED, true);
            txfuzz.model.DbState orphaned = new txfuzz.model.DbState(java.util.Map.of("t0", List.of(), "t1", List.of(List.of("1", "-2"))));
            txfuzz.model.DbState whole = new txfuzz.model.DbState(java.util.Map.of("t0", List.of(List.of("-2")), "t1", List.of(List.of("1", "-2"))));
            assertTrue(DeclaredConstraints.brokenBy(c, h2, orphaned, whole).isPresent());
            assertTrue(DeclaredConstraints.brokenBy(c, h2, whole, whole).isEmpty());
            // a control the loader cannot load either: nothing is claimed
            assertTrue(DeclaredConstraints.brokenBy(c, h2, orphaned, orphaned).isEmpty());
        }
    }
}
