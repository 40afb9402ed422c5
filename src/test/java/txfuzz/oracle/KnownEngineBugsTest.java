package txfuzz.oracle;

import txfuzz.oracle.explicit.ExplicitOracle;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.wss.WssOracle;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Targets;

/**
 * Engine bugs txfuzz found, each on the engine version it was found in (loaded with --version's
 * mechanism, whatever version txfuzz bundles), kept as proof that the oracles catch real violations.
 */
class KnownEngineBugsTest {

    @Test
    void duckdb144LosesAnUpdateWhenAConcurrentTransactionChangesThePrimaryKey() throws Exception {
        // T1 changes the key of the only row, T2 concurrently increments its value; both commit and
        // T2's increment is gone. Snapshot isolation must abort one of two writers of the same row.
        TestCase c = Cases.on("duckdb").level(IsolationLevel.SNAPSHOT).table("t")
                .setup("CREATE TABLE t(k VARCHAR(10) PRIMARY KEY, v INT)", "INSERT INTO t VALUES ('e', 1)")
                .txn("UPDATE t SET k = 'a'")
                .txn("UPDATE t SET v = v + 10")
                .order(1, 2, 1, 2, 1, 2);
        try (Executor ex = new Executor(Targets.create("duckdb", TargetOptions.version("1.4.4.0")), ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            assertEquals(List.of(List.of("a", "1")), trace.finalState().tables().get("t"), "the increment is lost");
            Verdict v = new WssOracle().judge(c, trace, ex);
            assertTrue(v.violations().stream().anyMatch(x -> x.kind().label().equals("tx-wss") && x.classification() == Classification.BUG_CANDIDATE),
                    v.toString());
        }
    }

    @Test
    void h2MergeUsingNeverReturnsAtReadUncommitted() throws Exception {
        // An autocommit MERGE whose WHEN NOT MATCHED inserts into the table it matches against spins
        // forever at READ UNCOMMITTED in H2 2.3.232 (it finishes at once at READ COMMITTED).
        TestCase c = Cases.on("h2").level(IsolationLevel.READ_UNCOMMITTED).table("t0").table("t1")
                .setup("CREATE TABLE t0 (c0 INT, c1 DOUBLE PRECISION NOT NULL, c2 VARCHAR(10) NOT NULL, c3 DOUBLE PRECISION)",
                        "CREATE INDEX i0 ON t0 (c1)", "CREATE INDEX i1 ON t0 (c3)",
                        "CREATE TABLE t1 (c0 INT NOT NULL, c1 VARCHAR(10) CHECK (c1 <> 'e'), c2 DOUBLE PRECISION DEFAULT 5.0, "
                                + "c3 VARCHAR(10) NOT NULL, PRIMARY KEY (c0))",
                        "INSERT INTO t0 (c0, c1, c2, c3) VALUES (4, 9.5, 'c', 5.0)", "INSERT INTO t0 (c0, c1, c2, c3) VALUES (NULL, 9.5, 'c', 5.0)",
                        "INSERT INTO t1 (c0, c1, c2, c3) VALUES (2, NULL, 9.5, 'b')", "INSERT INTO t1 (c0, c1, c3) VALUES (9, NULL, 'd')",
                        "INSERT INTO t1 (c0, c1, c3) VALUES (5, 'b', 'b')", "INSERT INTO t1 (c0, c1, c2, c3) VALUES (4, 'a', 5.0, 'b')")
                .autocommit("MERGE INTO t0 USING t1 x0 ON (t0.c0 = x0.c0) WHEN NOT MATCHED THEN INSERT (c0, c1, c2) VALUES (x0.c0, x0.c2, x0.c3)")
                .order(1);
        try (Executor ex = new Executor(Targets.create("h2", TargetOptions.version("2.3.232")), ExecutorConfig.defaults())) {
            Verdict v = new ExplicitOracle().judge(c, ex.run(c), ex);
            assertEquals(List.of("hang"), v.violations().stream().map(vi -> vi.kind().label()).toList(), v.toString());
            Verdict atReadCommitted = new ExplicitOracle().judge(c.withIsolation(IsolationLevel.READ_COMMITTED),
                    ex.run(c.withIsolation(IsolationLevel.READ_COMMITTED)), ex);
            assertTrue(atReadCommitted.isClean(), atReadCommitted.toString());
        }
    }
}
