package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.model.CaseJson;

/**
 * Every user error is one line on stderr, without exception class names or stack frames, and
 * exits 2; found before anything is printed on stdout or any case runs.
 */
class CliErrorsTest {

    private static CliTest.Result assertOneLine(int code, CliTest.Result r, String expected) {
        assertEquals(code, r.code(), r.toString());
        assertFalse(r.err().isBlank(), r.toString());
        assertEquals(1, r.err().lines().count(), "exactly one line: " + r.err());
        assertTrue(r.err().endsWith("\n") || r.err().endsWith(System.lineSeparator()), r.err());
        assertFalse(r.err().contains("Exception"), r.err());
        assertFalse(r.err().contains("at txfuzz."), r.err());
        assertTrue(r.err().contains(expected), "expected '" + expected + "' in: " + r.err());
        return r;
    }

    private static CliTest.Result usage(CliTest.Result r, String expected) {
        return assertOneLine(Main.USAGE, r, expected);
    }

    @Test
    void anOverlongDurationNamesTheMaximum() {
        usage(CliTest.run("run", "--time", "999999999h"), "the maximum is 100000h");
        usage(CliTest.run("run", "--time", "99999999999999999999999s"), "the maximum is 100000h");
        usage(CliTest.run("run", "--reduce-time", "999999999h"), "too long");
    }

    /** Limits under which no case could run (or that say no unit) are refused, where they used to run nothing and exit 0. */
    @Test
    void nonsenseLimitsAreOneLineErrorsBeforeAnythingRuns(@TempDir Path dir) {
        Path out = dir.resolve("o");
        String o = out.toString();
        String[][] refused = {
                {"run", "--tests", "0", "--out", o}, {"--tests must be at least 1, not 0"},
                {"run", "--tests", "-3", "--out", o}, {"--tests must be at least 1, not -3"},
                {"run", "--time", "0s", "--out", o}, {"--time 0s leaves no time to run a case; give at least 1s"},
                {"run", "--time", "1ms", "--out", o}, {"--time 1ms leaves no time to run a case"},
                {"run", "--time", "10", "--out", o}, {"--time 10 has no unit; write e.g. 10s, 10m or 10h"},
                {"run", "--tests", "1", "--time", "0", "--out", o}, {"--time 0 has no unit"},
                {"run", "--tests", "1", "--time", "0s", "--out", o}, {"--time 0s leaves no time"},
                {"isolation-table", "--tests", "0", "--out", o}, {"--tests must be at least 1, not 0"},
                {"isolation-table", "--time", "10", "--out", o}, {"--time 10 has no unit"},
                {"reduce", "x.case.json", "--time", "0s"}, {"--time 0s leaves no time"},
                {"bench", "--tests", "0", "--out", o}, {"--tests must be at least 1, not 0"},
        };
        for (int i = 0; i < refused.length; i += 2) {
            CliTest.Result r = usage(CliTest.run(refused[i]), refused[i + 1][0]);
            assertEquals("", r.out(), "nothing printed before the error: " + String.join(" ", refused[i]));
            assertFalse(Files.exists(out.resolve("summary.json")), "no run: " + String.join(" ", refused[i]));
        }
    }

    /** Both limits given: the banner says both, in the singular where it is one. */
    @Test
    void theBannerSaysBothLimitsWhenBothAreGiven(@TempDir Path dir) {
        CliTest.Result r = CliTest.run("run", "--tests", "1", "--time", "5m", "--seed", "1", "--reduce-time", "0", "--out", dir.resolve("o").toString());
        assertTrue(r.code() == Main.OK || r.code() == Main.FOUND, r.toString());
        assertTrue(r.out().lines().findFirst().orElse("").contains(", at most 1 case or 5m; output in "), r.out());
    }

    @Test
    void picocliArgumentErrorsAreOneLineWithAPointerToHelp() {
        CliTest.Result r = usage(CliTest.run("run", "--no-such-flag"), "(see 'txfuzz run --help')");
        assertTrue(r.err().startsWith("txfuzz: Unknown option: '--no-such-flag'"), r.err());
        usage(CliTest.run("run", "--tests", "many"), "(see 'txfuzz run --help')");
        usage(CliTest.run("reduce"), "(see 'txfuzz reduce --help')");
        usage(CliTest.run("nosuchcommand"), "(see 'txfuzz --help')");
    }

    @Test
    void optionValuesAreCheckedBeforeTheBanner(@TempDir Path dir) {
        CliTest.Result r = usage(CliTest.run("run", "--execution", "nope", "--out", dir.resolve("o").toString()),
                "--execution must be plain, prepared or mixed, not 'nope'");
        assertEquals("", r.out(), "nothing printed before the error");
        r = usage(CliTest.run("run", "--progress", "often", "--out", dir.resolve("o").toString()), "cannot read duration 'often'");
        assertEquals("", r.out());
        r = usage(CliTest.run("isolation-table", "--isolation", "chaos", "--out", dir.resolve("o").toString()), "unknown isolation level 'chaos'");
        assertEquals("", r.out());
    }

    @Test
    void benchChecksItsDbmsNamesBeforeTheTable(@TempDir Path dir) {
        CliTest.Result r = usage(CliTest.run("bench", "--dbms", "nope", "--out", dir.toString()), "unknown DBMS 'nope'");
        assertEquals("", r.out(), "no table header before the error");
        r = usage(CliTest.run("bench", "--dbms", "h2,nope", "--tests", "1", "--out", dir.toString()), "unknown DBMS 'nope'");
        assertEquals("", r.out(), "not even h2's row: every name is checked first");
    }

    @Test
    void aSetupFailureWithAMultiLineEngineMessageIsOneLine(@TempDir Path dir) throws Exception {
        // H2's syntax errors span lines (the statement, then the expected tokens)
        var c = ReduceCommandTest.notFailing();
        var broken = c.withSetup(c.tables(), java.util.List.of("CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1,\n 1"));
        Path f = dir.resolve("case.json");
        Files.writeString(f, CaseJson.write(broken));
        usage(CliTest.run("replay", f.toString()), "the case's setup does not run on h2:");
        usage(CliTest.run("reduce", f.toString()), "the case's setup does not run on h2:");
    }

    @Test
    void reduceWithAnUnknownKindIsAUsageError(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("case.json");
        Files.writeString(f, CaseJson.write(ReduceCommandTest.notFailing()));
        CliTest.Result r = usage(CliTest.run("reduce", "--kind", "nope", f.toString()), "unknown violation kind 'nope'");
        assertTrue(r.err().contains("write-outcome") && r.err().contains("lost-update"), r.err());
        assertEquals("", r.out(), "no run before the error");
    }

    @Test
    void ctrlCDuringStartUpIsAQuietInterruptedExit() {
        // what Runtime.addShutdownHook throws once Ctrl-C started the JVM's exit
        var shutdown = new IllegalStateException("Shutdown in progress");
        CliTest.Result r = CliTest.capture(() -> Main.report(new RuntimeException("cannot start postgres", shutdown)));
        assertOneLine(Main.INTERRUPTED, r, "txfuzz: interrupted");
        Main.SHUTTING_DOWN.set(false); // the JVM is not actually exiting
        r = CliTest.capture(() -> Main.report(shutdown));
        assertOneLine(Main.INTERRUPTED, r, "txfuzz: interrupted");
        Main.SHUTTING_DOWN.set(false);
    }

    @Test
    void anInternalErrorExitsThreeWithOneLineAndDebugShowsTheStackTrace() {
        CliTest.Result r = CliTest.capture(() -> Main.report(new NullPointerException("Cannot invoke \"x\" because \"y\" is null\nmore")));
        assertEquals(Main.INTERNAL, r.code(), r.toString());
        assertEquals("txfuzz: internal error: Cannot invoke \"x\" because \"y\" is null (run with --debug for the stack trace)",
                r.err().strip());
        // --debug is accepted by every subcommand and prints the trace of an error
        CliTest.Result d = CliTest.run("run", "--debug", "--time", "soon");
        assertEquals(Main.USAGE, d.code(), d.toString());
        assertTrue(d.err().contains("at txfuzz.cli.Options.duration"), d.err());
        assertTrue(d.err().strip().endsWith("txfuzz: cannot read duration 'soon' for --time; write e.g. 90s, 2m, 1h or 500ms"), d.err());
        CliTest.Result quiet = CliTest.run("run", "--time", "soon");
        assertEquals(1, quiet.err().lines().count(), "without --debug the trace is gone again: " + quiet.err());
        assertEquals(Main.USAGE, CliTest.run("check", "--debug", "nope.jsonl").code());
    }

    @Test
    void anOutThatIsAFileStopsEveryWritingCommandBeforeAnyCase(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("a-file");
        Files.writeString(file, "x");
        Path under = file.resolve("sub");
        for (Path out : new Path[] {file, under}) {
            CliTest.Result r = usage(CliTest.run("run", "--tests", "5", "--out", out.toString()), out.toString());
            assertEquals("", r.out(), "no banner, no case: " + r.out());
            r = usage(CliTest.run("isolation-table", "--tests", "1", "--out", out.toString()), out.toString());
            assertEquals("", r.out());
            r = usage(CliTest.run("bench", "--dbms", "h2", "--tests", "1", "--out", out.toString()), out.toString());
            assertEquals("", r.out(), "no table header: " + r.out());
            Path history = dir.resolve("h.jsonl");
            Files.writeString(history, "{\"id\":1,\"session\":1,\"seq\":0,\"outcome\":\"committed\",\"ops\":[]}\n");
            r = usage(CliTest.run("check", history.toString(), "--level", "SERIALIZABLE", "--out", out.toString()), out.toString());
            assertEquals("", r.out());
            Path c = dir.resolve("case.json");
            Files.writeString(c, CaseJson.write(ReduceCommandTest.notFailing()));
            r = usage(CliTest.run("reduce", "--out", out.toString(), c.toString()), out.toString());
            assertEquals("", r.out(), "nothing ran: " + r.out());
        }
        assertEquals("x", Files.readString(file), "the file is left alone");
    }

    @Test
    void anOutThatCanBeCreatedIsCreatedAndProbedWithoutLeavingAnything(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("new/deeper");
        CliTest.Result r = CliTest.run("run", "--tests", "1", "--seed", "1", "--reduce-time", "0", "--out", out.toString());
        assertTrue(r.code() == Main.OK || r.code() == Main.FOUND, r.toString());
        try (var entries = Files.list(out)) {
            assertTrue(entries.noneMatch(p -> p.getFileName().toString().startsWith(".txfuzz-write-probe")), "the probe file is deleted");
        }
    }
}
