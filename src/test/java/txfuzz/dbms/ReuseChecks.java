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

    /** A target made while {@code property} is "true" (an engine's reuse switch, read when the target is made). */
    public static <T extends Target> T madeWith(String property, java.util.function.Supplier<T> make) {
        System.setProperty(property, "true");
        try {
            return make.get();
        } finally {
            System.clearProperty(property);
        }
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

    /**
     * Generated cases, each run twice by the executor, as a campaign runs a case (the run, then a confirmation or replay):
     * the second run finds the first's tables kept (emptied and checked) and gives the same trace — schedule, each
     * statement's rows, update count and error class, outcomes, end order and final state.
     */
    public static void secondRunsOnKeptTablesGiveTheSameTraces(Target target, int cases) throws Exception {
        CaseGenerator generator = new CaseGenerator(GenConfig.defaults());
        int kept = 0;
        int keepable = 0;
        try (Executor executor = new Executor(target, ExecutorConfig.defaults())) {
            for (int i = 0; i < cases; i++) {
                IsolationLevel level = target.isolationLevels().get(i % target.isolationLevels().size());
                TestCase c = generator.generate(target.name(), target.dialect(), level, target.modes().get(0), 7, i);
                Trace first = runOnNew(executor, target, c);
                ReusedDatabases.Counts before = target.databaseReuse();
                Trace second = executor.run(c);
                ReusedDatabases.Counts after = target.databaseReuse();
                boolean gaveUp = first.stalls() > 0 || !first.hung().isEmpty(); // a statement the executor abandoned keeps its session
                if (!gaveUp) {
                    assertEquals(before.discarded(), after.discarded(), "case " + i + " discarded: " + lastDiscard(target));
                }
                boolean keepableSetup = c.setup().stream().anyMatch(sql -> !sql.toUpperCase(java.util.Locale.ROOT).startsWith("INSERT"));
                if (keepableSetup && !gaveUp) {
                    keepable++;
                    kept += (int) (after.tablesKept() - before.tablesKept());
                }
                if (!summary(first).equals(summary(second))) {
                    // a case whose runs differ on new databases too (which blocked statement resumes first): every run on
                    // kept tables must be one a new database gave
                    java.util.Set<String> onNew = new java.util.HashSet<>(java.util.Set.of(summary(first)));
                    for (int k = 0; k < 8; k++) {
                        onNew.add(summary(runOnNew(executor, target, c)));
                    }
                    for (int k = 0; k < 4; k++) {
                        String onKept = summary(executor.run(c));
                        assertEquals(true, onNew.contains(onKept), "case " + i + ": a run on kept tables that no run on new ones gave:\n" + onKept
                                + "\non new ones:\n" + String.join("\n--\n", onNew));
                    }
                }
            }
        }
        assertEquals(keepable, kept, "runs of the same setup that found its tables kept (of the runs whose first run the executor gave up nothing in)");
    }

    /** Runs {@code c} on a new database: one the run uses before its setup could ask for kept tables. */
    private static Trace runOnNew(Executor executor, Target target, TestCase c) throws Exception {
        try (Database db = target.freshDatabase()) {
            db.connect(c.isolation(), c.mode()).close();
            return executor.run(c, db);
        }
    }

    private static String lastDiscard(Target target) {
        return String.valueOf(target.databaseReuse());
    }

    /**
     * What a run gave, in statement order (not completion order: a deadlock victim's error and the statement its abort
     * unblocks complete at the same moment, in either order, on new tables as on kept ones).
     */
    private static String summary(Trace t) {
        StringBuilder out = new StringBuilder();
        for (var e : t.schedule().stream().sorted(java.util.Comparator.comparing(x -> x.ref().toString())).toList()) {
            out.append(e.ref()).append(e.blocked() ? " blocked" : "").append(" -> ");
            var r = e.result();
            if (r.error() != null) {
                out.append(r.error().errorClass()).append(' ').append(r.error().sqlState());
            } else if (r.rows() != null) {
                out.append(r.rows());
            } else {
                out.append(r.updateCount());
            }
            out.append('\n');
        }
        out.append(new java.util.TreeMap<>(t.outcomes().entrySet().stream()
                .collect(java.util.stream.Collectors.toMap(java.util.Map.Entry::getKey, x -> x.getValue().status())))).append('\n');
        out.append(t.finalState());
        return out.toString();
    }

    /**
     * Runs a setup the way a case's setup does ({@code ddl}, told to the database, then {@code rows}), then {@code run}, on a
     * database of {@code target}, and closes it; returns whether the next database of the same setup got those tables.
     */
    private static boolean setupRunAndAgain(Target target, List<String> ddl, List<String> rows, List<String> run, boolean leaveSessionOpen)
            throws SQLException {
        Database db = target.freshDatabase();
        try {
            assertEquals(false, db.hasTablesOf(ddl), "a database of a setup never run before has no tables of it");
            Connection c = db.connect(target.defaultIsolationLevel(), target.modes().get(0));
            exec(c, ddl.toArray(String[]::new));
            db.madeTablesOf(ddl);
            exec(c, rows.toArray(String[]::new));
            exec(c, run.toArray(String[]::new));
            if (!leaveSessionOpen) {
                c.close();
            }
        } finally {
            db.close();
        }
        try (Database again = target.freshDatabase()) {
            boolean kept = again.hasTablesOf(ddl);
            if (kept) {
                try (Connection c = again.connect(target.defaultIsolationLevel(), target.modes().get(0))) {
                    exec(c, rows.toArray(String[]::new)); // the rows load again: the tables are empty
                }
            }
            return kept;
        }
    }

    /** After a run that changed only rows (and identity values its columns own), the next run of the same setup gets the tables, emptied. */
    public static void tablesKeptAfterRows(Target target, List<String> ddl, List<String> rows, List<String> run, List<String> asNew)
            throws SQLException {
        ReusedDatabases.Counts before = target.databaseReuse();
        List<String> onNew;
        try (Database db = target.freshDatabase(); Connection c = db.connect(target.defaultIsolationLevel(), target.modes().get(0))) {
            exec(c, ddl.toArray(String[]::new));
            exec(c, rows.toArray(String[]::new));
            onNew = answersOn(c, asNew);
        }
        assertEquals(true, setupRunAndAgain(target, ddl, rows, run, false), "the tables were not kept: " + lastDiscard(target));
        ReusedDatabases.Counts after = target.databaseReuse();
        assertEquals(before.discarded(), after.discarded());
        assertEquals(before.tablesKept() + 1, after.tablesKept());
        // once more, answering as a new database with the same setup does
        Database db = target.freshDatabase();
        try {
            assertEquals(true, db.hasTablesOf(ddl));
            try (Connection c = db.connect(target.defaultIsolationLevel(), target.modes().get(0))) {
                exec(c, rows.toArray(String[]::new));
                assertEquals(onNew, answersOn(c, asNew), "the kept tables answer otherwise than new ones");
            }
        } finally {
            db.close();
        }
    }

    /** After a run that did {@code run}, which emptying cannot undo, the next run of the same setup gets new tables, and the database is counted discarded. */
    public static void tablesNotKeptAfter(Target target, List<String> ddl, List<String> rows, List<String> run) throws SQLException {
        ReusedDatabases.Counts before = target.databaseReuse();
        assertEquals(false, setupRunAndAgain(target, ddl, rows, run, false), "tables were kept after " + run);
        ReusedDatabases.Counts after = target.databaseReuse();
        assertEquals(before.discarded() + 1, after.discarded(), "discarded");
        assertEquals(before.tablesKept(), after.tablesKept());
    }

    /** A run that left a session open: its database is discarded, not kept with its tables. */
    public static void tablesNotKeptWithASessionOpen(Target target, List<String> ddl, List<String> rows) throws SQLException {
        ReusedDatabases.Counts before = target.databaseReuse();
        assertEquals(false, setupRunAndAgain(target, ddl, rows, List.of(), true), "tables were kept with a session of the last run open");
        ReusedDatabases.Counts after = target.databaseReuse();
        assertEquals(before.discarded() + 1, after.discarded(), "discarded");
    }

    /** Another setup's DDL: the kept tables are not handed out, and the database is new to it (no table of the other setup). */
    public static void anotherSetupGetsNoKeptTables(Target target, List<String> ddl, List<String> otherDdl) throws SQLException {
        assertEquals(true, setupRunAndAgain(target, ddl, List.of(), List.of(), false));
        try (Database db = target.freshDatabase()) {
            assertEquals(false, db.hasTablesOf(otherDdl));
            try (Connection c = db.connect(target.defaultIsolationLevel(), target.modes().get(0))) {
                exec(c, otherDdl.toArray(String[]::new)); // would fail if the first setup's tables were there
            }
        }
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
