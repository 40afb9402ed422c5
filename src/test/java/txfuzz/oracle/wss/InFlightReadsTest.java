package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import txfuzz.dbms.Database;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;

/**
 * A READ UNCOMMITTED write reading part of another transaction's write still in flight ({@link InFlightReads}), on real H2
 * 2.5.252: the shape of campaign h2-RU-s33-i9000, cut down. T2 inserts key 1 and holds it; T1's autocommit UPDATE moves
 * row 0 to key 1, which H2 does as a delete and an insert: the delete is done and visible to READ UNCOMMITTED readers
 * while the insert waits for T2's key. T2's INSERT … SELECT then reads t1 without row 0, T2 commits, and T1's UPDATE
 * fails with 23505 (its delete undone). READ UNCOMMITTED permits that read (PL-1 proscribes only G0; H2's manual:
 * "Dirty reads, non-repeatable reads, and phantom reads are possible.").
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class InFlightReadsTest {
    private static final StmtRef MOVING_UPDATE = new StmtRef(1, 0);
    private static final StmtRef READER = new StmtRef(2, 2);

    /** Row 0 moves to key 1 (held by T2) while T2 copies t1's c1 values to t0; row 2 is committed and nothing targets it. */
    static TestCase readerBesideAMovingUpdate() {
        return Cases.on("h2").level(IsolationLevel.READ_UNCOMMITTED).table("t0").table("t1")
                .setup("CREATE TABLE t0 (c0 INT)", "CREATE TABLE t1 (c0 INT PRIMARY KEY, c1 INT)",
                        "INSERT INTO t1 VALUES (0, 1), (2, 5)")
                .autocommit("UPDATE t1 SET c0 = c1 WHERE c0 = 0")
                .txn("INSERT INTO t1 VALUES (1, NULL)", "INSERT INTO t0 SELECT c1 FROM t1")
                .order(2, 2, 1, 2, 2);
    }

    @Test
    void h2ReadOfAHalfDoneMoveIsExplainedAsADirtyRead() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            WssRun run = WssRun.of(h2, readerBesideAMovingUpdate());
            assertTrue(run.trace().executed(MOVING_UPDATE).orElseThrow().blocked(), "the UPDATE waits for T2's key: " + run.trace());
            assertFalse(run.succeeded(MOVING_UPDATE), "the UPDATE fails on T2's key once T2 commits: " + run.trace());
            assertTrue(run.trace().executed(READER).orElseThrow().result().updateCount() == 2,
                    "the reader missed row 0, half moved: " + run.trace());
            assertExplainedAsAReadInFlight(run, "a serial replay copies 3 rows");
            assertTrue(run.verdict().violations().stream().allMatch(v -> String.valueOf(v.reference()).contains("dirty reads")),
                    run.verdict().toString());
        }
    }

    /**
     * That {@code run} has violations ({@code why} there are), none a bug candidate, each documented as a dirty read of a write
     * still in flight.
     */
    private static void assertExplainedAsAReadInFlight(WssRun run, String why) {
        List<Violation> found = run.verdict().violations();
        assertFalse(found.isEmpty(), why + ": " + run.trace());
        run.assertNoBugCandidate();
        assertTrue(found.stream().allMatch(v -> v.classification() == Classification.DOCUMENTED
                && String.valueOf(v.reference()).contains("still in flight")), run.verdict().toString());
    }

    private static final StmtRef WAITING_MERGE = new StmtRef(2, 0);
    private static final StmtRef MERGE_READER = new StmtRef(3, 0);

    /**
     * Campaign h2-RU-s7-i4260, reduced: T1 deletes every row of t0 and holds them; T2's autocommit MERGE inserts t0's row 0
     * for t1's first source row and then waits for T1's lock on row 6, which the second matches; T3's autocommit
     * {@code INSERT … SELECT} reads t0 meanwhile and copies the MERGE's row. T1 rolls back, row 6 is back, the MERGE's
     * update of it breaks t0's UNIQUE (c2) and the MERGE fails, its insert undone: T3 committed a copy of a row no one
     * committed, which READ UNCOMMITTED permits.
     */
    static TestCase readerBesideAWaitingMerge() {
        return Cases.on("h2").level(IsolationLevel.READ_UNCOMMITTED).table("t0").table("t1")
                .setup("CREATE TABLE t0 (c0 INT, c1 INT, c2 INT, PRIMARY KEY (c0), UNIQUE (c2))",
                        "CREATE TABLE t1 (c0 INT, c1 INT, PRIMARY KEY (c0))",
                        "INSERT INTO t0 (c0, c1, c2) VALUES (6, 0, 0), (1, NULL, 8)", "INSERT INTO t1 (c0, c1) VALUES (2, 6), (0, 0)")
                .txn("DELETE FROM t0", "ROLLBACK")
                .autocommit("MERGE INTO t0 USING t1 x0 ON (t0.c0 = x0.c1) WHEN MATCHED THEN UPDATE SET c2 = 8"
                        + " WHEN NOT MATCHED THEN INSERT (c0, c1) VALUES (x0.c1, x0.c0)")
                .autocommit("INSERT INTO t1 (c0, c1) SELECT (x0.c0 + 1), (x0.c0 + 0) FROM t0 x0")
                .order(1, 1, 2, 3, 1);
    }

    @Test
    void h2ReadOfAWaitingMergesInsertedRowIsExplainedAsADirtyRead() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            WssRun run = WssRun.of(h2, readerBesideAWaitingMerge());
            assertTrue(run.trace().executed(WAITING_MERGE).orElseThrow().blocked(), "the MERGE waits for T1's row 6: " + run.trace());
            assertFalse(run.succeeded(WAITING_MERGE), "the MERGE fails once T1 rolls back: " + run.trace());
            assertTrue(run.trace().executed(MERGE_READER).orElseThrow().result().updateCount() == 1,
                    "the reader copied the MERGE's row: " + run.trace());
            assertExplainedAsAReadInFlight(run, "run first, the reader fails on t1's key 2");
        }
    }

    /**
     * The same shape with the MERGE inserting {@code inserted} rows before it waits (campaign h2-RU-s7-i4260 as found: a
     * MERGE over six source rows): t1's source rows 0 … inserted - 1 insert t0's rows 100 and up, then the source row
     * matching T1's row 6 waits; T3 copies every inserted row.
     */
    static TestCase readerBesideAMergeInserting(int inserted) {
        List<String> sources = new java.util.ArrayList<>();
        for (int k = 0; k < inserted; k++) {
            sources.add("(" + k + ", " + (100 + k) + ")");
        }
        sources.add("(" + inserted + ", 6)");
        return Cases.on("h2").level(IsolationLevel.READ_UNCOMMITTED).table("t0").table("t1")
                .setup("CREATE TABLE t0 (c0 INT, c1 INT, c2 INT, PRIMARY KEY (c0), UNIQUE (c2))",
                        "CREATE TABLE t1 (c0 INT, c1 INT, PRIMARY KEY (c0))",
                        "INSERT INTO t0 (c0, c1, c2) VALUES (6, 0, 0), (1, NULL, 8)", "INSERT INTO t1 (c0, c1) VALUES " + String.join(", ", sources))
                .txn("DELETE FROM t0", "ROLLBACK")
                .autocommit("MERGE INTO t0 USING t1 x0 ON (t0.c0 = x0.c1) WHEN MATCHED THEN UPDATE SET c2 = 8"
                        + " WHEN NOT MATCHED THEN INSERT (c0, c1) VALUES (x0.c1, x0.c0)")
                .autocommit("INSERT INTO t1 (c0, c1) SELECT (x0.c0 + 1000), (x0.c0 + 0) FROM t0 x0")
                .order(1, 1, 2, 3, 1);
    }

    private static final StmtRef MERGE_WAITING_FOR_T2 = new StmtRef(1, 0);

    /**
     * Campaign h2-RU-s101-i1720 as reduced: T2 holds t0's row; T1's MERGE inserts a row for its first source row (c2 = 0)
     * and waits on the row its second matches; T2's UPDATE of t1, without WHERE, sets c1 from a subquery over t0's c2
     * values, and with the MERGE's row among them the maximum is 0, not NULL. The UPDATE counts both rows either way, so
     * only its values tell that it read the half-done MERGE.
     */
    static TestCase setReaderBesideAMergeInserting() {
        return Cases.on("h2").level(IsolationLevel.READ_UNCOMMITTED).table("t0").table("t1")
                .setup("CREATE TABLE t0 (c0 INT, c1 VARCHAR(10), c2 INT, c3 VARCHAR(10))",
                        "CREATE TABLE t1 (c0 INT, c1 INT, c2 VARCHAR(10), c3 VARCHAR(10))",
                        "INSERT INTO t0 (c0, c1, c2, c3) VALUES (0, '', 4, '')",
                        "INSERT INTO t1 (c0, c1, c2, c3) VALUES (0, 0, '', '')", "INSERT INTO t1 (c0, c1, c2, c3) VALUES (4, NULL, '', '')")
                .autocommit("MERGE INTO t0 USING t1 x0 ON (t0.c2 = x0.c0) WHEN MATCHED THEN UPDATE SET c0 = t0.c2"
                        + " WHEN NOT MATCHED THEN INSERT (c0, c1, c2, c3) VALUES (x0.c1, '', x0.c0, x0.c3)")
                .txn("UPDATE t0 SET c3 = ''", "UPDATE t1 SET c1 = (SELECT MAX(s0.c1) FROM t1 s0 WHERE s0.c0 IN (SELECT s1.c2 FROM t0 s1))")
                .order(2, 2, 1, 2, 2);
    }

    /** The values of a reader whose count any view gives tell which view it read: the MERGE's inserted row here. */
    @Test
    void h2SetSubqueryReadingAWaitingMergesInsertedRowIsExplainedAsADirtyRead() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            WssRun run = WssRun.of(h2, setReaderBesideAMergeInserting());
            assertTrue(run.trace().executed(MERGE_WAITING_FOR_T2).orElseThrow().blocked(), "the MERGE waits for T2's row: " + run.trace());
            assertTrue(run.trace().finalState().tables().get("t1").contains(List.of("0", "0", "", "")), "the UPDATE read the MERGE's row: " + run.trace());
            assertExplainedAsAReadInFlight(run, "T2 → T1 sets c1 to NULL");
        }
    }

    /**
     * Negative control: the same run with the reader's SET made one more than what it read beside the waiting MERGE
     * ({@link ReaderRewrittenBesideAWriteTarget}) stays a bug candidate: the values no view gives are no dirty read.
     */
    @Test
    void aSetReaderWritingValuesNoViewGivesStaysABugCandidate() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            ReaderRewrittenBesideAWriteTarget faulty = new ReaderRewrittenBesideAWriteTarget(h2, "an UPDATE whose SET is one more than it read",
                    sql -> sql.replace("SELECT MAX(s0.c1) FROM", "SELECT MAX(s0.c1) + 1 FROM"));
            WssRun run = WssRun.of(faulty, setReaderBesideAMergeInserting());
            assertTrue(faulty.struck && run.trace().executed(MERGE_WAITING_FOR_T2).orElseThrow().blocked(), run.trace().toString());
            List<Classification> found = run.verdict().violations().stream().map(Violation::classification).toList();
            assertTrue(found.contains(Classification.BUG_CANDIDATE), run.verdict() + "\n" + run.trace());
        }
    }

    /**
     * Within the bound of {@link InFlightReads#MAX_VIEWS} views the MERGE's inserted rows are explained (each inserted or
     * not: its {@code inserted} rows and, on the data it saw when submitted, T1's deleted row 6 as well, so 2^(inserted + 1)
     * views); one row more and the same shape stays a bug candidate. Before the bound counted views, three rows was the most.
     */
    @Test
    void aMergesInsertedRowsAreExplainedWithinTheBoundOnly() throws Exception {
        int most = mostRowsWithinTheBound(2, 1);
        try (Target h2 = Targets.create("h2")) {
            WssRun within = WssRun.of(h2, readerBesideAMergeInserting(most));
            assertFalse(within.succeeded(WAITING_MERGE), within.trace().toString());
            assertTrue(within.trace().executed(MERGE_READER).orElseThrow().result().updateCount() == most,
                    "the reader copied every row the MERGE inserted: " + within.trace());
            assertExplainedWithinTheBoundOnly(within, WssRun.of(h2, readerBesideAMergeInserting(most + 1)), WAITING_MERGE);
        }
    }

    /** The most rows seen {@code ways} ways each, beside {@code others} more rows seen as many ways, whose views stay within the bound. */
    private static int mostRowsWithinTheBound(int ways, int others) {
        int most = 0;
        while (Math.pow(ways, most + 1 + others) <= InFlightReads.MAX_VIEWS) {
            most++;
        }
        return most;
    }

    /**
     * {@code within} (the most rows the bound allows) has violations, none a bug candidate; {@code past} (one row more) has a
     * bug candidate. In both, {@code waiting} waited.
     */
    private static void assertExplainedWithinTheBoundOnly(WssRun within, WssRun past, StmtRef waiting) {
        assertTrue(within.trace().executed(waiting).orElseThrow().blocked(), within.trace().toString());
        assertFalse(within.verdict().violations().isEmpty(), within.trace().toString());
        within.assertNoBugCandidate();
        assertTrue(past.trace().executed(waiting).orElseThrow().blocked(), past.trace().toString());
        List<Classification> found = past.verdict().violations().stream().map(Violation::classification).toList();
        assertTrue(found.contains(Classification.BUG_CANDIDATE), past.verdict() + "\n" + past.trace());
    }

    /**
     * Negative control: the same run with the reader made to read a row of t0 that no statement writes (a row 4 added to
     * what it selects, beside the waiting MERGE only: {@link ReaderRewrittenBesideAWriteTarget}) stays a bug candidate: only rows an in-flight write inserts may appear.
     */
    @Test
    void aReaderSeeingARowNoWriteInsertsStaysABugCandidate() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            ReaderRewrittenBesideAWriteTarget faulty = new ReaderRewrittenBesideAWriteTarget(h2, "an INSERT … SELECT that reads a row no one wrote",
                    sql -> sql.startsWith("INSERT INTO t1") && sql.endsWith("FROM t0 x0")
                            ? sql.replace("FROM t0 x0", "FROM (SELECT c0 FROM t0 UNION ALL SELECT 4) x0") : sql);
            WssRun run = WssRun.of(faulty, readerBesideAWaitingMerge());
            assertTrue(faulty.struck && run.trace().executed(WAITING_MERGE).orElseThrow().blocked(), run.trace().toString());
            assertTrue(run.trace().executed(MERGE_READER).orElseThrow().result().updateCount() == 2, "row 4 added: " + run.trace());
            List<Classification> found = run.verdict().violations().stream().map(Violation::classification).toList();
            assertTrue(found.contains(Classification.BUG_CANDIDATE), run.verdict() + "\n" + run.trace());
        }
    }

    /** {@code moved} rows moving to keys 10 and up, the last onto key 10 + moved - 1, which T2 holds; T2 then copies t1. */
    static TestCase readerBesideAMoveOf(int moved) {
        List<String> rows = new java.util.ArrayList<>();
        for (int k = 0; k < moved; k++) {
            rows.add("(" + k + ", " + (10 + k) + ")");
        }
        return Cases.on("h2").level(IsolationLevel.READ_UNCOMMITTED).table("t0").table("t1")
                .setup("CREATE TABLE t0 (c0 INT)", "CREATE TABLE t1 (c0 INT PRIMARY KEY, c1 INT)",
                        "INSERT INTO t1 VALUES " + String.join(", ", rows))
                .autocommit("UPDATE t1 SET c0 = c1 WHERE c0 < 10")
                .txn("INSERT INTO t1 VALUES (" + (10 + moved - 1) + ", NULL)", "INSERT INTO t0 SELECT c1 FROM t1")
                .order(2, 2, 1, 2, 2);
    }

    /**
     * Within the bound of {@link InFlightReads#MAX_VIEWS} views a half-done move of several rows (three ways each: before,
     * moved, deleted but not yet inserted) is explained; one row more and the alternatives are not tried, and the same shape
     * stays a bug candidate.
     */
    @Test
    void aHalfDoneMoveIsExplainedWithinTheBoundOnly() throws Exception {
        int most = mostRowsWithinTheBound(3, 0);
        try (Target h2 = Targets.create("h2")) {
            assertExplainedWithinTheBoundOnly(WssRun.of(h2, readerBesideAMoveOf(most)), WssRun.of(h2, readerBesideAMoveOf(most + 1)), MOVING_UPDATE);
        }
    }

    /**
     * Negative control: the same run with the reader made to miss committed row 2, which no in-flight statement targets,
     * stays a bug candidate. With the fault off the run is explained (the test above), so the fault is what it catches.
     */
    @Test
    void aReaderMissingAnUntargetedCommittedRowStaysABugCandidate() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            ReaderRewrittenBesideAWriteTarget faulty = new ReaderRewrittenBesideAWriteTarget(h2, "an INSERT … SELECT that skips a committed row",
                    sql -> sql.startsWith("INSERT INTO t0 SELECT") && sql.endsWith("FROM t1") ? sql + " WHERE c0 <> 2" : sql);
            WssRun run = WssRun.of(faulty, readerBesideAMovingUpdate());
            assertTrue(faulty.struck && run.trace().executed(MOVING_UPDATE).orElseThrow().blocked(), run.trace().toString());
            assertTrue(run.trace().executed(READER).orElseThrow().result().updateCount() == 1, "row 2 skipped: " + run.trace());
            List<Classification> found = run.verdict().violations().stream().map(Violation::classification).toList();
            assertTrue(found.contains(Classification.BUG_CANDIDATE), run.verdict() + "\n" + run.trace());
        }
    }

    private static final String MOVING_MERGE = "MERGE INTO t0 USING t1 x0 ON (t0.c1 = x0.c2) WHEN MATCHED THEN UPDATE SET c0 = 6"
            + " WHEN NOT MATCHED THEN INSERT (c0, c1) VALUES (x0.c2, x0.c2)";
    private static final String READING_MERGE = "MERGE INTO t1 USING t0 x0 ON (t1.c2 = x0.c1) WHEN MATCHED THEN UPDATE SET c3 = NULL"
            + " WHEN NOT MATCHED THEN INSERT (c0, c1, c2, c4) VALUES (x0.c1, 0, x0.c1, (x0.c1 + 0))";

    /**
     * Campaign h2-RU-s59-i605, reduced: T1 sets row 6's c1 to NULL and holds it; T2's autocommit MERGE moves row 0 to key 6
     * and waits for T1's row there, row 0 already deleted; T3's autocommit MERGE reads t0 meanwhile without row 0 and inserts
     * a row for each of the other two source rows. T1 rolls back, T2 fails on key 6 and row 0 is back: T3 read a half-done
     * move no one committed, which READ UNCOMMITTED permits. Row 3 is committed and no statement targets it.
     */
    static TestCase mergeReaderBesideAMergeMovingARow() {
        return Cases.on("h2").level(IsolationLevel.READ_UNCOMMITTED).table("t0").table("t1")
                .setup("CREATE TABLE t0 (c0 INT, c1 INT, PRIMARY KEY (c0))", "CREATE TABLE t1 (c0 INT, c1 DOUBLE PRECISION, c2 INT, c3 DOUBLE PRECISION, c4 INT)",
                        "INSERT INTO t0 VALUES (0, 1), (6, 17), (3, 5)", "INSERT INTO t1 VALUES (0, 0, 1, 0, 0)")
                .txn("UPDATE t0 SET c1 = NULL WHERE (t0.c1 = 17)", "ROLLBACK")
                .autocommit(MOVING_MERGE)
                .autocommit(READING_MERGE)
                .order(1, 1, 2, 3, 1);
    }

    @Test
    void h2ReadOfAMergesHalfDoneMoveIsExplainedAsADirtyRead() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            WssRun run = WssRun.of(h2, mergeReaderBesideAMergeMovingARow());
            StmtRef moving = new StmtRef(2, 0);
            assertTrue(run.trace().executed(moving).orElseThrow().blocked(), "the MERGE waits for T1's row 6: " + run.trace());
            assertFalse(run.succeeded(moving), "the MERGE fails on key 6 once T1 rolls back: " + run.trace());
            assertTrue(run.trace().executed(new StmtRef(3, 0)).orElseThrow().result().updateCount() == 2,
                    "the reader missed row 0, half moved: " + run.trace());
            assertFalse(run.verdict().violations().isEmpty(), "run alone the reader updates one row and inserts two: " + run.trace());
            run.assertNoBugCandidate();
            assertTrue(run.verdict().violations().stream().allMatch(v -> String.valueOf(v.reference()).contains("still in flight")),
                    run.verdict().toString());
        }
    }

    /** Negative control: the same run with the reading MERGE made to miss committed row 3, which nothing targets, stays a bug candidate. */
    @Test
    void aMergeReaderMissingAnUntargetedCommittedRowStaysABugCandidate() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            ReaderRewrittenBesideAWriteTarget faulty = new ReaderRewrittenBesideAWriteTarget(h2, "a MERGE that skips a committed source row",
                    sql -> sql.equals(READING_MERGE) ? sql.replace("USING t0 x0", "USING (SELECT * FROM t0 WHERE c0 <> 3) x0") : sql);
            WssRun run = WssRun.of(faulty, mergeReaderBesideAMergeMovingARow());
            assertTrue(faulty.struck && run.trace().executed(new StmtRef(2, 0)).orElseThrow().blocked(), run.trace().toString());
            assertTrue(run.trace().executed(new StmtRef(3, 0)).orElseThrow().result().updateCount() == 1, "row 3 skipped: " + run.trace());
            run.assertBugCandidate();
        }
    }

    private static final String UPDATING_MERGE = "MERGE INTO t1 USING t0 x0 ON (t1.c0 = x0.c0) WHEN MATCHED THEN UPDATE SET c1 = (x0.c3 + 1)";
    private static final String MATCHING_MERGE = "MERGE INTO t1 USING t0 x0 ON (t1.c1 = x0.c3) WHEN MATCHED THEN UPDATE SET c0 = x0.c4";

    /**
     * Campaign h2-RU-s61-i14680, reduced: T2 inserts (3, 0) into t1 and holds it; T1's autocommit MERGE sets c1 of both rows
     * with c0 = 3 to 2, updating the committed (3, 1) and then waiting for T2's row; T3's autocommit MERGE, which did not wait,
     * reads (3, 1) as T1 left it, (3, 2), matches nothing and changes nothing. T2 rolls back and T1 completes. Run after T1 the
     * reader matches nothing either, run before it the reader updates (3, 1). {@code extraRows} are more committed rows of t1.
     */
    static TestCase mergeReaderBesideAWaitingMergesUpdate(String... extraRows) {
        List<String> setup = new java.util.ArrayList<>(List.of("CREATE TABLE t0 (c0 INT, c1 VARCHAR(10), c2 VARCHAR(10), c3 DOUBLE PRECISION, c4 INT)",
                "CREATE TABLE t1 (c0 INT, c1 DOUBLE PRECISION)", "INSERT INTO t0 VALUES (3, NULL, '', 1, 0)", "INSERT INTO t1 VALUES (3, 1)"));
        for (String row : extraRows) {
            setup.add("INSERT INTO t1 VALUES " + row);
        }
        return Cases.on("h2").level(IsolationLevel.READ_UNCOMMITTED).table("t0").table("t1")
                .setup(setup.toArray(String[]::new))
                .autocommit(UPDATING_MERGE)
                .txn("INSERT INTO t1 (c0, c1) VALUES (3, 0)", "ROLLBACK")
                .autocommit(MATCHING_MERGE)
                .order(2, 2, 1, 3, 2);
    }

    @Test
    void h2ReadOfAWaitingMergesUpdateByAWriteThatDidNotWaitIsExplainedAsADirtyRead() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            WssRun run = WssRun.of(h2, mergeReaderBesideAWaitingMergesUpdate());
            assertTrue(run.trace().executed(new StmtRef(1, 0)).orElseThrow().blocked(), "T1's MERGE waits for T2's row: " + run.trace());
            assertTrue(run.trace().executed(new StmtRef(3, 0)).orElseThrow().result().updateCount() == 0,
                    "the reader matched nothing, reading (3, 1) as T1 left it: " + run.trace());
            assertFalse(run.verdict().violations().isEmpty(), run.trace().toString());
            run.assertNoBugCandidate();
            assertTrue(run.verdict().violations().stream().allMatch(v -> String.valueOf(v.reference()).contains("still in flight")),
                    run.verdict().toString());
        }
    }

    /** Negative control: beside the same waiting MERGE the reader also misses committed row (5, 1), which nothing in flight targets. */
    @Test
    void aMergeReaderThatDidNotWaitMissingAnUntargetedCommittedRowStaysABugCandidate() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            ReaderRewrittenBesideAWriteTarget faulty = new ReaderRewrittenBesideAWriteTarget(h2, "a MERGE that skips a committed target row",
                    sql -> sql.equals(MATCHING_MERGE) ? sql.replace("ON (t1.c1 = x0.c3)", "ON (t1.c1 = x0.c3 AND t1.c0 <> 5)") : sql);
            WssRun run = WssRun.of(faulty, mergeReaderBesideAWaitingMergesUpdate("(5, 1)"));
            assertTrue(faulty.struck && run.trace().executed(new StmtRef(1, 0)).orElseThrow().blocked(), run.trace().toString());
            assertTrue(run.trace().executed(new StmtRef(3, 0)).orElseThrow().result().updateCount() == 0, "row 5 skipped: " + run.trace());
            run.assertBugCandidate();
        }
    }

    private static final String COPYING_INSERT = "INSERT INTO t0 (c0, c1) SELECT '', CASE WHEN x0.c0 >= '' THEN 1 ELSE 0 END FROM t0 x0"
            + " WHERE x0.c0 NOT IN ('a', 'c')";

    /**
     * Campaign mariadb-RU-s62-i4604, reduced: T2 inserts ('a', 7); T1's autocommit INSERT of ('', 0), ('a', 7) inserts the
     * first row and waits on T2's key; T2 copies the rows it reads other than 'a' and 'c' — T1's ('', 0) — as ('', 1) and
     * commits; T1 fails on the duplicate key, its row gone. MariaDB keeps the keys in its simulations, so the INSERT alone
     * fails there: the rows it may have inserted before are found one VALUES row at a time.
     */
    static TestCase readerBesideAMultiRowInsertWaitingOnAKey() {
        return Cases.on("mariadb").level(IsolationLevel.READ_UNCOMMITTED).table("t0")
                .setup("CREATE TABLE t0 (c0 VARCHAR(10), c1 INT, PRIMARY KEY (c0, c1))")
                .autocommit("INSERT INTO t0 (c0, c1) VALUES ('', 0), ('a', 7)")
                .txn("INSERT INTO t0 (c0, c1) VALUES ('a', 7)", COPYING_INSERT)
                .order(2, 2, 1, 2, 2);
    }

    @Test
    void mariadbReadOfAMultiRowInsertsFirstRowIsExplained() throws Exception {
        try (Target maria = txfuzz.dbms.TestServers.open("mariadb")) {
            WssRun run = WssRun.of(maria, readerBesideAMultiRowInsertWaitingOnAKey());
            assertTrue(run.trace().executed(new StmtRef(1, 0)).orElseThrow().blocked(), "T1's INSERT waits on T2's key: " + run.trace());
            assertFalse(run.succeeded(new StmtRef(1, 0)), run.trace().toString());
            assertTrue(run.trace().executed(new StmtRef(2, 2)).orElseThrow().result().updateCount() == 1, "T2 copied T1's first row: " + run.trace());
            assertFalse(run.verdict().violations().isEmpty(), run.trace().toString());
            run.assertNoBugCandidate();
        }
    }

    /**
     * The same schedule with T1's rows from an {@code INSERT … SELECT}: its source is not a VALUES list, so it is not taken row by
     * row; asking the parser for the VALUES of such an INSERT failed with a ClassCastException that ended the judging (campaign
     * mariadb-RU-s62-i1176 replayed as an internal error). The run is judged; the partial insert is not modelled.
     */
    @Test
    void anInsertSelectInFlightIsJudgedWithoutBeingTakenRowByRow() throws Exception {
        try (Target maria = txfuzz.dbms.TestServers.open("mariadb")) {
            TestCase c = Cases.on("mariadb").level(IsolationLevel.READ_UNCOMMITTED).table("t0").table("t1")
                    .setup("CREATE TABLE t0 (c0 VARCHAR(10), c1 INT, PRIMARY KEY (c0, c1))", "CREATE TABLE t1 (c0 VARCHAR(10), c1 INT)",
                            "INSERT INTO t1 VALUES ('', 0), ('a', 7)")
                    .autocommit("INSERT INTO t0 (c0, c1) SELECT x.c0, x.c1 FROM t1 x")
                    .txn("INSERT INTO t0 (c0, c1) VALUES ('a', 7)", COPYING_INSERT)
                    .order(2, 2, 1, 2, 2);
            WssRun run = WssRun.of(maria, c);
            assertTrue(run.trace().executed(new StmtRef(1, 0)).orElseThrow().blocked(), run.trace().toString());
            assertFalse(run.verdict().violations().isEmpty(), run.trace().toString());
        }
    }

    /** Negative control: the copying INSERT writes a value no row it could have read gives (2 for 1). */
    @Test
    void aCopyOfAMultiRowInsertsRowWithAnotherValueStaysABugCandidate() throws Exception {
        try (Target maria = txfuzz.dbms.TestServers.open("mariadb")) {
            ReaderRewrittenBesideAWriteTarget faulty = new ReaderRewrittenBesideAWriteTarget(maria, "an INSERT … SELECT that writes another value",
                    sql -> sql.equals(COPYING_INSERT) ? sql.replace("THEN 1 ELSE", "THEN 2 ELSE") : sql);
            WssRun run = WssRun.of(faulty, readerBesideAMultiRowInsertWaitingOnAKey());
            assertTrue(faulty.struck && run.trace().executed(new StmtRef(1, 0)).orElseThrow().blocked(), run.trace().toString());
            run.assertBugCandidate();
        }
    }

    private static final String COPYING_WITH_C3 = "INSERT INTO t0 (c0, c1, c2, c3) SELECT (x0.c3 + 1), (x0.c1 + 2), (x0.c2 + 1.75), (x0.c0 + 3)"
            + " FROM t0 x0";
    private static final StmtRef COPY_OF_T2 = new StmtRef(1, 2);
    private static final StmtRef WAITING_INSERT = new StmtRef(2, 1);

    /**
     * Campaign mariadb-RU-s73-i256 by hand: T1 deletes every row of t0, three of them (so that InnoDB makes T2, the lighter
     * one, a deadlock's victim); T2's INSERT of (20, NULL, 2.5, {@code c3}) puts its row in the clustered index and waits on
     * the unique key 2.5, which T1's deleted row still holds; T1's INSERT … SELECT reads T2's row in flight (READ
     * UNCOMMITTED) and computes its c0 from c3, NULL where c3 is; T1's UPDATE of row 20 waits on T2, a deadlock, and T2 is
     * rolled back. Alone, T1 copies nothing: the table it reads is empty.
     */
    static TestCase copyBesideADeadlockVictimsInsert(String c3) {
        return Cases.on("mariadb").level(IsolationLevel.READ_UNCOMMITTED).table("t0")
                .setup("CREATE TABLE t0 (c0 INT NOT NULL, c1 INT, c2 DOUBLE NOT NULL, c3 INT, PRIMARY KEY (c0), UNIQUE (c2), UNIQUE (c3))",
                        "INSERT INTO t0 (c0, c1, c2, c3) VALUES (4, 7, 2.5, 2), (5, 1, 3.5, 3), (6, 1, 4.5, 4)")
                .txn("DELETE FROM t0", COPYING_WITH_C3, "UPDATE t0 SET c1 = 1 WHERE c0 = 20")
                .txn("INSERT INTO t0 (c0, c1, c2, c3) VALUES (20, NULL, 2.5, " + c3 + ")")
                .order(1, 1, 2, 2, 1, 1, 1, 2);
    }

    /**
     * The INSERT … SELECT's NOT NULL error is what it gives on the data with T2's row in flight: explained, though T2, the
     * deadlock's victim, is left out of what the simulations run (its INSERT failed with a conflict).
     */
    @Test
    void mariadbCopyFailingOnADeadlockVictimsRowInFlightIsExplained() throws Exception {
        try (Target maria = txfuzz.dbms.TestServers.open("mariadb")) {
            WssRun run = WssRun.of(maria, copyBesideADeadlockVictimsInsert("NULL"));
            assertTrue(run.trace().executed(WAITING_INSERT).orElseThrow().blocked(), "T2's INSERT waits on key 2.5: " + run.trace());
            assertEquals(txfuzz.exec.TxnStatus.ABORTED, run.trace().outcome(2).status(), "T2 is the deadlock's victim: " + run.trace());
            assertTrue(run.committed(1) && run.trace().executed(COPY_OF_T2).orElseThrow().result().failed(), "the copy failed: " + run.trace());
            assertFalse(run.verdict().violations().isEmpty(), "alone, T1's copy succeeds: " + run.trace());
            run.assertNoBugCandidate();
        }
    }

    /**
     * Negative control: with T2's row's c3 set (9), no data the copy may have read gives a NULL c0; the copy made to fail with
     * NULL beside T2's waiting INSERT ({@link ReaderRewrittenBesideAWriteTarget}) stays a bug candidate.
     */
    @Test
    void aCopyFailingOnANullNoRowInFlightGivesStaysABugCandidate() throws Exception {
        try (Target maria = txfuzz.dbms.TestServers.open("mariadb")) {
            ReaderRewrittenBesideAWriteTarget faulty = new ReaderRewrittenBesideAWriteTarget(maria, "an INSERT … SELECT that writes a NULL key",
                    sql -> sql.equals(COPYING_WITH_C3) ? sql.replace("(x0.c3 + 1)", "(NULL + 1)") : sql);
            WssRun run = WssRun.of(faulty, copyBesideADeadlockVictimsInsert("9"));
            assertTrue(faulty.struck && run.trace().executed(WAITING_INSERT).orElseThrow().blocked(), run.trace().toString());
            assertTrue(run.trace().executed(COPY_OF_T2).orElseThrow().result().failed(), "the fault struck: " + run.trace());
            run.assertBugCandidate();
        }
    }

    /**
     * Fault injection: a real engine where a statement run while a statement of another session is in flight (waiting) is
     * rewritten by {@code fault} first, as an engine that read something it may not would: a committed row skipped that no
     * statement in flight targets, or a row read that no statement wrote. No reading of uncommitted data gives either. Serial
     * replays and simulations (one statement at a time) never meet the fault. The wrapped target belongs to the caller.
     */
    static final class ReaderRewrittenBesideAWriteTarget extends DelegatingTarget {
        /** Statements executing now, over every session of the target. */
        private final java.util.concurrent.atomic.AtomicInteger executing = new java.util.concurrent.atomic.AtomicInteger();
        private final String fault;
        private final java.util.function.UnaryOperator<String> rewrite;

        ReaderRewrittenBesideAWriteTarget(Target real, String fault, java.util.function.UnaryOperator<String> rewrite) {
            super(real);
            this.fault = fault;
            this.rewrite = rewrite;
        }

        @Override
        public String version() {
            return real.version() + " with " + fault;
        }

        @Override
        public void close() {
            // the wrapped target is the caller's
        }

        @Override
        public Database freshDatabase() throws java.sql.SQLException {
            return trackingUncommittedWrites(real.freshDatabase(), this::rewriting);
        }

        private Statement rewriting(Connection c, Object session, Statement s, UncommittedWrites writes) {
            return (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Statement.class}, (proxy, method, args) -> {
                if (!method.getName().startsWith("execute") || args == null || args.length == 0 || !(args[0] instanceof String sql)) {
                    return invoke(s, method, args);
                }
                boolean besideAnother = executing.getAndIncrement() > 0;
                try {
                    String faulty = besideAnother ? rewrite.apply(sql) : sql;
                    if (!faulty.equals(sql)) {
                        args = args.clone();
                        args[0] = faulty; // the injected bug
                        struck = true;
                    }
                    return invoke(s, method, args);
                } finally {
                    executing.decrementAndGet();
                }
            });
        }

        /** Whether the fault changed a statement. */
        volatile boolean struck;
    }
}
