package txfuzz.reduce;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.TestCase;
import txfuzz.model.Tracking;
import txfuzz.model.Txn;
import txfuzz.oracle.Violation;
import txfuzz.oracle.isolation.IsolationOracle;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;

/**
 * Reducing an isolation finding keeps each surviving write with its row-tracking companions, so
 * the reduced report still says which statement wrote which version (without them the versions
 * are still revealed by later reads, so a plain statement-by-statement reduction would drop the
 * post-reads). The finding is H2's real one: a REPEATABLE READ transaction takes each table's
 * snapshot when it first reads it, so it sees a concurrent commit in one table and not the other.
 */
class TrackedReductionTest {
    private static Stmt write(String sql, String table, String tag) {
        return Stmt.of(StmtKind.UPDATE, sql, Tracking.write(table, tag, List.of(), false));
    }

    private static Stmt postRead(String table, String tag) {
        return Stmt.of(StmtKind.SELECT, "SELECT rid, wl FROM " + table + " WHERE wl LIKE '%," + tag + "'", Tracking.postRead(table, tag));
    }

    private static Stmt read(String table) {
        return Stmt.of(StmtKind.SELECT, "SELECT x.rid, x.wl FROM " + table + " x", Tracking.read(List.of(table), false, "true"));
    }

    @Test
    void aWriteAndItsPostReadGoOrStayTogether() throws Exception {
        List<Stmt> t1 = List.of(Stmt.begin(), read("a"), read("c"), read("b"), Stmt.commit());
        List<Stmt> t2 = List.of(Stmt.begin(),
                write("UPDATE c SET v = 1, wl = wl || ',2.1'", "c", "2.1"), postRead("c", "2.1"),
                write("UPDATE a SET v = 1, wl = wl || ',2.3'", "a", "2.3"), postRead("a", "2.3"),
                write("UPDATE b SET v = 1, wl = wl || ',2.5'", "b", "2.5"), postRead("b", "2.5"),
                Stmt.commit());
        List<String> setup = new java.util.ArrayList<>();
        for (String t : List.of("a", "b", "c")) {
            setup.add("CREATE TABLE " + t + " (v INT, rid VARCHAR(100), wl VARCHAR(100))");
        }
        setup.add("INSERT INTO a (v, rid, wl) VALUES (0, '1', ',0')");
        setup.add("INSERT INTO b (v, rid, wl) VALUES (0, '2', ',0')");
        setup.add("INSERT INTO c (v, rid, wl) VALUES (0, '3', ',0')");
        // T1 reads a (and c); T2 writes c, a, b and commits; T1 reads b for the first time
        TestCase c = new TestCase(TestCase.FORMAT_VERSION, "h2", 0, 0, IsolationLevel.REPEATABLE_READ, "default", null, List.of("a", "b", "c"),
                setup, List.of(new Txn(1, t1), new Txn(2, t2)), List.of(1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1));
        try (Target h2 = Targets.create("h2"); Executor ex = new Executor(h2, ExecutorConfig.defaults())) {
            IsolationOracle oracle = new IsolationOracle();
            Violation v = oracle.judge(c, ex.run(c), ex).violations().get(0);
            assertEquals("read-skew", v.kind().label());
            Reduction r = new Reducer(ex, List.of(oracle), new ReduceConfig(Duration.ofSeconds(60))).reduce(c, v);
            List<Stmt> kept = r.reduced().txn(2).statements().stream().filter(st -> !st.kind().isControl()).toList();
            assertEquals(4, kept.size(), "two writes stay (either noise table is as good as the other), with their post-reads: " + kept);
            for (int i = 0; i < kept.size(); i += 2) {
                assertEquals(Tracking.Role.WRITE, kept.get(i).tracking().role());
                assertEquals(Tracking.Role.POST_READ, kept.get(i + 1).tracking().role(), "each write keeps its post-read: " + kept);
                assertEquals(kept.get(i).tracking().tag(), kept.get(i + 1).tracking().tag());
            }
            assertEquals(2, dataSql(r.reduced(), 1).size(), "T1 reads two tables: " + dataSql(r.reduced(), 1));
        }
    }

    private static List<String> dataSql(TestCase c, int txn) {
        return c.txn(txn).statements().stream().filter(s -> !s.kind().isControl()).map(Stmt::sql).toList();
    }
}
