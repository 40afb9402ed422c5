package txfuzz.dbms.sqlite;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import txfuzz.dbms.KeptTablesContract;
import txfuzz.dbms.ReuseChecks;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;

/**
 * A SQLite file keeps a case's tables for the case's next run (by default): emptied and checked as any engine that keeps
 * tables, and a file of another setup is reset to new ({@link SqliteReuseTest}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SqliteKeptTablesTest extends KeptTablesContract {
    private static SqliteTarget target;

    @BeforeAll
    static void start() {
        target = (SqliteTarget) Targets.create("sqlite");
    }

    @AfterAll
    static void stop() {
        target.close();
    }

    @Override
    protected Target target() {
        return target;
    }

    /** SQLite's identity: a rowid alias takes the largest key plus one. */
    @Override
    protected String identityTable() {
        return "CREATE TABLE ident(id INTEGER PRIMARY KEY, v INT)";
    }

    /**
     * AUTOINCREMENT counts in sqlite_sequence, which emptying clears: a case's second run, on kept tables, gets the ids its
     * first run got on a new file. (The contract's identity test cannot use it: a file reset to new still has
     * sqlite_sequence, so it is discarded, SqliteReuseTest.)
     */
    @Test
    void autoincrementCountsFromOneAgain() throws Exception {
        txfuzz.model.TestCase c = txfuzz.exec.Cases.on("sqlite").level(txfuzz.model.IsolationLevel.SERIALIZABLE).table("a")
                .setup("CREATE TABLE a(id INTEGER PRIMARY KEY AUTOINCREMENT, v INT)", "INSERT INTO a(v) VALUES (1)")
                .txn("INSERT INTO a(v) VALUES (2)", "SELECT MAX(id) FROM a").order(1, 1, 1, 1);
        try (txfuzz.exec.Executor executor = new txfuzz.exec.Executor(target, txfuzz.exec.ExecutorConfig.defaults())) {
            txfuzz.exec.Trace first = executor.run(c);
            long kept = target.databaseReuse().tablesKept();
            txfuzz.exec.Trace second = executor.run(c);
            org.junit.jupiter.api.Assertions.assertEquals(kept + 1, target.databaseReuse().tablesKept(), "the second run found its tables kept");
            org.junit.jupiter.api.Assertions.assertEquals(first.finalState(), second.finalState());
            org.junit.jupiter.api.Assertions.assertEquals(first.schedule().get(2).result(), second.schedule().get(2).result());
        }
    }

    /** A rowid table's next rowid is its largest plus one, so 1 again once empty, as in a new table. */
    @Test
    void aRowidTableCountsFromOneAgain() throws Exception {
        ReuseChecks.tablesKeptAfterRows(target, List.of("CREATE TABLE r(v INT)"), List.of("INSERT INTO r VALUES (1)"),
                List.of("INSERT INTO r VALUES (2)", "INSERT INTO r VALUES (3)"), List.of("SELECT MAX(rowid) FROM r"));
    }

    /** A run that changed a setting the file keeps: not kept with its tables. */
    @Test
    void aChangedUserVersionDiscardsTheKeptTables() throws Exception {
        ReuseChecks.tablesNotKeptAfter(target, List.of("CREATE TABLE r(v INT)"), List.of("INSERT INTO r VALUES (1)"),
                List.of("PRAGMA user_version = 3"));
    }

    /** Generated cases, each run twice: the second run, on kept tables and kept sessions, gives the trace a new file gives. */
    @Test
    void generatedCasesRunAgainOnKeptTablesGiveTheSameTraces() throws Exception {
        ReuseChecks.secondRunsOnKeptTablesGiveTheSameTraces(target, 20);
    }
}
