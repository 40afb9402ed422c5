package txfuzz.oracle.wss;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;
import txfuzz.dbms.Database;
import txfuzz.dbms.Target;
import txfuzz.model.TestCase;

/**
 * The databases a judged run's simulations load their views into. A simulation needs the case's tables as its setup made
 * them (with the identity column, keys dropped or kept) holding exactly the view it is given; making a database and running
 * the setup for each of them was most of a simulation's cost. Where the case's whole state is its tables' rows, one database
 * per way of preparing it is prepared once and every simulation reloads its view into it ({@link txfuzz.exec.StateLoader}
 * empties every table of the case before it fills them). Elsewhere each simulation gets a fresh database, as before:
 * a generated key, an identity column or a sequence would go on counting from the last simulation, and an object other
 * than a table or an index could hold what a reload does not restore.
 */
final class SimulationDatabases implements AutoCloseable {
    /** Setup statements whose whole effect is tables, indexes and their rows. */
    private static final Pattern TABLES_AND_ROWS = Pattern.compile(
            "^\\s*(CREATE\\s+(UNIQUE\\s+)?(TABLE|INDEX)\\b|INSERT\\s+INTO\\b)", Pattern.CASE_INSENSITIVE);
    /** Words of a value the engine generates, which a reload would not set back. */
    private static final Pattern GENERATED_VALUE = Pattern.compile(
            "\\b(AUTO_INCREMENT|AUTOINCREMENT|IDENTITY|SERIAL|BIGSERIAL|SMALLSERIAL|GENERATED|SEQUENCE|NEXTVAL|NEXT\\s+VALUE)\\b",
            Pattern.CASE_INSENSITIVE);

    /** How a simulation's database is made ready before any view is loaded: the setup, the identity column, the keys. */
    @FunctionalInterface
    interface Preparation {
        void prepare(Connection c, Statement s) throws SQLException;
    }

    private final Target target;
    private final TestCase testCase;
    private final boolean noGeneratedKeys;
    /** Whether the case is {@link #reloadable(TestCase)}: read on the first simulation (most explainers run none), then kept. */
    private Boolean reloadable;
    private final Map<String, Database> prepared = new HashMap<>();

    SimulationDatabases(Target target, TestCase testCase, boolean noGeneratedKeys) {
        this.target = target;
        this.testCase = testCase;
        this.noGeneratedKeys = noGeneratedKeys;
    }

    /** Whether a reload of its tables' rows sets a database of {@code c} back to any state a simulation needs. */
    static boolean reloadable(TestCase c) {
        return c.setup().stream().allMatch(sql -> TABLES_AND_ROWS.matcher(sql).find() && !GENERATED_VALUE.matcher(sql).find())
                && c.transactions().stream().flatMap(t -> t.statements().stream())
                        .allMatch(s -> s.kind() != txfuzz.model.StmtKind.OTHER && !GENERATED_VALUE.matcher(s.sql()).find());
    }

    /**
     * A session on a database made ready by {@code preparation}: the one prepared for {@code way} before, or a new one that
     * it prepares now (and, for a reloadable case, keeps). The caller loads its view before anything else.
     */
    Session open(String way, Preparation preparation) throws SQLException {
        if (reloadable == null) {
            reloadable = noGeneratedKeys && reloadable(testCase);
        }
        if (!reloadable) {
            Database db = target.freshDatabase();
            try {
                Connection c = db.connect(testCase.isolation(), testCase.mode());
                Session s = new Session(c, db, true);
                try {
                    preparation.prepare(c, s.statement());
                } catch (SQLException | RuntimeException e) {
                    s.close();
                    throw e;
                }
                return s;
            } catch (SQLException | RuntimeException e) {
                db.close();
                throw e;
            }
        }
        Database db = prepared.get(way);
        if (db == null) {
            db = target.freshDatabase();
            try (Connection c = db.connect(testCase.isolation(), testCase.mode()); Statement s = c.createStatement()) {
                preparation.prepare(c, s);
            } catch (SQLException | RuntimeException e) {
                db.close();
                throw e;
            }
            prepared.put(way, db);
        }
        return new Session(db.connect(testCase.isolation(), testCase.mode()), db, false);
    }

    @Override
    public void close() {
        prepared.values().forEach(Database::close);
        prepared.clear();
    }

    /** A simulation's session, on its database (closed with it where the session alone used it). */
    final class Session implements AutoCloseable {
        private final Connection connection;
        private final Database database;
        private final boolean own;
        private Statement statement;

        private Session(Connection connection, Database database, boolean own) {
            this.connection = connection;
            this.database = database;
            this.own = own;
        }

        Connection connection() {
            return connection;
        }

        /** A second session on the same database, at the case's level (to ask what the first holds locked); the caller closes it. */
        Connection another() throws SQLException {
            return database.connect(testCase.isolation(), testCase.mode());
        }

        Statement statement() throws SQLException {
            if (statement == null) {
                statement = connection.createStatement();
            }
            return statement;
        }

        @Override
        public void close() throws SQLException {
            try {
                if (statement != null) {
                    statement.close();
                }
                connection.close();
            } finally {
                if (own) {
                    database.close();
                }
            }
        }
    }
}
