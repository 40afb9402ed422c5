package txfuzz.dbms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static txfuzz.dbms.EngineTests.exec;
import static txfuzz.dbms.EngineTests.rows;

import java.sql.Connection;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import txfuzz.model.IsolationLevel;

/** What every embedded target owes the rest of txfuzz, checked on the real engine for every level and mode. */
class EmbeddedTargetContractTest {

    @ParameterizedTest
    @ValueSource(strings = {"hsqldb", "derby", "sqlite", "duckdb"})
    void everyLevelAndModeConnectsRunsItsSetupSqlAndHasAProfile(String name) throws Exception {
        try (Target target = Targets.create(name)) {
            assertEquals(name, target.name());
            assertFalse(target.version().isBlank());
            assertFalse(target.isolationLevels().isEmpty());
            assertTrue(target.isolationLevels().contains(target.defaultIsolationLevel()));
            Dialect d = target.dialect();
            assertTrue(d.has(Feature.TYPE_DOUBLE) && d.has(Feature.TYPE_VARCHAR));
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
}
