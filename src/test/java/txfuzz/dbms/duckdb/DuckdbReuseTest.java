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
        // reuse is off by default on DuckDB (docs/performance.md); the machinery is checked all the same
        System.setProperty("txfuzz.duckdb.reuse", "true");
        try {
            target = (DuckdbTarget) Targets.create("duckdb");
        } finally {
            System.clearProperty("txfuzz.duckdb.reuse");
        }
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

    @Override
    protected txfuzz.dbms.Target target() {
        return target;
    }

    @Override
    protected int generatedCases() {
        return 10;
    }
}
