package txfuzz.dbms.duckdb;

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

/** A thread's DuckDB instance is emptied and reused only when it is as new (ReusedDatabases). */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DuckdbReuseTest extends txfuzz.dbms.ReusedDatabaseContract {
    private static DuckdbTarget target;

    @BeforeAll
    static void start() {
        target = (DuckdbTarget) Targets.create("duckdb");
    }

    @AfterAll
    static void stop() {
        target.close();
    }

    @Test
    void anInstanceAfterACaseIsAsNew() throws Exception {
        List<String> dirty = List.of("CREATE TABLE t(id INT PRIMARY KEY, v INT UNIQUE)", "CREATE TABLE c(id INT PRIMARY KEY, t INT REFERENCES t(id))",
                "INSERT INTO t VALUES (1, 1)", "INSERT INTO c VALUES (1, 1)", "CREATE INDEX ci ON c(t)", "CREATE VIEW w AS SELECT * FROM t",
                "CREATE SEQUENCE s", "CREATE SCHEMA other", "CREATE TABLE other.x(a INT)", "CREATE TYPE mood AS ENUM ('a', 'b')",
                "SET GLOBAL default_null_order = 'nulls_first_on_asc_last_on_desc'", "SET GLOBAL preserve_insertion_order = false");
        List<String> asNew = List.of("SELECT COUNT(*) FROM duckdb_tables() WHERE NOT internal",
                "SELECT current_setting('default_null_order')", "SELECT current_setting('preserve_insertion_order')", "SELECT current_setting('threads')");
        try (Database db = ReuseChecks.afterCaseReusedAsNew(target, dirty, asNew); Connection c = db.connect(target.defaultIsolationLevel(), "default")) {
            assertEquals(ErrorClass.INVALID_STATEMENT, target.classify(error(c, "SELECT * FROM t")));
            exec(c, "CREATE TABLE t(id INT PRIMARY KEY, v INT UNIQUE)", "CREATE SEQUENCE s", "CREATE VIEW w AS SELECT * FROM t");
        }
    }

    /** enable_external_access, once off, cannot be switched on again while the instance runs: the reset cannot restore it, the instance is dropped. */
    @Test
    void whatTheResetCannotRestoreDiscardsTheInstance() throws Exception {
        ReuseChecks.afterCaseDiscarded(target, List.of("CREATE TABLE t(id INT)", "SET GLOBAL TimeZone = 'Pacific/Apia'", "SET GLOBAL enable_external_access = false"));
    }

    /**
     * duckdb-SI-s1-i245's flaky violations. An in-memory instance adds the size of every committed change to a counter
     * and checkpoints at the commit that takes it past checkpoint_threshold (16 MiB); only a checkpoint sets it back.
     * A reused instance carried the counter of the runs before, so a case on it could meet a checkpoint a new instance
     * never has: then the rows committed before it stay in one row group and a later row goes to a second, and
     * {@code UPDATE p SET k = k + 1} checks the first group's new keys against the second's old ones, "Duplicate key".
     * Here the earlier run leaves a few MiB on the counter (a primary key over 200,000 rows) and the case lowers the
     * threshold to 2 MiB, so that what takes hundreds of generated cases at 16 MiB happens in one: the case must answer
     * on the reused instance as on a new one.
     */
    @Test
    void aReusedInstanceCarriesNoCheckpointDebtIntoTheNextCase() throws Exception {
        try (Database earlier = target.freshDatabase(); Connection c = earlier.connect(target.defaultIsolationLevel(), "default")) {
            exec(c, "CREATE TABLE d(k INT PRIMARY KEY)", "INSERT INTO d SELECT range FROM range(200000)");
        }
        long reusedBefore = target.databaseReuse().reused();
        try (Database reused = target.freshDatabase()) {
            assertEquals(reusedBefore + 1, target.databaseReuse().reused(), "the instance of the earlier run is handed out again");
            String onReused = keyUpdateAfterALaterRow(reused);
            try (Database created = target.freshDatabase()) { // the reused one is held: this one is new
                String onNew = keyUpdateAfterALaterRow(created);
                assertEquals("row groups 1, UPDATE affected 4", onNew, "a new instance meets no checkpoint in the case");
                assertEquals(onNew, onReused, "the reused instance answers as a new one");
            }
        }
    }

    /** The case: a table with a key and three rows in one commit, a fourth row in a later one, then every key + 1. */
    private static String keyUpdateAfterALaterRow(Database db) throws Exception {
        try (Connection c = db.connect(target.defaultIsolationLevel(), "default")) {
            exec(c, "SET GLOBAL checkpoint_threshold = '2MB'", "BEGIN TRANSACTION", "CREATE TABLE p(k INT PRIMARY KEY)",
                    "INSERT INTO p VALUES (6), (8), (16)", "COMMIT", "INSERT INTO p VALUES (9)");
            String groups = txfuzz.dbms.EngineTests.value(c, "SELECT count(DISTINCT row_group_id) FROM pragma_storage_info('p')");
            String update;
            try (java.sql.Statement s = c.createStatement()) {
                update = "UPDATE affected " + s.executeUpdate("UPDATE p SET k = k + 1");
            } catch (java.sql.SQLException e) {
                update = "UPDATE failed: " + String.valueOf(e.getMessage()).lines().findFirst().orElse("");
            }
            return "row groups " + groups + ", " + update;
        }
    }

    @Override
    protected txfuzz.dbms.Target target() {
        return target;
    }

    @Override
    protected int generatedCases() {
        return 10;
    }
}
