package txfuzz.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.dbms.ErrorClass;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.exec.TxnStatus;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;
import txfuzz.oracle.wss.WssKind;

/**
 * A printed reproducer holds every statement txfuzz sent, the ROLLBACK it sends a deadlock victim included, where it
 * sent it (issue 33, item 5: one printed without it, run as printed, waited for the lock timeout). A real deadlock on
 * H2 — T1's {@code SELECT … FOR UPDATE} waits for T2, T2's {@code UPDATE} then waits for T1, H2 ends T1 as the victim —
 * is written as a finding, and its README's statements are run exactly as printed, one session per transaction, on a
 * fresh H2 with a 2-second lock timeout: they finish and give the recorded run's outcome. Without the ROLLBACK line
 * H2 keeps the victim's locks (docs/bugs.md, h2-for-update-deadlock-victim-keeps-waiters) and T2 waits out the lock
 * timeout. Repro.java, compiled and run in a child JVM with only H2's jar, reproduces the run too.
 */
class VictimRollbackReproTest {
    private static final int SHORT_LOCK_TIMEOUT_MS = 2000;
    private static final AtomicInteger DATABASES = new AtomicInteger();

    /** T2 locks row 2; T1 locks row 1 and waits for row 2; T2 waits for row 1: a deadlock, T1 its victim. */
    private static TestCase crossingLocks() {
        return Cases.on("h2").table("t").level(IsolationLevel.READ_COMMITTED)
                .setup("CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                .txn("SELECT * FROM t ORDER BY id FOR UPDATE")
                .txn("UPDATE t SET v = 2 WHERE id = 2", "UPDATE t SET v = 2 WHERE id = 1")
                // T2 BEGIN, T2 UPDATE 2, T1 BEGIN, T1 SELECT (waits), T2 UPDATE 1 (deadlock), T2 COMMIT, T1 COMMIT
                .order(2, 2, 1, 1, 2, 2, 1);
    }

    @Test
    void theReadmesStatementsRunAsPrintedEndAsTheRecordedRunDid(@TempDir Path out) throws Exception {
        TestCase c = crossingLocks();
        Trace trace;
        String readme;
        try (Target h2 = Targets.create("h2"); Executor ex = new Executor(h2, ExecutorConfig.defaults())) {
            trace = ex.run(c);
            assertEquals(ErrorClass.DEADLOCK, trace.executed(new StmtRef(1, 1)).orElseThrow().result().errorClass(), trace.toString());
            assertEquals(TxnStatus.ABORTED, trace.outcome(1).status(), trace.toString());
            assertEquals(1, trace.executed(new StmtRef(2, 2)).orElseThrow().result().updateCount(), trace.toString());
            Violation label = new Violation(WssKind.READ_RESULT, Classification.BUG_CANDIDATE, "the deadlock case, to print its reproducer", "", null);
            new FindingWriter(out).write("h2-RC-s0-i0", c, trace, List.of(label), h2);
        }
        Path dir = out.resolve("findings/h2-RC-s0-i0");
        readme = Files.readString(dir.resolve("README.md"));
        Printed printed = Printed.fromReadme(readme);
        assertTrue(printed.steps().contains(new Step(1, "ROLLBACK;")), "the ROLLBACK txfuzz sent T1:\n" + readme);
        assertTrue(readme.contains("/* T1 */ ROLLBACK;") && readme.contains("-- sent by txfuzz after step 5"), readme);
        assertTrue(readme.contains("-- /* T1 */ COMMIT;"), "T1's COMMIT never ran, so it is not to be run:\n" + readme);
        String script = Files.readString(dir.resolve("reproduce.sql"));
        assertTrue(script.contains("ROLLBACK;") && script.contains("-- sent by txfuzz after step 5"), script);

        Map<Step, String> asPrinted = printed.run();
        assertEquals("error 40001", asPrinted.get(new Step(1, "SELECT * FROM t ORDER BY id FOR UPDATE;")), asPrinted.toString());
        assertEquals("affected 1", asPrinted.get(new Step(2, "UPDATE t SET v = 2 WHERE id = 1;")), "T2 is not left waiting: " + asPrinted);
        assertEquals("affected 1", asPrinted.get(new Step(2, "UPDATE t SET v = 2 WHERE id = 2;")), asPrinted.toString());
        assertEquals("ok", asPrinted.get(new Step(2, "COMMIT;")), asPrinted.toString());
        assertEquals(trace.finalState().tables().get("t").toString(), asPrinted.get(Printed.FINAL), "the recorded run's final contents");

        // the control: as printed before, without txfuzz's ROLLBACK, T2 waits for the victim's locks until the lock timeout
        Printed withoutRollback = new Printed(printed.setup(), printed.sessionSetup(),
                printed.steps().stream().filter(s -> !s.equals(new Step(1, "ROLLBACK;"))).toList());
        Map<Step, String> waited = withoutRollback.run();
        String t2Update = waited.get(new Step(2, "UPDATE t SET v = 2 WHERE id = 1;"));
        assertTrue(t2Update.equals("error HYT00") || t2Update.equals("error 50200"), "a lock timeout: " + waited);

        JdbcReproProgramTest.Launched repro = JdbcReproProgramTest.launch(dir.resolve("Repro.java"), org.h2.Driver.class);
        assertEquals(1, repro.exit(), repro.output());
        assertTrue(repro.output().contains("T1: aborted by the engine; rolled back"), repro.output());
    }

    /** One printed statement: the session it is printed for and its text. */
    record Step(int txn, String sql) {
    }

    /** A README's schema, session configuration and ordered statements, as a person at the client reads them. */
    record Printed(List<String> setup, List<String> sessionSetup, List<Step> steps) {
        static final Step FINAL = new Step(0, "final contents");
        private static final Pattern LINE = Pattern.compile("^/\\* T(\\d+)(?:, autocommit)? \\*/ (.*;)\\s+-- .*$");

        static Printed fromReadme(String readme) {
            List<Step> steps = new ArrayList<>();
            for (String line : block(readme, "Then run the statements in this order")) {
                if (line.isBlank() || line.startsWith("--")) {
                    continue; // commented out: never ran
                }
                Matcher m = LINE.matcher(line);
                assertTrue(m.matches(), "a statement line: " + line);
                steps.add(new Step(Integer.parseInt(m.group(1)), m.group(2)));
            }
            return new Printed(block(readme, "Schema and data"), block(readme, "Configure each one with"), steps);
        }

        /** The lines of the first ```sql block after {@code heading}. */
        private static List<String> block(String readme, String heading) {
            int at = readme.indexOf(heading);
            assertTrue(at >= 0, heading + " in\n" + readme);
            int start = readme.indexOf("```sql\n", at) + "```sql\n".length();
            return List.of(readme.substring(start, readme.indexOf("```", start)).split("\n"));
        }

        /**
         * Runs the statements in the printed order on a fresh H2, each on its session's own thread: a statement still
         * running half a second after it was sent is waiting, and holds back the rest of its session, as the README
         * says; the others' steps go on. Returns each statement's outcome and the final contents of t.
         */
        Map<Step, String> run() throws Exception {
            String url = "jdbc:h2:mem:printed_" + DATABASES.incrementAndGet() + ";DB_CLOSE_DELAY=-1";
            Map<Step, Future<String>> sent = new LinkedHashMap<>();
            Map<Integer, Connection> sessions = new LinkedHashMap<>();
            Map<Integer, ExecutorService> threads = new LinkedHashMap<>();
            try (Connection admin = DriverManager.getConnection(url)) {
                for (String s : setup) {
                    execute(admin, s);
                }
                for (Step s : steps) {
                    Connection c = sessions.computeIfAbsent(s.txn(), t -> open(url));
                    ExecutorService thread = threads.computeIfAbsent(s.txn(), t -> Executors.newSingleThreadExecutor());
                    Future<String> f = thread.submit(() -> execute(c, s.sql()));
                    sent.put(s, f);
                    try {
                        f.get(500, TimeUnit.MILLISECONDS);
                    } catch (TimeoutException waiting) {
                        // it waits: go on with the other sessions' steps
                    }
                }
                Map<Step, String> out = new LinkedHashMap<>();
                for (Map.Entry<Step, Future<String>> e : sent.entrySet()) {
                    out.put(e.getKey(), e.getValue().get(3L * SHORT_LOCK_TIMEOUT_MS, TimeUnit.MILLISECONDS));
                }
                List<List<String>> rows = new ArrayList<>();
                try (Statement st = admin.createStatement(); ResultSet rs = st.executeQuery("SELECT * FROM t ORDER BY id")) {
                    while (rs.next()) {
                        rows.add(List.of(rs.getString(1), rs.getString(2)));
                    }
                }
                out.put(FINAL, rows.toString());
                return out;
            } finally {
                threads.values().forEach(ExecutorService::shutdownNow);
                for (Connection c : sessions.values()) {
                    c.close();
                }
                try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
                    st.execute("SHUTDOWN");
                }
            }
        }

        /** A session configured as printed, then given the test's short lock timeout so a wait for a lock nobody releases ends. */
        private Connection open(String url) {
            try {
                Connection c = DriverManager.getConnection(url);
                for (String s : sessionSetup) {
                    execute(c, s);
                }
                execute(c, "SET LOCK_TIMEOUT " + SHORT_LOCK_TIMEOUT_MS);
                return c;
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        /** A statement's text sent as printed; its outcome in few words: ok, affected N, N rows, error SQLSTATE. */
        private static String execute(Connection c, String sql) {
            try (Statement st = c.createStatement()) {
                if (st.execute(sql.endsWith(";") ? sql.substring(0, sql.length() - 1) : sql)) {
                    int n = 0;
                    try (ResultSet rs = st.getResultSet()) {
                        while (rs.next()) {
                            n++;
                        }
                    }
                    return n + " rows";
                }
                int n = st.getUpdateCount();
                return n > 0 || sql.regionMatches(true, 0, "UPDATE", 0, 6) ? "affected " + n : "ok";
            } catch (SQLException e) {
                return "error " + e.getSQLState();
            }
        }
    }
}
