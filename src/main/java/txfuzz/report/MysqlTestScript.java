package txfuzz.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import txfuzz.dbms.Target;
import txfuzz.exec.StmtResult;
import txfuzz.exec.Trace;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;

/**
 * A MariaDB finding as a mysqltest file ({@code reproduce.test}), the form MariaDB's regression tests
 * take (mysql-test/main/*.test): the setup on the default connection, one connection per
 * transaction, the statements in the recorded run's order. mysqltest cannot tell that a statement
 * waits, so one the engine made wait is {@code --send} and {@code --reap}ed after the statement that
 * released it ({@link ReplaySteps}); a recorded error is expected with {@code --error}, by name where
 * the code has one here, else by number.
 */
public final class MysqlTestScript {
    private MysqlTestScript() {
    }

    /** MariaDB error codes txfuzz's cases meet, by their mysqltest names (include/mysqld_error.h). */
    static final Map<Integer, String> ERROR_NAMES = Map.ofEntries(
            Map.entry(1020, "ER_CHECKREAD"), Map.entry(1032, "ER_KEY_NOT_FOUND"), Map.entry(1048, "ER_BAD_NULL_ERROR"),
            Map.entry(1054, "ER_BAD_FIELD_ERROR"), Map.entry(1062, "ER_DUP_ENTRY"), Map.entry(1064, "ER_PARSE_ERROR"),
            Map.entry(1093, "ER_UPDATE_TABLE_USED"), Map.entry(1146, "ER_NO_SUCH_TABLE"), Map.entry(1180, "ER_ERROR_DURING_COMMIT"),
            Map.entry(1205, "ER_LOCK_WAIT_TIMEOUT"), Map.entry(1213, "ER_LOCK_DEADLOCK"), Map.entry(1216, "ER_NO_REFERENCED_ROW"),
            Map.entry(1217, "ER_ROW_IS_REFERENCED"), Map.entry(1242, "ER_SUBQUERY_NO_1_ROW"), Map.entry(1264, "ER_WARN_DATA_OUT_OF_RANGE"),
            Map.entry(1292, "ER_TRUNCATED_WRONG_VALUE"), Map.entry(1364, "ER_NO_DEFAULT_FOR_FIELD"), Map.entry(1365, "ER_DIVISION_BY_ZERO"),
            Map.entry(1366, "ER_TRUNCATED_WRONG_VALUE_FOR_FIELD"), Map.entry(1406, "ER_DATA_TOO_LONG"),
            Map.entry(1451, "ER_ROW_IS_REFERENCED_2"), Map.entry(1452, "ER_NO_REFERENCED_ROW_2"), Map.entry(1690, "ER_DATA_OUT_OF_RANGE"),
            Map.entry(4025, "ER_CONSTRAINT_FAILED"));

    /** The test of {@code c}, if its engine's tests are mysqltest files; {@code trace} (may be null) tells which statements waited or failed. */
    public static Optional<String> render(TestCase c, Trace trace, Target target, String about) {
        if (target.engine().regressionTestFormat().orElse(null) != txfuzz.dbms.RegressionTestFormat.MYSQLTEST) {
            return Optional.empty();
        }
        StringBuilder sb = new StringBuilder();
        sb.append("# txfuzz: ").append(target.version()).append(", isolation ").append(c.isolation().sql()).append('\n');
        for (String line : about.strip().split("\n")) {
            sb.append("# ").append(line.strip()).append('\n');
        }
        sb.append("# A mysqltest file: put it in mysql-test/main/ and record its result with mysql-test-run --record.\n");
        if (trace == null) {
            sb.append("# There is no recorded run: every statement is run in turn; one that waits will stall the test.\n");
        }
        sb.append("\n--source include/have_innodb.inc\n\n");
        for (String s : c.setup()) {
            sb.append(statement(s)).append('\n');
        }
        for (Txn t : c.transactions()) {
            sb.append("\n--connect (").append(connection(t.id())).append(",localhost,root,,test)\n");
            for (String s : ReproduceScript.sessionSql(target, c, t)) {
                sb.append(statement(s)).append('\n');
            }
        }
        String current = null;
        for (ReplaySteps.Step step : ReplaySteps.of(c, trace)) {
            String con = connection(step.ref().txn());
            Stmt s = c.stmt(step.ref());
            String label = "T" + step.ref().txn() + ", step " + step.number();
            if (step.action() == ReplaySteps.Action.NOT_RUN) {
                sb.append("\n# ").append(label).append(" never ran, its transaction had ended: ").append(ReproduceScript.oneLine(s.sql())).append('\n');
                continue;
            }
            sb.append('\n');
            if (!con.equals(current)) {
                sb.append("--connection ").append(con).append('\n');
                current = con;
            }
            switch (step.action()) {
                case RUN -> sb.append("# ").append(label).append(outcome(step.recorded())).append('\n')
                        .append(expectedError(step.recorded())).append(statement(sqlOf(s, target, c))).append('\n');
                case SEND -> sb.append("# ").append(label).append(step.hung(trace) ? ": hung in the recorded run, txfuzz cancelled it"
                                : ": waits for a lock until a later step releases it").append('\n')
                        .append("--send\n").append(statement(sqlOf(s, target, c))).append('\n');
                case REAP -> sb.append("# ").append(label).append(" resumes").append(outcome(step.recorded())).append('\n')
                        .append(expectedError(step.recorded())).append("--reap\n");
                case ROLLBACK -> sb.append("# the engine aborted T").append(step.ref().txn()).append(": txfuzz ends it\n")
                        .append(statement("ROLLBACK")).append('\n');
                default -> throw new IllegalStateException(step.action().name());
            }
        }
        sb.append("\n--connection default\n");
        for (Txn t : c.transactions()) {
            sb.append("--disconnect ").append(connection(t.id())).append('\n');
        }
        for (String t : c.tables()) { // the final contents go into the recorded result
            sb.append("--sorted_result\n").append(statement("SELECT * FROM " + target.quote(t))).append('\n');
        }
        List<String> tables = new ArrayList<>();
        c.tables().forEach(t -> tables.add(target.quote(t)));
        sb.append(statement("DROP TABLE IF EXISTS " + String.join(", ", tables))).append('\n');
        return Optional.of(sb.toString());
    }

    static String connection(int txn) {
        return "con" + txn;
    }

    /** BEGIN, COMMIT and ROLLBACK as the engine's client spells them. */
    private static String sqlOf(Stmt s, Target target, TestCase c) {
        return s.kind() == StmtKind.BEGIN ? s.beginVariant().orElse(target.beginSql(c.mode())) : s.sql();
    }

    /** One line, ended by the delimiter: mysqltest reads a statement up to its {@code ;}. */
    private static String statement(String sql) {
        return ReproduceScript.terminated(ReproduceScript.oneLine(sql));
    }

    private static String outcome(StmtResult r) {
        return r == null ? "" : ", recorded: " + r.summary().replaceAll("\\s+", " ");
    }

    private static String expectedError(StmtResult r) {
        if (r == null || !r.failed()) {
            return "";
        }
        return "--error " + errorName(r.error()) + "\n";
    }

    /** The name mysqltest knows the code by, else the code; without a code (0: "no error" to mysqltest) the SQLSTATE. */
    static String errorName(StmtResult.EngineError e) {
        if (e.vendorCode() > 0) {
            return ERROR_NAMES.getOrDefault(e.vendorCode(), Integer.toString(e.vendorCode()));
        }
        return e.sqlState() == null ? "SHY000" : "S" + e.sqlState();
    }
}
