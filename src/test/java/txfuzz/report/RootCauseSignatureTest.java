package txfuzz.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.TrackedCases;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;
import txfuzz.oracle.isolation.IsolationOracle;
import txfuzz.oracle.wss.WssEvidence;
import txfuzz.oracle.wss.WssKind;

/**
 * One report per bug, not per random case: a finding is signed by what its evidence singles out
 * (an isolation cycle's shape, the kind of the statement that deviated), not by the statement kinds
 * and SQL features of the case that happened to show it. Isolation findings come from real H2 runs.
 */
class RootCauseSignatureTest {
    private static final String TABLES = "CREATE TABLE %s (k INT PRIMARY KEY, v INT, rid VARCHAR(100), wl VARCHAR(100))";

    private static TrackedCases twoTables() {
        return TrackedCases.on("h2").level(IsolationLevel.REPEATABLE_READ).table("a").table("b")
                .setup(TABLES.formatted("a"), TABLES.formatted("b"),
                        "INSERT INTO a (k, v, rid, wl) VALUES (1, 0, '1', ',0')", "INSERT INTO b (k, v, rid, wl) VALUES (1, 0, '2', ',0')");
    }

    /** H2 takes a REPEATABLE READ snapshot per table when the transaction first reads it: T1 sees T2's b but not T2's a. */
    static TestCase readSkewPlain() {
        TrackedCases b = twoTables();
        b.begin().read("SELECT x.rid, x.wl, x.v FROM a x", "true", false, "a")
                .read("SELECT x.rid, x.wl, x.v FROM b x", "true", false, "b").commit();
        b.begin().write("UPDATE a SET v = 1, wl = wl || ',2.1'", "a", "2.1", List.of(), false).postRead("a", "2.1")
                .write("UPDATE b SET v = 1, wl = wl || ',2.3'", "b", "2.3", List.of(), false).postRead("b", "2.3").commit();
        return b.order(1, 1, 2, 2, 2, 2, 2, 2, 1, 1);
    }

    /** The same bug through other SQL: ordered and filtered reads, an INSERT as T2's write of b, an index. */
    private static TestCase readSkewOtherShape() {
        TrackedCases b = twoTables().setup("CREATE INDEX ia ON a (v)");
        b.begin().read("SELECT x.rid, x.wl, x.v FROM a x WHERE x.v BETWEEN 0 AND 5 ORDER BY x.k", "v BETWEEN 0 AND 5", false, "a")
                .read("SELECT DISTINCT y.rid, y.wl, y.v FROM b y WHERE y.k IN (1, 2)", "k IN (1, 2)", false, "b").commit();
        b.begin().write("UPDATE a SET v = 2, wl = wl || ',2.1' WHERE k = 1", "a", "2.1", List.of(), false).postRead("a", "2.1")
                .write("INSERT INTO b (k, v, rid, wl) VALUES (2, 7, '2.3.0', ',2.3')", "b", "2.3", List.of("2.3.0"), false).commit();
        return b.order(1, 1, 2, 2, 2, 2, 2, 1, 1);
    }

    /** Each transaction reads one table and writes the other (write skew across tables; documented at H2 REPEATABLE READ). */
    private static TestCase writeSkewAcrossTables() {
        TrackedCases b = twoTables();
        b.begin().read("SELECT x.rid, x.wl, x.v FROM a x", "true", false, "a")
                .write("UPDATE b SET v = 1, wl = wl || ',1.2'", "b", "1.2", List.of(), false).postRead("b", "1.2").commit();
        b.begin().read("SELECT x.rid, x.wl, x.v FROM b x", "true", false, "b")
                .write("UPDATE a SET v = 1, wl = wl || ',2.2'", "a", "2.2", List.of(), false).postRead("a", "2.2").commit();
        return b.order(1, 2, 1, 2, 1, 1, 2, 2, 1, 2);
    }

    /** Each transaction reads one row and writes the other, both rows in one table. */
    private static TestCase writeSkewOneTable() {
        TrackedCases b = twoTables().setup("INSERT INTO a (k, v, rid, wl) VALUES (2, 0, '3', ',0')");
        b.begin().read("SELECT x.rid, x.wl, x.v FROM a x WHERE x.k = 1", "k = 1", false, "a")
                .write("UPDATE a SET v = 1, wl = wl || ',1.2' WHERE k = 2", "a", "1.2", List.of(), false).postRead("a", "1.2").commit();
        b.begin().read("SELECT x.rid, x.wl, x.v FROM a x WHERE x.k = 2", "k = 2", false, "a")
                .write("UPDATE a SET v = 1, wl = wl || ',2.2' WHERE k = 1", "a", "2.2", List.of(), false).postRead("a", "2.2").commit();
        return b.order(1, 2, 1, 2, 1, 1, 2, 2, 1, 2);
    }

    /** The isolation oracle's one violation of {@code c} on H2, with the signature the campaign gives it. */
    private static Signature signed(Target h2, TestCase c, String expectedKind) throws Exception {
        try (Executor ex = new Executor(h2, ExecutorConfig.defaults())) {
            List<Violation> found = new IsolationOracle().judge(c, ex.run(c), ex).violations();
            assertEquals(List.of(expectedKind), found.stream().map(v -> v.kind().label()).toList());
            return Signature.of(c, found.get(0));
        }
    }

    @Test
    void oneRootCauseShownByDifferentlyShapedCasesHasOneId() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            Signature plain = signed(h2, readSkewPlain(), "read-skew");
            Signature other = signed(h2, readSkewOtherShape(), "read-skew");
            assertNotEquals(plain.statements(), other.statements(), "the cases differ in statement kinds");
            assertNotEquals(plain.features(), other.features(), "and in SQL features");
            assertEquals(plain.id(), other.id(), plain.text() + " vs. " + other.text());
            assertEquals(List.of("rw wr · several tables"), plain.cause(), "the cycle's shape, rotation-normalised");
            assertTrue(other.caseText().contains("BETWEEN"), "the features stay as the secondary key: " + other.caseText());
        }
    }

    @Test
    void otherAnomalyKindsAndCycleShapesHaveOtherIds() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            Signature readSkew = signed(h2, readSkewPlain(), "read-skew");
            Signature acrossTables = signed(h2, writeSkewAcrossTables(), "write-skew");
            Signature oneTable = signed(h2, writeSkewOneTable(), "write-skew");
            assertNotEquals(readSkew.id(), acrossTables.id(), "another anomaly kind");
            assertEquals(List.of("rw rw · several tables"), acrossTables.cause());
            assertEquals(List.of("rw rw · one table"), oneTable.cause());
            assertNotEquals(acrossTables.id(), oneTable.id(), "the same kind, another cycle shape");
        }
    }

    private static Violation writeOutcome(String sql) {
        return new Violation(WssKind.WRITE_OUTCOME, Classification.BUG_CANDIDATE, "s", "d", null, Map.of(),
                new WssEvidence(WssKind.WRITE_OUTCOME, new StmtRef(1, 1), null, List.of(sql), null));
    }

    @Test
    void aDeviatingStatementSignsByItsKindNotByTheRestOfTheCase() {
        TestCase small = Cases.on("h2").table("t").setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)")
                .txn("UPDATE t SET v = 1 WHERE id = 1").txn("UPDATE t SET v = 2 WHERE id = 1").order(1, 2, 1, 2, 1, 2);
        TestCase big = Cases.on("h2").table("t").setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "CREATE INDEX i ON t (v)")
                .txn("SELECT v FROM t WHERE v IN (SELECT MAX(v) FROM t) ORDER BY v", "UPDATE t SET v = 1 WHERE id = 1")
                .txn("DELETE FROM t WHERE v LIKE '1%'").order(1, 2, 1, 1, 2, 1, 2);
        Signature a = Signature.of(small, writeOutcome("UPDATE t SET v = 1 WHERE id = 1"));
        Signature b = Signature.of(big, writeOutcome("UPDATE t SET v = 1 WHERE id = 1"));
        assertEquals(a.id(), b.id(), "the same deviating statement kind: " + a.text() + " vs. " + b.text());
        assertEquals(List.of("UPDATE"), a.cause());
        assertNotEquals(a.id(), Signature.of(big, writeOutcome("DELETE FROM t WHERE v LIKE '1%'")).id(), "another deviating statement kind");
    }
}
