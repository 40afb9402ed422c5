package txfuzz.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.dbms.Target;
import txfuzz.dbms.TestServers;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.gen.ForeignInstrumentation;
import txfuzz.imports.Importer;
import txfuzz.model.DbState;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;

/**
 * The five statement forms bug reports use that import once skipped or crashed on (issue 35), each in a schedule written
 * for its engine, imported and judged there by judge-suite: a session setting inside a transaction (PostgreSQL's
 * {@code SET LOCAL}), {@code EXPLAIN} and {@code SHOW}, {@code REFRESH MATERIALIZED VIEW CONCURRENTLY}, MariaDB's
 * {@code START TRANSACTION} inside an open transaction, SQLite's {@code BEGIN IMMEDIATE}.
 */
class ReproducerFormsTest {
    private record Judged(JudgeSuite.Table table, Path out) {
        JudgeSuite.CaseRow only() {
            assertEquals(1, table.cases().size(), table.files().toString());
            JudgeSuite.CaseRow row = table.cases().get(0);
            assertNull(row.notRun(), row.toString());
            return row;
        }
    }

    private static Judged judge(String dbms, String schedule, Path dir) throws Exception {
        Path file = dir.resolve("report.txt");
        Files.writeString(file, schedule);
        Path out = dir.resolve("out");
        try (Target target = TestServers.open(dbms); Executor executor = new Executor(target, ExecutorConfig.defaults())) {
            var config = new JudgeSuite.Config(Importer.Options.defaults(), Duration.ofSeconds(20), true);
            return new Judged(new JudgeSuite(config, target, executor, out).run(List.of(file), line -> { }), out);
        }
    }

    /** The case judge-suite ran (written with its row tracking into cases/). */
    private static TestCase judgedCase(Judged j) throws Exception {
        return txfuzz.model.CaseJson.read(j.out().resolve("cases").resolve(j.only().caseFile()));
    }

    /**
     * wss, explicit and isolation pass; equiv says why it did not judge: its capture of the run needs row tracking on every
     * statement, and a setting or an inspection has none (a gap of equiv's, counted "not applicable", never a pass).
     */
    private static void assertJudgedButEquiv(JudgeSuite.CaseRow row) {
        assertEquals(Map.of("wss", "pass", "explicit", "pass", "isolation", "pass"),
                Map.of("wss", row.verdicts().get("wss"), "explicit", row.verdicts().get("explicit"), "isolation", row.verdicts().get("isolation")), row.toString());
        assertTrue(row.verdicts().get("equiv").equals("pass") || row.verdicts().get("equiv").startsWith("not applicable: the run cannot be captured"), row.toString());
    }

    private static StmtRef find(TestCase c, String sqlStart) {
        for (var t : c.transactions()) {
            for (int i = 0; i < t.statements().size(); i++) {
                if (t.statements().get(i).sql().startsWith(sqlStart)) {
                    return new StmtRef(t.id(), i);
                }
            }
        }
        throw new AssertionError("no statement " + sqlStart + " in " + c.transactions());
    }

    private static Trace run(String dbms, TestCase c) throws Exception {
        try (Target target = TestServers.open(dbms); Executor executor = new Executor(target, ExecutorConfig.defaults())) {
            return executor.run(c);
        }
    }

    /**
     * {@code SET LOCAL} inside a transaction (the report's join-method switch) once ended import with an internal error. It runs
     * in its session at its step — the SHOW after it in the same transaction reads the new value, the other session's SHOW the
     * old one — changes no row, so every oracle judges the case, and it stays in the case.
     */
    @Test
    void setLocalRunsAtItsStepAndEveryOracleJudges(@TempDir Path dir) throws Exception {
        Judged j = judge("postgres", """
                -- dbms: postgres
                -- isolation: READ COMMITTED
                CREATE TABLE t (k int PRIMARY KEY, v int);
                CREATE TABLE u (k int PRIMARY KEY, w int);
                INSERT INTO t VALUES (1, 10), (2, 20);
                INSERT INTO u VALUES (1, 100), (2, 200);
                T1: BEGIN
                T1: SET LOCAL enable_mergejoin = off
                T1: SHOW enable_mergejoin
                T1: SELECT t.k, v, w FROM t JOIN u ON t.k = u.k
                T2: UPDATE t SET v = v + 1 WHERE k = 1
                T2: SHOW enable_mergejoin
                T1: UPDATE t SET v = v + 5 WHERE k = 1
                T1: COMMIT
                """, dir);
        JudgeSuite.CaseRow row = j.only();
        assertJudgedButEquiv(row);
        TestCase c = judgedCase(j);
        Trace trace = run("postgres", c);
        assertEquals(List.of(List.of("off")), trace.executed(find(c, "SHOW enable_mergejoin")).orElseThrow().result().rows(), trace.toString());
        assertTrue(c.transactions().stream().anyMatch(t -> t.statements().stream().anyMatch(s -> s.kind() == StmtKind.OTHER
                && s.sql().equals("SET LOCAL enable_mergejoin = off"))), c.transactions().toString());
        // T2's SHOW, an autocommit statement: a transaction of its own
        StmtRef secondShow = c.transactions().stream().filter(t -> t.statements().stream().noneMatch(s -> s.sql().startsWith("SET LOCAL")))
                .flatMap(t -> java.util.stream.IntStream.range(0, t.statements().size()).filter(i -> t.statements().get(i).sql().startsWith("SHOW"))
                        .mapToObj(i -> new StmtRef(t.id(), i))).findFirst().orElseThrow(() -> new AssertionError(c.transactions().toString()));
        assertEquals(List.of(List.of("on")), trace.executed(secondShow).orElseThrow().result().rows(), "the other session keeps its own value");
    }

    /** {@code EXPLAIN} and {@code SHOW} run at their step and read no row: the writes around them are judged by every oracle. */
    @Test
    void explainAndShowRunAndTheRestIsJudged(@TempDir Path dir) throws Exception {
        Judged j = judge("postgres", """
                -- dbms: postgres
                -- isolation: READ COMMITTED
                CREATE TABLE t (k int PRIMARY KEY, v int);
                INSERT INTO t VALUES (1, 10), (2, 20);
                T1: BEGIN
                T1: EXPLAIN (costs off) UPDATE t SET v = v + 1 WHERE k = 1
                T1: UPDATE t SET v = v + 1 WHERE k = 1
                T2: BEGIN
                T2: SHOW transaction_isolation
                T2: UPDATE t SET v = v + 2 WHERE k = 1
                T1: COMMIT
                T2: COMMIT
                """, dir);
        JudgeSuite.CaseRow row = j.only();
        assertJudgedButEquiv(row);
        TestCase c = judgedCase(j);
        Trace trace = run("postgres", c);
        var explain = trace.executed(find(c, "EXPLAIN")).orElseThrow().result();
        assertTrue(!explain.failed() && explain.rows().toString().contains("Update on t"), explain.toString());
        assertEquals(List.of(List.of("read committed")), trace.executed(find(c, "SHOW")).orElseThrow().result().rows());
        assertEquals(List.of(List.of("1", "13"), List.of("2", "20")), DbState.sorted(trace.finalState().tables().get("t")).stream()
                .map(r -> r.subList(0, 2)).toList(), trace.finalState().toString());
    }

    /**
     * {@code REFRESH MATERIALIZED VIEW CONCURRENTLY}, which row tracking cannot follow, runs at its step; the oracles that need no
     * row tracking judge the case, and those that do say which statement kept them from it.
     */
    @Test
    void anUntrackableStatementIsJudgedByTheOraclesThatNeedNoTracking(@TempDir Path dir) throws Exception {
        Judged j = judge("postgres", """
                -- dbms: postgres
                -- isolation: SERIALIZABLE
                CREATE TABLE t (k int PRIMARY KEY, v int);
                INSERT INTO t VALUES (1, 10), (2, 20);
                CREATE MATERIALIZED VIEW mv AS SELECT k, v FROM t;
                CREATE UNIQUE INDEX mv_k ON mv (k);
                T1: BEGIN
                T1: SELECT v FROM t WHERE k = 1
                T2: BEGIN
                T2: UPDATE t SET v = 11 WHERE k = 1
                T2: REFRESH MATERIALIZED VIEW CONCURRENTLY mv
                T2: COMMIT
                T1: UPDATE t SET v = 21 WHERE k = 2
                T1: COMMIT
                """, dir);
        JudgeSuite.CaseRow row = j.only();
        assertEquals("pass", row.verdicts().get("wss"), row.toString());
        assertEquals("pass", row.verdicts().get("explicit"), row.toString());
        for (String o : List.of("isolation", "equiv")) {
            assertTrue(row.verdicts().get(o).startsWith("not applicable: ") && row.verdicts().get(o).contains("REFRESH MATERIALIZED VIEW CONCURRENTLY mv"),
                    o + ": " + row.verdicts().get(o));
            assertEquals(JudgeSuite.ROW_TRACKING_INCOMPLETE, row.notApplicable().get(o));
        }
        assertEquals(0, j.table().bugCandidates());
    }

    /**
     * MariaDB documents that START TRANSACTION in an open transaction commits it and starts another: the case has the two
     * transactions the engine ran. T1's first write is committed when T2 reads, so T2 sees it, and every oracle judges.
     */
    @Test
    void startTransactionInsideATransactionCommitsItOnMariadb(@TempDir Path dir) throws Exception {
        Judged j = judge("mariadb", """
                -- dbms: mariadb
                -- isolation: REPEATABLE READ
                CREATE TABLE t (k int PRIMARY KEY, v int);
                INSERT INTO t VALUES (1, 10), (2, 20);
                T1: START TRANSACTION
                T1: UPDATE t SET v = 11 WHERE k = 1
                T1: START TRANSACTION
                T2: SELECT v FROM t WHERE k = 1
                T1: UPDATE t SET v = 21 WHERE k = 2
                T1: ROLLBACK
                """, dir);
        JudgeSuite.CaseRow row = j.only();
        assertEquals(Map.of("wss", "pass", "explicit", "pass", "isolation", "pass", "equiv", "pass"), row.verdicts(), row.toString());
        TestCase c = judgedCase(j);
        assertEquals(3, c.transactions().size(), c.transactions().toString());
        assertEquals(StmtKind.COMMIT, c.txn(1).statements().get(c.txn(1).statements().size() - 1).kind(), "the implicit commit");
        assertEquals(StmtKind.ROLLBACK, c.txn(2).statements().get(c.txn(2).statements().size() - 1).kind());
        Trace trace = run("mariadb", c);
        StmtRef read = find(c, "SELECT t.rid, t.wl, v FROM t");
        assertEquals("11", trace.executed(read).orElseThrow().result().rows().get(0).get(2), trace.toString());
        assertEquals(List.of(List.of("1", "11"), List.of("2", "20")), DbState.sorted(trace.finalState().tables().get("t")).stream().map(r -> r.subList(0, 2)).toList());
    }

    /**
     * SQLite's BEGIN IMMEDIATE takes the write lock at BEGIN: the case runs in the "immediate" mode, so the second writer's BEGIN
     * fails with SQLITE_BUSY at once, as SQLite documents, instead of the deferred BEGIN's later conflict.
     */
    @Test
    void beginImmediateRunsInSqlitesImmediateMode(@TempDir Path dir) throws Exception {
        String schedule = """
                -- dbms: sqlite
                -- isolation: SERIALIZABLE
                CREATE TABLE t (k int PRIMARY KEY, v int);
                INSERT INTO t VALUES (1, 10), (2, 20);
                T1: BEGIN IMMEDIATE
                T1: SELECT v FROM t WHERE k = 1
                T2: BEGIN IMMEDIATE TRANSACTION
                T1: UPDATE t SET v = 11 WHERE k = 1
                T1: COMMIT
                T2: UPDATE t SET v = 12 WHERE k = 1
                T2: COMMIT
                """;
        Judged j = judge("sqlite", schedule, dir);
        JudgeSuite.CaseRow row = j.only();
        assertEquals(0, j.table().bugCandidates(), row.toString());
        assertEquals("pass", row.verdicts().get("explicit"), row.toString());
        TestCase c = judgedCase(j);
        assertEquals("immediate", c.mode());
        Trace trace = run("sqlite", c);
        var begin2 = trace.executed(new StmtRef(2, 0)).orElseThrow().result();
        assertTrue(begin2.failed() && begin2.error().toString().contains("BUSY"), begin2.toString());

        // EXCLUSIVE is IMMEDIATE in WAL mode; DEFERRED with IMMEDIATE in one schedule is no one mode: a one-line reason
        var exclusive = Importer.read(schedule.replace("BEGIN IMMEDIATE", "BEGIN EXCLUSIVE"), "x.txt", txfuzz.model.CaseSource.Format.SCHEDULE,
                Importer.Options.defaults(), Path.of("x.txt"));
        assertEquals("immediate", exclusive.cases().get(0).testCase().mode());
        var mixed = Importer.read(schedule.replace("BEGIN IMMEDIATE TRANSACTION", "BEGIN DEFERRED"), "m.txt", txfuzz.model.CaseSource.Format.SCHEDULE,
                Importer.Options.defaults(), Path.of("m.txt"));
        assertEquals(0, mixed.cases().size());
        assertTrue(mixed.skipped().get(0).reason().contains("different modes"), mixed.skipped().toString());
    }
}
