package txfuzz.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import txfuzz.dbms.StandaloneJdbc;
import txfuzz.dbms.Target;
import txfuzz.exec.StmtResult;
import txfuzz.exec.Trace;
import txfuzz.model.DbState;
import txfuzz.model.Stmt;
import txfuzz.model.TestCase;

/**
 * A finding on an in-process engine as one self-contained JDBC program ({@code Repro.java}), runnable
 * with nothing but the engine's jar: {@code java -cp h2.jar Repro.java} (Java 11+ single-file source
 * launch). It builds the database, opens one connection per transaction and runs the statements in the
 * recorded run's order ({@link ReplaySteps}): a statement that waited there runs on a thread of its own
 * and is joined after the statement that released it, every wait bounded. It prints each result beside
 * the recorded one, then the final contents, and exits 1 when the recorded run came back — the run the
 * oracle judged, so the finding reproduces — 0 when it did not (e.g. fixed), 2 when it could not run.
 *
 * <p>No txfuzz class is needed: the program carries its own copy of how txfuzz normalises values
 * ({@link txfuzz.model.Values}) so that results compare as text.
 */
public final class JdbcReproProgram {
    private JdbcReproProgram() {
    }

    /** The program for {@code c} on an in-process engine; {@code trace} (may be null) is the run to compare with. */
    public static Optional<String> render(TestCase c, Trace trace, Target target, String about) {
        Optional<StandaloneJdbc> o = txfuzz.dbms.Targets.exists(target.name())
                ? txfuzz.dbms.Targets.engine(target.name()).standaloneJdbc() : Optional.empty();
        if (o.isEmpty()) {
            return Optional.empty();
        }
        StandaloneJdbc open = o.get();
        StringBuilder sb = new StringBuilder();
        sb.append("// txfuzz: ").append(target.version()).append(", isolation ").append(c.isolation().sql())
                .append("default".equals(c.mode()) ? "" : ", mode " + c.mode()).append('\n');
        for (String line : about.strip().split("\n")) {
            sb.append("// ").append(line.strip()).append('\n');
        }
        sb.append("//\n// Run it with the engine's JDBC jar on the class path (Java 11 or later), e.g.\n")
                .append("//     java -cp ").append(target.name()).append(".jar Repro.java\n")
                .append("// It prints every statement's result beside the one txfuzz recorded, then the final contents.\n")
                .append("// Exit status: 1 the recorded run came back (the finding reproduces), 0 it did not, 2 it could not run.\n\n");
        sb.append(HEAD);
        sb.append("    static final String URL = ").append(literal(open.url())).append(";\n");
        sb.append("    static final String USER = ").append(literal(open.user())).append(";\n");
        sb.append("    static final String PASSWORD = ").append(literal(open.password())).append(";\n");
        sb.append("    static final boolean SQL_TRANSACTIONS = ").append(open.sqlTransactions()).append(";\n");
        sb.append("    static final boolean DUPLICATE_SESSIONS = ").append(open.duplicate()).append(";\n");
        sb.append("    static final String BEGIN = ").append(literal(target.beginSql(c.mode()))).append(";\n");
        sb.append("    static final boolean RECORDED = ").append(trace != null).append(";\n");
        sb.append("    static final String ABOUT = ").append(literal(about.strip())).append(";\n");
        sb.append("    static final String[] SESSION_SETUP = {");
        List<String> session = new ArrayList<>();
        target.sessionSetupSql(c.isolation(), c.mode()).forEach(s -> session.add(literal(s)));
        sb.append(String.join(", ", session)).append("};\n\n");
        sb.append("    static void run() throws Exception {\n");
        sb.append("        Connection setup = open();\n");
        for (String s : c.setup()) {
            sb.append("        setup(setup, ").append(literal(s)).append(");\n");
        }
        for (var t : c.transactions()) {
            sb.append("        Connection t").append(t.id()).append(" = session();\n");
            for (String own : ReproduceScript.ownSessionSql(target, c, t)) { // its own level and settings
                sb.append("        sessionSetting(t").append(t.id()).append(", ").append(literal(own)).append(");\n");
            }
        }
        for (ReplaySteps.Step step : ReplaySteps.of(c, trace)) {
            Stmt s = c.stmt(step.ref());
            String args = "\"T" + step.ref().txn() + "\", " + step.number();
            String conn = "t" + step.ref().txn();
            String stmt = literal(s.kind().name()) + ", " + literal(s.sql());
            switch (step.action()) {
                case RUN -> sb.append("        run(").append(args).append(", ").append(conn).append(", ").append(stmt).append(", ")
                        .append(literal(recorded(step.recorded()))).append(");\n");
                case SEND -> sb.append("        send(").append(args).append(", ").append(conn).append(", ").append(stmt).append(", ")
                        .append(step.hung(trace)).append(");\n");
                case REAP -> sb.append("        reap(").append(args).append(", ").append(literal(recorded(step.recorded()))).append(");\n");
                case ROLLBACK -> sb.append("        abortedRollback(").append(literal("T" + step.ref().txn())).append(", ").append(conn).append(");\n");
                case NOT_RUN -> sb.append("        notRun(").append(args).append(", ").append(literal(s.sql())).append(");\n");
                default -> throw new IllegalStateException(step.action().name());
            }
        }
        sb.append("        stillRunning();\n");
        for (String table : c.tables()) {
            sb.append("        finalContents(setup, ").append(literal(table)).append(", ").append(literal(target.quote(table))).append(", ");
            List<List<String>> rows = trace == null || trace.finalState() == null ? null : trace.finalState().tables().get(table);
            if (rows == null) {
                sb.append("null");
            } else {
                List<String> texts = new ArrayList<>();
                rows.forEach(r -> texts.add(literal(DbState.formatRow(r))));
                sb.append("new String[] {").append(String.join(", ", texts)).append('}');
            }
            sb.append(");\n");
        }
        sb.append("    }\n");
        sb.append(TAIL);
        return Optional.of(sb.toString());
    }

    /** The recorded result in the program's own terms (see {@code outcome} in the program); "" when none. */
    static String recorded(StmtResult r) {
        if (r == null) {
            return "";
        }
        if (r.failed()) {
            return "error " + r.error().sqlState();
        }
        if (r.rows() != null) {
            List<String> rows = new ArrayList<>();
            r.rows().forEach(row -> rows.add(DbState.formatRow(row)));
            rows.sort(null);
            return rows.size() + " rows " + String.join(" ", rows);
        }
        return r.updateCount() >= 0 ? "affected " + r.updateCount() : "ok";
    }

    /** A Java string literal (null: {@code null}); non-ASCII escaped so the file's encoding does not matter. */
    static String literal(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder sb = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (ch < 0x20 || ch > 0x7e) {
                        sb.append(String.format("\\u%04x", (int) ch));
                    } else {
                        sb.append(ch);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    /** Imports, class, state. Java 11: no records, text blocks or switch expressions in the program. */
    private static final String HEAD = """
            import java.math.BigDecimal;
            import java.math.MathContext;
            import java.nio.file.Files;
            import java.sql.Connection;
            import java.sql.DriverManager;
            import java.sql.ResultSet;
            import java.sql.ResultSetMetaData;
            import java.sql.SQLException;
            import java.sql.Statement;
            import java.util.ArrayList;
            import java.util.Collections;
            import java.util.LinkedHashMap;
            import java.util.List;
            import java.util.Map;
            import java.util.concurrent.ExecutorService;
            import java.util.concurrent.Executors;
            import java.util.concurrent.Future;
            import java.util.concurrent.TimeUnit;
            import java.util.concurrent.TimeoutException;

            public class Repro {
                /** How long a statement may take, and how long one that waited in the recorded run must still be waiting. */
                static final long BOUND_SECONDS = 30;
                static final long WAITING_MILLIS = 500;

            """;

    /** Opening, running, comparing; the generated {@code run()} sits between HEAD and this. */
    private static final String TAIL = """

                static final ExecutorService THREADS = Executors.newCachedThreadPool(r -> {
                    Thread t = new Thread(r);
                    t.setDaemon(true); // a statement still waiting must not keep the program alive
                    return t;
                });
                static final Map<String, Future<String>> SENT = new LinkedHashMap<>();
                static final Map<String, Boolean> HUNG = new LinkedHashMap<>();
                static Connection first;
                static String url;
                static int differences;

                public static void main(String[] args) {
                    System.out.println("txfuzz finding: " + ABOUT);
                    try {
                        run();
                    } catch (Exception e) {
                        System.out.println("could not run: " + e);
                        System.exit(2);
                    }
                    if (!RECORDED) {
                        System.out.println("no recorded run to compare with");
                        System.exit(0);
                    }
                    if (differences == 0) {
                        System.out.println("REPRODUCED: every statement and the final contents are as in the recorded run: " + ABOUT);
                        System.exit(1);
                    }
                    System.out.println("NOT REPRODUCED: " + differences + " difference(s) from the recorded run");
                    System.exit(0);
                }

                static Connection open() throws Exception {
                    if (url == null) {
                        url = URL.contains("{tmp}") ? URL.replace("{tmp}", Files.createTempDirectory("repro").toString()) : URL;
                    }
                    Connection c;
                    if (first != null && DUPLICATE_SESSIONS) {
                        c = (Connection) first.getClass().getMethod("duplicate").invoke(first);
                    } else {
                        c = USER == null ? DriverManager.getConnection(url) : DriverManager.getConnection(url, USER, PASSWORD);
                    }
                    if (first == null) {
                        first = c;
                    }
                    for (String s : SESSION_SETUP) {
                        try (Statement st = c.createStatement()) {
                            st.execute(s);
                        }
                    }
                    return c;
                }

                static Connection session() throws Exception {
                    return open();
                }

                /** A session's own setting; one the engine refuses is reported and the session goes on without it, as in txfuzz's run. */
                static void sessionSetting(Connection c, String sql) {
                    try (Statement st = c.createStatement()) {
                        st.execute(sql);
                    } catch (SQLException e) {
                        System.out.println("session setting refused by the engine: " + sql + ": " + e.getMessage());
                    }
                }

                static void setup(Connection c, String sql) throws SQLException {
                    System.out.println("setup: " + sql);
                    try (Statement st = c.createStatement()) {
                        st.execute(sql);
                    }
                }

                /** Runs a statement and prints its outcome beside the recorded one. */
                static void run(String txn, int step, Connection c, String kind, String sql, String recorded) throws Exception {
                    Future<String> f = THREADS.submit(() -> outcome(c, kind, sql));
                    String got;
                    try {
                        got = f.get(BOUND_SECONDS, TimeUnit.SECONDS);
                    } catch (TimeoutException e) {
                        got = "still waiting after " + BOUND_SECONDS + " s";
                    }
                    compare(txn, step, sql, got, recorded);
                }

                /** Starts a statement that waited in the recorded run; it must be waiting still a moment later. */
                static void send(String txn, int step, Connection c, String kind, String sql, boolean hung) throws Exception {
                    Future<String> f = THREADS.submit(() -> outcome(c, kind, sql));
                    String key = txn + "." + step;
                    SENT.put(key, f);
                    HUNG.put(key, hung);
                    try {
                        String got = f.get(WAITING_MILLIS, TimeUnit.MILLISECONDS);
                        System.out.println(txn + " step " + step + ": " + sql + "\\n    did not wait (" + got + "); in the recorded run it "
                                + (hung ? "hung" : "waited"));
                        differences++;
                    } catch (TimeoutException e) {
                        System.out.println(txn + " step " + step + ": " + sql + "\\n    waits, as in the recorded run");
                    }
                }

                /** Joins a statement started by send() once the statement that released it has run. */
                static void reap(String txn, int step, String recorded) throws Exception {
                    Future<String> f = SENT.remove(txn + "." + step);
                    String got;
                    try {
                        got = f.get(BOUND_SECONDS, TimeUnit.SECONDS);
                    } catch (TimeoutException e) {
                        got = "still waiting after " + BOUND_SECONDS + " s";
                    }
                    compare(txn, step, "(resumes)", got, recorded);
                }

                /** The engine aborted the transaction before its end: end it as txfuzz did. */
                static void abortedRollback(String txn, Connection c) {
                    System.out.println(txn + ": aborted by the engine; rolled back");
                    try {
                        if (SQL_TRANSACTIONS) {
                            try (Statement st = c.createStatement()) {
                                st.execute("ROLLBACK");
                            }
                        } else {
                            c.rollback();
                            c.setAutoCommit(true);
                        }
                    } catch (SQLException e) {
                        System.out.println("    (" + e.getMessage() + ")");
                    }
                }

                static void notRun(String txn, int step, String sql) {
                    System.out.println(txn + " step " + step + ": " + sql + "\\n    not run: its transaction had ended");
                }

                /** Statements that hung in the recorded run must still be running; any other one left is a difference. */
                static void stillRunning() {
                    for (Map.Entry<String, Future<String>> e : SENT.entrySet()) {
                        boolean hung = HUNG.get(e.getKey());
                        System.out.println("T" + e.getKey() + (e.getValue().isDone() ? " has ended" : " is still running")
                                + (hung ? "; it hung in the recorded run" : ""));
                        if (hung == e.getValue().isDone()) {
                            differences++;
                        }
                    }
                }

                static void compare(String txn, int step, String sql, String got, String recorded) {
                    int order = got.indexOf(" (the engine's order: ");
                    String rows = order < 0 ? got : got.substring(0, order);
                    boolean same = !RECORDED || rows.equals(recorded) || (got.startsWith("error ") && recorded.startsWith("error ")
                            && got.split(" ")[1].equals(recorded.split(" ")[1]));
                    System.out.println(txn + " step " + step + ": " + sql + "\\n    " + got + (RECORDED ? (same ? "" : "    <-- recorded: " + recorded) : ""));
                    if (!same) {
                        differences++;
                    }
                }

                static void finalContents(Connection c, String table, String quoted, String[] recorded) throws SQLException {
                    List<String> rows = new ArrayList<>();
                    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT * FROM " + quoted)) {
                        rows = rows(rs);
                    }
                    Collections.sort(rows);
                    System.out.println("final contents of " + table + ": " + String.join(" ", rows));
                    if (recorded != null) {
                        List<String> expected = new ArrayList<>(List.of(recorded));
                        Collections.sort(expected);
                        if (!expected.equals(rows)) {
                            System.out.println("    <-- recorded: " + String.join(" ", expected));
                            differences++;
                        }
                    }
                }

                /** What a statement did, in the terms the recorded outcomes use: ok, affected N, N rows (sorted), error SQLSTATE. */
                static String outcome(Connection c, String kind, String sql) {
                    try {
                        if (kind.equals("BEGIN")) {
                            try (Statement st = c.createStatement()) {
                                if (SQL_TRANSACTIONS) {
                                    st.execute(BEGIN);
                                } else {
                                    c.setAutoCommit(false);
                                }
                                if (!sql.equals("BEGIN")) {
                                    // a variant such as START TRANSACTION WITH CONSISTENT SNAPSHOT, in the open transaction
                                    st.execute(sql);
                                }
                            }
                            return "ok";
                        }
                        if (!SQL_TRANSACTIONS && (kind.equals("COMMIT") || kind.equals("ROLLBACK"))) {
                            try {
                                if (kind.equals("COMMIT")) {
                                    c.commit();
                                } else {
                                    c.rollback();
                                }
                            } finally {
                                c.setAutoCommit(true);
                            }
                            return "ok";
                        }
                        try (Statement st = c.createStatement()) {
                            if (st.execute(sql)) {
                                try (ResultSet rs = st.getResultSet()) {
                                    List<String> rows = rows(rs);
                                    List<String> shown = new ArrayList<>(rows);
                                    Collections.sort(rows);
                                    return rows.size() + " rows " + String.join(" ", rows)
                                            + (shown.equals(rows) ? "" : " (the engine's order: " + String.join(" ", shown) + ")");
                                }
                            }
                            long n = st.getUpdateCount();
                            return n >= 0 && !kind.equals("BEGIN") && !kind.equals("COMMIT") && !kind.equals("ROLLBACK") ? "affected " + n : "ok";
                        }
                    } catch (SQLException e) {
                        return "error " + e.getSQLState() + " [" + e.getErrorCode() + "] " + e.getMessage().replaceAll("\\\\s+", " ");
                    } catch (RuntimeException e) {
                        // an in-process engine's own failure (HSQLDB's COMMIT throws a NullPointerException) is the statement's
                        // outcome, as txfuzz recorded it (an error without SQLSTATE), not a reason to stop
                        return "error null [0] " + e;
                    }
                }

                static List<String> rows(ResultSet rs) throws SQLException {
                    ResultSetMetaData md = rs.getMetaData();
                    List<String> rows = new ArrayList<>();
                    while (rs.next()) {
                        StringBuilder sb = new StringBuilder("(");
                        for (int i = 1; i <= md.getColumnCount(); i++) {
                            String v = normalise(rs.getObject(i));
                            sb.append(i > 1 ? ", " : "").append(v == null ? "NULL" : v);
                        }
                        rows.add(sb.append(')').toString());
                    }
                    return rows;
                }

                /** txfuzz's normalisation: integers exactly, other numbers to 12 significant digits, booleans as 1/0. */
                static String normalise(Object value) {
                    if (value == null) {
                        return null;
                    }
                    if (value instanceof Double || value instanceof Float) {
                        double d = ((Number) value).doubleValue();
                        return Double.isNaN(d) || Double.isInfinite(d) ? Double.toString(d) : number(new BigDecimal(d));
                    }
                    if (value instanceof BigDecimal) {
                        BigDecimal bd = (BigDecimal) value;
                        return bd.scale() <= 0 || bd.stripTrailingZeros().scale() <= 0 ? bd.toBigInteger().toString() : number(bd);
                    }
                    if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte
                            || value instanceof java.math.BigInteger) {
                        return value.toString();
                    }
                    if (value instanceof Number) {
                        return number(new BigDecimal(value.toString()));
                    }
                    if (value instanceof Boolean) {
                        return ((Boolean) value) ? "1" : "0";
                    }
                    if (value instanceof byte[]) {
                        StringBuilder sb = new StringBuilder("x'");
                        for (byte x : (byte[]) value) {
                            sb.append(String.format("%02x", x));
                        }
                        return sb.append('\\'').toString();
                    }
                    return value.toString();
                }

                static String number(BigDecimal bd) {
                    BigDecimal r = bd.round(new MathContext(12)).stripTrailingZeros();
                    return r.signum() == 0 ? "0" : r.toPlainString();
                }
            }
            """;
}
