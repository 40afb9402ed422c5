package txfuzz.dbms.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import txfuzz.dbms.Database;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.model.IsolationLevel;

/**
 * The scan order H2's profile gives the scan-order rules (DIRTY_SCAN_IN_KEY_ORDER): rows stored by _ROWID_, which is the
 * PRIMARY KEY when that is one integer column and the order of the inserts otherwise; a plan reading the table by
 * "tableScan" walks that order, one through another index does not.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class H2ScanOrderTest {
    @Test
    void rowsAreStoredByAnIntegerPrimaryKeyElseInInsertionOrder() throws Exception {
        try (Target h2 = Targets.create("h2"); Database db = h2.freshDatabase(); Connection c = db.connect(IsolationLevel.READ_COMMITTED, "default");
             Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t0 (c0 BIGINT PRIMARY KEY, c1 INT)");
            s.execute("CREATE TABLE t1 (c0 INT, c1 INT, PRIMARY KEY (c0, c1))");
            s.execute("CREATE TABLE t2 (c0 VARCHAR(10) PRIMARY KEY, c1 INT)");
            s.execute("CREATE TABLE t3 (c0 INT, c1 INT)");
            for (String t : List.of("t0", "t1", "t3")) {
                s.execute("INSERT INTO " + t + " VALUES (2, 1), (1, 1)");
            }
            s.execute("INSERT INTO t2 VALUES ('b', 1), ('a', 1)");
            H2Engine engine = new H2Engine();
            assertEquals(Optional.of(List.of("C0")), engine.clusteredKey(c, "t0"));
            assertEquals(List.of("1", "2"), firstColumnByRowId(s, "t0"));
            for (String t : List.of("t1", "t2", "t3")) {
                assertEquals(Optional.of(List.of()), engine.clusteredKey(c, t), t);
            }
            assertEquals(List.of("2", "1"), firstColumnByRowId(s, "t1"));
            assertEquals(List.of("b", "a"), firstColumnByRowId(s, "t2"));
            assertEquals(List.of("2", "1"), firstColumnByRowId(s, engine.insertionOrderRead("t3").orElseThrow().replace("SELECT * FROM ", "")));
        }
    }

    @Test
    void onlyAPlanReadingTheTableOrItsRowKeyScansInThatOrder() throws Exception {
        try (Target h2 = Targets.create("h2"); Database db = h2.freshDatabase(); Connection c = db.connect(IsolationLevel.READ_COMMITTED, "default");
             Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t1 (c0 INT, c1 INT, c2 INT)");
            s.execute("CREATE INDEX i1 ON t1 (c2)");
            H2Engine engine = new H2Engine();
            assertEquals(Optional.of(true), engine.scansInClusteredKeyOrder(c, "UPDATE t1 SET c0 = (SELECT COUNT(*) FROM t1 s0 WHERE s0.c2 <> t1.c2)", "t1", "t1"));
            assertEquals(Optional.of(true), engine.scansInClusteredKeyOrder(c, "DELETE FROM t1", "t1", "t1"));
            assertEquals(Optional.of(false), engine.scansInClusteredKeyOrder(c, "UPDATE t1 SET c0 = 1 WHERE c2 = 3", "t1", "t1"));
            assertEquals(Optional.of(false), engine.scansInClusteredKeyOrder(c, "UPDATE t1 x SET c0 = 1 WHERE x.c2 > 3", "t1", "x"));
            s.execute("CREATE TABLE t2 (c0 INT PRIMARY KEY, c1 INT)");
            s.execute("CREATE TABLE t3 (c0 VARCHAR(10) PRIMARY KEY, c1 INT)");
            assertEquals(Optional.of(true), engine.scansInClusteredKeyOrder(c, "UPDATE t2 SET c1 = 1 WHERE c0 > 0", "t2", "t2")); // the row key's own index
            assertEquals(Optional.of(false), engine.scansInClusteredKeyOrder(c, "UPDATE t3 SET c1 = 1 WHERE c0 > 'a'", "t3", "t3")); // a key apart from _ROWID_
        }
    }

    /** The first column of {@code from}'s rows in _ROWID_ order ({@code from}: a table, or a table and its ORDER BY). */
    private static List<String> firstColumnByRowId(Statement s, String from) throws Exception {
        String sql = from.contains("ORDER BY") ? "SELECT * FROM " + from : "SELECT * FROM " + from + " ORDER BY _ROWID_";
        List<String> out = new ArrayList<>();
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}
