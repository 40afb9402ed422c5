package txfuzz.reduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Engine;
import txfuzz.dbms.Targets;
import txfuzz.gen.CaseGenerator;
import txfuzz.gen.GenConfig;
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Tracking;
import txfuzz.model.Txn;

/**
 * Stripping the row tracking off a generated instrumented case gives the plain twin the generator
 * makes from the same seed and iteration, statement for statement and in the same order, on every
 * dialect — aggregates and UNIONs too, whose tracked form reads their rows and records the
 * statement beside it. What cannot be undone from the text is refused, never guessed.
 */
class TrackingStripperTest {
    private static final GenConfig TRACKED = GenConfig.defaults().withInstrumentation(true);
    private static final GenConfig PLAIN = GenConfig.defaults().withInstrumentation(false);

    @Test
    void strippingAGeneratedCaseGivesItsPlainTwinOnEveryDialect() {
        Map<String, int[]> counts = new TreeMap<>(); // per dbms: stripped, refused
        List<String> refusals = new ArrayList<>();
        int aggregatesOrUnions = 0;
        for (Engine e : Targets.engines()) {
            for (long seed = 1; seed <= 3; seed++) {
                for (long i = 0; i < 150; i++) {
                    TestCase tracked = new CaseGenerator(TRACKED).generate(e.name(), e.dialect(), IsolationLevel.SERIALIZABLE, "default", seed, i);
                    TestCase twin = new CaseGenerator(PLAIN).generate(e.name(), e.dialect(), IsolationLevel.SERIALIZABLE, "default", seed, i);
                    Stripped s = TrackingStripper.strip(tracked);
                    int[] c = counts.computeIfAbsent(e.name(), k -> new int[2]);
                    String where = e.name() + " seed " + seed + " iteration " + i;
                    if (s instanceof Stripped.CannotStrip no) {
                        c[1]++;
                        refusals.add(where + ": " + no.text());
                        continue;
                    }
                    c[0]++;
                    aggregatesOrUnions += twinHasAggregateOrUnion(twin) ? 1 : 0;
                    assertSameProgram(twin, ((Stripped.Plain) s).plain(), where);
                }
            }
        }
        int refused = counts.values().stream().mapToInt(c -> c[1]).sum();
        int total = counts.values().stream().mapToInt(c -> c[0] + c[1]).sum();
        StringBuilder figures = new StringBuilder();
        counts.forEach((k, v) -> figures.append(k).append(": ").append(v[0]).append(" stripped, ").append(v[1]).append(" refused\n"));
        System.out.println("TrackingStripperTest:\n" + figures);
        // an aggregate's or UNION's tracked form reads its rows, but the statement is recorded beside it: nothing is refused
        assertEquals(0, refused, "refused " + refused + " of " + total + ":\n" + figures + String.join("\n", refusals));
        assertTrue(aggregatesOrUnions > 0, "the cases should have aggregates or UNIONs to strip");
        counts.forEach((k, v) -> assertTrue(v[0] > 0, k + " never stripped"));
    }

    /**
     * On H2, every stripped case lines up with its tracked case statement for statement, so the
     * self-check compares them; generated from the same seed, they behave the same (as the twins do).
     */
    @Test
    void strippedCasesLineUpWithTheirTrackedRunOnH2() throws Exception {
        Engine h2 = Targets.engine("h2");
        int agreeing = 0;
        try (txfuzz.dbms.Target target = Targets.create("h2");
             txfuzz.exec.Executor ex = new txfuzz.exec.Executor(target, txfuzz.exec.ExecutorConfig.defaults())) {
            for (long i = 0; i < 30; i++) {
                TestCase tracked = new CaseGenerator(TRACKED).generate("h2", h2.dialect(), IsolationLevel.REPEATABLE_READ, "default", 5, i);
                TestCase plain = ((Stripped.Plain) TrackingStripper.strip(tracked)).plain();
                txfuzz.campaign.InstrumentationSelfCheck.Result r = txfuzz.campaign.InstrumentationSelfCheck.compare(tracked, ex.run(tracked), plain,
                        ex.run(plain));
                assertTrue(r.comparable(), "iteration " + i + ": " + r);
                agreeing += r.agrees() ? 1 : 0;
            }
        }
        assertTrue(agreeing >= 25, agreeing + " of 30 agree");
    }

    private static boolean twinHasAggregateOrUnion(TestCase twin) {
        return twin.transactions().stream().flatMap(t -> t.statements().stream()).map(Stmt::sql)
                .anyMatch(sql -> sql.startsWith("SELECT") && (sql.contains(" UNION ") || sql.matches(".*\\b(COUNT|MIN|MAX|SUM)\\(.*")));
    }

    /**
     * The same setup, per transaction the same data statements (an autocommit statement of the twin is
     * BEGIN, it, COMMIT in the tracked case and stays so), and the same submitted order of data statements.
     */
    private static void assertSameProgram(TestCase twin, TestCase plain, String where) {
        assertEquals(twin.setup(), plain.setup(), where);
        assertEquals(twin.tables(), plain.tables(), where);
        assertEquals(twin.transactions().size(), plain.transactions().size(), where);
        for (Txn t : twin.transactions()) {
            Txn p = plain.txn(t.id());
            assertEquals(t.body(), p.body(), where + " T" + t.id());
            if (t.explicit()) {
                assertEquals(t.statements(), p.statements(), where + " T" + t.id());
            } else {
                assertEquals(List.of(StmtKind.BEGIN, t.statements().get(0).kind(), StmtKind.COMMIT), p.statements().stream().map(Stmt::kind).toList(),
                        where + " T" + t.id());
            }
            assertTrue(p.statements().stream().allMatch(s -> s.tracking() == null), where);
        }
        assertEquals(dataOrder(twin), dataOrder(plain), where + ": the submitted order of data statements");
    }

    private static List<String> dataOrder(TestCase c) {
        List<String> out = new ArrayList<>();
        for (StmtRef r : c.submittedOrder()) {
            Stmt s = c.stmt(r);
            if (!s.kind().isControl()) {
                out.add("T" + r.txn() + ": " + s.sql());
            }
        }
        return out;
    }

    /** A DELETE's tag-update and delete by tag become the DELETE with the tag-update's WHERE, in the tag-update's place. */
    @Test
    void aTagUpdateAndItsDeleteByTagBecomeTheDelete() {
        TestCase tracked = new TestCase(TestCase.FORMAT_VERSION, "h2", 0, 0, IsolationLevel.READ_COMMITTED, "default", null, List.of("t"),
                List.of("CREATE TABLE t (id INT, v INT, rid VARCHAR(1000), wl VARCHAR(1000), PRIMARY KEY (id))",
                        "INSERT INTO t (id, v, rid, wl) VALUES (1, 0, '1', ',0')"),
                List.of(new Txn(1, List.of(Stmt.begin(),
                                Stmt.of(StmtKind.UPDATE, "UPDATE t SET wl = wl || ',1.1' WHERE v > (SELECT MIN(v) FROM t)", Tracking.tag("t", "1.1")),
                                Stmt.of(StmtKind.SELECT, "SELECT rid, wl FROM t WHERE wl LIKE '%,1.1'", Tracking.postRead("t", "1.1")),
                                Stmt.of(StmtKind.DELETE, "DELETE FROM t WHERE wl LIKE '%,1.1'", Tracking.write("t", "1.1", List.of(), true)),
                                Stmt.commit())),
                        new Txn(2, List.of(Stmt.begin(),
                                Stmt.of(StmtKind.SELECT, "SELECT x0.rid, x0.wl, x0.v FROM t x0 WHERE x0.id = 1", Tracking.read(List.of("t"), false, "id = 1")),
                                Stmt.commit()))),
                List.of(1, 1, 2, 2, 1, 2, 1, 1));
        TestCase plain = ((Stripped.Plain) TrackingStripper.strip(tracked)).plain();
        assertEquals(List.of("CREATE TABLE t (id INT, v INT, PRIMARY KEY (id))", "INSERT INTO t (id, v) VALUES (1, 0)"), plain.setup());
        assertEquals("DELETE FROM t WHERE v > (SELECT MIN(v) FROM t)", plain.txn(1).statements().get(1).sql());
        assertEquals("SELECT x0.v FROM t x0 WHERE x0.id = 1", plain.txn(2).statements().get(1).sql());
        // T2 reads and commits between T1's tag-update and its delete by tag: the DELETE takes the tag-update's place
        assertEquals(List.of(1, 1, 2, 2, 2, 1), plain.order());
    }

    @Test
    void aReadWithNothingButItsTrackingIsRefusedNotGuessed() {
        TestCase tracked = new TestCase(TestCase.FORMAT_VERSION, "h2", 0, 0, IsolationLevel.READ_COMMITTED, "default", null, List.of("t"),
                List.of("CREATE TABLE t (id INT, rid VARCHAR(1000), wl VARCHAR(1000))"),
                List.of(new Txn(1, List.of(Stmt.begin(), Stmt.of(StmtKind.SELECT, "SELECT x0.rid, x0.wl FROM t x0 WHERE x0.id > 1",
                        Tracking.read(List.of("t"), false, "id > 1")), Stmt.commit()))),
                List.of(1, 1, 1));
        Stripped.CannotStrip no = assertInstanceOf(Stripped.CannotStrip.class, TrackingStripper.strip(tracked));
        assertTrue(no.text().startsWith("cannot strip: T1.1 `SELECT x0.rid, x0.wl FROM t x0 WHERE x0.id > 1` reads rows"), no.text());
    }

    /** A reduced case whose aggregate's tracked read was changed apart from the recorded statement: refused. */
    @Test
    void anAggregateWhoseTrackedReadNoLongerMatchesIsRefused() {
        Tracking read = Tracking.read(List.of("t"), false, null).withPlain("SELECT COUNT(*) FROM t x0 WHERE x0.id > 1");
        TestCase tracked = new TestCase(TestCase.FORMAT_VERSION, "h2", 0, 0, IsolationLevel.READ_COMMITTED, "default", null, List.of("t"),
                List.of("CREATE TABLE t (id INT, rid VARCHAR(1000), wl VARCHAR(1000))"),
                List.of(new Txn(1, List.of(Stmt.begin(), Stmt.of(StmtKind.SELECT, "SELECT x0.rid, x0.wl FROM t x0 WHERE x0.id > 1", read),
                        Stmt.commit()))), List.of(1, 1, 1));
        assertEquals("SELECT COUNT(*) FROM t x0 WHERE x0.id > 1", ((Stripped.Plain) TrackingStripper.strip(tracked)).plain().txn(1).body().get(0).sql());
        TestCase changed = tracked.withTransactions(List.of(new Txn(1, List.of(Stmt.begin(),
                Stmt.of(StmtKind.SELECT, "SELECT x0.rid, x0.wl FROM t x0", read), Stmt.commit()))), List.of(1, 1, 1));
        Stripped.CannotStrip no = assertInstanceOf(Stripped.CannotStrip.class, TrackingStripper.strip(changed));
        assertTrue(no.why().contains("no longer reads what the statement it stands for"), no.text());
    }

    /** Text cut short anywhere (a hand-edited case) gives a plain program or a reason, never an exception. */
    @Test
    void mangledTextGivesAReasonNotAStackTrace() {
        Engine h2 = Targets.engine("h2");
        int refused = 0;
        for (long i = 0; i < 20; i++) {
            TestCase tracked = new CaseGenerator(TRACKED).generate("h2", h2.dialect(), IsolationLevel.SERIALIZABLE, "default", 9, i);
            for (Txn t : tracked.transactions()) {
                for (int k = 0; k < t.statements().size(); k++) {
                    Stmt s = t.statements().get(k);
                    for (int cut = 1; cut < s.sql().length(); cut += 7) {
                        List<Stmt> stmts = new ArrayList<>(t.statements());
                        stmts.set(k, new Stmt(s.kind(), s.sql().substring(0, cut), s.needsTransaction(), s.tracking()));
                        List<Txn> txns = new ArrayList<>(tracked.transactions());
                        txns.set(t.id() - 1, new Txn(t.id(), stmts));
                        Stripped out = TrackingStripper.strip(tracked.withTransactions(txns, tracked.order()));
                        refused += out instanceof Stripped.CannotStrip ? 1 : 0;
                    }
                }
            }
        }
        assertTrue(refused > 0, "some cut text must be refused");
    }

    /**
     * A hand-written write that assigns nothing but its tag writes the row without changing it: its plain form is
     * a self-assignment of the table's first column, qualified as the tag's expression was (MERGE's target).
     */
    @Test
    void aWriteOfNothingButItsTagBecomesASelfAssignment() {
        Tracking update = Tracking.write("t", "1.2", null, false, "k = 1");
        Tracking merge = Tracking.write("t", "2.1", null, false);
        TestCase tracked = new TestCase(TestCase.FORMAT_VERSION, "postgres", 0, 0, IsolationLevel.REPEATABLE_READ, "default", null, List.of("t", "s"),
                List.of("CREATE TABLE t (k INT, rid VARCHAR(100), wl VARCHAR(100))", "CREATE TABLE s (k INT, rid VARCHAR(100), wl VARCHAR(100))"),
                List.of(new Txn(1, List.of(Stmt.begin(), Stmt.of(StmtKind.UPDATE, "UPDATE t SET wl = wl || ',1.2' WHERE k = 1", update), Stmt.commit())),
                        new Txn(2, List.of(Stmt.begin(), Stmt.of(StmtKind.UPSERT,
                                "MERGE INTO t USING s x ON (t.k = x.k) WHEN MATCHED THEN UPDATE SET wl = t.wl || ',2.1'", merge), Stmt.commit()))),
                List.of(1, 1, 1, 2, 2, 2));
        TestCase plain = ((Stripped.Plain) TrackingStripper.strip(tracked)).plain();
        assertEquals("UPDATE t SET k = k WHERE k = 1", plain.txn(1).body().get(0).sql());
        assertEquals("MERGE INTO t USING s x ON (t.k = x.k) WHEN MATCHED THEN UPDATE SET k = t.k", plain.txn(2).body().get(0).sql());
        // the reducer still counts such a statement as nothing of the program: it has no columns to assign
        assertTrue(!TrackingStripper.hasPlainForm(tracked.txn(1).body().get(0)));
    }

    @Test
    void aCaseWithoutTrackingIsSaidToHaveNone() {
        TestCase plain = new TestCase(TestCase.FORMAT_VERSION, "h2", 0, 0, IsolationLevel.READ_COMMITTED, "default", null, List.of("t"),
                List.of("CREATE TABLE t (id INT)"), List.of(new Txn(1, List.of(Stmt.of(StmtKind.SELECT, "SELECT id FROM t")))), List.of(1));
        assertEquals(new Stripped.CannotStrip("the case carries no row tracking"), TrackingStripper.strip(plain));
    }
}
