package txfuzz.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.dbms.Database;
import txfuzz.dbms.Target;
import txfuzz.dbms.TestServers;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.StateReader;
import txfuzz.exec.Trace;
import txfuzz.model.DbState;
import txfuzz.model.CaseJson;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;
import txfuzz.oracle.wss.WssKind;

/**
 * reproduce.spec against the isolation tester's grammar (PostgreSQL src/test/isolation/specparse.y and
 * specscanner.l), checked by {@link SpecParser}, a recursive-descent copy of it, and run on the
 * started PostgreSQL the way isolationtester runs it ({@link SpecRunner}): the isolationtester binary
 * is not among the bundled PostgreSQL binaries.
 */
class IsolationTesterSpecTest {

    private static TestCase mergeLostUpdate() throws Exception {
        try (var in = IsolationTesterSpecTest.class.getResourceAsStream("/corpus/bugs/pg-merge-rr-lost-update.case.json")) {
            return CaseJson.read(new String(in.readAllBytes(), StandardCharsets.UTF_8), "corpus");
        }
    }

    @Test
    void aPostgresFindingHasASpecTheGrammarAcceptsWithOneStepPerStatementInTheSubmittedOrder(@TempDir Path out) throws Exception {
        Target pg = TestServers.shared("postgres");
        TestCase c = mergeLostUpdate();
        Violation v = new Violation(WssKind.FIRST_COMMITTER_WINS, Classification.BUG_CANDIDATE,
                "MERGE overwrote a row version T2 committed after T1's snapshot", "d", null);
        new FindingWriter(out).write("pg-RR-s0-i0", c, null, List.of(v), pg);
        Path dir = out.resolve("findings/pg-RR-s0-i0");
        assertFalse(Files.exists(dir.resolve("Repro.java")) || Files.exists(dir.resolve("reproduce.test")), "only the spec for PostgreSQL");
        String text = Files.readString(dir.resolve("reproduce.spec"));
        Spec spec = new SpecParser(text).parse();

        assertEquals(c.setup().stream().map(s -> s + ";").toList(), spec.setups(), text);
        assertEquals("DROP TABLE IF EXISTS t, s CASCADE;", spec.teardown());
        assertEquals(List.of("t1", "t2"), List.copyOf(spec.sessions().keySet()));
        assertEquals(List.of("t1_1", "t1_2", "t1_7", "t1_8", "t1_9"), List.copyOf(spec.sessions().get("t1").keySet()));
        assertEquals("BEGIN ISOLATION LEVEL REPEATABLE READ;", spec.sessions().get("t1").get("t1_1"));
        assertEquals(c.txn(1).statements().get(2).sql() + ";", spec.sessions().get("t1").get("t1_7"));
        assertEquals(List.of("t1_1", "t1_2", "t2_3", "t2_4", "t2_5", "t2_6", "t1_7", "t1_8", "t1_9"), spec.permutations().get(0));
        assertTrue(spec.sessionSetups().get("t1").contains("ISOLATION LEVEL REPEATABLE READ"), text);
        assertTrue(text.contains("# wss first-committer-wins (bug-candidate): MERGE overwrote"), text);
    }

    /**
     * The spec run the way isolationtester runs it ({@link SpecRunner}) on the started PostgreSQL gives
     * what txfuzz's own run gave: the MERGE lost update of 15.10 (the final contents), and for two
     * writers of one row, the second's UPDATE waiting until the first commits.
     */
    @Test
    void theSpecRunAsTheIsolationTesterRunsItReproducesTheRecordedRun() throws Exception {
        Target pg = TestServers.shared("postgres");
        TestCase waits = Cases.on("postgres").table("t").level(txfuzz.model.IsolationLevel.READ_COMMITTED)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                .txn("UPDATE t SET v = v + 1 WHERE id = 1", "SELECT v FROM t WHERE id = 1")
                .txn("UPDATE t SET v = v + 10 WHERE id = 1")
                .order(1, 1, 2, 2, 1, 1, 2);
        for (TestCase c : List.of(mergeLostUpdate(), waits)) {
            Trace trace;
            try (Executor ex = new Executor(pg, ExecutorConfig.defaults())) {
                trace = ex.run(c);
            }
            Spec spec = new SpecParser(IsolationTesterSpec.render(c, pg, "x").orElseThrow()).parse();
            SpecRunner.Result r = SpecRunner.run(spec, pg, c.tables());
            assertEquals(trace.finalState(), r.finalState(), c.toString());
            Set<String> blocked = new HashSet<>();
            trace.schedule().stream().filter(e -> e.blocked())
                    .forEach(e -> blocked.add(IsolationTesterSpec.step(e.ref(), c.submittedOrder())));
            assertEquals(blocked, r.waited(), "the steps that waited");
        }
    }

    @Test
    void sqlWithAClosingBraceHasNoSpecAndOtherEnginesNone() throws Exception {
        Target pg = TestServers.shared("postgres");
        TestCase braces = Cases.on("postgres").table("t").setup("CREATE TABLE t(v TEXT)").txn("INSERT INTO t VALUES ('}')").order(1, 1, 1);
        assertTrue(IsolationTesterSpec.render(braces, pg, "x").isEmpty(), "the scanner would end the block at the brace");
        try (Target h2 = TestServers.open("h2")) {
            assertTrue(IsolationTesterSpec.render(mergeLostUpdate(), h2, "x").isEmpty());
        }
    }

    @Test
    void theCheckerRejectsWhatTheGrammarRejects() {
        String ok = "setup { CREATE TABLE a (i int); }\nsession \"s1\"\nstep \"s1a\" { SELECT 1; }\npermutation \"s1a\"\n";
        new SpecParser(ok).parse();
        new SpecParser("session s1\nstep s1a { SELECT 1; }\n").parse(); // bare names, no permutation: all permutations
        assertThrows(IllegalArgumentException.class, () -> new SpecParser("step \"a\" { SELECT 1; }").parse(), "a step outside a session");
        assertThrows(IllegalArgumentException.class, () -> new SpecParser("session \"s1\"\n").parse(), "a session without steps");
        assertThrows(IllegalArgumentException.class, () -> new SpecParser("session \"s1\" step \"a\" { SELECT 1;").parse(), "unterminated block");
        assertThrows(IllegalArgumentException.class, () -> new SpecParser("session \"s1\" step \"a\" { x }\nsession \"s2\" step \"a\" { y }").parse(),
                "step names are unique across sessions");
        assertThrows(IllegalArgumentException.class, () -> new SpecParser("session \"s1\" step \"a\" { x } permutation \"b\"").parse(),
                "a permutation names existing steps");
        assertThrows(IllegalArgumentException.class, () -> new SpecParser("session \"s\n1\" step \"a\" { x }").parse(), "newline in a name");
        assertThrows(IllegalArgumentException.class, () -> new SpecParser("session \"s1\" ; step \"a\" { x }").parse(), "stray character");
        assertThrows(IllegalArgumentException.class, () -> new SpecParser("session \"s1\" step \"a\" { x } setup { y }").parse(),
                "a global setup after the sessions");
    }

    /**
     * What isolationtester does with one permutation, on a fresh database of {@code pg}: the setup
     * blocks, one connection per session with its setup block, then each step in turn on its session's
     * connection, going on to the next once the step completed or waits on a lock (asked of the server,
     * {@code pg_blocking_pids}, as the tester does); a step of a session whose earlier step still waits
     * waits for it first. Errors are printed, not fatal. Every wait is bounded.
     */
    static final class SpecRunner {
        private static final long BOUND_S = 30;

        record Result(Set<String> waited, DbState finalState) {
        }

        static Result run(Spec spec, Target pg, List<String> tables) throws Exception {
            Map<String, String> sessionOf = new HashMap<>();
            Map<String, String> sqlOf = new HashMap<>();
            spec.sessions().forEach((session, steps) -> steps.forEach((step, sql) -> {
                sessionOf.put(step, session);
                sqlOf.put(step, sql);
            }));
            Map<String, Connection> conns = new HashMap<>();
            Map<String, Integer> pids = new HashMap<>();
            Map<String, ExecutorService> threads = new HashMap<>();
            Map<String, Future<?>> active = new HashMap<>();
            Set<String> waited = new HashSet<>();
            try (Database db = pg.freshDatabase(); Connection control = db.connect(pg.defaultIsolationLevel(), "default")) {
                for (String sql : spec.setups()) {
                    execute(control, sql);
                }
                for (String session : spec.sessions().keySet()) {
                    Connection c = db.connect(pg.defaultIsolationLevel(), "default");
                    conns.put(session, c);
                    threads.put(session, Executors.newSingleThreadExecutor());
                    if (spec.sessionSetups().containsKey(session)) {
                        execute(c, spec.sessionSetups().get(session));
                    }
                    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
                        rs.next();
                        pids.put(session, rs.getInt(1));
                    }
                }
                try (PreparedStatement blocked = control.prepareStatement("SELECT cardinality(pg_blocking_pids(?)) > 0")) {
                    for (String step : spec.permutations().get(0)) {
                        String session = sessionOf.get(step);
                        Future<?> earlier = active.remove(session);
                        if (earlier != null) {
                            earlier.get(BOUND_S, TimeUnit.SECONDS);
                        }
                        Connection c = conns.get(session);
                        Future<?> f = threads.get(session).submit(() -> {
                            try {
                                execute(c, sqlOf.get(step));
                            } catch (SQLException e) {
                                System.out.println("step " + step + ": ERROR: " + e.getMessage());
                            }
                            return null;
                        });
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_S);
                        while (!f.isDone()) {
                            blocked.setInt(1, pids.get(session));
                            try (ResultSet rs = blocked.executeQuery()) {
                                rs.next();
                                if (rs.getBoolean(1)) {
                                    waited.add(step);
                                    active.put(session, f);
                                    break;
                                }
                            }
                            assertTrue(System.nanoTime() < deadline, "step " + step + " neither completed nor waited");
                            Thread.sleep(5);
                        }
                    }
                }
                for (Future<?> f : active.values()) {
                    f.get(BOUND_S, TimeUnit.SECONDS);
                }
                DbState state = StateReader.read(pg, control, tables);
                if (spec.teardown() != null) {
                    execute(control, spec.teardown());
                }
                return new Result(waited, state);
            } finally {
                threads.values().forEach(ExecutorService::shutdownNow);
                for (Connection c : conns.values()) {
                    c.close();
                }
            }
        }

        private static void execute(Connection c, String sql) throws SQLException {
            try (Statement st = c.createStatement()) {
                st.execute(sql);
            }
        }
    }

    /** A parsed spec: setup blocks, teardown, per session its setup and steps (name → SQL), the permutations. */
    record Spec(List<String> setups, String teardown, Map<String, Map<String, String>> sessions, Map<String, String> sessionSetups,
                List<List<String>> permutations) {
    }

    /**
     * The isolation tester's grammar, by recursive descent:
     * <pre>
     * TestSpec   := setup* [TEARDOWN sqlblock] session+ permutation*
     * setup      := SETUP sqlblock
     * session    := SESSION name [setup] step+ [TEARDOWN sqlblock]
     * step       := STEP name sqlblock
     * permutation:= PERMUTATION name+
     * </pre>
     * The scanner: {@code #} comments to the end of the line; names are {@code "quoted"} (no newline) or,
     * since PostgreSQL 14, bare identifiers; a SQL block runs from {@code {} to the first {@code }}, its
     * surrounding blanks trimmed. Semantic checks of isolationtester.c: step names unique, permutations
     * name existing steps.
     */
    static final class SpecParser {
        private final List<String[]> tokens = new ArrayList<>(); // {type, text}: kw, name, sql
        private int pos;

        SpecParser(String text) {
            scan(text);
        }

        private void scan(String s) {
            int i = 0;
            while (i < s.length()) {
                char ch = s.charAt(i);
                if (ch == '#') {
                    while (i < s.length() && s.charAt(i) != '\n') {
                        i++;
                    }
                } else if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\n') {
                    i++;
                } else if (ch == '"') {
                    int end = s.indexOf('"', i + 1);
                    if (end < 0) {
                        throw new IllegalArgumentException("unterminated quoted string");
                    }
                    String name = s.substring(i + 1, end);
                    if (name.contains("\n")) {
                        throw new IllegalArgumentException("unexpected newline in quoted string");
                    }
                    tokens.add(new String[] {"name", name});
                    i = end + 1;
                } else if (ch == '{') {
                    int end = s.indexOf('}', i + 1);
                    if (end < 0) {
                        throw new IllegalArgumentException("unterminated sql block");
                    }
                    tokens.add(new String[] {"sql", s.substring(i + 1, end).strip()});
                    i = end + 1;
                } else if (Character.isLetter(ch) || ch == '_') {
                    int end = i;
                    while (end < s.length() && (Character.isLetterOrDigit(s.charAt(end)) || s.charAt(end) == '_')) {
                        end++;
                    }
                    String word = s.substring(i, end);
                    boolean keyword = Set.of("permutation", "session", "setup", "step", "teardown").contains(word);
                    tokens.add(new String[] {keyword ? "kw" : "name", word});
                    i = end;
                } else {
                    throw new IllegalArgumentException("syntax error: unexpected character \"" + ch + "\"");
                }
            }
        }

        Spec parse() {
            List<String> setups = new ArrayList<>();
            while (at("kw", "setup")) {
                pos++;
                setups.add(expect("sql"));
            }
            String teardown = null;
            if (at("kw", "teardown")) {
                pos++;
                teardown = expect("sql");
            }
            Map<String, Map<String, String>> sessions = new LinkedHashMap<>();
            Map<String, String> sessionSetups = new LinkedHashMap<>();
            Set<String> steps = new HashSet<>();
            do {
                expectKeyword("session");
                String name = expect("name");
                if (at("kw", "setup")) {
                    pos++;
                    sessionSetups.put(name, expect("sql"));
                }
                Map<String, String> mine = new LinkedHashMap<>();
                do {
                    expectKeyword("step");
                    String step = expect("name");
                    if (!steps.add(step)) {
                        throw new IllegalArgumentException("duplicate step name: " + step);
                    }
                    mine.put(step, expect("sql"));
                } while (at("kw", "step"));
                if (at("kw", "teardown")) {
                    pos++;
                    expect("sql");
                }
                sessions.put(name, mine);
            } while (at("kw", "session"));
            List<List<String>> permutations = new ArrayList<>();
            while (at("kw", "permutation")) {
                pos++;
                List<String> p = new ArrayList<>();
                do {
                    String step = expect("name");
                    if (!steps.contains(step)) {
                        throw new IllegalArgumentException("undefined step \"" + step + "\" specified in permutation");
                    }
                    p.add(step);
                } while (at("name", null));
                permutations.add(p);
            }
            if (pos != tokens.size()) {
                throw new IllegalArgumentException("syntax error at " + String.join(" ", tokens.get(pos)));
            }
            return new Spec(setups, teardown, sessions, sessionSetups, permutations);
        }

        private boolean at(String type, String text) {
            return pos < tokens.size() && tokens.get(pos)[0].equals(type) && (text == null || tokens.get(pos)[1].equals(text));
        }

        private String expect(String type) {
            if (!at(type, null)) {
                throw new IllegalArgumentException("syntax error: expected " + type + " at token " + pos);
            }
            return tokens.get(pos++)[1];
        }

        private void expectKeyword(String kw) {
            if (!at("kw", kw)) {
                throw new IllegalArgumentException("syntax error: expected " + kw + " at token " + pos);
            }
            pos++;
        }
    }
}
