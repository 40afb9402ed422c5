package txfuzz.gen;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;
import txfuzz.dbms.Dialect;
import txfuzz.dbms.ErrorClass;

/**
 * Runs generated cases against an engine in autocommit, one statement after another, and counts
 * what the engine calls invalid: the generator's syntax and typing mistakes.
 */
final class StatementValidity {
    /** A fresh private database: a connection and what to do when the case is done. */
    interface Fresh {
        Connection open() throws SQLException;

        void close() throws SQLException;
    }

    static final class Result {
        final String name;
        int cases;
        int statements;
        int invalid;
        int setupStatements;
        int setupFailed;
        final Map<ErrorClass, Integer> byClass = new EnumMap<>(ErrorClass.class);
        final Map<String, Integer> invalidMessages = new LinkedHashMap<>();
        final Map<String, String> invalidExample = new LinkedHashMap<>();
        final List<String> setupFailures = new ArrayList<>();
        /** Errors neither invalid nor constraint violations: data errors and unclassified ones. */
        final Map<String, Integer> otherMessages = new LinkedHashMap<>();
        final Map<String, String> otherExample = new LinkedHashMap<>();

        Result(String name) {
            this.name = name;
        }

        double invalidShare() {
            return statements == 0 ? 0 : (double) invalid / statements;
        }

        String summary() {
            StringBuilder sb = new StringBuilder();
            sb.append(String.format("invalid-statement share %s: %.1f%% (%d/%d) in %d cases%n", name, 100 * invalidShare(), invalid, statements,
                    cases));
            sb.append(String.format("  setup failures %s: %d/%d%n", name, setupFailed, setupStatements));
            sb.append("  errors by class: ").append(byClass).append('\n');
            invalidMessages.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).limit(8).forEach(e ->
                    sb.append("  ").append(e.getValue()).append("x ").append(e.getKey()).append("\n      e.g. ")
                            .append(invalidExample.get(e.getKey())).append('\n'));
            otherMessages.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).limit(4).forEach(e ->
                    sb.append("  other: ").append(e.getValue()).append("x ").append(e.getKey()).append("\n      e.g. ")
                            .append(otherExample.get(e.getKey())).append('\n'));
            setupFailures.stream().limit(5).forEach(f -> sb.append("  setup: ").append(f).append('\n'));
            return sb.toString();
        }
    }

    private StatementValidity() {
    }

    /**
     * Runs up to {@code cases} cases, fewer when {@code budgetMillis} runs out first (slow engines
     * such as Derby), but never fewer than {@code minCases}.
     */
    static Result run(String name, Dialect dialect, IsolationLevel level, int cases, int minCases, long budgetMillis, long seed,
            java.util.function.Supplier<Fresh> fresh, Function<SQLException, ErrorClass> classify) throws SQLException {
        return run(GenConfig.defaults(), name, dialect, level, cases, minCases, budgetMillis, seed, fresh, classify);
    }

    static Result run(GenConfig config, String name, Dialect dialect, IsolationLevel level, int cases, int minCases, long budgetMillis, long seed,
            java.util.function.Supplier<Fresh> fresh, Function<SQLException, ErrorClass> classify) throws SQLException {
        CaseGenerator gen = new CaseGenerator(config);
        Result r = new Result(name);
        long deadline = System.nanoTime() + budgetMillis * 1_000_000L;
        for (int i = 0; i < cases && (i < minCases || System.nanoTime() < deadline); i++) {
            r.cases++;
            TestCase tc = gen.generate(name, dialect, level, "default", seed, i);
            Fresh db = fresh.get();
            try (Connection c = db.open()) {
                for (String sql : tc.setup()) {
                    r.setupStatements++;
                    try {
                        execute(c, sql);
                    } catch (SQLException e) {
                        r.setupFailed++;
                        r.setupFailures.add(firstLine(e) + "  | " + sql);
                    }
                }
                for (Txn t : tc.transactions()) {
                    for (Stmt s : t.body()) {
                        r.statements++;
                        try {
                            execute(c, s.sql());
                        } catch (SQLException e) {
                            ErrorClass ec = classify.apply(e);
                            r.byClass.merge(ec, 1, Integer::sum);
                            if (ec != ErrorClass.INVALID_STATEMENT && ec != ErrorClass.CONSTRAINT) {
                                String key = ec + " " + e.getSQLState() + "/" + e.getErrorCode() + " " + shorten(firstLine(e));
                                r.otherMessages.merge(key, 1, Integer::sum);
                                r.otherExample.putIfAbsent(key, s.sql());
                            }
                            if (ec == ErrorClass.INVALID_STATEMENT) {
                                r.invalid++;
                                String key = e.getSQLState() + "/" + e.getErrorCode() + " " + shorten(firstLine(e));
                                r.invalidMessages.merge(key, 1, Integer::sum);
                                r.invalidExample.putIfAbsent(key, s.sql());
                            }
                        }
                    }
                }
            } finally {
                db.close();
            }
        }
        return r;
    }

    private static void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            if (s.execute(sql)) {
                try (ResultSet rs = s.getResultSet()) {
                    int n = rs.getMetaData().getColumnCount();
                    while (rs.next()) {
                        for (int k = 1; k <= n; k++) {
                            rs.getObject(k);
                        }
                    }
                }
            }
        }
    }

    private static String firstLine(SQLException e) {
        String m = String.valueOf(e.getMessage());
        return m.lines().findFirst().orElse(m);
    }

    /** Messages without the statement text and numbers, so equal mistakes group together. */
    private static String shorten(String m) {
        int cut = m.indexOf("; SQL statement");
        if (cut > 0) {
            m = m.substring(0, cut);
        }
        m = m.replaceAll("\"[^\"]*\\[\\*\\][^\"]*\"", "\"...\"");
        return m.length() > 160 ? m.substring(0, 160) : m;
    }

    /** A fresh database of {@code target} whose connections run at {@code level} in {@code mode}. */
    static Fresh fresh(txfuzz.dbms.Target target, txfuzz.model.IsolationLevel level, String mode) {
        try {
            txfuzz.dbms.Database db = target.freshDatabase();
            return new Fresh() {
                @Override
                public java.sql.Connection open() throws java.sql.SQLException {
                    return db.connect(level, mode);
                }

                @Override
                public void close() {
                    db.close();
                }
            };
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("no fresh database on " + target.name() + ": " + e.getMessage(), e);
        }
    }
}
