package txfuzz.dbms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static txfuzz.dbms.EngineTests.exec;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.gen.CaseGenerator;
import txfuzz.gen.GenConfig;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;

/** Checks of {@link ReusedDatabases} on a real engine: a reset database is as a new one, or it is not reused. */
public final class ReuseChecks {
    private ReuseChecks() {
    }

    /**
     * Runs {@code sql} in a database of {@code target} and closes it; the next database this thread gets must be
     * that one, reset and reused (not discarded), and {@code asNew} (queries with one value each) must answer as on
     * the new database.
     */
    public static Database afterCaseReusedAsNew(Target target, List<String> sql, List<String> asNew) throws SQLException {
        List<String> before = answers(target, asNew);
        try (Database db = target.freshDatabase(); Connection c = db.connect(target.defaultIsolationLevel(), target.modes().get(0))) {
            exec(c, sql.toArray(String[]::new));
        }
        ReusedDatabases.Counts counts = target.databaseReuse();
        Database db = target.freshDatabase();
        ReusedDatabases.Counts now = target.databaseReuse();
        assertEquals(counts.discarded(), now.discarded(), "the reset database failed its check");
        assertEquals(counts.reused() + 1, now.reused(), "the database was not reused");
        try (Connection c = db.connect(target.defaultIsolationLevel(), target.modes().get(0))) {
            assertEquals(before, answersOn(c, asNew), "the reused database answers otherwise than a new one");
        }
        return db;
    }

    /** After {@code sql}, which the reset cannot undo, the database is dropped for good and the next one is new. */
    public static void afterCaseDiscarded(Target target, List<String> sql) throws SQLException {
        try (Database db = target.freshDatabase(); Connection c = db.connect(target.defaultIsolationLevel(), target.modes().get(0))) {
            exec(c, sql.toArray(String[]::new));
        }
        assertNextIsNewAfterADiscard(target);
    }

    /**
     * A caller holding one database opens another on the same thread (a simulation inside a run): they are two
     * databases, and both are kept and reused afterwards.
     */
    public static void nestedDatabasesAreTwo(Target target) throws SQLException {
        try (Database outer = target.freshDatabase(); Connection a = outer.connect(target.defaultIsolationLevel(), target.modes().get(0))) {
            exec(a, "CREATE TABLE nested_outer(id INT PRIMARY KEY)");
            try (Database inner = target.freshDatabase(); Connection b = inner.connect(target.defaultIsolationLevel(), target.modes().get(0))) {
                exec(b, "CREATE TABLE nested_outer(id INT PRIMARY KEY)"); // would fail if inner were outer
            }
            exec(a, "INSERT INTO nested_outer VALUES (1)");
        }
        ReusedDatabases.Counts counts = target.databaseReuse();
        try (Database one = target.freshDatabase(); Database two = target.freshDatabase()) {
            assertEquals(counts.reused() + 2, target.databaseReuse().reused(), "both nested databases are kept for this thread");
            assertNotNull(one);
            assertNotNull(two);
        }
        assertEquals(counts.discarded(), target.databaseReuse().discarded());
    }

    /** A database closed while one of its sessions is still open is dropped, not reused. */
    public static void openSessionDiscards(Target target) throws SQLException {
        Database db = target.freshDatabase();
        Connection left = db.connect(target.defaultIsolationLevel(), target.modes().get(0));
        assertNotNull(left);
        db.close();
        assertNextIsNewAfterADiscard(target);
    }

    private static void assertNextIsNewAfterADiscard(Target target) throws SQLException {
        ReusedDatabases.Counts counts = target.databaseReuse();
        try (Database next = target.freshDatabase()) {
            ReusedDatabases.Counts now = target.databaseReuse();
            assertEquals(counts.reused(), now.reused(), "a database the reset could not restore was reused");
            assertEquals(counts.created() + 1, now.created());
        }
        assertEquals(counts.discarded(), target.databaseReuse().discarded(), "the new database passed its check");
    }

    /** Generated cases, each run by the executor, one after another: every run after the first reuses a database. */
    public static void generatedCasesRunOnReusedDatabases(Target target, int cases) throws Exception {
        CaseGenerator generator = new CaseGenerator(GenConfig.defaults());
        ReusedDatabases.Counts start = target.databaseReuse();
        try (Executor executor = new Executor(target, ExecutorConfig.defaults())) {
            for (int i = 0; i < cases; i++) {
                IsolationLevel level = target.isolationLevels().get(i % target.isolationLevels().size());
                TestCase c = generator.generate(target.name(), target.dialect(), level, target.modes().get(0), 1, i);
                Trace t = executor.run(c);
                assertNotNull(t.finalState());
            }
        }
        ReusedDatabases.Counts end = target.databaseReuse();
        assertEquals(0, end.discarded() - start.discarded(), "discarded after a generated case");
        assertEquals(cases, end.reused() - start.reused() + end.created() - start.created());
        assertEquals(true, end.reused() - start.reused() >= cases - 1, "reused " + (end.reused() - start.reused()) + " of " + cases);
    }

    private static List<String> answers(Target target, List<String> queries) throws SQLException {
        try (Database db = target.freshDatabase(); Connection c = db.connect(target.defaultIsolationLevel(), target.modes().get(0))) {
            return answersOn(c, queries);
        }
    }

    private static List<String> answersOn(Connection c, List<String> queries) throws SQLException {
        List<String> out = new java.util.ArrayList<>();
        for (String q : queries) {
            out.add(String.valueOf(EngineTests.rows(c, q)));
        }
        return out;
    }
}
