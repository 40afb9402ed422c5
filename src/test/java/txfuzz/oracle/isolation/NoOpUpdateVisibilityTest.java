package txfuzz.oracle.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.SharedServers;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Target;
import txfuzz.dbms.TestServers;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.exec.TrackedCases;
import txfuzz.history.Read;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.HistoryRecorder;
import txfuzz.oracle.Run;
import txfuzz.oracle.Violation;

/**
 * Issue 21 item 3 (MDEV-26642 class, TiDB #28212's schedule) on real MariaDB servers: at REPEATABLE
 * READ, T1 reads t, T2 sets row 2 to a = 10 and commits, T1's {@code UPDATE t SET a = 10 WHERE true}
 * matches all three rows but changes only rows 1 and 3 (row 2 already holds 10), and T1 reads t again.
 * The UPDATE's match read records the version of row 2 it matched (T2's); a later read of an older
 * version is an internal-consistency violation, a bug candidate: a transaction's DML makes the rows
 * it touches visible to it.
 */
class NoOpUpdateVisibilityTest {

    static TestCase noOpUpdate(String mode) {
        return noOpUpdate(mode, " WHERE true");
    }

    /** With T1's UPDATE's WHERE {@code where} (its match read's stays " WHERE true"). */
    static TestCase noOpUpdate(String mode, String where) {
        TrackedCases c = TrackedCases.on("mariadb").level(IsolationLevel.REPEATABLE_READ).mode(mode).table("t")
                .setup("CREATE TABLE t(a INT, b INT, rid VARCHAR(1000), wl VARCHAR(1000))",
                        "INSERT INTO t VALUES (0, 0, '1', ',0'), (1, 1, '2', ',0'), (2, 2, '3', ',0')");
        c.begin().read("SELECT rid, wl, a, b FROM t", "true", false, "t")
                .writeScanning("UPDATE t SET wl = IF(a <=> (10), wl, CONCAT(wl, ',1.2')), a = 10" + where, "t", "1.2", null)
                .postRead("t", "1.2").matchRead("t", "1.2", " WHERE true", "true")
                .read("SELECT rid, wl, a, b FROM t", "true", false, "t").commit();
        c.begin().writeScanning("UPDATE t SET wl = IF(a <=> (10), wl, CONCAT(wl, ',2.1')), a = 10 WHERE b = 1", "t", "2.1", null)
                .postRead("t", "2.1").matchRead("t", "2.1", " WHERE b = 1", "b = 1").commit();
        // T1 BEGIN, SELECT; T2 whole; T1 UPDATE, post-read, match read, SELECT, COMMIT
        return c.order(1, 1, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1);
    }

    record Judged(Trace trace, List<Violation> violations, List<Read> matched) {
    }

    static Judged judge(Target target, TestCase c) throws Exception {
        try (Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            Run run = Run.controlled(c, trace);
            List<Read> matched = HistoryRecorder.record(run).transactions().stream().filter(t -> t.id() == 1)
                    .flatMap(t -> t.ops().stream()).filter(o -> o instanceof Read r && r.matched()).map(o -> (Read) o).toList();
            return new Judged(trace, new IsolationOracle().judge(run, ex).violations(), matched);
        }
    }

    /** T1's last SELECT: (rid, wl, a, b) per row. */
    static List<List<String>> lastRead(Trace trace) {
        return trace.executed(new StmtRef(1, 5)).orElseThrow().result().rows().stream().sorted((x, y) -> x.get(0).compareTo(y.get(0))).toList();
    }

    @Test
    void mariadb10_11_5HidesTheRowItsUpdateMatchedAndTheOracleCatchesIt() throws Exception {
        try (Target maria = SharedServers.open("mariadb", "10.11.5")) {
            assertEquals(List.of("default"), maria.modes(), "10.11.5 has no innodb_snapshot_isolation to switch on");
            Judged j = judge(maria, noOpUpdate("default"));
            assertEquals(List.of("2:T0,T2"), j.matched().stream().map(r -> r.row() + ":" + r.wList()).toList(),
                    "the UPDATE matched row 2, in T2's version, without changing it");
            assertEquals(List.of("2", ",0", "1", "1"), lastRead(j.trace()).get(1), "10.11.5 shows T1 its snapshot of row 2: " + j.trace());
            Violation v = j.violations().stream().filter(x -> x.kind().label().equals("internal")).findFirst()
                    .orElseThrow(() -> new AssertionError(j.violations().toString()));
            assertEquals(Classification.BUG_CANDIDATE, v.classification());
            assertTrue(v.summary().contains("after its DML matched it"), v.summary());
        }
    }

    @Test
    void withSnapshotIsolationTheBundledMariadbRefusesTheUpdateAndNothingIsReported() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            assertEquals(List.of("default", "snapshot-isolation"), maria.modes());
            Judged j = judge(maria, noOpUpdate("snapshot-isolation"));
            assertEquals(ErrorClass.SERIALIZATION, j.trace().executed(new StmtRef(1, 2)).orElseThrow().result().errorClass(), j.trace().toString());
            assertEquals(List.of(), j.violations().stream().filter(v -> v.classification() == Classification.BUG_CANDIDATE).toList());
        }
    }

    /**
     * 11.4.5's default, innodb_snapshot_isolation=OFF, keeps 10.11.5's behaviour (MariaDB's fix of
     * MDEV-26642 is the opt-in variable): T1 still reads its snapshot of row 2, and the oracle files the
     * same bug candidate.
     */
    @Test
    void withItsDefaultOffTheBundledMariadbStillHidesTheRowAndTheOracleSaysSo() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            Judged j = judge(maria, noOpUpdate("default"));
            assertEquals(List.of("2", ",0", "1", "1"), lastRead(j.trace()).get(1), j.trace().toString());
            assertEquals(List.of(Classification.BUG_CANDIDATE), j.violations().stream().filter(v -> v.kind().label().equals("internal"))
                    .map(Violation::classification).toList(), j.violations().toString());
        }
    }

    /**
     * A reduced case whose UPDATE no longer has its match read's WHERE (here it skips row 2, which the
     * match read still returns): the match read says nothing of what the UPDATE matched, so nothing is
     * recorded and T1's snapshot read of row 2 is no violation.
     */
    @Test
    void aMatchReadWhoseWhereIsNotTheUpdatesRecordsNothing() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            Judged j = judge(maria, noOpUpdate("default", " WHERE b <> 1"));
            assertEquals(List.of("2", ",0", "1", "1"), lastRead(j.trace()).get(1), j.trace().toString());
            assertEquals(List.of(), j.matched());
            assertEquals(List.of(), j.violations().stream().filter(v -> v.kind().label().equals("internal")).toList());
        }
    }
}
