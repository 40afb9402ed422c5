package txfuzz.dbms.mariadb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static txfuzz.dbms.EngineTests.exec;

import java.sql.Connection;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Database;
import txfuzz.dbms.Engine;
import txfuzz.dbms.Target;
import txfuzz.dbms.TestServers;
import txfuzz.model.IsolationLevel;

/**
 * The key InnoDB clusters a table by, as its data dictionary reports it, and whether a plan scans in its
 * order — on the real server (measured on 11.4.5, the tables of seed 22 i633 and the rule's exceptions).
 */
class ClusteredIndexTest {
    @Test
    void theDictionaryNamesThePrimaryKeyElseTheUniqueNotNullKeyInnodbClustersByElseNone() throws Exception {
        try (Target maria = TestServers.open("mariadb"); Database db = maria.freshDatabase();
             Connection c = db.connect(IsolationLevel.READ_COMMITTED, "default")) {
            exec(c, "CREATE TABLE pk (a INT NOT NULL PRIMARY KEY, b INT NOT NULL UNIQUE)",
                    // i633's t2: the nullable UNIQUE (c2) is declared first, UNIQUE (c3) is NOT NULL
                    "CREATE TABLE i633 (c0 INT, c1 INT, c2 INT, c3 INT NOT NULL, UNIQUE (c2), UNIQUE (c3))",
                    // two columns, in the key's order (b, a), not the table's; COLUMN_KEY = 'PRI' marks a and b alike
                    "CREATE TABLE pair (a INT NOT NULL, b INT NOT NULL, c INT, UNIQUE (c), UNIQUE KEY kb (b, a), UNIQUE KEY ka (a))",
                    // a prefix key declared first is passed over
                    "CREATE TABLE prefix (a VARCHAR(20) NOT NULL, b INT NOT NULL, UNIQUE KEY kp (a(3)), UNIQUE KEY kbb (b))",
                    // no key InnoDB could cluster by: a hidden row id
                    "CREATE TABLE hidden (a INT, b INT, UNIQUE (a))");
            assertEquals(Optional.of(new ClusteredIndex("PRIMARY", List.of("a"))), ClusteredIndex.of(c, "pk"));
            assertEquals(Optional.of(new ClusteredIndex("c3", List.of("c3"))), ClusteredIndex.of(c, "i633"));
            assertEquals(Optional.of(new ClusteredIndex("kb", List.of("b", "a"))), ClusteredIndex.of(c, "pair"));
            assertEquals(Optional.of(new ClusteredIndex("kbb", List.of("b"))), ClusteredIndex.of(c, "prefix"));
            assertEquals(Optional.empty(), ClusteredIndex.of(c, "hidden"));
            assertEquals(Optional.empty(), ClusteredIndex.of(c, "no_such_table"));
        }
    }

    /** A full scan of i633's clustered UNIQUE key is in key order; a scan through its nullable UNIQUE (c2) is not. */
    @Test
    void aPlanThroughTheUniqueNotNullClusteredKeyScansInKeyOrderAndOneThroughASecondaryKeyDoesNot() throws Exception {
        Engine engine = new MariadbEngine();
        try (Target maria = TestServers.open("mariadb"); Database db = maria.freshDatabase();
             Connection c = db.connect(IsolationLevel.READ_COMMITTED, "default")) {
            exec(c, "CREATE TABLE t (c0 INT, c1 INT, c2 INT, c3 INT NOT NULL, UNIQUE (c2), UNIQUE (c3))",
                    "INSERT INTO t VALUES (1, 8, 2, 9), (3, 8, NULL, 17)");
            assertEquals(Optional.of(true), engine.scansInClusteredKeyOrder(c, "UPDATE t SET c1 = NULL WHERE c0 <= c1", "t", "t"));
            assertEquals(Optional.of(true), engine.scansInClusteredKeyOrder(c, "UPDATE t SET c1 = 1 WHERE c3 > 3", "t", "t"));
            assertEquals(Optional.of(false), engine.scansInClusteredKeyOrder(c, "UPDATE t SET c1 = 1 WHERE c2 > 0", "t", "t"));
            assertEquals(Optional.of(List.of("c3")), engine.clusteredKey(c, "t"));
        }
    }
}
