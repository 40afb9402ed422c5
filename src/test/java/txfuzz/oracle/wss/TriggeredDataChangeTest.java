package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.campaign.JudgeSuite;
import txfuzz.dbms.Target;
import txfuzz.dbms.TestServers;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.TxnStatus;
import txfuzz.imports.Importer;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;

/**
 * SQLSTATE class 27 on real PostgreSQL. Its "tuple to be updated was already modified by an operation triggered by the
 * current command" is left unjudged only where the statement can start another command (a function or trigger); a 27000
 * from a plain UPDATE that calls nothing ({@link SpuriousTriggeredChangeTarget}) is a bug candidate, the negative control of
 * that rule (issue 33 item 4). PostgreSQL's own eval-plan-qual.spec permutations 23 and 25, whose data-modifying WITH calls a
 * function that updates the WITH's row and fails with 27000 after waiting, stay judged without a bug candidate.
 */
class TriggeredDataChangeTest {
    private static final Path EVAL_PLAN_QUAL = Path.of("src/test/resources/imports/pg-isolation/eval-plan-qual.spec");
    private static final StmtRef SECOND_UPDATE = new StmtRef(2, 1);

    /** T1 changes row 1 and holds it; beside it, T2 changes row 2 with a plain UPDATE. */
    static TestCase plainUpdateBesideAnUncommittedWrite(IsolationLevel level) {
        return Cases.on("postgres").level(level).table("t")
                .setup("CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 1), (2, 2)")
                .txn("UPDATE t SET v = 10 WHERE id = 1")
                .txn("UPDATE t SET v = v * 2 WHERE id = 2")
                .order(1, 1, 2, 2, 1, 2);
    }

    @Test
    void aSpuriousClass27OnAPlainUpdateIsABugCandidate() throws Exception {
        for (IsolationLevel level : List.of(IsolationLevel.READ_COMMITTED, IsolationLevel.SERIALIZABLE)) {
            try (Target postgres = TestServers.open("postgres")) {
                TestCase c = plainUpdateBesideAnUncommittedWrite(level);
                WssRun plain = WssRun.of(postgres, c);
                assertTrue(plain.verdict().isClean(), plain.verdict() + "\n" + plain.trace());

                WssRun faulty = WssRun.of(new SpuriousTriggeredChangeTarget(postgres), c);
                assertEquals("27000", faulty.trace().executed(SECOND_UPDATE).orElseThrow().result().error().sqlState(), faulty.trace().toString());
                assertEquals(TxnStatus.ABORTED, faulty.trace().outcome(2).status(), faulty.trace().toString());
                List<Violation> errors = faulty.verdict().violations().stream().filter(v -> v.kind() == WssKind.UNEXPLAINED_ERROR).toList();
                assertEquals(1, errors.size(), level + ": " + faulty.verdict());
                assertEquals(Classification.BUG_CANDIDATE, errors.get(0).classification(), errors.get(0).toString());
                assertEquals(SECOND_UPDATE, ((WssEvidence) errors.get(0).evidence()).statement());
            }
        }
    }

    /** eval-plan-qual.spec with only the permutations numbered {@code keep} (from 1, in the file's order). */
    private static Path withPermutations(Path dir, Set<Integer> keep) throws Exception {
        List<String> lines = new ArrayList<>();
        int n = 0;
        for (String line : Files.readAllLines(EVAL_PLAN_QUAL)) {
            if (line.startsWith("permutation") && !keep.contains(++n)) {
                continue;
            }
            lines.add(line);
        }
        Path copy = dir.resolve(EVAL_PLAN_QUAL.getFileName());
        Files.write(copy, lines);
        return copy;
    }

    @Test
    void evalPlanQualPermutations23And25StayWithoutBugCandidates(@TempDir Path dir) throws Exception {
        Path spec = withPermutations(dir, Set.of(23, 25));
        try (Target postgres = TestServers.open("postgres"); Executor ex = new Executor(postgres, ExecutorConfig.defaults())) {
            // the function-calling WITH fails with 27000 once it has waited for wx1's update: the rule is what keeps it quiet
            List<Importer.Imported> cases = Importer.read(spec, Importer.Options.defaults()).cases();
            assertEquals(2, cases.size(), cases.toString());
            for (Importer.Imported imp : cases) {
                TestCase c = imp.testCase();
                var trace = ex.run(c);
                assertTrue(trace.schedule().stream().anyMatch(e -> e.result().failed() && "27000".equals(e.result().error().sqlState())),
                        imp.schedule() + ": " + trace);
                WssRun.assertNoBugCandidate(new WssOracle().judge(c, trace, ex));
            }
            var config = new JudgeSuite.Config(Importer.Options.defaults(), Duration.ofSeconds(20), true);
            JudgeSuite.Table t = new JudgeSuite(config, postgres, ex, dir.resolve("out")).run(List.of(spec), line -> { });
            String md = Files.readString(dir.resolve("out").resolve("judge-suite.md"));
            assertEquals(2, t.cases().size(), md);
            t.cases().forEach(row -> assertNull(row.notRun(), md));
            assertEquals(0, t.bugCandidates(), md);
        }
    }
}
