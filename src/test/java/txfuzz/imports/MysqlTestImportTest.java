package txfuzz.imports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.model.CaseSource;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;

/** mysqltest files read as schedules: MariaDB's innodb.lock_isolation, and the connection/send/reap subset. */
@Tag("unit")
class MysqlTestImportTest {
    static final Path LOCK_ISOLATION = Path.of("src/test/resources/imports/mariadb/lock_isolation.test");

    @Test
    void lockIsolationImportsItsSixSchedulesWithTheirSessionSettingsAndLevels() {
        Importer.FileImport f = Importer.read(LOCK_ISOLATION, Importer.Options.defaults());
        assertEquals(6, f.schedules());
        assertEquals(List.of(), f.skipped());
        // each named by the bug its test is about and the line (of this copy) its schedule starts on
        assertEquals(List.of("MDEV-26642, line 14", "MDEV-26643, line 45", "MDEV-26643, line 68", "MDEV-26643, line 89", "MDEV-34108, line 117",
                "MDEV-33802, line 154"), f.cases().stream().map(Importer.Imported::schedule).toList());
        // the connection 'consistent' turned innodb_snapshot_isolation on for itself alone: its transactions carry the setting
        TestCase weird = f.cases().get(0).testCase();
        assertEquals(IsolationLevel.REPEATABLE_READ, weird.isolation());
        assertEquals(List.of(List.of(), List.of(), List.of("SET innodb_snapshot_isolation=ON"), List.of()),
                weird.transactions().stream().map(t -> t.settings()).toList());
        assertTrue(!weird.mixedLevels());
        // ... and kept it into the later tests of the file
        assertEquals(List.of("SET innodb_snapshot_isolation=ON"), f.cases().get(1).testCase().txn(2).settings());
        // con_weird's UPDATE runs at READ UNCOMMITTED (SET TRANSACTION: its next transaction), the rest at the server's REPEATABLE READ
        TestCase mixed = f.cases().get(3).testCase();
        assertEquals(IsolationLevel.REPEATABLE_READ, mixed.isolation());
        assertEquals(IsolationLevel.READ_UNCOMMITTED, mixed.txn(2).isolation());
        assertEquals(null, mixed.txn(1).isolation());
        assertTrue(mixed.mixedLevels());
        assertTrue(f.leftOut().contains("let $wait_condition (a wait for a session to block: txfuzz asks the engine who waits) (5 times)"),
                f.leftOut().toString());
    }

    @Test
    void withTheLevelGivenTheSendReapScheduleIsACase() {
        Importer.FileImport f = Importer.read(LOCK_ISOLATION, new Importer.Options(null, IsolationLevel.READ_UNCOMMITTED, 100));
        assertEquals(6, f.cases().size(), f.skipped().toString());
        TestCase c = f.cases().get(3).testCase();
        assertEquals("mariadb", c.dbms());
        assertEquals(IsolationLevel.READ_UNCOMMITTED, c.isolation());
        assertTrue(!c.mixedLevels());
        // the TRUNCATEs between the parts of the test leave the last rows only
        assertEquals(List.of("CREATE TABLE t(a INT, b INT) ENGINE=InnoDB", "INSERT INTO t VALUES(NULL, 1), (2, 2)"), c.setup());
        assertEquals(List.of("BEGIN", "UPDATE t SET a = 10", "SELECT * FROM t", "COMMIT"), c.txn(1).statements().stream().map(s -> s.sql()).toList());
        // the sent UPDATE is submitted where it is sent; con_weird's COMMIT after the reap ends no transaction (autocommit) and is dropped
        assertEquals(List.of("UPDATE t SET b = 20 WHERE a"), c.txn(2).statements().stream().map(s -> s.sql()).toList());
        assertEquals(List.of(1, 1, 2, 1, 1, 3), c.order());
        assertEquals(new CaseSource(CaseSource.Format.MYSQLTEST, "lock_isolation.test", "MDEV-26643, line 89"), c.source());
    }

    @Test
    void controlFlowMakesItsScheduleUnexpressible() {
        String text = """
                CREATE TABLE t (k INT PRIMARY KEY, v INT) ENGINE=InnoDB;
                INSERT INTO t VALUES (1, 1);
                --connect (con1,localhost,root,,)
                SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED;
                BEGIN;
                UPDATE t SET v = 2 WHERE k = 1;
                --connection default
                SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED;
                --send UPDATE t SET v = 3 WHERE k = 1
                --connection con1
                COMMIT;
                --connection default
                --reap
                --disconnect con1
                DROP TABLE t;
                CREATE TABLE u (k INT) ENGINE=InnoDB;
                BEGIN;
                if ($x) { SELECT 1; }
                COMMIT;
                DROP TABLE u;
                """;
        var f = Importer.read(text, "x.test", CaseSource.Format.MYSQLTEST, Importer.Options.defaults(), Path.of("x.test"));
        assertEquals(2, f.schedules());
        assertEquals(1, f.cases().size(), f.skipped().toString());
        TestCase c = f.cases().get(0).testCase();
        assertEquals(IsolationLevel.READ_COMMITTED, c.isolation());
        assertEquals(List.of("t"), c.tables());
        assertEquals(List.of(1, 1, 2, 1), c.order());
        assertTrue(f.skipped().get(0).reason().startsWith("if (mysqltest control flow or a variable) at line 18"), f.skipped().toString());
    }
}
