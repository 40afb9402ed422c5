package txfuzz.oracle.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.SharedServers;
import txfuzz.dbms.TestServers;
import txfuzz.exec.TrackedCases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.HistoryRecorder;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Targets;

/**
 * The isolation oracle both ways on real engines: an anomaly a weak level shows is reported with
 * the right classification, and the same workload at the level that proscribes it yields no bug
 * candidate.
 */
class IsolationOracleEngineTest {
    private static Verdict judge(Target target, TestCase c) throws Exception {
        try (Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            return new IsolationOracle().judge(c, trace, ex);
        }
    }

    private static String concat(String dbms, String tag) {
        return dbms.equals("mariadb") ? "wl = CONCAT(wl, '," + tag + "')" : "wl = wl || '," + tag + "'";
    }

    /** Two rows; each transaction reads one and overwrites the other (the on-call doctors of Berenson et al.). */
    static TestCase writeSkew(String dbms, IsolationLevel level) {
        TrackedCases b = TrackedCases.on(dbms).level(level).table("t")
                .setup("CREATE TABLE t (k INT PRIMARY KEY, v INT, rid VARCHAR(100), wl VARCHAR(100))",
                        "INSERT INTO t (k, v, rid, wl) VALUES (1, 0, '1', ',0')", "INSERT INTO t (k, v, rid, wl) VALUES (2, 0, '2', ',0')");
        for (int id = 1; id <= 2; id++) {
            int other = 3 - id;
            String tag = id + ".2";
            b.begin()
                    .read("SELECT x.rid, x.wl, x.v FROM t x WHERE x.k = " + id, "k = " + id, false, "t")
                    .write("UPDATE t SET v = 1, " + concat(dbms, tag) + " WHERE k = " + other, "t", tag, List.of(), false)
                    .postRead("t", tag)
                    .commit();
        }
        // both read before either writes; T1 commits first
        return b.order(1, 2, 1, 2, 1, 1, 2, 2, 1, 2);
    }

    /** T1 reads the row from its snapshot, T2 overwrites it and commits, then T1 writes the row too. */
    static TestCase lostUpdate(String dbms, IsolationLevel level) {
        TrackedCases b = TrackedCases.on(dbms).level(level).table("t")
                .setup("CREATE TABLE t (k INT PRIMARY KEY, v INT, rid VARCHAR(100), wl VARCHAR(100))",
                        "INSERT INTO t (k, v, rid, wl) VALUES (1, 0, '1', ',0')");
        b.begin().read("SELECT x.rid, x.wl, x.v FROM t x WHERE x.k = 1", "k = 1", false, "t")
                .write("UPDATE t SET v = 5, " + concat(dbms, "1.2") + " WHERE k = 1", "t", "1.2", List.of(), false)
                .postRead("t", "1.2").commit();
        b.begin().write("UPDATE t SET v = 7, " + concat(dbms, "2.1") + " WHERE k = 1", "t", "2.1", List.of(), false)
                .postRead("t", "2.1").commit();
        return b.order(1, 1, 2, 2, 2, 2, 1, 1, 1);
    }

    /** T1 reads table a; T2 writes a and b and commits; T1 then reads b for the first time. */
    static TestCase readSkewAcrossTables(IsolationLevel level) {
        TrackedCases b = TrackedCases.on("h2").level(level).table("a").table("b")
                .setup("CREATE TABLE a (k INT PRIMARY KEY, v INT, rid VARCHAR(100), wl VARCHAR(100))",
                        "CREATE TABLE b (k INT PRIMARY KEY, v INT, rid VARCHAR(100), wl VARCHAR(100))",
                        "INSERT INTO a (k, v, rid, wl) VALUES (1, 0, '1', ',0')", "INSERT INTO b (k, v, rid, wl) VALUES (1, 0, '2', ',0')");
        b.begin().read("SELECT x.rid, x.wl, x.v FROM a x", "true", false, "a")
                .read("SELECT x.rid, x.wl, x.v FROM b x", "true", false, "b").commit();
        b.begin().write("UPDATE a SET v = 1, wl = wl || ',2.1'", "a", "2.1", List.of(), false).postRead("a", "2.1")
                .write("UPDATE b SET v = 1, wl = wl || ',2.3'", "b", "2.3", List.of(), false).postRead("b", "2.3").commit();
        return b.order(1, 1, 2, 2, 2, 2, 2, 2, 1, 1);
    }

    private static List<String> kinds(Verdict v) {
        return v.violations().stream().map(x -> x.kind() + "/" + x.classification().label()).toList();
    }

    @Test
    void postgresRepeatableReadShowsDocumentedWriteSkewAndSerializablePreventsIt() throws Exception {
        try (Target pg = TestServers.open("postgres")) {
            Verdict rr = judge(pg, writeSkew("postgres", IsolationLevel.REPEATABLE_READ));
            assertEquals(List.of("write-skew/documented"), kinds(rr));
            Violation v = rr.violations().get(0);
            assertTrue(v.reference().contains("XACT-REPEATABLE-READ"), v.reference());
            assertTrue(v.attachments().containsKey("write-skew.dot"));

            Verdict ser = judge(pg, writeSkew("postgres", IsolationLevel.SERIALIZABLE));
            assertEquals(List.of(), kinds(ser), "SSI aborts one of the two");
        }
    }

    @Test
    void mariadbRepeatableReadShowsDocumentedLostUpdateAndSerializablePreventsIt() throws Exception {
        try (Target maria = TestServers.open("mariadb")) {
            Verdict rr = judge(maria, lostUpdate("mariadb", IsolationLevel.REPEATABLE_READ));
            assertEquals(List.of("lost-update/documented"), kinds(rr));
            assertTrue(rr.violations().get(0).reference().contains("innodb-consistent-read"));

            Verdict ser = judge(maria, lostUpdate("mariadb", IsolationLevel.SERIALIZABLE));
            assertTrue(ser.violations().stream().noneMatch(x -> x.classification() == Classification.BUG_CANDIDATE), () -> kinds(ser).toString());
        }
    }

    /**
     * H2 takes a REPEATABLE READ transaction's snapshot of each table when it first touches that
     * table, so T1 sees T2's write of b but not of a: read skew, which PL-2.99 proscribes but H2's
     * manual does not rule out (its REPEATABLE READ rules out re-reading "the same row" changed; only SNAPSHOT
     * promises one snapshot of every table). The per-table snapshots are measured, not in the manual: not promised,
     * citing the manual's promise that holds. At SNAPSHOT it does not happen.
     */
    @Test
    void h2RepeatableReadReadSkewAcrossTablesIsNotPromisedAndSnapshotPreventsIt() throws Exception {
        try (Target h2 = Targets.create("h2", TargetOptions.version("2.3.232"))) {
            Verdict rr = judge(h2, readSkewAcrossTables(IsolationLevel.REPEATABLE_READ));
            assertEquals(List.of("read-skew/not-promised"), kinds(rr));
            assertTrue(rr.violations().get(0).reference().contains("advanced.html#transaction_isolation"), rr.violations().get(0).reference());
            Verdict si = judge(h2, readSkewAcrossTables(IsolationLevel.SNAPSHOT));
            assertEquals(List.of(), kinds(si));
        }
        try (Target h2 = Targets.create("h2")) {
            assertEquals(List.of("read-skew/not-promised"), kinds(judge(h2, readSkewAcrossTables(IsolationLevel.REPEATABLE_READ))), "the bundled H2 too");
        }
    }

    /**
     * The same per-table snapshots as read-write skew: T1 reads a, T2 updates a and b and commits, T1
     * then updates b, whose snapshot it takes only now (after T2's commit, so no concurrent-update
     * failure). Not promised at REPEATABLE READ; at SNAPSHOT T1's UPDATE of b fails (first committer wins).
     */
    @Test
    void h2RepeatableReadReadWriteSkewAcrossTablesIsNotPromisedAndSnapshotPreventsIt() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            Verdict rr = judge(h2, readWriteSkewAcrossTables(IsolationLevel.REPEATABLE_READ));
            assertEquals(List.of("read-write-skew/not-promised"), kinds(rr));
            assertTrue(rr.violations().get(0).reference().contains("advanced.html#transaction_isolation"), rr.violations().get(0).reference());
            assertEquals(List.of(), kinds(judge(h2, readWriteSkewAcrossTables(IsolationLevel.SNAPSHOT))));
        }
    }

    static TestCase readWriteSkewAcrossTables(IsolationLevel level) {
        TrackedCases b = TrackedCases.on("h2").level(level).table("a").table("b")
                .setup("CREATE TABLE a (k INT PRIMARY KEY, v INT, rid VARCHAR(100), wl VARCHAR(100))",
                        "CREATE TABLE b (k INT PRIMARY KEY, v INT, rid VARCHAR(100), wl VARCHAR(100))",
                        "INSERT INTO a (k, v, rid, wl) VALUES (1, 0, '1', ',0')", "INSERT INTO b (k, v, rid, wl) VALUES (1, 0, '2', ',0')");
        b.begin().read("SELECT x.rid, x.wl, x.v FROM a x", "true", false, "a")
                .write("UPDATE b SET v = 2, wl = wl || ',1.2'", "b", "1.2", List.of(), false).postRead("b", "1.2").commit();
        b.begin().write("UPDATE a SET v = 1, wl = wl || ',2.1'", "a", "2.1", List.of(), false).postRead("a", "2.1")
                .write("UPDATE b SET v = 1, wl = wl || ',2.3'", "b", "2.3", List.of(), false).postRead("b", "2.3").commit();
        return b.order(1, 1, 2, 2, 2, 2, 2, 2, 1, 1, 1);
    }

    /**
     * What H2 documents at REPEATABLE READ is read skew and read-write skew only: a re-read of one row that shows another
     * transaction's commit stays a bug candidate there. H2 does not do it (the clean run), so the fault
     * is injected: a target that opens every session at READ COMMITTED while the case asks for
     * REPEATABLE READ.
     */
    @Test
    void h2RepeatableReadNonRepeatableReadOfOneRowIsStillABugCandidate() throws Exception {
        TrackedCases b = TrackedCases.on("h2").level(IsolationLevel.REPEATABLE_READ).table("a")
                .setup("CREATE TABLE a (k INT PRIMARY KEY, v INT, rid VARCHAR(100), wl VARCHAR(100))", "INSERT INTO a (k, v, rid, wl) VALUES (1, 0, '1', ',0')");
        b.begin().read("SELECT x.rid, x.wl, x.v FROM a x", "true", false, "a")
                .read("SELECT x.rid, x.wl, x.v FROM a x", "true", false, "a").commit();
        b.begin().write("UPDATE a SET v = 1, wl = wl || ',2.1'", "a", "2.1", List.of(), false).postRead("a", "2.1").commit();
        TestCase reread = b.order(1, 1, 2, 2, 2, 2, 1, 1);
        try (Target h2 = Targets.create("h2")) {
            assertEquals(List.of(), kinds(judge(h2, reread)), "H2's REPEATABLE READ re-reads the row from its snapshot");
            Target readCommitted = new ReadCommittedSessions(h2); // closed with h2
            assertEquals(List.of("non-repeatable-read/bug-candidate"), kinds(judge(readCommitted, reread)));
        }
    }

    /** Fault injection: every session runs at READ COMMITTED whatever level the case asks for (its profile stays the real one). */
    private static final class ReadCommittedSessions extends txfuzz.dbms.DelegatingTarget {
        ReadCommittedSessions(Target real) {
            super(real);
        }

        @Override
        public txfuzz.dbms.Database freshDatabase() throws java.sql.SQLException {
            txfuzz.dbms.Database db = real.freshDatabase();
            return new txfuzz.dbms.Database() {
                @Override
                public java.sql.Connection connect(IsolationLevel level, String mode) throws java.sql.SQLException {
                    return db.connect(IsolationLevel.READ_COMMITTED, mode);
                }

                @Override
                public String sessionId(java.sql.Connection c) throws java.sql.SQLException {
                    return db.sessionId(c);
                }

                @Override
                public java.util.Optional<txfuzz.dbms.LockProbe> lockProbe() throws java.sql.SQLException {
                    return db.lockProbe();
                }

                @Override
                public void close() {
                    db.close();
                }
            };
        }
    }

    /**
     * A DELETE is instrumented as a tag-update, then the delete: at READ UNCOMMITTED another
     * transaction can read the tagged version in between. That version is the deleter's
     * intermediate write (G1b, which READ UNCOMMITTED permits), not a read of the tombstone
     * (an incompatible order, which no level permits): a false alarm before the recorder modelled
     * the tag-update as a version of its own.
     */
    @Test
    void aDirtyReadOfARowBeingDeletedIsPermittedAtReadUncommitted() throws Exception {
        TrackedCases b = TrackedCases.on("h2").level(IsolationLevel.READ_UNCOMMITTED).table("t")
                .setup("CREATE TABLE t (k INT PRIMARY KEY, rid VARCHAR(100), wl VARCHAR(100))", "INSERT INTO t (k, rid, wl) VALUES (1, '1', ',0')");
        b.begin().read("SELECT x.rid, x.wl FROM t x", "true", false, "t").commit();
        b.begin().tag("t", "", "2.1").postRead("t", "2.1").write("DELETE FROM t WHERE wl LIKE '%,2.1'", "t", "2.1", List.of(), true).commit();
        TestCase c = b.order(2, 2, 2, 1, 1, 1, 2, 2);
        try (Target h2 = Targets.create("h2"); Executor ex = new Executor(h2, ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            java.util.Set<txfuzz.history.Anomaly> seen = txfuzz.history.IsolationChecker.analyze(HistoryRecorder.record(c, trace)).observed();
            assertEquals(java.util.Set.of(txfuzz.history.Anomaly.G1B), seen, "T1 read T2's intermediate version");
            assertEquals(List.of(), kinds(new IsolationOracle().judge(c, trace, ex)), "READ UNCOMMITTED permits G1b");
        }
    }

    /**
     * A reducer can replace a tracked column or constant (here the read's wl became c1, the
     * initial wl ''): such values are not write lists and are not read as versions. Before, "0"
     * was taken for the initial state and the transaction "did not see its own write".
     */
    @Test
    void valuesThatAreNotWriteListsAreIgnored() throws Exception {
        TrackedCases b = TrackedCases.on("h2").level(IsolationLevel.SERIALIZABLE).table("t0")
                .setup("CREATE TABLE t0 (c1 INT, rid VARCHAR(100), wl VARCHAR(100))", "INSERT INTO t0 (c1, rid, wl) VALUES (0, '1', '')");
        b.begin().write("UPDATE t0 SET wl = wl || ',1.1'", "t0", "1.1", List.of(), false).postRead("t0", "1.1")
                .read("SELECT x0.rid, x0.c1 FROM t0 x0", null, false, "t0").commit();
        try (Target h2 = Targets.create("h2")) {
            assertEquals(List.of(), kinds(judge(h2, b.serial())));
        }
    }

    /**
     * Derby at READ UNCOMMITTED: T2's UPDATE changes row 1's key to one T1 inserted and has not
     * committed, so it waits; a dirty reader sees row 1 with T2's tag meanwhile; T1 commits and
     * T2's UPDATE fails on the duplicate key and is rolled back, though T2 commits. The version the
     * reader saw never existed in a committed state: an aborted read (G1a, permitted at READ
     * UNCOMMITTED), not a lost write (incompatible order, a false bug candidate before).
     */
    @Test
    void aDirtyReadOfAStatementThatFailedIsAnAbortedRead() throws Exception {
        TrackedCases b = TrackedCases.on("derby").level(IsolationLevel.READ_UNCOMMITTED).table("t")
                .setup("CREATE TABLE t (k INT PRIMARY KEY, rid VARCHAR(100), wl VARCHAR(100))", "INSERT INTO t (k, rid, wl) VALUES (1, '1', ',0')");
        b.begin().write("INSERT INTO t (k, rid, wl) VALUES (10, '1.1.0', ',1.1')", "t", "1.1", List.of("1.1.0"), false).commit();
        b.begin().write("UPDATE t SET k = 10, wl = wl || ',2.1' WHERE k = 1", "t", "2.1", List.of(), false).postRead("t", "2.1").commit();
        b.begin().read("SELECT x.rid, x.wl FROM t x", "true", false, "t").commit();
        b.begin().write("UPDATE t SET wl = wl || ',4.1' WHERE k = 1", "t", "4.1", List.of(), false).postRead("t", "4.1").commit();
        // T1 inserts; T2's update waits on T1's key; T3 reads dirty; T1 commits, T2's update fails, T2 commits; T3 commits;
        // then T4 writes row 1 on top of the version that did exist
        TestCase c = b.order(1, 1, 2, 2, 3, 3, 1, 2, 2, 3, 4, 4, 4, 4);
        try (Target derby = Targets.create("derby"); Executor ex = new Executor(derby, ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            assertTrue(trace.executed(new txfuzz.model.StmtRef(2, 1)).orElseThrow().result().failed(), trace::toString);
            java.util.Set<txfuzz.history.Anomaly> seen = txfuzz.history.IsolationChecker.analyze(HistoryRecorder.record(c, trace)).observed();
            assertFalse(seen.isEmpty(), () -> "the reader saw T2's row (the executor's order is deterministic): " + trace);
            assertEquals(java.util.Set.of(txfuzz.history.Anomaly.G1A), seen);
            assertEquals(List.of(), kinds(new IsolationOracle().judge(c, trace, ex)));
        }
    }

    /**
     * H2 2.3.232 at REPEATABLE READ, SNAPSHOT and SERIALIZABLE: after a transaction changes rows'
     * primary keys, its own SELECT returns every changed row twice, before and after its write
     * (found by txfuzz's concurrent isolation table). The history shows the transaction reading
     * its own row without its write: "internal", a bug candidate at every level. READ COMMITTED
     * returns each row once.
     */
    @Test
    void h2ShowsATransactionBothVersionsOfARowWhoseKeyItChanged() throws Exception {
        for (IsolationLevel level : List.of(IsolationLevel.READ_COMMITTED, IsolationLevel.REPEATABLE_READ)) {
            TrackedCases b = TrackedCases.on("h2").level(level).table("t")
                    .setup("CREATE TABLE t (k INT PRIMARY KEY, rid VARCHAR(100), wl VARCHAR(100))",
                            "INSERT INTO t (k, rid, wl) VALUES (2, '1', ',0')", "INSERT INTO t (k, rid, wl) VALUES (0, '2', ',0')");
            b.begin().write("UPDATE t SET k = k - 1, wl = wl || ',1.1'", "t", "1.1", List.of(), false).postRead("t", "1.1")
                    .read("SELECT x.rid, x.wl FROM t x ORDER BY x.k DESC", null, false, "t").commit();
            try (Target h2 = Targets.create("h2", TargetOptions.version("2.3.232"))) {
                List<String> found = kinds(judge(h2, b.serial()));
                assertEquals(level == IsolationLevel.READ_COMMITTED ? List.of() : List.of("internal/bug-candidate"), found, level.name());
            }
        }
    }

    /**
     * PostgreSQL 15.10 (pinned: the bundled server is newer): MERGE at REPEATABLE READ overwrites a row
     * another transaction updated and committed after MERGE's snapshot, where UPDATE fails with 40001 —
     * a lost update. Found by `run --oracle isolation`; the release notes of 15.16 / 17.8 list the fix
     * ("MERGE must raise a serialization failure under REPEATABLE READ"), the zonky binaries show it
     * through 15.17 and not from 15.18 (`txfuzz bisect`). The same workload with UPDATE is clean.
     */
    @Test
    void postgres15MergeLosesAnUpdateAtRepeatableRead() throws Exception {
        try (Target pg = SharedServers.open("postgres", "15.10")) {
            for (boolean merge : new boolean[] {true, false}) {
                TrackedCases b = TrackedCases.on("postgres").level(IsolationLevel.REPEATABLE_READ).table("t").table("s")
                        .setup("CREATE TABLE t (k INT, rid VARCHAR(100), wl VARCHAR(100))", "CREATE TABLE s (k INT, rid VARCHAR(100), wl VARCHAR(100))",
                                "INSERT INTO t (k, rid, wl) VALUES (1, '1', ',0')", "INSERT INTO s (k, rid, wl) VALUES (1, '2', ',0')");
                String write = merge ? "MERGE INTO t USING s x ON (t.k = x.k) WHEN MATCHED THEN UPDATE SET wl = t.wl || ',1.2'"
                        : "UPDATE t SET wl = wl || ',1.2' WHERE k = 1";
                b.begin().read("SELECT x.rid, x.wl FROM t x", "true", false, "t").write(write, "t", "1.2", List.of(), false)
                        .postRead("t", "1.2").commit();
                b.begin().write("UPDATE t SET wl = wl || ',2.1'", "t", "2.1", List.of(), false).postRead("t", "2.1").commit();
                // T1 reads; T2 updates and commits; T1 writes the row
                TestCase c = b.order(1, 1, 2, 2, 2, 2, 1, 1, 1);
                assertEquals(merge ? List.of("lost-update/bug-candidate") : List.of(), kinds(judge(pg, c)), merge ? "MERGE" : "UPDATE");
            }
        }
    }
}
