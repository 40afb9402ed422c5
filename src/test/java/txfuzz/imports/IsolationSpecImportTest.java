package txfuzz.imports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.model.CaseSource;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtKind;
import txfuzz.model.TestCase;

/** PostgreSQL's own isolation specs (src/test/resources/imports/pg-isolation) read as cases: counts, levels, skips. */
@Tag("unit")
class IsolationSpecImportTest {
    static final Path DIR = Path.of("src/test/resources/imports/pg-isolation");

    private static Importer.FileImport read(String name) {
        return Importer.read(DIR.resolve(name), Importer.Options.defaults());
    }

    @Test
    void everySpecImportsWithItsPermutationCount() {
        // spec -> {schedules, imported}: the listed permutations, or every interleaving of the sessions' steps
        Map<String, List<Long>> expected = new TreeMap<>(Map.ofEntries(
                Map.entry("classroom-scheduling.spec", List.of(20L, 20L)),
                Map.entry("eval-plan-qual.spec", List.of(51L, 51L)),
                Map.entry("insert-conflict-do-update-2.spec", List.of(2L, 2L)),
                Map.entry("lock-update-traversal.spec", List.of(1L, 1L)),
                Map.entry("merge-match-recheck.spec", List.of(15L, 15L)),
                Map.entry("nowait-5.spec", List.of(1L, 0L)),
                Map.entry("insert-conflict-do-nothing-2.spec", List.of(8L, 8L)),
                Map.entry("merge-delete.spec", List.of(19L, 19L)),
                Map.entry("merge-insert-update.spec", List.of(8L, 8L)),
                Map.entry("nowait-2.spec", List.of(3L, 3L)),
                Map.entry("nowait-3.spec", List.of(1L, 1L)),
                Map.entry("nowait-4.spec", List.of(1L, 0L)),
                Map.entry("read-write-unique-2.spec", List.of(2L, 2L)),
                Map.entry("read-write-unique-3.spec", List.of(1L, 1L)),
                Map.entry("read-write-unique-4.spec", List.of(3L, 3L)),
                Map.entry("skip-locked-2.spec", List.of(3L, 3L)),
                Map.entry("skip-locked-3.spec", List.of(1L, 1L)),
                Map.entry("skip-locked-4.spec", List.of(1L, 0L)),
                Map.entry("insert-conflict-do-nothing.spec", List.of(2L, 2L)),
                Map.entry("insert-conflict-do-update.spec", List.of(2L, 2L)),
                Map.entry("lock-update-delete.spec", List.of(4L, 4L)),
                Map.entry("merge-update.spec", List.of(13L, 13L)),
                Map.entry("multiple-row-versions.spec", List.of(1L, 1L)),
                Map.entry("nowait.spec", List.of(6L, 6L)),
                Map.entry("partial-index.spec", List.of(20L, 20L)),
                Map.entry("project-manager.spec", List.of(20L, 20L)),
                Map.entry("read-write-unique.spec", List.of(2L, 2L)),
                Map.entry("receipt-report.spec", List.of(210L, 210L)),
                Map.entry("referential-integrity.spec", List.of(35L, 35L)),
                Map.entry("simple-write-skew.spec", List.of(6L, 6L)),
                Map.entry("skip-locked.spec", List.of(20L, 20L)),
                Map.entry("temporal-range-integrity.spec", List.of(20L, 20L)),
                Map.entry("total-cash.spec", List.of(20L, 20L)),
                Map.entry("two-ids.spec", List.of(90L, 90L))));
        assertEquals(expected.keySet(), new java.util.TreeSet<>(java.util.Arrays.stream(DIR.toFile().list()).toList()), "every spec shipped is counted");
        for (var e : expected.entrySet()) {
            Importer.FileImport f = read(e.getKey());
            assertEquals(e.getValue(), List.of(f.schedules(), (long) f.cases().size()), e.getKey() + ": " + f.skipped());
            assertEquals(f.schedules(), f.cases().size() + f.skipped().size(), e.getKey());
        }
    }

    @Test
    void theLevelComesFromTheSessionsBegin() {
        TestCase c = read("simple-write-skew.spec").cases().get(0).testCase();
        assertEquals(IsolationLevel.SERIALIZABLE, c.isolation());
        assertEquals("postgres", c.dbms());
        assertEquals(List.of("test"), c.tables());
        assertEquals(new CaseSource(CaseSource.Format.ISOLATION_SPEC, "simple-write-skew.spec", "permutation 1: rwx1 c1 rwx2 c2"), c.source());
        // the session setup's BEGIN opens the transaction, the step's COMMIT ends it; nothing else is added
        assertEquals(List.of(StmtKind.BEGIN, StmtKind.UPDATE, StmtKind.COMMIT), c.txn(1).statements().stream().map(s -> s.kind()).toList());
        assertEquals(List.of(1, 2, 1, 1, 2, 2), c.order());
        // a spec without an explicit level runs at PostgreSQL's default
        assertEquals(IsolationLevel.READ_COMMITTED, read("nowait.spec").cases().get(0).testCase().isolation());
    }

    @Test
    void whatACaseCannotExpressIsSkippedWithItsReason() {
        assertTrue(read("nowait-4.spec").skipped().get(0).reason().contains("session-level lock"), read("nowait-4.spec").skipped().toString());
        // a read-only transaction is PostgreSQL's imported BEGIN variant: kept as written, never generated
        assertTrue(read("receipt-report.spec").cases().get(0).testCase().transactions().stream()
                .anyMatch(t -> t.statements().get(0).sql().equals("BEGIN READ ONLY")), read("receipt-report.spec").cases().get(0).toString());
        // sessions at different levels: the case's level is the one most transactions run at, the others carry their own
        var mixed = read("lock-update-delete.spec");
        assertEquals(List.of(), mixed.skipped());
        assertTrue(mixed.cases().stream().allMatch(c -> c.testCase().mixedLevels()), mixed.cases().toString());
        // a call of a function the setup creates runs as it is; row tracking does not follow it (ForeignStatement)
        var function = read("read-write-unique-3.spec");
        assertEquals(List.of(), function.skipped());
        assertTrue(function.cases().get(0).testCase().transactions().stream().flatMap(t -> t.statements().stream())
                .anyMatch(s -> s.kind() == StmtKind.OTHER && s.sql().startsWith("SELECT insert_unique(1, '1')")), function.cases().get(0).toString());
        assertTrue(read("nowait-4.spec").skipped().get(0).reason().startsWith("a session-level lock"));
        // --isolation does not override what a file says
        var withLevel = Importer.read(DIR.resolve("lock-update-delete.spec"), new Importer.Options(null, IsolationLevel.SERIALIZABLE, 100));
        assertEquals(4, withLevel.cases().size(), withLevel.skipped().toString());
        TestCase given = withLevel.cases().get(0).testCase();
        assertTrue(given.transactions().stream().anyMatch(t -> t.levelIn(given) == IsolationLevel.REPEATABLE_READ),
                "the file's BEGIN ISOLATION LEVEL REPEATABLE READ stays: " + given);
    }

    private static Importer.FileImport spec(String text) {
        return Importer.read(text, "x.spec", CaseSource.Format.ISOLATION_SPEC, Importer.Options.defaults(), Path.of("x.spec"));
    }

    @Test
    void blockerAnnotationsAreReadAndSetAside() {
        var f = spec("""
                setup { CREATE TABLE t (k int primary key, v int); INSERT INTO t VALUES (1, 1); }
                teardown { DROP TABLE t; }
                session s1
                setup { BEGIN; }
                step s1u { UPDATE t SET v = 2 WHERE k = 1; }
                step s1c { COMMIT; }
                session "s2"
                step s2u { UPDATE t SET v = 3 WHERE k = 1; SELECT * FROM t; }
                permutation s1u s2u(s1c) s1c
                permutation s1u s2u(*) s1c
                permutation s1u s2u(s1c notices 1, *) s1c
                """);
        assertEquals(3, f.cases().size(), f.skipped().toString());
        TestCase c = f.cases().get(0).testCase();
        // s2's step sends two statements outside a transaction: PostgreSQL runs them as one transaction
        assertEquals(List.of(StmtKind.BEGIN, StmtKind.UPDATE, StmtKind.SELECT, StmtKind.COMMIT),
                c.txn(2).statements().stream().map(s -> s.kind()).toList());
        assertEquals(List.of(1, 1, 2, 2, 2, 2, 1), c.order());
    }

    @Test
    void aBrokenSpecIsOneSkipOfTheWholeFile() {
        var f = spec("setup { CREATE TABLE t (k int); }\nsession s1\nstep a { SELECT 1;\n");
        assertEquals(0, f.cases().size());
        assertEquals("the whole file", f.skipped().get(0).schedule());
        assertTrue(f.skipped().get(0).reason().startsWith("not an isolation-tester spec: unterminated SQL block"), f.skipped().toString());
        var unknownStep = spec("setup { CREATE TABLE t (k int); }\nsession s1\nstep a { SELECT 1; }\npermutation a b\n");
        assertTrue(unknownStep.skipped().get(0).reason().contains("step \"b\", which no session defines"), unknownStep.skipped().toString());
    }

    @Test
    void nonDmlStepsAreNamedAndSessionSettingsGoWithTheirSession() {
        var f = spec("""
                setup { CREATE TABLE t (k int); }
                session s1
                setup { SET lock_timeout = '10ms'; }
                step a { SELECT * FROM t; }
                session s2
                step b { VACUUM t; }
                """);
        // VACUUM runs as it is, at its step (row tracking does not follow it)
        assertEquals(2, f.cases().size(), f.skipped().toString());
        var settings = spec("""
                setup { CREATE TABLE t (k int); }
                session s1
                setup { SET lock_timeout = '10ms'; }
                step a { SELECT * FROM t; }
                session s2
                step b { SELECT * FROM t; }
                permutation a b
                """);
        assertEquals(1, settings.cases().size(), settings.skipped().toString());
        var c = settings.cases().get(0).testCase();
        assertEquals(List.of("SET lock_timeout = '10ms'"), c.txn(1).settings());
        assertEquals(List.of(), c.txn(2).settings());
        var vacuum = spec("setup { CREATE TABLE t (k int); }\nsession s2\nstep b { VACUUM t; }\n");
        assertEquals(List.of(StmtKind.OTHER), vacuum.cases().get(0).testCase().txn(1).statements().stream().map(s -> s.kind()).toList());
    }

    @Test
    void aWithStatementIsItsMainStatementUnlessACteWrites() {
        var f = spec("""
                setup { CREATE TABLE t (k int primary key, v int); }
                session s1
                setup { BEGIN; }
                step r { WITH c AS (SELECT k FROM t WHERE v = 1 FOR UPDATE) SELECT * FROM c; }
                step u { WITH d(val) AS (SELECT 2) UPDATE t SET v = (SELECT val FROM d) WHERE k = 1; }
                step c { COMMIT; }
                session s2
                step w { WITH x AS (UPDATE t SET v = 3 RETURNING k) SELECT * FROM x; }
                permutation r u c
                permutation w
                """);
        assertEquals(List.of(StmtKind.BEGIN, StmtKind.SELECT, StmtKind.UPDATE, StmtKind.COMMIT),
                f.cases().get(0).testCase().txn(1).statements().stream().map(s -> s.kind()).toList());
        // a CTE that writes: one statement, two writes, run as it is (row tracking does not follow it)
        assertEquals(List.of(StmtKind.OTHER), f.cases().get(1).testCase().txn(2).statements().stream().map(s -> s.kind()).toList());
        // so is a write of a system catalog
        assertEquals(List.of(), read("eval-plan-qual.spec").skipped());
    }
}
