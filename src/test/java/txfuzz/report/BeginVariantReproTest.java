package txfuzz.report;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.dbms.TestServers;
import txfuzz.exec.Cases;
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;

/** A transaction begun by one of the engine's BEGIN variants is begun so in every reproducer, not by plain BEGIN. */
class BeginVariantReproTest {
    /** Two writers of one row; T1 begins with {@code variant}. */
    private static TestCase beganWith(String dbms, String variant) {
        TestCase c = Cases.on(dbms).table("t").level(IsolationLevel.REPEATABLE_READ)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)")
                .txn("SELECT v FROM t WHERE id = 1", "UPDATE t SET v = 1 WHERE id = 1")
                .txn("UPDATE t SET v = 2 WHERE id = 1")
                .order(1, 1, 2, 2, 2, 1, 1);
        List<Txn> txns = new ArrayList<>(c.transactions());
        List<Stmt> first = new ArrayList<>(txns.get(0).statements());
        first.set(0, Stmt.begin(variant));
        txns.set(0, new Txn(1, first));
        return c.withTransactions(txns, c.order());
    }

    @Test
    void mariadbScriptsStartTheSnapshot() {
        Target mariadb = TestServers.shared("mariadb");
        TestCase c = beganWith("mariadb", "START TRANSACTION WITH CONSISTENT SNAPSHOT");
        String test = MysqlTestScript.render(c, null, mariadb, "about").orElseThrow();
        assertTrue(test.contains("START TRANSACTION WITH CONSISTENT SNAPSHOT;"), test);
        assertTrue(test.contains("BEGIN;"), "T2 begins plainly:\n" + test);
        String sql = ReproduceScript.render(c, mariadb);
        assertTrue(sql.contains("START TRANSACTION WITH CONSISTENT SNAPSHOT;"), sql);
    }

    @Test
    void postgresSpecSaysStartTransaction() {
        Target postgres = TestServers.shared("postgres");
        String spec = IsolationTesterSpec.render(beganWith("postgres", "START TRANSACTION"), postgres, "about").orElseThrow();
        assertTrue(spec.contains("START TRANSACTION ISOLATION LEVEL REPEATABLE READ;"), spec);
        assertTrue(spec.contains("BEGIN ISOLATION LEVEL REPEATABLE READ;"), spec);
    }

    @Test
    void theJdbcProgramRunsTheVariant() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            String program = JdbcReproProgram.render(beganWith("h2", "START TRANSACTION"), null, h2, "about").orElseThrow();
            assertTrue(program.contains("\"BEGIN\", \"START TRANSACTION\""), program);
            assertTrue(program.contains("if (!sql.equals(\"BEGIN\"))"), program);
            assertTrue(program.contains("st.execute(BEGIN);"), "an engine that begins in SQL begins so, then runs the variant:\n" + program);
        }
    }
}
