package txfuzz.oracle.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import txfuzz.exec.TrackedCases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.SessionSlot;
import txfuzz.exec.Trace;
import txfuzz.history.History;
import txfuzz.history.HistoryJson;
import txfuzz.history.IsolationChecker;
import txfuzz.history.Op;
import txfuzz.history.Outcome;
import txfuzz.history.PredicateRead;
import txfuzz.history.Read;
import txfuzz.history.RowVersion;
import txfuzz.history.Transaction;
import txfuzz.history.Write;
import txfuzz.model.Stmt;
import txfuzz.model.TestCase;
import txfuzz.model.Tracking;
import txfuzz.model.Txn;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.oracle.HistoryRecorder;

/** Hand-written instrumented cases run on H2 by the executor, recorded into exact histories. */
class HistoryRecorderTest {
    private static Target h2;

    @BeforeAll
    static void open() {
        h2 = Targets.create("h2");
    }

    @AfterAll
    static void close() {
        h2.close();
    }

    static Trace run(Target target, TestCase c) throws Exception {
        try (Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            return ex.run(c);
        }
    }

    /** Ops in a compact form: "read 2 t 1 [0] L", "write 2 t 1 update [0,1]", "pred 7 t v > 15 {3=[0], …}". */
    static List<String> ops(Transaction t) {
        List<String> out = new ArrayList<>();
        for (Op op : t.ops()) {
            out.add(show(op));
        }
        return out;
    }

    static String show(Op op) {
        if (op instanceof Read r) {
            return "read " + r.stmt() + " " + r.table() + " " + r.row() + " " + r.wList() + (r.locking() ? " L" : "");
        }
        if (op instanceof Write w) {
            return "write " + w.stmt() + " " + w.table() + " " + w.row() + " " + w.kind().name().toLowerCase() + " " + w.wList();
        }
        PredicateRead p = (PredicateRead) op;
        List<String> rows = new ArrayList<>();
        for (RowVersion v : p.rows()) {
            rows.add(v.row() + "=" + v.wList());
        }
        return "pred " + p.stmt() + " " + p.table() + " " + p.predicate() + (p.locking() ? " L" : "") + " " + rows;
    }

    private static TrackedCases schema() {
        return TrackedCases.on("h2").table("t").table("u")
                .setup("CREATE TABLE t (k INT PRIMARY KEY, v INT, rid VARCHAR(100), wl VARCHAR(100))",
                        "CREATE TABLE u (k INT PRIMARY KEY, p INT REFERENCES t (k), rid VARCHAR(100), wl VARCHAR(100))",
                        "INSERT INTO t VALUES (1, 10, '1', ',0'), (2, 20, '2', ',0'), (3, 30, '3', ',0'), (5, 50, '5', ',0')",
                        "INSERT INTO u VALUES (1, 5, '4', ',0')");
    }

    @Test
    void insertUpdateDeletePredicateAndJoinReadsAbortedWriterAndARowReadAfterItsDelete() throws Exception {
        TestCase c = schema()
                .begin()
                .write("INSERT INTO t (k, v, rid, wl) VALUES (4, 40, '1.1.0', ',1.1')", "t", "1.1", List.of("1.1.0"), false)
                .write("UPDATE t SET v = v + 1, wl = wl || ',1.2' WHERE k = 1", "t", "1.2", List.of(), false)
                .postRead("t", "1.2")
                .tag("t", " WHERE k = 2", "1.6")
                .postRead("t", "1.6")
                .write("DELETE FROM t WHERE wl LIKE '%,1.6'", "t", "1.6", List.of(), true)
                .read("SELECT x.rid, x.wl, x.k FROM t x WHERE x.v > 15 ORDER BY x.k", "v > 15", false, "t")
                .read("SELECT x.rid, x.wl, y.rid, y.wl FROM t x JOIN u y ON x.k = y.k", null, false, "t", "u")
                .read("SELECT x.rid, x.wl, y.rid, y.wl FROM u y RIGHT JOIN t x ON x.k = y.k WHERE x.k = 3", null, false, "t", "u")
                .commit()
                .begin()
                .write("UPDATE t SET v = 0, wl = wl || ',2.1' WHERE k = 3", "t", "2.1", List.of(), false)
                .postRead("t", "2.1")
                .rollback()
                .begin()
                .read("SELECT x.rid, x.wl, x.v FROM t x WHERE x.k = 2 FOR UPDATE", "k = 2", true, "t")
                .commit()
                .serial();
        Trace trace = run(h2, c);
        History h = HistoryRecorder.record(c, trace);
        assertEquals(4, h.size(), HistoryJson.write(h));

        Transaction t1 = h.transactions().get(0);
        assertEquals(Outcome.COMMITTED, t1.outcome());
        assertEquals(List.of(
                "write 1 t 1.1.0 insert T1",
                "read 2 t 1 T0 L", "write 2 t 1 update T0,T1",
                "read 6 t 2 T0 L", "write 6 t 2 update T0,T1", "write 6 t 2 delete T0,T1,T1",
                "pred 7 t v > 15 [3=T0, 1.1.0=T1, 5=T0]",
                "read 8 t 1 T0,T1", "read 8 u 4 T0",
                "read 9 t 3 T0"), ops(t1));
        assertEquals(c.txn(1).statements().get(6).sql(), t1.sqlOf(6));

        Transaction t2 = h.transactions().get(1);
        assertEquals(Outcome.ABORTED, t2.outcome());
        assertEquals(List.of("read 1 t 3 T0 L", "write 1 t 3 update T0,T2"), ops(t2));

        Transaction t3 = h.transactions().get(2);
        assertEquals(List.of("pred 1 t k = 2 L []"), ops(t3));

        Transaction fin = h.transactions().get(3);
        assertEquals(4, fin.id());
        assertEquals(Outcome.COMMITTED, fin.outcome());
        assertEquals(List.of("pred 0 t true [1.1.0=T1, 1=T0,T1, 3=T0, 5=T0]", "pred 1 u true [4=T0]"), ops(fin).stream().map(HistoryRecorderTest::sortedRows).toList());
        assertEquals(List.of(1, 2, 3, 4), h.transactions().stream().map(Transaction::session).toList());

        assertTrue(IsolationChecker.analyze(h).findings().isEmpty(), () -> IsolationChecker.analyze(h).findings().toString());
        assertEquals(h, HistoryJson.read(HistoryJson.write(h), "mem"));
    }

    /** "pred 0 t true [b, a]" with its rows sorted, since the final state is sorted by value. */
    private static String sortedRows(String s) {
        int open = s.indexOf('[');
        List<String> rows = new ArrayList<>(List.of(s.substring(open + 1, s.length() - 1).split(", (?=[^,\\]]+=)")));
        rows.sort(null);
        return s.substring(0, open + 1) + String.join(", ", rows) + "]";
    }

    @Test
    void aDeleteThatFailsLeavesItsRowsTaggedAndRecordedAsUpdates() throws Exception {
        TestCase c = schema()
                .begin()
                .tag("t", " WHERE k >= 5", "1.3")
                .postRead("t", "1.3")
                .write("DELETE FROM t WHERE wl LIKE '%,1.3'", "t", "1.3", List.of(), true)
                .commit()
                .serial();
        Trace trace = run(h2, c);
        assertTrue(trace.executed(new txfuzz.model.StmtRef(1, 3)).orElseThrow().result().failed(), "the FK must refuse the delete");
        History h = HistoryRecorder.record(c, trace);
        assertEquals(List.of("read 3 t 5 T0 L", "write 3 t 5 update T0,T1"), ops(h.transactions().get(0)));
        assertTrue(IsolationChecker.analyze(h).findings().isEmpty(), () -> IsolationChecker.analyze(h).findings().toString());
    }

    @Test
    void anUpsertsInsertAndAnInsertSelectAreRevealedByThePostRead() throws Exception {
        TestCase c = schema()
                .begin()
                .write("MERGE INTO t USING u y ON (t.k = y.p) WHEN MATCHED THEN UPDATE SET v = 7, wl = t.wl || ',1.1'"
                        + " WHEN NOT MATCHED THEN INSERT (k, v, rid, wl) VALUES (y.p, 7, y.rid || '/1.1', ',1.1')", "t", "1.1", List.of(), false)
                .postRead("t", "1.1")
                .write("INSERT INTO t (k, v, rid, wl) SELECT y.k + 10, 0, y.rid || '/1.3', ',1.3' FROM u y", "t", "1.3", List.of(), false)
                .postRead("t", "1.3")
                .commit()
                .serial();
        History h = HistoryRecorder.record(c, run(h2, c));
        assertEquals(List.of("read 1 t 5 T0 L", "write 1 t 5 update T0,T1", "write 3 t 4/1.3 insert T1"), ops(h.transactions().get(0)));
    }

    @Test
    void sessionsComeFromTheSlotsAndAConnectionLostAtCommitIsUnknown() throws Exception {
        TestCase c = schema().begin().read("SELECT x.rid, x.wl FROM t x", "true", false, "t").commit()
                .begin().read("SELECT x.rid, x.wl FROM u x", "true", false, "u").commit().serial();
        Trace trace = run(h2, c);
        History h = HistoryRecorder.record(c, trace, Map.of(1, new SessionSlot(7, 0), 2, new SessionSlot(7, 1)));
        assertEquals(List.of(7, 7, 8), h.transactions().stream().map(Transaction::session).toList());
        assertEquals(List.of(0, 1, 0), h.transactions().stream().map(Transaction::seq).toList());
        assertEquals(3, h.transactions().get(2).id());
    }

    /** What a reducer may leave: a write without its post-read, a post-read without its write, a DELETE without its tag-update. */
    @Test
    void casesMissingCompanionsStillRecordWhatIsKnown() throws Exception {
        TestCase c = schema()
                .begin()
                .write("UPDATE t SET v = 1, wl = wl || ',1.1' WHERE k = 1", "t", "1.1", List.of(), false) // post-read removed
                .postRead("t", "1.9") // its write removed
                .tag("t", " WHERE k = 3", "1.4")
                .postRead("t", "1.4") // the DELETE removed: the rows keep the tag
                .postRead("t", "1.7") // tag-update removed: finds nothing
                .write("DELETE FROM t WHERE wl LIKE '%,1.7'", "t", "1.7", List.of(), true)
                .commit()
                .serial();
        History h = HistoryRecorder.record(c, run(h2, c));
        assertEquals(List.of("read 4 t 3 T0 L", "write 4 t 3 update T0,T1"), ops(h.transactions().get(0)));
        assertTrue(IsolationChecker.analyze(h).findings().isEmpty(), () -> IsolationChecker.analyze(h).findings().toString());

        // and a case without any tracking, or without a final state, gives plain transactions
        TestCase plain = c.withTransactions(c.transactions().stream()
                .map(t -> new Txn(t.id(), t.statements().stream().map(s -> s.withTracking(null)).toList())).toList(), c.order());
        Trace trace = run(h2, plain);
        History p = HistoryRecorder.record(plain, trace);
        assertEquals(1, p.size());
        assertTrue(p.transactions().get(0).ops().isEmpty());
        History noState = HistoryRecorder.record(c, new Trace(trace.schedule(), trace.outcomes(), trace.endOrder(), null, 0, List.of()));
        assertEquals(1, noState.size());
        assertNotNull(noState.transactions().get(0).sql());
    }

    @SuppressWarnings("unused")
    private static Stmt untracked(Stmt s) {
        return s.withTracking((Tracking) null);
    }
}
