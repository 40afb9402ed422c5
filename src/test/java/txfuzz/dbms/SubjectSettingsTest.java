package txfuzz.dbms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import txfuzz.model.IsolationLevel;

/** A subject's settings take effect on the real engine, one test per engine family; without the setting, the engine behaves as before. */
class SubjectSettingsTest {
    @Test
    void h2ModePostgresqlAcceptsOnConflictDoNothing() throws SQLException {
        String insert = "INSERT INTO t VALUES (1, 2) ON CONFLICT DO NOTHING";
        try (Target plain = Subject.parse("h2").open(null); Target pgMode = Subject.parse("h2+MODE=PostgreSQL").open(null)) {
            try (Connection c = session(pgMode)) {
                exec(c, "CREATE TABLE t (k INT PRIMARY KEY, v INT)");
                exec(c, "INSERT INTO t VALUES (1, 1)");
                exec(c, insert);
                assertEquals("1", value(c, "SELECT v FROM t WHERE k = 1"), "the duplicate was skipped");
            }
            try (Connection c = session(plain)) {
                exec(c, "CREATE TABLE t (k INT PRIMARY KEY, v INT)");
                assertThrows(SQLException.class, () -> exec(c, insert), "H2's own mode has no ON CONFLICT");
                // reproduce.sql's session set-up gives a plain session the setting
                for (String sql : setupOnly(pgMode, plain)) {
                    exec(c, sql);
                }
                exec(c, insert);
            }
        }
    }

    @Test
    void hsqldbSyntaxPgsIsTheDatabasesProperty() throws SQLException {
        String property = "SELECT PROPERTY_VALUE FROM INFORMATION_SCHEMA.SYSTEM_PROPERTIES WHERE PROPERTY_NAME = 'sql.syntax_pgs'";
        try (Target plain = Subject.parse("hsqldb").open(null); Target pgs = Subject.parse("hsqldb+sql.syntax_pgs=true").open(null)) {
            try (Connection c = session(pgs)) {
                assertEquals("TRUE", value(c, property).toUpperCase(java.util.Locale.ROOT));
                exec(c, "CREATE TABLE t (k SERIAL PRIMARY KEY, v INT)"); // PostgreSQL's SERIAL: only with sql.syntax_pgs
            }
            try (Connection c = session(plain)) {
                assertEquals("FALSE", value(c, property).toUpperCase(java.util.Locale.ROOT));
                assertThrows(SQLException.class, () -> exec(c, "CREATE TABLE t (k SERIAL PRIMARY KEY, v INT)"));
                for (String sql : setupOnly(pgs, plain)) {
                    exec(c, sql);
                }
                exec(c, "CREATE TABLE t (k SERIAL PRIMARY KEY, v INT)");
            }
        }
    }

    @Test
    void postgresPlannerSettingIsTheSessions() throws SQLException {
        try (Target pg = Subject.parse("postgres+enable_seqscan=off").open(null)) {
            try (Connection c = session(pg)) {
                assertEquals("off", value(c, "SHOW enable_seqscan"));
            }
            assertTrue(pg.sessionSetupSql(IsolationLevel.READ_COMMITTED, "default").contains("SET enable_seqscan = off"));
        }
    }

    @Test
    void mariadbSnapshotIsolationIsTheSessions() throws SQLException {
        // innodb_snapshot_isolation exists from 11.4 (and 10.11.8); 11.4 keeps it OFF by default
        try (Target on = Subject.parse("mariadb@11.4.5+innodb_snapshot_isolation=ON").open(null)) {
            try (Connection c = session(on)) {
                assertEquals("1", value(c, "SELECT @@SESSION.innodb_snapshot_isolation"));
                assertEquals("0", value(c, "SELECT @@GLOBAL.innodb_snapshot_isolation"), "the server's own value is left alone");
            }
            assertTrue(on.sessionSetupSql(IsolationLevel.REPEATABLE_READ, "default").contains("SET SESSION innodb_snapshot_isolation = ON"));
            assertEquals(Promise.SNAPSHOT_ISOLATION, on.promise(IsolationLevel.REPEATABLE_READ, "default").promise(),
                    "with the setting ON, REPEATABLE READ pairs with other engines' snapshot isolation");
            assertEquals(Promise.READ_COMMITTED, on.engine().promise(IsolationLevel.REPEATABLE_READ, "default").promise(), "without it, it does not");
        }
    }

    /** The session set-up lines {@code withSetting} has beyond {@code plain}'s: its settings as SQL. */
    private static java.util.List<String> setupOnly(Target withSetting, Target plain) {
        java.util.List<String> extra = new java.util.ArrayList<>(withSetting.sessionSetupSql(IsolationLevel.READ_COMMITTED, withSetting.modes().get(0)));
        extra.removeAll(plain.sessionSetupSql(IsolationLevel.READ_COMMITTED, plain.modes().get(0)));
        assertEquals(1, extra.size(), extra.toString());
        return extra;
    }

    private static Connection session(Target t) throws SQLException {
        return t.freshDatabase().connect(IsolationLevel.READ_COMMITTED, t.modes().get(0));
    }

    private static void exec(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static String value(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            assertTrue(rs.next(), sql);
            return rs.getString(1);
        }
    }
}
