package txfuzz.dbms.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static txfuzz.dbms.EngineTests.error;
import static txfuzz.dbms.EngineTests.exec;

import java.sql.Connection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import txfuzz.dbms.Database;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.ReuseChecks;
import txfuzz.dbms.Targets;

/** H2's databases are emptied with DROP ALL OBJECTS and reused only when they are as new (ReusedDatabases). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class H2ReuseTest extends txfuzz.dbms.ReusedDatabaseContract {
    private static H2Target target;

    @BeforeAll
    static void start() {
        // reuse is off by default on H2 (not cheaper there); the machinery is checked all the same
        target = txfuzz.dbms.ReuseChecks.madeWith("txfuzz.h2.reuse", () -> (H2Target) Targets.create("h2"));
    }

    @AfterAll
    static void stop() {
        target.close();
    }

    /** A trigger that does nothing, for a case that creates one. */
    public static final class NoOp implements org.h2.api.Trigger {
        @Override
        public void fire(java.sql.Connection c, Object[] oldRow, Object[] newRow) {
        }
    }

    @Test
    void aDatabaseAfterACaseIsAsNew() throws Exception {
        List<String> dirty = List.of("CREATE TABLE t(id INT PRIMARY KEY, v INT UNIQUE)", "CREATE TABLE c(id INT PRIMARY KEY, t INT REFERENCES t(id))",
                "INSERT INTO t VALUES (1, 1)", "INSERT INTO c VALUES (1, 1)", "CREATE INDEX ci ON c(t)", "CREATE VIEW w AS SELECT * FROM t",
                "CREATE SEQUENCE s", "CREATE SCHEMA other", "CREATE TABLE other.x(a INT)", "CREATE DOMAIN d AS INT",
                "CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW CALL '" + NoOp.class.getName() + "'", "CREATE ALIAS f FOR 'java.lang.Math.abs(int)'",
                "CREATE USER u PASSWORD 'p'", "CREATE ROLE r", "SET MODE MySQL", "SET DEFAULT_NULL_ORDERING HIGH");
        List<String> asNew = List.of("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA <> 'INFORMATION_SCHEMA'",
                "SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS WHERE SETTING_NAME = 'MODE'",
                "SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS WHERE SETTING_NAME = 'DEFAULT_NULL_ORDERING'",
                "SELECT COUNT(*) FROM INFORMATION_SCHEMA.USERS");
        try (Database db = ReuseChecks.afterCaseReusedAsNew(target, dirty, asNew); Connection c = db.connect(target.defaultIsolationLevel(), "default")) {
            assertEquals(ErrorClass.INVALID_STATEMENT, target.classify(error(c, "SELECT * FROM t")));
            exec(c, "CREATE TABLE t(id INT PRIMARY KEY, v INT UNIQUE)", "CREATE SEQUENCE s", "CREATE VIEW w AS SELECT * FROM t");
        }
    }

    /** A setting the new database did not list cannot be given back (H2 lists it from then on): the database is dropped. */
    @Test
    void aSettingTheResetCannotRestoreDiscardsTheDatabase() throws Exception {
        ReuseChecks.afterCaseDiscarded(target, List.of("CREATE TABLE t(id INT)", "SET IGNORECASE TRUE"));
        ReuseChecks.afterCaseDiscarded(target, List.of("SET DEFAULT_LOCK_TIMEOUT 1234"));
    }

    @Override
    protected txfuzz.dbms.Target target() {
        return target;
    }
}
