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

    /**
     * Runs the setup SQL on a session of its own; a statement the engine refuses makes the case invalid. A session
     * the engine lost (its server died under the setup) is the engine failing, not the case: thrown as it came, so a
     * campaign files it as a finding rather than counting an invalid case.
     */
    static void load(TestCase testCase, Database db, Target target) throws SetupFailedException, SQLException {
        try (Connection c = db.connect(testCase.isolation(), testCase.mode()); Statement s = c.createStatement()) {
            for (String sql : testCase.setup()) {
                try {
                    s.execute(sql);
                } catch (SQLException e) {
                    if (target.classify(e) == ErrorClass.CONNECTION_LOST) {
                        throw e;
                    }
                    throw new SetupFailedException("setup failed at: " + sql + " — " + e.getMessage(), e);
                }
            }
        }
    }
}
