package txfuzz.oracle.diff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Oracle;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;
import txfuzz.oracle.explicit.ExplicitOracle;

/**
 * The promised-rules route on real H2: a subject that runs SNAPSHOT as READ COMMITTED lets two writers of one row
 * both commit. Its own oracles here (explicit: hangs, stalls, errors) do not flag that, so only the rule both
 * subjects' SNAPSHOT promises, first-committer-wins, can make it the bug candidate.
 */
class PromisedRulesH2Test {
    private static final Function<String, List<Oracle>> EXPLICIT = label -> List.of(new ExplicitOracle());

    /**
     * T1 and T2 each change a row of their own, T2 reads row 3, then both change it: T2's UPDATE waits for T1. Where both
     * commit, T2 read row 3 before T1's committed change and then wrote over it: no serial order gives that read and
     * that state, so the second writer's commit lost an update.
     */
    private static TestCase twoWritersOfOneRow(IsolationLevel level) {
        return Cases.on("h2").table("t").level(level)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0), (3, 0)")
                .txn("UPDATE t SET v = v + 1 WHERE id = 1", "UPDATE t SET v = v + 1 WHERE id = 3")
                .txn("UPDATE t SET v = v + 10 WHERE id = 2", "SELECT v FROM t WHERE id = 3", "UPDATE t SET v = v * 2 WHERE id = 3")
                .order(1, 2, 1, 2, 1, 2, 1, 2, 2);
    }

    /**
     * A second writer that lost nothing: T2 reads another row, then writes row 1 blindly after T1 changed it. At SNAPSHOT
     * H2 fails T2's write (first-committer-wins); the faulty subject lets both commit, and every read and the final state
     * are those of the serial order T1 → T2, so no promise is broken: what H2 itself does when the first writer left the
     * row as it was (it compares values), which the study of H2's PostgreSQL mode against PostgreSQL blamed H2 for before.
     */
    private static TestCase secondWriterThatLosesNothing() {
        return Cases.on("h2").table("t").level(IsolationLevel.SNAPSHOT)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                .txn("UPDATE t SET v = v + 1 WHERE id = 1")
                .txn("SELECT v FROM t WHERE id = 2", "UPDATE t SET v = 5 WHERE id = 1")
                .order(1, 2, 1, 2, 2, 1, 2);
    }

    private static Verdict judge(DiffOracle diff, Target primary, TestCase c) throws Exception {
        try (Executor ex = new Executor(primary, ExecutorConfig.defaults())) {
            return diff.judge(c, ex.run(c), ex);
        }
    }

    @Test
    void aSubjectThatLetsTwoWritersOfOneRowCommitAtSnapshotBreaksFirstCommitterWins() throws Exception {
        try (Target h2 = Targets.create("h2"); Target faulty = new SnapshotIgnoringTarget(Targets.create("h2"));
             DiffOracle diff = new DiffOracle("h2", List.of(OtherSubject.sameLevels("h2-faulty", faulty)), EXPLICIT)) {
            Verdict v = judge(diff, h2, twoWritersOfOneRow(IsolationLevel.SNAPSHOT));
            assertEquals(1, v.violations().size(), v.toString());
            Violation x = v.violations().get(0);
            assertEquals(Classification.BUG_CANDIDATE, x.classification(), x.details());
            DiffEvidence e = (DiffEvidence) x.evidence();
            assertEquals(List.of("h2-faulty"), e.triaged().culprits(), x.details());
            assertTrue(e.triaged().evidence().stream().anyMatch(s -> s.startsWith("h2-faulty breaks first-committer-wins, which the other side keeps")),
                    e.triaged().evidence().toString());
            assertTrue(e.triaged().evidence().stream().anyMatch(s -> s.startsWith("h2-faulty's own oracles (explicit) report no bug candidate")),
                    "the own oracles did not flag it: " + e.triaged().evidence());
        }
    }

    /** The faulty subject lets the second writer commit, as H2 does for a row whose first writer left it unchanged: no update lost, nobody blamed. */
    @Test
    void aSecondWriterThatLostNothingBreaksNoPromise() throws Exception {
        try (Target h2 = Targets.create("h2"); Target faulty = new SnapshotIgnoringTarget(Targets.create("h2"));
             DiffOracle diff = new DiffOracle("h2", List.of(OtherSubject.sameLevels("h2-faulty", faulty)), EXPLICIT)) {
            Verdict v = judge(diff, h2, secondWriterThatLosesNothing());
            // the subjects do diverge at T2's write (so the rule was checked), and nobody is blamed for it
            assertEquals(1, v.violations().size(), v.toString());
            assertTrue(v.violations().stream().noneMatch(x -> x.classification() == Classification.BUG_CANDIDATE), v.toString());
            DiffEvidence e = (DiffEvidence) v.violations().get(0).evidence();
            assertTrue(e.triaged().evidence().stream().anyMatch(s -> s.contains("no update was lost")), e.triaged().evidence().toString());
        }
    }

    /** At READ COMMITTED (no first-committer-wins promised) the same two subjects agree: nothing to check, nothing reported. */
    @Test
    void atALevelThatDoesNotPromiseTheRuleTheSubjectsAgree() throws Exception {
        try (Target h2 = Targets.create("h2"); Target faulty = new SnapshotIgnoringTarget(Targets.create("h2"));
             DiffOracle diff = new DiffOracle("h2", List.of(OtherSubject.sameLevels("h2-faulty", faulty)), EXPLICIT)) {
            Verdict v = judge(diff, h2, twoWritersOfOneRow(IsolationLevel.READ_COMMITTED));
            assertTrue(v.isClean(), v.toString());
        }
    }

    /** Two correct subjects at SNAPSHOT: both keep the rule, nothing is reported. */
    @Test
    void twoCorrectSubjectsAtSnapshotReportNothing() throws Exception {
        try (Target h2 = Targets.create("h2"); Target again = Targets.create("h2");
             DiffOracle diff = new DiffOracle("h2", List.of(OtherSubject.sameLevels("h2 again", again)), EXPLICIT)) {
            Verdict v = judge(diff, h2, twoWritersOfOneRow(IsolationLevel.SNAPSHOT));
            assertTrue(v.isClean(), v.toString());
        }
    }
}
