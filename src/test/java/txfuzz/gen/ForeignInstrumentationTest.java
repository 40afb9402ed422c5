package txfuzz.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Dialect;
import txfuzz.dbms.Engine;
import txfuzz.dbms.Targets;
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;

/** {@link ForeignInstrumentation} without an engine: the generator's own cases, and what it refuses. */
class ForeignInstrumentationTest {
    private static final GenConfig PLAIN = GenConfig.defaults();

    /** The first difference between the generator's instrumented case and the foreign instrumentation of its plain twin, or null. */
    static String difference(TestCase generated, TestCase foreign) {
        if (!generated.order().equals(foreign.order())) {
            return "order " + generated.order() + " vs " + foreign.order();
        }
        for (Txn g : generated.transactions()) {
            Txn f = foreign.txn(g.id());
            if (g.statements().size() != f.statements().size()) {
                return "T" + g.id() + " has " + g.statements().size() + " statements, foreign " + f.statements().size() + ": " + g.statements().stream().map(Stmt::sql).toList() + " vs " + f.statements().stream().map(Stmt::sql).toList();
            }
            for (int i = 0; i < g.statements().size(); i++) {
                Stmt a = g.statements().get(i);
                Stmt b = f.statements().get(i);
                if (a.kind() != b.kind() || !java.util.Objects.equals(a.tracking(), b.tracking())) {
                    return "T" + g.id() + "." + i + " `" + a.sql() + "` " + a.kind() + " " + a.tracking() + "\n    vs `" + b.sql() + "` " + b.kind() + " " + b.tracking();
                }
            }
        }
        return null;
    }

    /**
     * The generator's own cases: the plain twin of a generated case (same seed and iteration), instrumented
     * here, is the generator's instrumented case statement for statement — the same kinds, the same
     * {@link txfuzz.model.Tracking} (tags, predicates, rids, roles), the same companions in the same
     * order — wherever every statement could be instrumented. The text may differ in spelling only.
     */
    /** Cases per engine; a deeper run: -Dgen.foreign.cases=2000 (the suite's sample was 300 until its time was cut). */
    static final int GENERATED_CASES = Integer.getInteger("gen.foreign.cases", 100);

    @Test
    void aGeneratedCaseInstrumentedFromItsPlainTwinIsTheGeneratorsOwn() {
        for (Engine e : Targets.engines()) {
            Dialect d = e.dialect();
            int same = 0;
            java.util.Map<String, Integer> reasons = new java.util.TreeMap<>();
            for (int i = 0; i < GENERATED_CASES; i++) {
                TestCase plain = new CaseGenerator(PLAIN).generate(e.name(), d, IsolationLevel.SERIALIZABLE, "default", 7, i);
                TestCase tracked = new CaseGenerator(PLAIN.withInstrumentation(true)).generate(e.name(), d, IsolationLevel.SERIALIZABLE, "default", 7, i);
                ForeignInstrumentation.Instrumented fi = ForeignInstrumentation.instrument(plain, d);
                if (!fi.rowTrackingComplete()) {
                    fi.unhandled().forEach(u -> reasons.merge(u.reason().replaceAll(" \\(.*", ""), 1, Integer::sum));
                    continue;
                }
                String diff = difference(tracked, fi.testCase());
                assertEquals(null, diff, e.name() + " seed 7 iteration " + i);
                same++;
            }
            System.out.println("generated-vs-foreign " + e.name() + ": " + same + " of " + GENERATED_CASES + " instrumented alike; statements kept as they are: " + reasons);
            assertTrue(same > 0, e.name());
        }
    }

    private static TestCase plainCase(List<String> setup, List<Stmt> body) {
        List<Stmt> all = new ArrayList<>();
        all.add(Stmt.begin());
        all.addAll(body);
        all.add(Stmt.commit());
        List<Integer> order = new ArrayList<>();
        all.forEach(x -> order.add(1));
        return new TestCase(TestCase.FORMAT_VERSION, "postgres", 0, 0, IsolationLevel.READ_COMMITTED, "default",
                txfuzz.model.ExecutionMode.PLAIN, List.of("t"), setup, List.of(new Txn(1, all)), order);
    }

    private static final List<String> SETUP = List.of("CREATE TABLE t (k INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 10), (2, 20)");

    @Test
    void initialRowsGetRidsAndTheInitialWriteList() {
        var fi = ForeignInstrumentation.instrument(plainCase(SETUP, List.of(Stmt.of(txfuzz.model.StmtKind.SELECT, "SELECT k FROM t"))),
                Targets.engine("postgres").dialect());
        assertTrue(fi.rowTrackingComplete(), fi.unhandled().toString());
        assertEquals(List.of("CREATE TABLE t (k INT PRIMARY KEY, v INT, rid VARCHAR (1000), wl VARCHAR (1000))",
                "INSERT INTO t VALUES (1, 10, '1', ',0'), (2, 20, '2', ',0')"), fi.testCase().setup());
    }

    /** {@code *} stands for the table's own columns, never for rid and wl: the plain columns of each row stay what they were. */
    @Test
    void starIsTheTablesDeclaredColumns() {
        var fi = ForeignInstrumentation.instrument(plainCase(SETUP, List.of(Stmt.of(txfuzz.model.StmtKind.SELECT, "SELECT * FROM t WHERE k = 1 FOR UPDATE"))),
                Targets.engine("postgres").dialect());
        Stmt read = fi.testCase().txn(1).statements().get(1);
        assertEquals("SELECT t.rid, t.wl, t.k, t.v FROM t WHERE k = 1 FOR UPDATE", read.sql());
        assertEquals(txfuzz.model.Tracking.read(List.of("t"), true, "k = 1"), read.tracking());
    }

    /** MariaDB's LOCK IN SHARE MODE, which the parser does not read, is a locking read all the same. */
    @Test
    void lockInShareModeIsALockingRead() {
        var fi = ForeignInstrumentation.instrument(plainCase(SETUP, List.of(Stmt.of(txfuzz.model.StmtKind.SELECT, "SELECT v FROM t WHERE k = 1 LOCK IN SHARE MODE"))),
                Targets.engine("mariadb").dialect());
        Stmt read = fi.testCase().txn(1).statements().get(1);
        assertEquals("SELECT t.rid, t.wl, v FROM t WHERE k = 1 LOCK IN SHARE MODE", read.sql());
        assertTrue(read.tracking().locking());
    }

    /** What it cannot instrument is kept as it is and named, and the case says the row-tracking oracles do not apply. */
    @Test
    void aStatementItCannotInstrumentIsKeptAndNamed() {
        Stmt odd = Stmt.of(txfuzz.model.StmtKind.UPDATE, "UPDATE t SET v = u.v FROM u WHERE t.k = u.k");
        Stmt unknown = Stmt.of(txfuzz.model.StmtKind.SELECT, "SELECT v FROM elsewhere");
        var fi = ForeignInstrumentation.instrument(plainCase(SETUP, List.of(odd, unknown)), Targets.engine("postgres").dialect());
        assertFalse(fi.rowTrackingComplete());
        assertEquals(2, fi.unhandled().size(), fi.unhandled().toString());
        assertEquals("T1.1", fi.unhandled().get(0).where());
        assertEquals("an UPDATE of joined tables", fi.unhandled().get(0).reason());
        assertTrue(fi.unhandled().get(1).reason().contains("elsewhere"), fi.unhandled().get(1).reason());
        assertEquals(odd.sql(), fi.testCase().txn(1).statements().get(1).sql(), "kept as it is");
        assertEquals(null, fi.testCase().txn(1).statements().get(1).tracking());
        assertTrue(fi.notApplicableBecause().orElseThrow().startsWith("not applicable: row tracking misses 2 statement(s)"));
    }

    /** A session setting touches no row: kept, without making the case untrackable. */
    @Test
    void aSessionSettingIsKeptAsItIs() {
        Stmt set = Stmt.of(txfuzz.model.StmtKind.OTHER, "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE");
        var fi = ForeignInstrumentation.instrument(plainCase(SETUP, List.of(set, Stmt.of(txfuzz.model.StmtKind.DELETE, "DELETE FROM t WHERE k = 2"))),
                Targets.engine("postgres").dialect());
        assertTrue(fi.rowTrackingComplete(), fi.unhandled().toString());
        List<Stmt> t1 = fi.testCase().txn(1).statements();
        assertEquals(set, t1.get(1));
        assertEquals("DELETE FROM t WHERE k = 2 RETURNING rid, wl", t1.get(2).sql());
        assertEquals(txfuzz.model.Tracking.write("t", "1.2", List.of(), true, "k = 2"), t1.get(2).tracking());
    }

    /** A case that lists no tables owns the tables its setup creates. */
    @Test
    void withoutATableListTheSetupsTablesAreTheCases() {
        TestCase listed = plainCase(SETUP, List.of(Stmt.of(txfuzz.model.StmtKind.UPDATE, "UPDATE t SET v = v + 1 WHERE k = 1")));
        TestCase unlisted = listed.withSetup(List.of(), listed.setup());
        var fi = ForeignInstrumentation.instrument(unlisted, Targets.engine("h2").dialect());
        assertTrue(fi.rowTrackingComplete(), fi.unhandled().toString());
        assertEquals(List.of("t"), fi.testCase().tables());
        assertEquals("UPDATE t SET v = v + 1, wl = wl || ',1.1' WHERE k = 1", fi.testCase().txn(1).statements().get(1).sql());
    }
}
