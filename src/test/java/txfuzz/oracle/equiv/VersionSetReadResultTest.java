package txfuzz.oracle.equiv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import txfuzz.dbms.Target;
import txfuzz.dbms.TestServers;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.gen.CaseGenerator;
import txfuzz.gen.GenConfig;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;

/**
 * A version-set read that returns a row naming none of the tables it reads is a wrong result of the read itself: the
 * oracle reports it as a bug candidate ({@code equiv-tracking-read}) rather than setting the run aside as one it cannot
 * capture. Both ways on H2: generated cases of two or more tables on an engine that misnames the last table's rows are
 * caught, each with the misnamed read named; the same cases on the real engine never are.
 */
class VersionSetReadResultTest {
    private static final EquivOracle EQUIV = new EquivOracle();
    private static final CaseGenerator GENERATOR = new CaseGenerator(GenConfig.defaults().withInstrumentation(true));

    @Test
    void aRowNamingNoTableOfTheReadIsABugCandidateAndTheRealEngineNeverGivesOne() throws Exception {
        try (Target h2 = TestServers.open("h2"); Target faulty = new MisnamingVersionSetReads(h2);
             Executor real = new Executor(h2, ExecutorConfig.defaults()); Executor wrong = new Executor(faulty, ExecutorConfig.defaults())) {
            int misnamed = 0;
            for (long i = 0; i < 20 && misnamed < 4; i++) {
                TestCase c = EQUIV.prepare(GENERATOR.generate(h2.name(), h2.dialect(), IsolationLevel.READ_COMMITTED, h2.modes().get(0), 13, i));
                Verdict right = EQUIV.judgement(c, real.run(c), real).verdict();
                assertTrue(right.violations().stream().noneMatch(v -> v.kind() == EquivKind.TRACKING_READ), "iteration " + i + ": " + right);

                Trace run = wrong.run(c);
                boolean lastTableShown = lastTableRowRead(c, run);
                Verdict v = EQUIV.judgement(c, run, wrong).verdict();
                if (!lastTableShown) {
                    assertTrue(v.violations().stream().noneMatch(x -> x.kind() == EquivKind.TRACKING_READ), "iteration " + i + ": " + v);
                    continue;
                }
                misnamed++;
                assertEquals(1, v.violations().size(), "iteration " + i + ": " + v);
                Violation x = v.violations().get(0);
                assertEquals(EquivKind.TRACKING_READ, x.kind());
                assertEquals(Classification.BUG_CANDIDATE, x.classification());
                assertTrue(x.summary().contains("naming '" + MisnamingVersionSetReads.WRONG_NAME + "', none of the tables it reads ("
                        + String.join(", ", c.tables()) + ")"), x.summary());
                assertTrue(x.details().contains("UNION ALL"), x.details());
            }
            assertTrue(misnamed >= 2, "only " + misnamed + " generated cases read a row of their last table in a read of several");
        }
    }

    /** Whether a version-set read of several tables in {@code run} returned a row (which the faulty engine then misnamed). */
    private static boolean lastTableRowRead(TestCase c, Trace run) {
        for (ExecutedStmt e : run.schedule()) {
            if (VersionSetReads.isVsr(c.stmt(e.ref())) && c.stmt(e.ref()).tracking().tables().size() > 1 && !e.result().failed()
                    && e.result().rows() != null && e.result().rows().stream().anyMatch(r -> MisnamingVersionSetReads.WRONG_NAME.equals(r.get(0)))) {
                return true;
            }
        }
        return false;
    }
}
