package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.exec.Cases;
import txfuzz.model.CaseJson;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;

/** txfuzz reduce as a user meets it: exit codes, one-line errors, the files it writes. */
class ReduceCommandTest {

    private static void assertOneLineError(CliTest.Result r, String expected) {
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains(expected), r.err());
        assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
    }

    @Test
    void badInputIsAOneLineUsageError(@TempDir Path dir) throws Exception {
        Path bad = dir.resolve("case.json");
        Files.writeString(bad, "{ not json");
        assertOneLineError(CliTest.run("reduce", bad.toString()), "case.json");
        assertOneLineError(CliTest.run("reduce", dir.resolve("missing.json").toString()), "missing.json");
        Path ok = dir.resolve("ok.json");
        Files.writeString(ok, CaseJson.write(notFailing()));
        assertOneLineError(CliTest.run("reduce", "--time", "soon", ok.toString()), "cannot read duration 'soon'");
        assertOneLineError(CliTest.run("reduce", "--oracle", "magic", ok.toString()), "unknown oracle 'magic'");
        assertOneLineError(CliTest.run("reduce", "--user", "me", ok.toString()), "--user needs --url");
    }

    static TestCase notFailing() {
        return Cases.on("h2").table("t").setup("CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 1)")
                .txn("UPDATE t SET v = 2 WHERE id = 1").autocommit("SELECT v FROM t").order(1, 1, 1, 2);
    }

    @Test
    void aCaseThatDoesNotFailExitsWithOne(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("case.json");
        Files.writeString(f, CaseJson.write(notFailing()));
        CliTest.Result r = CliTest.run("reduce", f.toString());
        assertEquals(1, r.code(), r.toString());
        assertTrue(r.out().contains("does not fail"), r.out());
        assertFalse(Files.exists(dir.resolve("reduced.case.json")));
    }

    @Test
    void aFailingCaseIsReducedIntoOut(@TempDir Path dir) throws Exception {
        // DuckDB 1.4.4's lost update with a noise transaction
        TestCase c = Cases.on("duckdb").level(IsolationLevel.SNAPSHOT).table("t")
                .setup("CREATE TABLE t(k VARCHAR(10) PRIMARY KEY, v INT)", "INSERT INTO t VALUES ('e', 1)")
                .txn("UPDATE t SET k = 'a'")
                .txn("UPDATE t SET v = v + 10", "SELECT k FROM t")
                .autocommit("SELECT v FROM t WHERE v > 0")
                .order(1, 2, 3, 1, 2, 1, 2, 2);
        Path f = dir.resolve("case.json");
        Files.writeString(f, CaseJson.write(c));
        Path out = dir.resolve("out");
        CliTest.Result r = CliTest.run("reduce", "--oracle", "wss", "--kind", "tx-wss", "--time", "30s", "--out", out.toString(), f.toString());
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.out().matches("(?s).*Statements 4 -> [1-4] .* in \\d+ runs, [0-9.]+ s.*"), r.out());
        TestCase reduced = CaseJson.read(out.resolve("reduced.case.json"));
        assertTrue(reduced.transactions().size() <= 3 && reduced.transactions().size() >= 2, CaseJson.write(reduced));
        assertTrue(Files.readString(out.resolve("reduced.reproduce.sql")).contains("UPDATE t SET v = v + "));
    }
}
