package txfuzz.dbms.postgres;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import txfuzz.dbms.ReuseChecks;
import txfuzz.dbms.KeptTablesContract;
import txfuzz.dbms.Target;

/**
 * PostgreSQL keeps a case schema with its tables for the next run of the same setup: TRUNCATE … RESTART IDENTITY, checked
 * against the catalog right after the DDL ran (ReusedDatabases); a schema of another setup is dropped as before.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PostgresReuseTest extends KeptTablesContract {
    private static PostgresTarget target;

    /** A target of its own on the shared server (as one given by URL), with its tables kept (-Dtxfuzz.postgres.keepTables=true). */
    @BeforeAll
    static void start() {
        target = ReuseChecks.madeWith(PostgresTarget.KEEP_TABLES_PROPERTY, () -> new PostgresTarget(SharedServer.asExistingServer()));
    }

    @AfterAll
    static void stop() {
        target.close();
    }

    @Override
    protected Target target() {
        return target;
    }

    /** Generated cases, each run twice: the second run, on kept tables, gives the trace a new database gives. */
    @Test
    void generatedCasesRunAgainOnKeptTablesGiveTheSameTraces() throws Exception {
        ReuseChecks.secondRunsOnKeptTablesGiveTheSameTraces(target, 20);
    }

    @Override
    protected String identityTable() {
        return "CREATE TABLE ident(id SERIAL PRIMARY KEY, v INT)";
    }

    @Test
    void anIdentityColumnRestartsToo() throws Exception {
        ReuseChecks.tablesKeptAfterRows(target(), List.of("CREATE TABLE ident2(id INT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v INT)"),
                List.of("INSERT INTO ident2(v) VALUES (1)"), List.of("INSERT INTO ident2(v) VALUES (2)"), List.of("SELECT MAX(id) FROM ident2"));
    }

    /** A sequence of its own is not restarted by TRUNCATE … RESTART IDENTITY: a run that used it leaves the schema unkept. */
    @Test
    void aSequenceThatCountedOnDiscardsTheKeptTables() throws Exception {
        ReuseChecks.tablesNotKeptAfter(target(), List.of("CREATE TABLE t(id INT PRIMARY KEY)", "CREATE SEQUENCE s"),
                List.of("INSERT INTO t VALUES (1)"), List.of("SELECT nextval('s')"));
    }

    /** TRUNCATE does not empty a materialized view: its rows, refreshed by the run, would be left behind. */
    @Test
    void aRowLeftBehindDiscardsTheKeptTables() throws Exception {
        ReuseChecks.tablesNotKeptAfter(target(), List.of("CREATE TABLE t(id INT PRIMARY KEY)", "CREATE MATERIALIZED VIEW mv AS SELECT id FROM t"),
                List.of("INSERT INTO t VALUES (1)"), List.of("REFRESH MATERIALIZED VIEW mv"));
    }

    /** Statistics the planner reads (ANALYZE) are not undone by TRUNCATE: a run that made them leaves the schema unkept. */
    @Test
    void statisticsOfARunDiscardTheKeptTables() throws Exception {
        ReuseChecks.tablesNotKeptAfter(target(), List.of("CREATE TABLE t(id INT PRIMARY KEY, v INT)"),
                List.of("INSERT INTO t VALUES (1, 1)", "INSERT INTO t VALUES (2, 1)"), List.of("ANALYZE t"));
    }
}
