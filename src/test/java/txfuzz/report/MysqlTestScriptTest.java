package txfuzz.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.dbms.Database;
import txfuzz.dbms.Target;
import txfuzz.dbms.TestServers;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.exec.TxnStatus;
import txfuzz.model.DbState;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.model.Values;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;
import txfuzz.oracle.wss.WssKind;

/**
 * reproduce.test, for real: a case runs on the started MariaDB, its mysqltest file is checked against
 * mysqltest's grammar ({@link #checkFormat}) and then run on the same server by {@link Interpreter},
 * a tiny mysqltest of exactly the commands the file uses (mysqltest is not among the bundled MariaDB
 * binaries), which must reproduce what the run recorded: the waits, the errors, the final contents.
 */
class MysqlTestScriptTest {
    private static final Violation MADE_UP = new Violation(WssKind.TX_WSS, Classification.BUG_CANDIDATE, "what the finding is about", "d", null);

    /** Two writers of one row at READ COMMITTED (not MariaDB's default level): the second waits until the first commits. */
    private static TestCase secondWriterWaits() {
        return Cases.on("mariadb").table("t").level(IsolationLevel.READ_COMMITTED)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                .txn("UPDATE t SET v = v + 1 WHERE id = 1", "SELECT v FROM t WHERE id = 1")
                .txn("UPDATE t SET v = v + 10 WHERE id = 1")
                .order(1, 1, 2, 2, 1, 1, 2);
    }

    /** T1 and T2 each update a row, then the other's: T1 waits, T2 closes the cycle and InnoDB aborts one. */
    private static TestCase deadlock() {
        return Cases.on("mariadb").table("t").level(IsolationLevel.REPEATABLE_READ)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                .txn("UPDATE t SET v = 1 WHERE id = 1", "UPDATE t SET v = 1 WHERE id = 2")
                .txn("UPDATE t SET v = 2 WHERE id = 2", "UPDATE t SET v = 2 WHERE id = 1")
                .order(1, 1, 2, 2, 1, 2, 1, 2);
    }

    @Test
    void aStatementThatWaitedIsSentAndReapedAfterTheCommitThatReleasedIt(@TempDir Path out) throws Exception {
        Target mariadb = TestServers.shared("mariadb");
        TestCase c = secondWriterWaits();
        Trace trace = run(mariadb, c);
        assertEquals(1, trace.blockedCount(), trace.toString());
        new FindingWriter(out).write("mariadb-RC-s0-i0", c, trace, List.of(MADE_UP), mariadb);
        Path dir = out.resolve("findings/mariadb-RC-s0-i0");
        assertFalse(Files.exists(dir.resolve("Repro.java")) || Files.exists(dir.resolve("reproduce.spec")), "only the mysqltest file for MariaDB");
        String test = Files.readString(dir.resolve("reproduce.test"));
        checkFormat(test);
        int send = test.indexOf("--send\nUPDATE t SET v = v + 10 WHERE id = 1;");
        assertTrue(send > 0 && send < test.indexOf("# T1, step 6, recorded: ok") && test.indexOf("# T1, step 6, recorded: ok") < test.indexOf("--reap"), test);
        assertTrue(test.contains("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED;"), test);

        Interpreter.Result r = Interpreter.run(test, mariadb);
        assertEquals(List.of(true), r.sendsThatWaited(), "the UPDATE waits again:\n" + test);
        assertEquals(trace.finalState(), r.finalState(c.tables()));
        assertEquals(List.of(List.of("1")), r.rowsOf("SELECT v FROM t WHERE id = 1"), "T1 reads its own write");
    }

    @Test
    void aDeadlockVictimsErrorIsExpectedByNameAndItsTransactionRolledBack() throws Exception {
        Target mariadb = TestServers.shared("mariadb");
        TestCase c = deadlock();
        Trace trace = run(mariadb, c);
        assertTrue(trace.outcomes().values().stream().anyMatch(o -> o.status() == TxnStatus.ABORTED), trace.toString());
        String test = MysqlTestScript.render(c, trace, mariadb, "a deadlock").orElseThrow();
        checkFormat(test);
        assertTrue(test.contains("--error ER_LOCK_DEADLOCK\n"), test);
        assertTrue(test.contains("never ran, its transaction had ended: COMMIT"), test);

        Interpreter.Result r = Interpreter.run(test, mariadb);
        assertEquals(List.of(true), r.sendsThatWaited(), test);
        assertEquals(trace.finalState(), r.finalState(c.tables()), test);
    }

    @Test
    void theFormatCheckRejectsWhatMysqltestRejects() {
        checkFormat("--connect (con1,localhost,root,,test)\n--connection con1\nSELECT 1;\n--send\nSELECT 2;\n--reap\n--connection default\n--disconnect con1\n");
        assertThrows(AssertionError.class, () -> checkFormat("SELECT 1\n"), "a statement without its delimiter");
        assertThrows(AssertionError.class, () -> checkFormat("--connection con1\n"), "an unknown connection");
        assertThrows(AssertionError.class, () -> checkFormat("--send\nSELECT 1;\nSELECT 2;\n"), "a query between send and reap");
        assertThrows(AssertionError.class, () -> checkFormat("--reap\n"), "reap without send");
        assertThrows(AssertionError.class, () -> checkFormat("--error ER_X Y\nSELECT 1;\n"), "a malformed error list");
        assertThrows(AssertionError.class, () -> checkFormat("--frobnicate\n"), "an unknown command");
        assertThrows(AssertionError.class, () -> checkFormat("--connect (con1 localhost)\n"), "a malformed connect");
        assertEquals("ER_LOCK_DEADLOCK", MysqlTestScript.errorName(new txfuzz.exec.StmtResult.EngineError(null, "40001", 1213, "x")));
        assertEquals("4242", MysqlTestScript.errorName(new txfuzz.exec.StmtResult.EngineError(null, "HY000", 4242, "x")));
    }

    private static Trace run(Target t, TestCase c) throws Exception {
        try (Executor ex = new Executor(t, ExecutorConfig.defaults())) {
            return ex.run(c);
        }
    }

    private static final Set<String> COMMANDS = Set.of("source", "connect", "connection", "send", "reap", "error", "disconnect", "sorted_result");
    private static final Pattern CONNECT = Pattern.compile("\\((\\w+),[^,()]*,[^,()]*,[^,()]*,[^,()]*\\)");
    private static final Pattern ERRORS = Pattern.compile("(ER_[A-Z0-9_]+|\\d+|S[0-9A-Z]{5})(,(ER_[A-Z0-9_]+|\\d+|S[0-9A-Z]{5}))*");

    /**
     * mysqltest's grammar, for the commands the file uses: a line is blank, a {@code #} comment, a
     * {@code --command} ending at the end of the line, or a query ending with the delimiter {@code ;}.
     * And the rules mysqltest enforces as it runs: connections exist before use, no query on a
     * connection between send and reap, reap only after send, {@code --error} and {@code --send}
     * followed by what they apply to, error names known by mysqld_error.h (as far as txfuzz names them).
     */
    static void checkFormat(String test) {
        Set<String> connections = new HashSet<>(Set.of("default"));
        Set<String> pending = new HashSet<>();
        String current = "default";
        String expecting = null; // "query" after --send, "query or reap" after --error
        int n = 0;
        for (String line : test.split("\n", -1)) {
            n++;
            String where = "line " + n + ": " + line;
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith("--")) {
                String[] parts = line.substring(2).split("\\s+", 2);
                String cmd = parts[0];
                String arg = parts.length > 1 ? parts[1].strip() : "";
                assertTrue(COMMANDS.contains(cmd), where);
                assertTrue(expecting == null || (cmd.equals("reap") && expecting.contains("reap")), "expected a " + expecting + " at " + where);
                expecting = null;
                switch (cmd) {
                    case "connect" -> {
                        var m = CONNECT.matcher(arg);
                        assertTrue(m.matches(), where);
                        assertTrue(connections.add(m.group(1)), "connection exists: " + where);
                    }
                    case "connection" -> {
                        assertTrue(connections.contains(arg), where);
                        current = arg;
                    }
                    case "disconnect" -> assertTrue(connections.remove(arg) && pending.stream().noneMatch(arg::equals), where);
                    case "send" -> {
                        assertTrue(arg.isEmpty() && !pending.contains(current), where);
                        pending.add(current);
                        expecting = "query";
                    }
                    case "reap" -> assertTrue(arg.isEmpty() && pending.remove(current), "reap without send: " + where);
                    case "error" -> {
                        assertTrue(ERRORS.matcher(arg).matches(), where);
                        for (String e : arg.split(",")) {
                            assertTrue(!e.startsWith("ER_") || MysqlTestScript.ERROR_NAMES.containsValue(e), "unknown error name: " + where);
                        }
                        expecting = "query or reap";
                    }
                    case "source", "sorted_result" -> assertTrue(cmd.equals("sorted_result") == arg.isEmpty(), where);
                    default -> throw new AssertionError(where);
                }
                continue;
            }
            assertTrue(line.strip().endsWith(";"), "a query ends with ';': " + where);
            boolean sent = "query".equals(expecting);
            assertTrue(sent || !pending.contains(current), "query between send and reap: " + where);
            expecting = null;
        }
        assertTrue(expecting == null, "the file ends expecting a " + expecting);
    }

    /**
     * Runs the subset of mysqltest that reproduce.test uses on a fresh database of {@code target}:
     * connections are JDBC connections, {@code --send} executes on the connection's own thread and
     * {@code --reap} waits for it, every wait bounded; an error must be the one {@code --error} names
     * and no other. Records every query's rows and whether each sent statement was still waiting a
     * moment after it was sent.
     */
    static final class Interpreter {
        private static final long BOUND_S = 60;
        private static final long WAITING_MS = 500;

        record Result(List<Boolean> sendsThatWaited, Map<String, List<List<String>>> rowsByQuery) {
            List<List<String>> rowsOf(String query) {
                return rowsByQuery.get(query);
            }

            /** The tables' contents as the file's final {@code SELECT * FROM t} showed them. */
            DbState finalState(List<String> tables) {
                Map<String, List<List<String>>> contents = new LinkedHashMap<>();
                for (String t : tables) {
                    contents.put(t, rowsByQuery.get("SELECT * FROM `" + t + "`"));
                }
                return new DbState(contents);
            }
        }

        private record Outcome(List<List<String>> rows, SQLException error) {
        }

        static Result run(String test, Target target) throws Exception {
            Map<String, Connection> connections = new HashMap<>();
            Map<String, ExecutorService> threads = new HashMap<>();
            Map<String, Future<Outcome>> pending = new HashMap<>();
            Map<String, String> pendingQuery = new HashMap<>();
            List<Boolean> waited = new ArrayList<>();
            Map<String, List<List<String>>> rows = new LinkedHashMap<>();
            try (Database db = target.freshDatabase()) {
                connections.put("default", db.connect(target.defaultIsolationLevel(), "default"));
                threads.put("default", Executors.newSingleThreadExecutor());
                String current = "default";
                String expectedErrors = null;
                boolean sendNext = false;
                for (String line : test.split("\n")) {
                    if (line.isBlank() || line.startsWith("#")) {
                        continue;
                    }
                    if (line.startsWith("--")) {
                        String[] parts = line.substring(2).split("\\s+", 2);
                        String arg = parts.length > 1 ? parts[1].strip() : "";
                        switch (parts[0]) {
                            case "source", "sorted_result" -> { // InnoDB is there; rows are compared as multisets
                            }
                            case "connect" -> {
                                String name = arg.substring(1, arg.indexOf(','));
                                // the server's default level: the file's own SET must set the case's
                                connections.put(name, db.connect(target.defaultIsolationLevel(), "default"));
                                threads.put(name, Executors.newSingleThreadExecutor());
                            }
                            case "connection" -> current = arg;
                            case "disconnect" -> {
                                threads.remove(arg).shutdownNow();
                                connections.remove(arg).close();
                            }
                            case "send" -> sendNext = true;
                            case "error" -> expectedErrors = arg;
                            case "reap" -> {
                                Outcome o = pending.remove(current).get(BOUND_S, TimeUnit.SECONDS);
                                check(o, expectedErrors, pendingQuery.remove(current), rows);
                                expectedErrors = null;
                            }
                            default -> throw new AssertionError("not in the subset: " + line);
                        }
                        continue;
                    }
                    String query = line.strip().substring(0, line.strip().length() - 1);
                    Connection conn = connections.get(current);
                    Future<Outcome> f = threads.get(current).submit(() -> execute(conn, query));
                    if (sendNext) {
                        try {
                            f.get(WAITING_MS, TimeUnit.MILLISECONDS);
                            waited.add(false);
                        } catch (TimeoutException e) {
                            waited.add(true);
                        }
                        pending.put(current, f);
                        pendingQuery.put(current, query);
                        sendNext = false;
                    } else {
                        check(f.get(BOUND_S, TimeUnit.SECONDS), expectedErrors, query, rows);
                        expectedErrors = null;
                    }
                }
            } finally {
                threads.values().forEach(ExecutorService::shutdownNow);
                for (Connection c : connections.values()) {
                    c.close();
                }
            }
            return new Result(waited, rows);
        }

        private static Outcome execute(Connection c, String query) {
            try (Statement s = c.createStatement()) {
                if (s.execute(query)) {
                    try (ResultSet rs = s.getResultSet()) {
                        ResultSetMetaData md = rs.getMetaData();
                        List<List<String>> rows = new ArrayList<>();
                        while (rs.next()) {
                            List<String> row = new ArrayList<>();
                            for (int i = 1; i <= md.getColumnCount(); i++) {
                                row.add(Values.normalise(rs.getObject(i)));
                            }
                            rows.add(row);
                        }
                        return new Outcome(rows, null);
                    }
                }
                return new Outcome(null, null);
            } catch (SQLException e) {
                return new Outcome(null, e);
            }
        }

        /** As mysqltest: an error must be one --error names, and --error demands one. */
        private static void check(Outcome o, String expectedErrors, String query, Map<String, List<List<String>>> rows) {
            if (expectedErrors == null) {
                if (o.error() != null) {
                    throw new AssertionError("query '" + query + "' failed: " + o.error().getErrorCode() + " " + o.error().getMessage());
                }
            } else {
                if (o.error() == null) {
                    throw new AssertionError("query '" + query + "' succeeded, expected error " + expectedErrors);
                }
                Set<String> codes = new HashSet<>();
                for (String e : expectedErrors.split(",")) {
                    codes.add(e.startsWith("ER_") ? MysqlTestScript.ERROR_NAMES.entrySet().stream().filter(x -> x.getValue().equals(e))
                            .map(x -> x.getKey().toString()).findFirst().orElseThrow() : e.startsWith("S") ? e : e);
                }
                if (!codes.contains(Integer.toString(o.error().getErrorCode())) && !codes.contains("S" + o.error().getSQLState())) {
                    throw new AssertionError("query '" + query + "' failed with " + o.error().getErrorCode() + ", expected " + expectedErrors);
                }
            }
            if (o.rows() != null) {
                rows.put(query, o.rows());
            }
        }
    }
}
