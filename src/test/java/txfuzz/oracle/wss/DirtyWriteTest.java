package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.LevelSemantics;
import txfuzz.dbms.Profile;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;

/**
 * Negative controls (issue 33 item 4) for the visibility rules that keep lock-based levels' violations from being bug
 * candidates: H2's documented dirty reads at READ UNCOMMITTED ("Dirty reads, non-repeatable reads, and phantom reads are
 * possible."), and Derby's statement visibility of writes at READ UNCOMMITTED, READ COMMITTED and REPEATABLE READ ("Inserts,
 * updates, and deletes always behave the same no matter what the isolation level is."), with dirty reads at its READ
 * UNCOMMITTED. The fault is a dirty write ({@link DirtyWriteTarget}): T2 overwrites the row T1 holds uncommitted without
 * waiting, commits, and T1 commits after it. At READ UNCOMMITTED the dirty-read simulation reproduces that final state, so
 * only what the rule rests on — lock-based writers wait for a row another transaction changed — keeps it a bug candidate:
 * with that precondition taken from the profile the same run is explained, which shows the fault is of the shape the rule
 * could hide. At READ COMMITTED and REPEATABLE READ the statement-visibility simulation does not reproduce it even then: T2's
 * write of the committed version collides, by row identity, with T1's change of that version.
 */
class DirtyWriteTest {
    private static final StmtRef SECOND_WRITE = new StmtRef(2, 1);

    /** T1 changes row 1 and holds it; T2 then runs {@code secondWrite} on row 1 and commits; T1 commits last. */
    static TestCase overwriteOfAHeldRow(String dbms, IsolationLevel level, String secondWrite) {
        return Cases.on(dbms).level(level).table("t")
                .setup("CREATE TABLE t (c0 INT PRIMARY KEY, c1 INT)", "INSERT INTO t VALUES (1, 10), (2, 20)")
                .txn("UPDATE t SET c1 = c1 + 1 WHERE c0 = 1")
                .txn(secondWrite)
                .order(1, 1, 2, 2, 2, 1);
    }

    /** Doubles what T2 sees of row 1: only a view that shows T1's uncommitted 11 gives the 22 the dirty write leaves. */
    private static final String DOUBLES = "UPDATE t SET c1 = c1 * 2 WHERE c0 = 1";
    /** Sets row 1 to a constant: the dirty write leaves 5, as does any view of T2's with the writes applied in the order they ran. */
    private static final String SETS = "UPDATE t SET c1 = 5 WHERE c0 = 1";

    @Test
    void h2ReadUncommittedKeepsADirtyWriteABugCandidate() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            assertControl(h2, overwriteOfAHeldRow("h2", IsolationLevel.READ_UNCOMMITTED, DOUBLES), "dirty reads");
        }
    }

    @ParameterizedTest
    @EnumSource(value = IsolationLevel.class, names = {"READ_UNCOMMITTED", "READ_COMMITTED", "REPEATABLE_READ"})
    void derbyWritesAlikeKeepADirtyWriteABugCandidate(IsolationLevel level) throws Exception {
        try (Target derby = Targets.create("derby")) {
            assertControl(derby, overwriteOfAHeldRow("derby", level, SETS), level == IsolationLevel.READ_UNCOMMITTED ? "dirty reads" : null);
        }
    }

    /**
     * The engine as it is passes (T2 waits for T1, the commit order's serial replay is the run); the dirty write is a bug
     * candidate and nothing of it is documented or not promised. Without the waiting rule, the level's visibility rule
     * {@code hiddenAs} explains the dirty write; with {@code hiddenAs} null, it stays a bug candidate even then.
     */
    private static void assertControl(Target real, TestCase c, String hiddenAs) throws Exception {
        WssRun plain = WssRun.of(real, c);
        assertTrue(plain.trace().executed(SECOND_WRITE).orElseThrow().blocked(), "the engine makes T2 wait: " + plain.trace());
        assertTrue(plain.verdict().isClean(), plain.verdict() + "\n" + plain.trace());

        WssRun faulty = WssRun.of(new DirtyWriteTarget(real), c);
        assertFalse(faulty.trace().executed(SECOND_WRITE).orElseThrow().blocked(), "the fault struck: " + faulty.trace());
        assertTrue(faulty.committed(1) && faulty.committed(2), faulty.trace().toString());
        assertOnlyBugCandidates(faulty);

        WssRun unguarded = WssRun.of(new WaitingNotRequired(new DirtyWriteTarget(real)), c);
        if (hiddenAs == null) {
            assertOnlyBugCandidates(unguarded);
            return;
        }
        List<Violation> hidden = unguarded.verdict().violations();
        assertFalse(hidden.isEmpty(), unguarded.verdict().toString());
        assertTrue(hidden.stream().noneMatch(v -> v.classification() == Classification.BUG_CANDIDATE), unguarded.verdict().toString());
        assertTrue(hidden.stream().allMatch(v -> String.valueOf(v.reference()).contains(hiddenAs)), unguarded.verdict().toString());
    }

    private static void assertOnlyBugCandidates(WssRun r) {
        List<Classification> found = r.verdict().violations().stream().map(Violation::classification).toList();
        assertTrue(found.contains(Classification.BUG_CANDIDATE), r.verdict() + "\n" + r.trace());
        assertTrue(found.stream().allMatch(Classification.BUG_CANDIDATE::equals), r.verdict().toString());
    }

    /** The target with its profile's rule that lock-based writers wait for locked rows taken away, at every level. */
    private static final class WaitingNotRequired extends DelegatingTarget {
        WaitingNotRequired(Target real) {
            super(real);
        }

        @Override
        public void close() {
            // the wrapped target is the caller's
        }

        @Override
        public Profile profile() {
            return withoutWaiting(real.profile());
        }

        @Override
        public Profile profile(String mode) {
            return withoutWaiting(real.profile(mode));
        }

        private static Profile withoutWaiting(Profile p) {
            Map<IsolationLevel, LevelSemantics> levels = new EnumMap<>(IsolationLevel.class);
            p.levels().forEach((level, s) -> {
                EnumSet<Deviation.Precondition> kept = EnumSet.noneOf(Deviation.Precondition.class);
                kept.addAll(s.preconditions());
                kept.remove(Deviation.Precondition.WRITERS_WAIT_FOR_LOCKED_ROWS);
                levels.put(level, new LevelSemantics(s.deviations(), s.serializableReads(), s.reference(), s.documentedAnomalies(),
                        s.anomalyReference(), kept, s.upserts(), s.documented(), s.bases(), s.recheckedSubqueries(), s.mergeLocks()));
            });
            return new Profile(levels);
        }
    }
}
