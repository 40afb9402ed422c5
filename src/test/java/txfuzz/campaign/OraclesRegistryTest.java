package txfuzz.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Subject;
import txfuzz.dbms.Target;
import txfuzz.exec.ExecutorConfig;
import txfuzz.gen.Generation;
import txfuzz.oracle.Oracle;
import txfuzz.oracle.OracleContext;
import txfuzz.oracle.OracleRegistration;

/** What the registry answers without making oracles is what the oracles, once made, say of themselves. */
class OraclesRegistryTest {
    @Test
    void everyRegistrationSaysWhatItsOracleDoes() {
        // two subjects: an oracle that compares subjects is made only with two or more
        try (Target h2 = Subject.parse("h2").open(null); Target other = Subject.parse("h2:prepared").open(null);
             OracleSet all = Oracles.create(Oracles.names(), OracleContext.of(List.of(new OracleContext.Opened(Subject.parse("h2"), h2),
                     new OracleContext.Opened(Subject.parse("h2:prepared"), other)), ExecutorConfig.defaults()))) {
            assertEquals(Oracles.names().size(), all.oracles().size());
            for (Oracle o : all.oracles()) {
                OracleRegistration r = Oracles.registration(o.name());
                assertEquals(r.name(), o.name());
                assertEquals(r.needsRowTracking(), o.needsRowTracking(), o.name());
                assertEquals(r.judgesUncontrolledRuns(), o.judgesUncontrolledRuns(), o.name());
                assertEquals(List.copyOf(o.kinds()), r.kinds(), o.name());
            }
        }
        try (Target h2 = Subject.parse("h2").open(null)) {
            List<String> comparing = Oracles.names().stream().filter(n -> Oracles.registration(n).comparesSubjects()).toList();
            assertTrue(!comparing.isEmpty());
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> Oracles.create(comparing, OracleContext.of(h2, ExecutorConfig.defaults())));
            assertTrue(e.getMessage().contains("--subjects"), e.getMessage());
        }
    }

    @Test
    void defaultsAndEngineFailuresComeFromCapabilities() {
        assertEquals(List.of("wss", "explicit"), Oracles.defaults(Generation.Kind.RANDOM));
        assertEquals(List.of("explicit", "isolation"), Oracles.defaults(Generation.Kind.PATTERN));
        assertEquals(List.of("explicit", "isolation"), Oracles.judgingUncontrolledRuns());
        assertTrue(Oracles.engineFailure("while testing", new IllegalStateException("boom")).kind().engineFailure());
        assertTrue(Oracles.needInstrumentation(List.of("equiv")));
        assertTrue(!Oracles.needInstrumentation(List.of("wss", "explicit")));
    }

    @Test
    void theCommandsThatJudgeHistoriesFindTheirOracleByCapability() {
        assertEquals("isolation", Oracles.judgingHistories().name());
        assertEquals("lost-update", Oracles.judgingHistories().histories().kind(txfuzz.history.Anomaly.LOST_UPDATE));
        assertEquals(List.of(), Oracles.judgingHistories().histories().explanation(
                Oracles.engineFailure("while testing", new IllegalStateException("boom"))), "another oracle's violation has no anomaly to explain");
    }
}
