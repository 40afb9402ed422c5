package txfuzz.oracle.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.TestServers;
import txfuzz.exec.TrackedCases;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.history.Anomaly;
import txfuzz.history.History;
import txfuzz.history.IsolationChecker;
import txfuzz.history.PredicateRead;
import txfuzz.history.Transaction;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.HistoryRecorder;
import txfuzz.oracle.Verdict;

/**
 * Write scans and subquery reads recorded as predicate reads (docs/history-format.md), on real
 * engines: snapshot isolation (PostgreSQL's REPEATABLE READ, H2's SERIALIZABLE) lets both
 * transactions of a write skew that runs only through them commit — found, and classified by what
 * the level proscribes and the engine documents — while PostgreSQL's SERIALIZABLE aborts one of
 * them; run serially, the same statements give no finding.
 */
class PredicateReadsEngineTest {
    private static final String TRACKED = "rid VARCHAR(100), wl VARCHAR(100)";

    private record Judged(Verdict verdict, History history) {
    }

    private static Judged judge(Target target, TestCase c) throws Exception {
        try (Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            return new Judged(new IsolationOracle().judge(c, trace, ex), HistoryRecorder.record(c, trace));
        }
    }

    private static List<String> kinds(Verdict v) {
        return v.violations().stream().map(x -> x.kind() + "/" + x.classification().label()).toList();
    }

    /**
     * T1: UPDATE t … WHERE c = 2, then INSERT a row with c = 1; T2: UPDATE t … WHERE c = 1, then
     * INSERT a row with c = 2; both UPDATEs run before either INSERT. T3 reads both predicates
     * afterwards. Each UPDATE's scan missed the other's row: G2 through two predicate
     * anti-dependencies, and nothing else connects T1 and T2.
     */
    static TrackedCases writeScanSkew(String dbms, IsolationLevel level) {
        TrackedCases b = TrackedCases.on(dbms).level(level).table("t")
                .setup("CREATE TABLE t (k INT PRIMARY KEY, c INT, v INT, " + TRACKED + ")", "INSERT INTO t (k, c, v, rid, wl) VALUES (0, 0, 0, '1', ',0')");
        for (int id = 1; id <= 2; id++) {
            int scanned = 3 - id;
            String insertTag = id + ".3";
            b.begin()
                    .writeScanning("UPDATE t SET v = v + 1, wl = wl || '," + id + ".1' WHERE c = " + scanned, "t", id + ".1", "c = " + scanned)
                    .postRead("t", id + ".1")
                    .write("INSERT INTO t (k, c, v, rid, wl) VALUES (" + id + ", " + id + ", 0, '" + insertTag + ".0', '," + insertTag + "')",
                            "t", insertTag, List.of(insertTag + ".0"), false)
                    .commit();
        }
        b.begin().read("SELECT x.rid, x.wl FROM t x WHERE x.c = 1", "c = 1", false, "t")
                .read("SELECT x.rid, x.wl FROM t x WHERE x.c = 2", "c = 2", false, "t").commit();
        return b;
    }

    /** Both UPDATEs before either INSERT, T1 commits first, T3 last. */
    private static final Integer[] CONCURRENT = {1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 3, 3, 3, 3};

    /**
     * UPDATE a SET v = 0 WHERE EXISTS (SELECT 1 FROM b s0 WHERE s0.v = 1), and the same with a and b
     * swapped, each followed (as the generator does) by its post-read and the subquery's companion
     * read {@code SELECT rid, wl FROM b WHERE v = 1}. From one snapshot each sees the
     * other's row still at v = 1: write skew that runs only through the subqueries.
     */
    static TrackedCases subquerySkew(String dbms, IsolationLevel level) {
        TrackedCases b = TrackedCases.on(dbms).level(level).table("a").table("b")
                .setup("CREATE TABLE a (k INT PRIMARY KEY, v INT, " + TRACKED + ")", "CREATE TABLE b (k INT PRIMARY KEY, v INT, " + TRACKED + ")",
                        "INSERT INTO a (k, v, rid, wl) VALUES (1, 1, '1', ',0')", "INSERT INTO b (k, v, rid, wl) VALUES (1, 1, '2', ',0')");
        for (int id = 1; id <= 2; id++) {
            String mine = id == 1 ? "a" : "b";
            String other = id == 1 ? "b" : "a";
            String tag = id + ".1";
            b.begin()
                    .write("UPDATE " + mine + " SET v = 0, wl = wl || '," + tag + "' WHERE EXISTS (SELECT 1 FROM " + other + " s0 WHERE s0.v = 1)",
                            mine, tag, List.of(), false)
                    .postRead(mine, tag)
                    .read("SELECT rid, wl FROM " + other + " WHERE v = 1", "v = 1", false, other)
                    .commit();
        }
        return b;
    }

    /**
     * G2 is proscribed only at SERIALIZABLE: PostgreSQL's REPEATABLE READ shows it, and the level
     * permits it (not reported); its SERIALIZABLE prevents it.
     */
    @Test
    void postgresRepeatableReadShowsG2ThroughUpdateScansWhichOnlySerializableProscribes() throws Exception {
        try (Target pg = TestServers.open("postgres")) {
            Judged rr = judge(pg, writeScanSkew("postgres", IsolationLevel.REPEATABLE_READ).order(CONCURRENT));
            assertTrue(IsolationChecker.observed(rr.history()).contains(Anomaly.G2), () -> rr.history().toString());
            assertEquals(List.of(), kinds(rr.verdict()), "REPEATABLE READ (PL-2.99) permits G2");

            Judged ser = judge(pg, writeScanSkew("postgres", IsolationLevel.SERIALIZABLE).order(CONCURRENT));
            assertEquals(List.of(), kinds(ser.verdict()), "SSI aborts one of the two");
            assertTrue(IsolationChecker.observed(ser.history()).isEmpty(), () -> ser.history().toString());
        }
    }

    /** H2's SERIALIZABLE is snapshot isolation and says so (its profile): the same G2 is reported as documented. */
    @Test
    void h2SerializableShowsDocumentedG2ThroughUpdateScans() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            Judged ser = judge(h2, writeScanSkew("h2", IsolationLevel.SERIALIZABLE).order(CONCURRENT));
            assertEquals(List.of("G2/documented"), kinds(ser.verdict()), () -> ser.history().toString());
        }
    }

    @Test
    void postgresRepeatableReadShowsWriteSkewThroughSubqueriesAndSerializablePreventsIt() throws Exception {
        try (Target pg = TestServers.open("postgres")) {
            Judged rr = judge(pg, subquerySkew("postgres", IsolationLevel.REPEATABLE_READ).order(1, 2, 1, 2, 1, 2, 1, 2, 1, 2));
            assertEquals(List.of("write-skew/documented"), kinds(rr.verdict()), () -> rr.history().toString());

            Judged ser = judge(pg, subquerySkew("postgres", IsolationLevel.SERIALIZABLE).order(1, 2, 1, 2, 1, 2, 1, 2, 1, 2));
            assertEquals(List.of(), kinds(ser.verdict()), "SSI aborts one of the two");
        }
    }

    /** Serially on H2 at SERIALIZABLE, the same statements pass, and the scans are in the history as locking predicate reads. */
    @Test
    void serialRunsOnH2PassAndRecordTheScans() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            TrackedCases scans = writeScanSkew("h2", IsolationLevel.SERIALIZABLE);
            // a DELETE of the rows with c = 1, instrumented as the generator does: tag-update, post-read, delete by tag
            scans.begin().tagScanning("t", " WHERE c = 1", "4.3", "c = 1").postRead("t", "4.3")
                    .write("DELETE FROM t WHERE wl LIKE '%,4.3'", "t", "4.3", List.of(), true).commit();
            Judged serial = judge(h2, scans.serial());
            assertEquals(List.of(), kinds(serial.verdict()));
            List<PredicateRead> writeScans = serial.history().transactions().stream().map(Transaction::ops).flatMap(List::stream)
                    .filter(o -> o instanceof PredicateRead p && p.locking()).map(o -> (PredicateRead) o).toList();
            assertEquals(List.of("c = 2/0", "c = 1/1", "c = 1/1"), writeScans.stream().map(p -> p.predicate() + "/" + p.rows().size()).toList(),
                    () -> serial.history().toString());

            Judged subqueries = judge(h2, subquerySkew("h2", IsolationLevel.SERIALIZABLE).serial());
            assertEquals(List.of(), kinds(subqueries.verdict()));
        }
    }
}
