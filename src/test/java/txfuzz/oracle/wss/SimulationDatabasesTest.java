package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import txfuzz.dbms.DatabaseCountingTarget;
import txfuzz.dbms.h2.H2Target;
import txfuzz.exec.Cases;
import txfuzz.exec.StateLoader;
import txfuzz.exec.StateReader;
import txfuzz.model.DbState;
import txfuzz.model.TestCase;

/** Simulations share a prepared database only where reloading the tables' rows restores everything a simulation sees. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SimulationDatabasesTest {
    private static TestCase withSetup(String... setup) {
        return Cases.on("h2").table("t").setup(setup).txn("UPDATE t SET v = v + 1").order(1, 1, 1);
    }

    @Test
    void tablesIndexesAndRowsAreReloadable() {
        assertTrue(SimulationDatabases.reloadable(withSetup("CREATE TABLE t (k INT PRIMARY KEY, v INT DEFAULT 0)",
                "CREATE UNIQUE INDEX i ON t (v)", "INSERT INTO t VALUES (1, 0)")));
    }

    /** Negative controls: each of these keeps state a reload of the rows does not set back, or may. */
    @Test
    void generatedValuesAndOtherObjectsAreNot() {
        assertFalse(SimulationDatabases.reloadable(withSetup("CREATE TABLE t (k INT AUTO_INCREMENT PRIMARY KEY, v INT)")));
        assertFalse(SimulationDatabases.reloadable(withSetup("CREATE TABLE t (k INT GENERATED ALWAYS AS IDENTITY, v INT)")));
        assertFalse(SimulationDatabases.reloadable(withSetup("CREATE TABLE t (k INT, v INT)", "CREATE SEQUENCE s")));
        assertFalse(SimulationDatabases.reloadable(withSetup("CREATE TABLE t (k INT, v INT)", "CREATE VIEW w AS SELECT * FROM t")));
        assertFalse(SimulationDatabases.reloadable(withSetup("CREATE TABLE t (k INT, v INT)",
                "CREATE TRIGGER g AFTER UPDATE ON t FOR EACH ROW CALL 'x'")));
        assertFalse(SimulationDatabases.reloadable(Cases.on("h2").table("t").setup("CREATE TABLE t (k INT, v INT)")
                .txn("ALTER TABLE t ADD COLUMN w INT").order(1, 1, 1)), "a transaction that changes the schema");
        assertFalse(SimulationDatabases.reloadable(Cases.on("h2").table("t").setup("CREATE TABLE t (k INT, v INT)")
                .txn("INSERT INTO t VALUES (NEXT VALUE FOR s, 1)").order(1, 1, 1)), "a transaction that draws a sequence");
    }

    @Test
    void aReloadableCasesSimulationsShareOnePreparedDatabaseAndSeeOnlyTheirView() throws Exception {
        TestCase c = withSetup("CREATE TABLE t (k INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)");
        DatabaseCountingTarget h2 = new DatabaseCountingTarget(new H2Target());
        int[] prepared = {0};
        try (h2; SimulationDatabases sims = new SimulationDatabases(h2, c, true)) {
            for (int v = 1; v <= 3; v++) {
                try (SimulationDatabases.Session s = sims.open("plain", (conn, st) -> {
                    prepared[0]++;
                    for (String sql : c.setup()) {
                        st.execute(sql);
                    }
                })) {
                    StateLoader.load(h2, s.connection(), c.tables(), new DbState(Map.of("t", List.of(List.of(String.valueOf(v), "7")))));
                    s.statement().execute("INSERT INTO t VALUES (9, 1)");
                    assertEquals(List.of(List.of(String.valueOf(v), "7"), List.of("9", "1")),
                            StateReader.read(h2, s.connection(), c.tables()).tables().get("t"), "only this simulation's rows");
                }
            }
            assertEquals(1, prepared[0]);
            assertEquals(1, h2.databases());
        }
    }

    @Test
    void anyOtherCaseGetsAFreshDatabasePerSimulation() throws Exception {
        TestCase c = withSetup("CREATE TABLE t (k INT AUTO_INCREMENT PRIMARY KEY, v INT)");
        DatabaseCountingTarget h2 = new DatabaseCountingTarget(new H2Target());
        try (h2; SimulationDatabases sims = new SimulationDatabases(h2, c, true)) {
            for (int i = 0; i < 3; i++) {
                try (SimulationDatabases.Session s = sims.open("plain", (conn, st) -> st.execute(c.setup().get(0)))) {
                    s.statement().execute("INSERT INTO t (v) VALUES (1)");
                    assertEquals(List.of(List.of("1", "1")), StateReader.read(h2, s.connection(), c.tables()).tables().get("t"),
                            "the identity counts from 1 on a fresh database");
                }
            }
            assertEquals(3, h2.databases());
        }
    }
}
