package txfuzz.dbms.duckdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Database;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.model.IsolationLevel;

/** A simulation's DuckDB database without keys: the keys and the foreign key gone, everything else of the tables kept. Real DuckDB. */
class KeylessTablesTest {
    @Test
    void keysGoAndColumnsChecksDefaultsAndRowsStay() throws Exception {
        try (Target duckdb = Targets.create("duckdb"); Database db = duckdb.freshDatabase();
             Connection c = db.connect(IsolationLevel.SNAPSHOT, "default"); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t0 (c0 INT PRIMARY KEY, c1 INT DEFAULT 4 NOT NULL CHECK (c1 > 0), c2 VARCHAR(10) UNIQUE)");
            s.execute("CREATE UNIQUE INDEX i0 ON t0 (c1)");
            s.execute("CREATE TABLE t1 (c0 INT, c1 INT, PRIMARY KEY (c0, c1), FOREIGN KEY (c0) REFERENCES t0 (c0))");
            s.execute("CREATE TABLE t2 (c0 INT NOT NULL)");
            s.execute("INSERT INTO t0 VALUES (1, 5, 'a')");
            s.execute("INSERT INTO t1 VALUES (1, 2)");
            s.execute("INSERT INTO t2 VALUES (7)");

            new DuckdbEngine().dropKeyConstraints(c);

            s.execute("INSERT INTO t0 (c0, c2) VALUES (1, 'a')"); // the key, the UNIQUE and the unique index are gone; the default stays
            s.execute("INSERT INTO t1 VALUES (1, 2), (9, 9)"); // the key and the foreign key are gone
            assertEquals(List.of("1 5 a", "1 4 a"), rows(s, "SELECT c0, c1, c2 FROM t0 ORDER BY c1 DESC"));
            assertEquals(List.of("1 2", "1 2", "9 9"), rows(s, "SELECT c0, c1 FROM t1 ORDER BY c0, c1"));
            assertEquals(List.of("7"), rows(s, "SELECT c0 FROM t2"));
            assertThrows(SQLException.class, () -> execute(c, "INSERT INTO t0 (c0, c1) VALUES (2, 0)"), "the CHECK stays");
            assertThrows(SQLException.class, () -> execute(c, "INSERT INTO t0 (c0, c1) VALUES (3, NULL)"), "NOT NULL stays");
            assertThrows(SQLException.class, () -> execute(c, "INSERT INTO t0 (c0, c1) VALUES (NULL, 1)"), "a key's column stays NOT NULL");
            assertEquals(List.of("0"), rows(s, "SELECT COUNT(*) FROM duckdb_constraints() WHERE constraint_type IN ('PRIMARY KEY', 'UNIQUE', 'FOREIGN KEY')"));
        }
    }

    /** On a statement of its own: DuckDB's driver closes a statement that failed. */
    private static void execute(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static List<String> rows(Statement s, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                List<String> row = new ArrayList<>();
                for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                    row.add(rs.getString(i));
                }
                out.add(String.join(" ", row));
            }
        }
        return out;
    }
}
