package txfuzz.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.dbms.Target;
import txfuzz.dbms.TestServers;
import txfuzz.exec.ExecutorConfig;
import txfuzz.gen.GenConfig;
import txfuzz.gen.Generation;
import txfuzz.gen.pattern.PatternCatalogue;
import txfuzz.model.IsolationLevel;

/**
 * Pattern campaigns on the servers, judged by the isolation oracle: where the engine's level
 * permits a pattern (as documented), its cases realise it and are documented, never bug candidates;
 * where the level proscribes the patterns, a correct engine realises none of them and files no bug
 * candidate.
 */
class PatternCampaignTest {
    @Test
    void postgresRepeatableReadRealisesWriteSkewAsDocumented(@TempDir Path out) {
        Summary s = campaign("postgres", IsolationLevel.REPEATABLE_READ, "write-skew", 20, out);
        assertPermittedAndDocumented(s, "write-skew");
    }

    @Test
    void mariadbRepeatableReadRealisesLostUpdateAsDocumented(@TempDir Path out) {
        Summary s = campaign("mariadb", IsolationLevel.REPEATABLE_READ, "lost-update", 20, out);
        assertPermittedAndDocumented(s, "lost-update");
    }

    @Test
    void serializablePostgresRealisesNoProscribedPattern(@TempDir Path out) {
        assertNothingProscribedRealised(campaign("postgres", IsolationLevel.SERIALIZABLE, "all", 60, out));
    }

    @Test
    void serializableMariadbRealisesNoProscribedPattern(@TempDir Path out) {
        assertNothingProscribedRealised(campaign("mariadb", IsolationLevel.SERIALIZABLE, "all", 60, out));
    }

    private static void assertPermittedAndDocumented(Summary s, String pattern) {
        Summary.Generation g = s.generation();
        Summary.PatternTally t = g.patterns().stream().filter(p -> p.pattern().equals(pattern)).findFirst().orElseThrow();
        assertTrue(t.realised() >= 5, "most cases realise the pattern the level permits: " + t);
        assertTrue(t.anomalous() >= t.realised(), "each realised case shows the anomaly to the isolation oracle: " + t);
        assertEquals(0, s.bugCandidates(), "documented, not bug candidates: " + s.findings());
        assertTrue(s.documented() >= t.realised(), "documented: " + s.documented() + ", " + t);
    }

    private static void assertNothingProscribedRealised(Summary s) {
        List<Summary.PatternTally> proscribed = s.generation().patterns().stream().filter(Summary.PatternTally::proscribed).toList();
        assertTrue(proscribed.stream().mapToLong(Summary.PatternTally::cases).sum() >= 40, "mostly proscribed patterns: " + proscribed);
        assertTrue(s.generation().patterns().stream().anyMatch(p -> !p.proscribed()), "and some controls");
        for (Summary.PatternTally t : proscribed) {
            assertEquals(0, t.realised(), "a correct engine prevents what its level proscribes: " + t);
            assertEquals(t.cases(), t.prevented(), "each prevention is seen and counted: " + t);
        }
        assertEquals(0, s.bugCandidates(), "no bug candidate on a correct engine: " + s.findings());
    }

    private static Summary campaign(String dbms, IsolationLevel level, String patterns, int tests, Path out) {
        Target target = TestServers.shared(dbms);
        CampaignConfig config = new CampaignConfig(List.of(level), List.of(), List.of("isolation", "explicit"), tests, null, 1, out,
                GenConfig.defaults(), ExecutorConfig.defaults(), null, CampaignConfig.Execution.PLAIN, Duration.ZERO)
                .withGeneration(Generation.patterns(PatternCatalogue.bundled().select(patterns)));
        return new Campaign(target, config, new PrintStream(OutputStream.nullOutputStream())).run();
    }
}
