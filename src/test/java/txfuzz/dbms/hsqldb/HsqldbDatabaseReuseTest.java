package txfuzz.dbms.hsqldb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Database;
import txfuzz.model.IsolationLevel;

/**
 * A database is emptied and handed to the next case when its sessions have ended: the next case must
 * find it empty and in the mode it asks for. One left with a live session is shut down instead. Real HSQLDB.
 */
class HsqldbDatabaseReuseTest {
    private static String one(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            assertTrue(rs.next(), sql);
            return rs.getString(1);
        }
    }

    private static final String TABLES = "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = 'PUBLIC'";
    private static final String MODE = "SELECT PROPERTY_VALUE FROM INFORMATION_SCHEMA.SYSTEM_PROPERTIES WHERE PROPERTY_NAME = 'hsqldb.tx'";

    @Test
    void theNextCaseFindsAnEmptyDatabaseInItsOwnMode() throws Exception {
        try (HsqldbTarget target = new HsqldbTarget()) {
            Database first = target.freshDatabase();
            try (Connection c = first.connect(IsolationLevel.READ_COMMITTED, "locks"); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)");
                s.execute("CREATE VIEW w AS SELECT id FROM t");
                s.execute("INSERT INTO t VALUES (1, 1)");
                assertEquals("2", one(c, TABLES));
                assertEquals("locks", one(c, MODE).toLowerCase());
            }
            first.close();
            Database second = target.freshDatabase();
            try (Connection c = second.connect(IsolationLevel.READ_COMMITTED, "mvcc")) {
                assertEquals("0", one(c, TABLES));
                assertEquals("mvcc", one(c, MODE).toLowerCase());
                try (Statement s = c.createStatement()) {
                    s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)"); // the name is free again
                }
            }
            second.close();
        }
    }

    @Test
    void aDatabaseWithALiveSessionIsShutDownNotReused() throws Exception {
        try (HsqldbTarget target = new HsqldbTarget()) {
            Database first = target.freshDatabase();
            Connection open = first.connect(IsolationLevel.READ_COMMITTED, "mvcc");
            try (Statement s = open.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY)");
            }
            first.close();
            assertTrue(open.isClosed(), "SHUTDOWN ended the session left open");
            Database second = target.freshDatabase();
            try (Connection c = second.connect(IsolationLevel.READ_COMMITTED, "mvcc")) {
                assertEquals("0", one(c, TABLES));
            }
            second.close();
        }
    }
}
