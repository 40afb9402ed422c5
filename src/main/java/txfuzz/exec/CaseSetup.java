package txfuzz.exec;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import txfuzz.model.TestCase;
import txfuzz.dbms.Database;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Target;

/** Loads a case's schema and initial rows into a fresh database, for both run modes. */
final class CaseSetup {
    private CaseSetup() {
    }

    /** A setup statement that adds rows: a run of them is sent as one transaction. */
    private static final java.util.regex.Pattern ADDS_ROWS = java.util.regex.Pattern.compile("^\\s*INSERT\\s+INTO\\b",
            java.util.regex.Pattern.CASE_INSENSITIVE);

    /**
     * Runs the setup SQL on a session of its own; a statement the engine refuses makes the case invalid. A session
     * the engine lost (its server died under the setup) is the engine failing, not the case: thrown as it came, so a
     * campaign files it as a finding rather than counting an invalid case. Each run of consecutive INSERTs is one
     * transaction: in autocommit every row was a commit of its own (on a server, a round trip and a log flush each,
     * a third of a MariaDB worker's time); every other statement runs as it did, on its own, since some engines refuse
     * DDL or maintenance inside a transaction.
     */
    static void load(TestCase testCase, Database db, Target target) throws SetupFailedException, SQLException {
        try (Connection c = db.connect(testCase.isolation(), testCase.mode()); Statement s = c.createStatement()) {
            boolean inTransaction = false;
            for (String sql : testCase.setup()) {
                boolean addsRows = ADDS_ROWS.matcher(sql).find();
                if (addsRows != inTransaction) {
                    commitOrBegin(c, addsRows, sql, target);
                    inTransaction = addsRows;
                }
                run(s, sql, target);
            }
            if (inTransaction) {
                commitOrBegin(c, false, null, target);
            }
        }
    }

    private static void run(Statement s, String sql, Target target) throws SetupFailedException, SQLException {
        try {
            s.execute(sql);
        } catch (SQLException e) {
            throw failed(e, "setup failed at: " + sql, target);
        }
    }

    /** Begins a transaction for the rows to come ({@code begin}), or commits the rows added and goes back to autocommit. */
    private static void commitOrBegin(Connection c, boolean begin, String next, Target target) throws SetupFailedException, SQLException {
        try {
            if (begin) {
                c.setAutoCommit(false);
            } else {
                c.commit();
                c.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw failed(e, begin ? "setup could not begin a transaction for its rows before: " + next : "setup could not commit its rows", target);
        }
    }

    /** The engine's error to throw on: a lost session as it came; any other is the case's setup failing, thrown here. */
    private static SQLException failed(SQLException e, String what, Target target) throws SetupFailedException {
        if (target.classify(e) == ErrorClass.CONNECTION_LOST) {
            return e;
        }
        throw new SetupFailedException(what + " — " + e.getMessage(), e);
    }
}
