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
     * a third of a MariaDB worker's time), and on a server one batch ({@link #runBatch}); every other statement runs as
     * it did, on its own, since some engines refuse DDL or maintenance inside a transaction.
     */
    static void load(TestCase testCase, Database db, Target target) throws SetupFailedException, SQLException {
        java.util.List<String> setup = testCase.setup();
        int ddl = ddlStatements(setup);
        java.util.List<String> tables = ddl < 0 ? null : setup.subList(0, ddl);
        // the same DDL as a former run of this database: its tables are kept, emptied and checked (docs/performance.md)
        boolean kept = tables != null && !tables.isEmpty() && db.hasTablesOf(tables);
        db.willRun(testCase);
        boolean batched = target.engine().server();
        try (Connection c = db.connect(testCase.isolation(), testCase.mode()); Statement s = c.createStatement()) {
            boolean inTransaction = false;
            java.util.List<String> rows = new java.util.ArrayList<>();
            for (int i = kept ? ddl : 0; i < setup.size(); i++) {
                if (!kept && i == ddl && tables != null && !tables.isEmpty()) {
                    db.madeTablesOf(tables);
                }
                String sql = setup.get(i);
                boolean addsRows = ADDS_ROWS.matcher(sql).find();
                if (addsRows != inTransaction) {
                    if (inTransaction) {
                        runBatch(c, s, rows, target);
                    }
                    commitOrBegin(c, addsRows, sql, target);
                    inTransaction = addsRows;
                }
                if (addsRows && batched) {
                    rows.add(sql);
                } else {
                    run(s, sql, target);
                }
            }
            if (inTransaction) {
                runBatch(c, s, rows, target);
                commitOrBegin(c, false, null, target);
            }
            if (!kept && ddl == setup.size() && ddl > 0) {
                db.madeTablesOf(tables); // a setup without rows
            }
        }
    }

    /**
     * How many statements of {@code setup} come before its first INSERT, when every one after it is an INSERT: those
     * make the tables a database may keep for the next run of the same setup. -1 when a statement other than an INSERT
     * follows an INSERT (the rows could take part in it: no keeping).
     */
    static int ddlStatements(java.util.List<String> setup) {
        int first = setup.size();
        for (int i = 0; i < setup.size(); i++) {
            if (ADDS_ROWS.matcher(setup.get(i)).find()) {
                first = i;
                break;
            }
        }
        for (int i = first; i < setup.size(); i++) {
            if (!ADDS_ROWS.matcher(setup.get(i)).find()) {
                return -1;
            }
        }
        return first;
    }

    private static void run(Statement s, String sql, Target target) throws SetupFailedException, SQLException {
        try {
            s.execute(sql);
        } catch (SQLException e) {
            throw failed(e, "setup failed at: " + sql, target);
        }
    }

    /**
     * A server's INSERTs as one JDBC batch, which the drivers send without waiting for each answer (PostgreSQL's and
     * MariaDB's pipeline a batch): one round trip instead of one per row. The statements, their order and the
     * transaction are the same. When the batch fails, its rows are rolled back and sent again one by one, as without
     * a batch, so a refused row is named (drivers report a batch's failure each in their own way) and a lost session
     * is thrown as it came.
     */
    private static void runBatch(Connection c, Statement s, java.util.List<String> rows, Target target) throws SetupFailedException, SQLException {
        if (rows.isEmpty()) {
            return;
        }
        try {
            for (String sql : rows) {
                s.addBatch(sql);
            }
            s.executeBatch();
        } catch (SQLException e) {
            SQLException cause = e.getNextException() != null ? e.getNextException() : e;
            if (target.classify(cause) == ErrorClass.CONNECTION_LOST || target.classify(e) == ErrorClass.CONNECTION_LOST) {
                throw cause;
            }
            try {
                s.clearBatch();
                c.rollback();
            } catch (SQLException second) {
                throw failed(second, "setup could not undo its rows after the engine refused one of them (" + cause.getMessage() + ")", target);
            }
            for (String sql : rows) {
                run(s, sql, target);
            }
        } finally {
            rows.clear();
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
