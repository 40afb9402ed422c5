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

    /**
     * A case in a mode other than its DBMS's default (MariaDB's snapshot-isolation: innodb_snapshot_isolation=ON, the corpus's
     * MDEV-26642 control) written as a plain schedule and read back with no --dbms: the header lines give the DBMS, the mode and
     * the level, so it is the same case. Without the mode line it would be the default mode's case, which InnoDB runs otherwise.
     */
    @Test
    void aCaseInANonDefaultModeRoundTrips() {
        TestCase hand = txfuzz.campaign.Corpus.load().entries().stream().filter(e -> e.id().equals("mdev-26642-rr-snapshot-isolation")).findFirst()
                .orElseThrow().testCase();
        TestCase plain = ((txfuzz.reduce.Stripped.Plain) txfuzz.reduce.TrackingStripper.strip(hand)).plain();
        assertEquals("snapshot-isolation", plain.mode());
        String text = ScheduleText.render(plain, "mdev-26642-rr-snapshot-isolation");
        assertTrue(text.contains("\n-- dbms: mariadb\n-- mode: snapshot-isolation\n-- isolation: REPEATABLE READ\n"), text);
        var f = read(text, Importer.Options.defaults());
        assertEquals(1, f.cases().size(), f.skipped().toString());
        TestCase again = f.cases().get(0).testCase();
        assertEquals("mariadb", again.dbms());
        assertEquals("snapshot-isolation", again.mode());
        assertEquals(plain.isolation(), again.isolation());
        assertEquals(plain.setup(), again.setup());
        assertEquals(plain.transactions(), again.transactions());
        assertEquals(plain.order(), again.order());
        // the default mode writes no mode line, and reads back as the default
        TestCase defaultMode = read(LOST_UPDATE, new Importer.Options("duckdb", null, 10)).cases().get(0).testCase();
        String plainText = ScheduleText.render(defaultMode, "x");
        assertTrue(plainText.contains("-- dbms: duckdb\n-- isolation: SNAPSHOT\n") && !plainText.contains("-- mode:"), plainText);
        assertEquals("default", read(plainText, Importer.Options.defaults()).cases().get(0).testCase().mode());
    }

    @Test
    void headerLinesThatDoNotFitAreNamedNotGuessed() {
        String hsqldbLocks = "-- dbms: hsqldb\n-- mode: locks\n" + LOST_UPDATE.replace("SNAPSHOT", "SERIALIZABLE");
        assertEquals("locks", read(hsqldbLocks, Importer.Options.defaults()).cases().get(0).testCase().mode());
        assertEquals("hsqldb", read(hsqldbLocks, Importer.Options.defaults()).cases().get(0).testCase().dbms());
        // --dbms names another DBMS: the mode is hsqldb's, meaningless on h2
        var other = read(hsqldbLocks, new Importer.Options("h2", null, 10));
        assertEquals("its mode 'locks' is one of hsqldb's (its -- dbms: line), and the case is for h2", other.skipped().get(0).reason());
        // a mode the DBMS does not have
        var unknownMode = read(hsqldbLocks.replace("mode: locks", "mode: optimistic"), Importer.Options.defaults());
        assertEquals("its mode 'optimistic' is not one of hsqldb's (mvcc, locks, mvlocks)", unknownMode.skipped().get(0).reason());
        // a DBMS txfuzz does not know
        var unknownDbms = read("-- dbms: oracle\n" + LOST_UPDATE, Importer.Options.defaults());
        assertTrue(unknownDbms.skipped().get(0).reason().startsWith("line 1 names no DBMS txfuzz knows: oracle"), unknownDbms.skipped().toString());
        // without a mode line, --dbms another DBMS than the header's is fine: the schedule runs there in its default mode
        TestCase onH2 = read("-- dbms: hsqldb\n" + LOST_UPDATE.replace("SNAPSHOT", "SERIALIZABLE"), new Importer.Options("h2", null, 10))
                .cases().get(0).testCase();
        assertEquals("h2", onH2.dbms());
        assertEquals("default", onH2.mode());
        // no mode line: the DBMS's default mode by its own name, one the engine runs (HSQLDB's mvcc, SQLite's deferred)
        assertEquals("mvcc", read("-- dbms: hsqldb\n" + LOST_UPDATE.replace("SNAPSHOT", "SERIALIZABLE"), Importer.Options.defaults())
                .cases().get(0).testCase().mode());
        assertEquals(txfuzz.dbms.Targets.engine("sqlite").modes().get(0), read(LOST_UPDATE.replace("SNAPSHOT", "SERIALIZABLE"),
                new Importer.Options("sqlite", null, 10)).cases().get(0).testCase().mode());
    }
}
