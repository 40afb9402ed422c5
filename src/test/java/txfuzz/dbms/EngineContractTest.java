package txfuzz.dbms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import static txfuzz.dbms.EngineTests.exec;
import static txfuzz.dbms.EngineTests.rows;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import txfuzz.model.IsolationLevel;

/**
 * What every DBMS owes the rest of txfuzz, on every name {@link Targets#names()} knows: the static
 * description, how it matches the live target, real errors classified, every level and mode, the
 * lock probe. The servers are the test JVM's shared ones ({@link TestServers}).
 */
class EngineContractTest {

    static java.util.List<String> names() {
        return Targets.names();
    }

    static java.util.List<String> embedded() {
        return Targets.engines().stream().filter(e -> !e.server()).map(Engine::name).toList();
    }

    @ParameterizedTest
    @MethodSource("names")
    void everyDescriptionIsCompleteWithoutStartingAnything(String name) {
        Engine e = Targets.engine(name);
        assertEquals(name, e.name());
        assertFalse(e.defaultVersion().isBlank());
        assertFalse(e.isolationLevels().isEmpty());
        assertTrue(e.isolationLevels().contains(e.defaultIsolationLevel()));
        assertFalse(e.modes().isEmpty());
        assertTrue(e.dialect().has(Feature.TYPE_DOUBLE) && e.dialect().has(Feature.TYPE_VARCHAR));
        for (String mode : e.modes()) {
            for (IsolationLevel level : e.isolationLevels()) {
                e.profile(mode).at(level);
                assertFalse(e.sessionSetupSql(level, mode).isEmpty(), name + " " + level + " " + mode);
                assertFalse(e.beginSql(mode).isBlank());
            }
        }
        assertEquals(AbortScope.TRANSACTION, e.abortScope(ErrorClass.DEADLOCK), name);
    }

    @ParameterizedTest
    @MethodSource("names")
    void theLiveTargetReportsTheDescribedVersionAndDelegatesTheRest(String name) {
        Engine e = Targets.engine(name);
        try (Target t = TestServers.open(name)) {
            assertEquals(e, t.engine());
            assertTrue(t.version().startsWith(e.defaultVersion()), "described " + e.defaultVersion() + ", running " + t.version());
            assertEquals(e.isolationLevels(), t.isolationLevels());
            assertEquals(e.modes(), t.modes());
            assertEquals(e.dialect(), t.dialect());
            assertEquals(e.profile(), t.profile());
        }
    }

    /** Real errors from the real engine, classified by the description alone. */
    @ParameterizedTest
    @MethodSource("names")
    void theDescriptionClassifiesTheEnginesOwnErrors(String name) throws Exception {
        Engine e = Targets.engine(name);
        try (Target t = TestServers.open(name); Database db = t.freshDatabase();
             java.sql.Connection c = db.connect(e.defaultIsolationLevel(), e.modes().get(0))) {
            EngineTests.exec(c, "CREATE TABLE k(i INT PRIMARY KEY)", "INSERT INTO k VALUES (1)");
            assertEquals(ErrorClass.CONSTRAINT, e.classify(assertThrows(SQLException.class, () -> EngineTests.exec(c, "INSERT INTO k VALUES (1)"))));
            assertEquals(ErrorClass.INVALID_STATEMENT, e.classify(assertThrows(SQLException.class, () -> EngineTests.exec(c, "SELEC 1"))));
            assertEquals(ErrorClass.INVALID_STATEMENT, e.classify(assertThrows(SQLException.class, () -> EngineTests.exec(c, "SELECT * FROM nowhere"))));
        }
    }

    /** Every level and mode connects in autocommit, runs its setup SQL, has a profile; BEGIN, COMMIT and ROLLBACK work. */
    @ParameterizedTest
    @MethodSource("names")
    void everyLevelAndModeConnectsRunsItsSetupSqlAndHasAProfile(String name) throws Exception {
        try (Target target = TestServers.open(name)) {
            assertEquals(name, target.name());
            assertFalse(target.version().isBlank());
            Dialect d = target.dialect();
            try (Database db = target.freshDatabase()) {
                for (String mode : target.modes()) {
                    for (IsolationLevel level : target.isolationLevels()) {
                        target.profile().at(level);
                        try (Connection c = db.connect(level, mode)) {
                            assertTrue(c.getAutoCommit(), name + " " + level + " " + mode);
                            for (String sql : target.sessionSetupSql(level, mode)) {
                                exec(c, sql);
                            }
                            assertTrue(db.sessionId(c) != null && !db.sessionId(c).isBlank());
                        }
                    }
                }
                try (Connection c = db.connect(target.defaultIsolationLevel(), target.modes().get(0))) {
                    exec(c, "CREATE TABLE typed(i INT PRIMARY KEY, d " + d.doubleType() + ", s " + d.varcharType() + ")",
                            "INSERT INTO typed VALUES (1, 1.5, 'abc')");
                    target.begin(c);
                    exec(c, "UPDATE typed SET d = d * 2 WHERE i = 1");
                    target.rollback(c);
                    target.begin(c);
                    exec(c, "UPDATE typed SET s = 'x' WHERE i = 1");
                    target.commit(c);
                    assertEquals(List.of(List.of("1", "1.5", "x")), rows(c, "SELECT * FROM typed"));
                }
            }
        }
    }

    /**
     * The lock probe: a second writer of a row another open transaction wrote is reported as
     * waiting (for the first, when the engine names blockers) where the engine can wait, and goes on
     * once the first ends; an engine without a probe (SQLite, DuckDB) never waits, the conflict is an
     * error at once.
     */
    @ParameterizedTest
    @MethodSource("names")
    @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
    void aSecondWriterIsReportedWaitingOrFailsAtOnce(String name) throws Exception {
        try (Target t = TestServers.open(name); Database db = t.freshDatabase()) {
            IsolationLevel level = t.defaultIsolationLevel();
            String mode = t.modes().get(0);
            try (Connection setup = db.connect(level, mode)) {
                exec(setup, "CREATE TABLE w(i INT PRIMARY KEY, v INT)", "INSERT INTO w VALUES (1, 0)");
            }
            Optional<LockProbe> probe = db.lockProbe();
            try (Connection a = db.connect(level, mode); Connection b = db.connect(level, mode)) {
                // asked before b blocks: on some engines (H2) asking runs a query on the session itself
                String idA = db.sessionId(a);
                String idB = db.sessionId(b);
                t.begin(a);
                exec(a, "UPDATE w SET v = 1 WHERE i = 1");
                t.begin(b);
                CompletableFuture<SQLException> second = EngineTests.async(b, "UPDATE w SET v = 2 WHERE i = 1");
                if (probe.isPresent()) {
                    Optional<Set<String>> waits = EngineTests.awaitWaiting(probe.get(), idB, Duration.ofSeconds(20));
                    assertTrue(waits.isPresent(), name + ": the second writer is not reported waiting");
                    assertFalse(second.isDone(), name + ": reported waiting, yet finished");
                    assertTrue(waits.get().isEmpty() || waits.get().contains(idA), name + ": waits for " + waits.get() + ", not for " + idA);
                    t.rollback(a);
                    SQLException e = EngineTests.outcome(second, Duration.ofSeconds(20));
                    assertEquals(null, e, name + ": the waiter goes on once its blocker ends");
                    t.commit(b);
                    assertEquals(List.of(List.of("1", "2")), rows(a, "SELECT * FROM w"));
                    probe.get().close();
                } else {
                    SQLException e = EngineTests.outcome(second, Duration.ofSeconds(5));
                    assertTrue(e != null, name + ": without a lock probe the conflict must be an error, not a wait");
                    assertFalse(t.classify(e) == ErrorClass.CONNECTION_LOST, name + ": " + e);
                    t.rollback(b);
                    t.rollback(a);
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource("embedded")
    void anInProcessEngineRefusesServerOptions(String name) {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> Targets.create(name, new TargetOptions("jdbc:x://h/", null, null, null)));
        assertTrue(x.getMessage().contains("runs in process"), x.getMessage());
    }

    @Test
    void anUnknownNameNamesTheKnownOnes() {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> Targets.engine("oracle"));
        assertTrue(x.getMessage().contains("h2") && x.getMessage().contains("mariadb"), x.getMessage());
    }
}
