package txfuzz.exec;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import txfuzz.model.TestCase;
import txfuzz.dbms.Database;

/** Loads a case's schema and initial rows into a fresh database, for both run modes. */
final class CaseSetup {
    private CaseSetup() {
    }

    /** Runs the setup SQL on a session of its own; a statement the engine refuses makes the case invalid. */
    static void load(TestCase testCase, Database db) throws SetupFailedException, SQLException {
        try (Connection c = db.connect(testCase.isolation(), testCase.mode()); Statement s = c.createStatement()) {
            for (String sql : testCase.setup()) {
                try {
                    s.execute(sql);
                } catch (SQLException e) {
                    throw new SetupFailedException("setup failed at: " + sql + " — " + e.getMessage(), e);
                }
            }
        }
    }
}
