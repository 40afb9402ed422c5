package txfuzz.dbms.sqlite;

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
import txfuzz.model.IsolationLevel;

/** A thread's SQLite file is emptied and reused only when it is as new (ReusedDatabases). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SqliteReuseTest extends txfuzz.dbms.ReusedDatabaseContract {
    private static SqliteTarget target;

    @BeforeAll
    static void start() {
        target = (SqliteTarget) Targets.create("sqlite");
    }

    @AfterAll
    static void stop() {
        target.close();
    }

    @Test
    void aFileAfterACaseIsAsNew() throws Exception {
        List<String> dirty = List.of("CREATE TABLE t(id INT PRIMARY KEY, v INT UNIQUE)", "CREATE TABLE c(id INT PRIMARY KEY, t INT REFERENCES t(id))",
                "INSERT INTO t VALUES (1, 1)", "INSERT INTO c VALUES (1, 1)", "CREATE INDEX ci ON c(t)", "CREATE VIEW w AS SELECT * FROM t",
                "CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO c VALUES (NEW.id + 100, NULL); END",
                "PRAGMA user_version = 7", "PRAGMA application_id = 9");
        List<String> asNew = List.of("SELECT COUNT(*) FROM sqlite_schema", "PRAGMA user_version", "PRAGMA application_id", "PRAGMA journal_mode",
                "PRAGMA foreign_keys", "PRAGMA busy_timeout");
        try (Database db = ReuseChecks.afterCaseReusedAsNew(target, dirty, asNew); Connection c = db.connect(IsolationLevel.SERIALIZABLE, "deferred")) {
            assertEquals(ErrorClass.INVALID_STATEMENT, target.classify(error(c, "SELECT * FROM t")));
            exec(c, "CREATE TABLE t(id INT PRIMARY KEY, v INT UNIQUE)", "CREATE VIEW w AS SELECT * FROM t");
        }
    }

    /** SQLite's own tables (sqlite_sequence, made by AUTOINCREMENT; sqlite_stat1, made by ANALYZE) are not dropped: the file is. */
    @Test
    void whatTheResetCannotRestoreDiscardsTheFile() throws Exception {
        ReuseChecks.afterCaseDiscarded(target, List.of("CREATE TABLE t(id INTEGER PRIMARY KEY AUTOINCREMENT)", "INSERT INTO t DEFAULT VALUES"));
        ReuseChecks.afterCaseDiscarded(target, List.of("CREATE TABLE t(id INT PRIMARY KEY)", "INSERT INTO t VALUES (1)", "ANALYZE"));
    }

    @Override
    protected txfuzz.dbms.Target target() {
        return target;
    }
}
