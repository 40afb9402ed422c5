package txfuzz.imports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.model.CaseSource;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtKind;
import txfuzz.model.TestCase;
import txfuzz.report.ScheduleText;

/** The plain schedule format (docs/commands.md): read, and written back by report/ScheduleText to the same case. */
class PlainScheduleImportTest {
    static final String LOST_UPDATE = """
            # a lost update, as a bug report would paste it
            -- isolation: SNAPSHOT
            CREATE TABLE t(k VARCHAR(10) PRIMARY KEY, v INT);
            INSERT INTO t VALUES ('e', 1);
            T1: BEGIN
            T2: BEGIN;
            T3: SELECT v FROM t WHERE v > 0
            T1: UPDATE t SET k = 'a'
            T2: UPDATE t SET v = v + 10
            T1: COMMIT
            T2: SELECT k FROM t
            T2: COMMIT
            """;

    static Importer.FileImport read(String text, Importer.Options o) {
        return Importer.read(text, "s.txt", CaseSource.Format.SCHEDULE, o, Path.of("s.txt"));
    }

    @Test
    void aScheduleIsACase() {
        var f = read(LOST_UPDATE, new Importer.Options("duckdb", null, 10));
        assertEquals(1, f.cases().size(), f.skipped().toString());
        TestCase c = f.cases().get(0).testCase();
        assertEquals(IsolationLevel.SNAPSHOT, c.isolation());
        assertEquals(List.of("t"), c.tables());
        assertEquals(List.of("CREATE TABLE t(k VARCHAR(10) PRIMARY KEY, v INT)", "INSERT INTO t VALUES ('e', 1)"), c.setup());
        assertEquals(3, c.transactions().size());
        assertEquals(List.of(StmtKind.SELECT), c.txn(3).statements().stream().map(s -> s.kind()).toList());
        assertEquals(List.of(1, 2, 3, 1, 2, 1, 2, 2), c.order());
    }

    @Test
    void writtenBackItReadsAsTheSameCase() {
        TestCase c = read(LOST_UPDATE, new Importer.Options("duckdb", null, 10)).cases().get(0).testCase();
        String text = ScheduleText.render(c, "reduced by txfuzz");
        TestCase again = read(text, new Importer.Options("duckdb", null, 10)).cases().get(0).testCase();
        assertEquals(c.setup(), again.setup());
        assertEquals(c.transactions(), again.transactions());
        assertEquals(c.order(), again.order());
        assertEquals(c.isolation(), again.isolation());
    }

    @Test
    void withoutALevelItAsksForOne() {
        String noLevel = LOST_UPDATE.replace("-- isolation: SNAPSHOT\n", "");
        var f = read(noLevel, new Importer.Options("duckdb", null, 10));
        assertEquals("the schedule names no isolation level: give --isolation", f.skipped().get(0).reason());
        assertEquals(IsolationLevel.SNAPSHOT, read(noLevel, new Importer.Options("duckdb", IsolationLevel.SNAPSHOT, 10)).cases().get(0).testCase().isolation());
        // a BEGIN that names its level needs neither
        var named = read("CREATE TABLE t (k int);\nT1: START TRANSACTION ISOLATION LEVEL SERIALIZABLE\nT1: SELECT * FROM t\nT1: COMMIT\n",
                new Importer.Options("postgres", null, 10));
        assertEquals(IsolationLevel.SERIALIZABLE, named.cases().get(0).testCase().isolation());
    }

    @Test
    void linesItCannotReadAreNamed() {
        var f = read("CREATE TABLE t (k int);\nT1: SELECT 1; SELECT 2\n", new Importer.Options("h2", IsolationLevel.READ_COMMITTED, 10));
        assertTrue(f.skipped().get(0).reason().contains("line 2 holds 2 statements"), f.skipped().toString());
        var g = read("CREATE TABLE t (k int);\nT1: SELECT 1\nwhat is this\n", new Importer.Options("h2", IsolationLevel.READ_COMMITTED, 10));
        assertTrue(g.skipped().get(0).reason().contains("line 3 is neither a comment nor a T<n>: statement"), g.skipped().toString());
    }
}
