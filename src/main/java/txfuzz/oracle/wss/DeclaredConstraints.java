package txfuzz.oracle.wss;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import txfuzz.dbms.Database;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Target;
import txfuzz.exec.StateLoader;
import txfuzz.model.DbState;
import txfuzz.model.TestCase;

/**
 * Whether a run's final state breaks a constraint its schema declares (a foreign key, a key, NOT NULL, CHECK):
 * the state is loaded into a fresh database made by the case's setup, with every constraint in place. The
 * engine enforces those constraints under every schedule and at every level, so such a state is no documented
 * visibility's outcome (H2's foreign-key check that does not lock the parent row left an orphan the wss
 * simulations, which run each write alone, reproduced and called documented).
 */
final class DeclaredConstraints {
    private DeclaredConstraints() {
    }

    /**
     * The engine's message when {@code state} breaks a declared constraint and {@code control}, a state the engine
     * produced serially, loads: the load is trusted only where it loads a state the engine made (tables are filled in
     * the case's order, which suits keys that point to earlier tables). Empty otherwise, also when the check cannot be made.
     */
    static Optional<String> brokenBy(TestCase c, Target target, DbState state, DbState control) {
        Optional<String> broken = loadFailure(c, target, state);
        return broken.isPresent() && loadFailure(c, target, control).isEmpty() ? broken : Optional.empty();
    }

    /** The constraint error loading {@code state} gives, if any; empty when it loads or fails for another reason. */
    private static Optional<String> loadFailure(TestCase c, Target target, DbState state) {
        try (Database db = target.freshDatabase(); Connection conn = db.connect(c.isolation(), c.mode()); Statement s = conn.createStatement()) {
            for (String sql : c.setup()) {
                s.execute(sql);
            }
            try {
                StateLoader.load(target, conn, c.tables(), state);
                return Optional.empty();
            } catch (SQLException e) {
                return target.classify(e) == ErrorClass.CONSTRAINT ? Optional.of(oneLine(e.getMessage())) : Optional.empty();
            }
        } catch (SQLException | RuntimeException e) {
            return Optional.empty(); // no fresh database to check on: nothing is claimed
        }
    }

    private static String oneLine(String message) {
        String m = message == null ? "" : message.strip();
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
