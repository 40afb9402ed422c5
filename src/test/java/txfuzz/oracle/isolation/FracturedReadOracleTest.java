package txfuzz.oracle.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.rowset.CachedRowSet;
import javax.sql.rowset.RowSetProvider;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Database;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.Target;
import txfuzz.dbms.h2.H2Target;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.TestCase;
import txfuzz.model.Tracking;
import txfuzz.model.Txn;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Run;
import txfuzz.oracle.Violation;

/**
 * The per-statement view check (issue 11, item 1) on a real engine: T1 updates rows 1 and 2 and
 * commits; then T2 reads both in one statement. H2 shows both new versions: nothing to report. A
 * fault that hands T2 the old version of row 2 (as an engine with a broken snapshot would) makes
 * that statement show half of T1: a fractured read, a bug candidate at READ COMMITTED.
 */
class FracturedReadOracleTest {

    private static TestCase halfSeenCase(IsolationLevel level) {
        Stmt update = Stmt.of(StmtKind.UPDATE, "UPDATE t SET v = v + 1, wl = wl || ',1.1' WHERE id IN (1, 2)",
                Tracking.write("t", "1.1", List.of(), false));
        Stmt postRead = Stmt.of(StmtKind.SELECT, "SELECT rid, wl FROM t WHERE wl LIKE '%,1.1'", Tracking.postRead("t", "1.1"));
        Stmt read = Stmt.of(StmtKind.SELECT, "SELECT x0.rid, x0.wl, x0.id, x0.v FROM t x0 ORDER BY x0.id",
                Tracking.read(List.of("t"), false, null));
        return new TestCase(TestCase.FORMAT_VERSION, "h2", 0, 0, level, "default", null, List.of("t"),
                List.of("CREATE TABLE t(id INT PRIMARY KEY, v INT, rid VARCHAR(100), wl VARCHAR(1000))",
                        "INSERT INTO t VALUES (1, 0, '1', ',0'), (2, 0, '2', ',0')"),
                List.of(new Txn(1, List.of(Stmt.begin(), update, postRead, Stmt.commit())),
                        new Txn(2, List.of(Stmt.begin(), read, Stmt.commit()))),
                List.of(1, 1, 1, 1, 2, 2, 2));
    }

    private static List<Violation> judge(Target target, IsolationLevel level) throws Exception {
        TestCase c = halfSeenCase(level);
        try (Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            return new IsolationOracle().judge(Run.controlled(c, trace), ex).violations();
        }
    }

    @Test
    void aStatementSeesACommittedTransactionWhole() throws Exception {
        for (IsolationLevel level : List.of(IsolationLevel.READ_COMMITTED, IsolationLevel.REPEATABLE_READ, IsolationLevel.SERIALIZABLE)) {
            try (Target h2 = new H2Target()) {
                assertEquals(List.of(), judge(h2, level), level.name());
            }
        }
    }

    @Test
    void aStatementShowingHalfOfACommittedTransactionIsABugCandidate() throws Exception {
        List<Violation> vs;
        try (Target stale = new StaleRowTarget(new H2Target())) {
            vs = judge(stale, IsolationLevel.READ_COMMITTED);
        }
        Violation v = vs.stream().filter(x -> x.kind().label().equals("fractured-read")).findFirst().orElseThrow(() -> new AssertionError(vs.toString()));
        assertEquals(Classification.BUG_CANDIDATE, v.classification());
        assertTrue(v.summary().contains("T2") && v.summary().contains("T1"), v.summary());
    }

    /**
     * Fault injection: a SELECT that orders by x0.id returns row 2 as it was first inserted (wl ',0',
     * v 0), whatever was committed since: a stale version next to a current one.
     */
    static final class StaleRowTarget extends DelegatingTarget {
        StaleRowTarget(Target real) {
            super(real);
        }

        @Override
        public Database freshDatabase() throws SQLException {
            return wrappingStatements(real.freshDatabase(), (c, s) -> staleReads(s));
        }

        private static Statement staleReads(Statement s) {
            String[] last = new String[1];
            return (Statement) Proxy.newProxyInstance(StaleRowTarget.class.getClassLoader(), new Class<?>[] {Statement.class},
                    (proxy, method, args) -> {
                        if (method.getName().startsWith("execute") && args != null && args.length > 0 && args[0] instanceof String sql) {
                            last[0] = sql;
                        }
                        Object r = invoke(s, method, args);
                        if (method.getName().equals("getResultSet") && r != null && last[0] != null && last[0].endsWith("ORDER BY x0.id")) {
                            return stale((ResultSet) r);
                        }
                        return r;
                    });
        }

        private static ResultSet stale(ResultSet rs) throws SQLException {
            CachedRowSet copy = RowSetProvider.newFactory().createCachedRowSet();
            copy.populate(rs);
            rs.close();
            while (copy.next()) {
                if ("2".equals(copy.getString(1))) {
                    copy.updateString(2, ",0");
                    copy.updateInt(4, 0);
                    copy.updateRow(); // in memory only
                }
            }
            copy.beforeFirst();
            return copy;
        }
    }
}
