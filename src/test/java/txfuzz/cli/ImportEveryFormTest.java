package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No input ends {@code import} with an internal error (issue 35): every file txfuzz ships in src/test/resources/imports (the
 * isolation specs, mysqltest files, Hermitage's scripts, plain schedules) and the five forms bug reports use, imported in
 * one command; a file it cannot read is a one-line reason and exit code 2, and the files after it go on.
 */
@Tag("unit")
class ImportEveryFormTest {
    private static final List<String> FIVE_FORMS = List.of("""
            -- dbms: postgres
            -- isolation: READ COMMITTED
            CREATE TABLE t (k int PRIMARY KEY, v int);
            T1: BEGIN
            T1: SET LOCAL enable_mergejoin = off
            T1: SELECT * FROM t
            T1: COMMIT
            """, """
            -- dbms: postgres
            -- isolation: READ COMMITTED
            CREATE TABLE t (k int PRIMARY KEY, v int);
            T1: BEGIN
            T1: EXPLAIN (costs off) MERGE INTO t USING (SELECT 1 AS k) s ON t.k = s.k WHEN MATCHED THEN UPDATE SET v = 1
            T1: COMMIT
            """, """
            -- dbms: postgres
            -- isolation: READ COMMITTED
            CREATE TABLE t (k int PRIMARY KEY, v int);
            CREATE MATERIALIZED VIEW mv AS SELECT * FROM t;
            T1: REFRESH MATERIALIZED VIEW CONCURRENTLY mv
            """, """
            -- dbms: mariadb
            -- isolation: REPEATABLE READ
            CREATE TABLE t (k int PRIMARY KEY, v int);
            T1: START TRANSACTION
            T1: UPDATE t SET v = 1
            T1: START TRANSACTION
            T1: COMMIT
            """, """
            -- dbms: sqlite
            -- isolation: SERIALIZABLE
            CREATE TABLE t (k int PRIMARY KEY, v int);
            T1: BEGIN IMMEDIATE
            T1: UPDATE t SET v = 1
            T1: COMMIT
            """);

    @Test
    void everyShippedFileAndTheFiveFormsImportWithoutAnInternalError(@TempDir Path dir) throws Exception {
        List<Path> shipped;
        try (Stream<Path> files = Files.walk(Path.of("src/test/resources/imports"))) {
            shipped = files.filter(Files::isRegularFile).filter(p -> txfuzz.imports.Importer.formatOf(p) != null).sorted().toList();
        }
        assertTrue(shipped.size() > 80, shipped.toString());
        // Hermitage's postgres and mysql scripts share names: each file into a folder of its own
        int n = 0;
        for (Path file : shipped) {
            CliTest.Result r = CliTest.run("import", "--out", dir.resolve("shipped-" + n++).toString(), file.toString());
            assertTrue(r.code() == Main.OK || r.code() == Main.USAGE, file + ": " + r);
            assertFalse((r.out() + r.err()).contains("internal error"), file + ": " + r);
        }
        for (int i = 0; i < FIVE_FORMS.size(); i++) {
            Path form = dir.resolve("form-" + i + ".txt");
            Files.writeString(form, FIVE_FORMS.get(i));
            CliTest.Result r = CliTest.run("import", "--out", dir.resolve("form-out-" + i).toString(), form.toString());
            assertEquals(Main.OK, r.code(), form + ": " + r);
            assertTrue(r.out().contains("1 imported, 0 skipped"), r.toString());
        }
    }

    @Test
    void aFileItCannotReadIsOneLineAndTheOthersGoOn(@TempDir Path dir) throws Exception {
        Path bad = dir.resolve("notes.md");
        Files.writeString(bad, "not a schedule");
        Path good = dir.resolve("good.txt");
        Files.writeString(good, FIVE_FORMS.get(0));
        CliTest.Result r = CliTest.run("import", "--out", dir.resolve("out").toString(), bad.toString(), good.toString());
        assertEquals(Main.USAGE, r.code(), r.toString());
        assertTrue(r.out().contains("good.txt: 1 schedule, 1 imported"), r.toString());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().contains("notes.md: not a format txfuzz imports"), r.err());
    }
}
