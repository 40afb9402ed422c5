package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * txfuzz as a separate process, interrupted the ways a user and a CI runner interrupt it: SIGINT and
 * SIGTERM while a server starts, in the middle of a case and in the middle of a reduction, and SIGKILL.
 * After every exit it can see, no server process and no data directory of the run remain and the
 * output folder is whole; what a SIGKILLed run left, the next run removes, saying so.
 */
class SignalExitTest {
    /** One private home for the whole class, so the server binaries are unpacked once. */
    private static Path home;

    @TempDir
    Path tmp;

    @BeforeAll
    static void privateHome() throws IOException {
        home = Files.createTempDirectory("txfuzz-signal-home");
    }

    @AfterAll
    static void removeHome() {
        txfuzz.dbms.server.Lease.deleteTree(home);
    }

    @Test
    void postgresInterruptedDuringStartUp() throws Exception {
        interruptDuringStartUp("postgres", "INT");
    }

    @Test
    void postgresTerminatedDuringStartUp() throws Exception {
        interruptDuringStartUp("postgres", "TERM");
    }

    @Test
    void mariadbTerminatedMidCase() throws Exception {
        interruptMidCase("mariadb", "TERM");
    }

    @Test
    void postgresTerminatedMidCase() throws Exception {
        interruptMidCase("postgres", "TERM");
    }

    @Test
    void postgresInterruptedMidCase() throws Exception {
        interruptMidCase("postgres", "INT");
    }

    @Test
    void mariadbInterruptedDuringStartUp() throws Exception {
        interruptDuringStartUp("mariadb", "INT");
    }

    @Test
    void mariadbTerminatedDuringStartUp() throws Exception {
        interruptDuringStartUp("mariadb", "TERM");
    }

    @Test
    void mariadbInterruptedMidCase() throws Exception {
        interruptMidCase("mariadb", "INT");
    }

    @Test
    void interruptedMidReductionLeavesWholeFindingsAndSaysSo() throws Exception {
        stopMidReduction("INT");
    }

    @Test
    void terminatedMidReductionLeavesWholeFindingsAndSaysSo() throws Exception {
        stopMidReduction("TERM");
    }

    @Test
    void anInterruptedRunSaysSoAndItsSummaryAndLastEventSayItWasCutShort() throws Exception {
        stopMidRun("INT", Main.INTERRUPTED);
    }

    @Test
    void aTerminatedRunSaysSoAndItsSummaryAndLastEventSayItWasCutShort() throws Exception {
        stopMidRun("TERM", Main.TERMINATED);
    }

    /**
     * H2 in process, stopped by a signal while cases run: the run does not print a "done:" line as if it
     * had finished; it says "txfuzz: interrupted" (once) and the shell's code; summary.json and the
     * last line of events.jsonl say it was cut short, and by which signal.
     */
    private void stopMidRun(String sig, int code) throws Exception {
        Path out = tmp.resolve("out");
        Process p = launch(out, "run", "--dbms", "h2", "--seed", "1", "--tests", "100000", "--reduce-time", "0");
        waitFor(() -> events(out).stream().filter(e -> e.path("event").asText().equals("case")).count() >= 3, 120, "three cases ran", p);
        signal(p, sig);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "txfuzz ends within a minute of SIG" + sig);
        assertEquals(code, p.exitValue(), "the shell's code for a run ended by SIG" + sig);
        String err = Files.readString(out.resolveSibling(out.getFileName() + ".stderr"));
        String stdout = stdout(out);
        List<String> said = err.lines().filter(l -> l.startsWith("txfuzz: interrupted")).toList();
        assertEquals(1, said.size(), "said once: " + err);
        assertTrue(said.get(0).startsWith("txfuzz: interrupted (SIG" + sig + ") after "), said.get(0));
        assertTrue(said.get(0).contains("partial results in " + out.resolve("summary.json")), said.get(0));
        assertFalse(stdout.lines().anyMatch(l -> l.startsWith("done:")), "no line reads as a finished run: " + stdout);
        JsonNode summary = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
        assertTrue(summary.path("interrupted").asBoolean(), summary.toString());
        assertEquals("SIG" + sig, summary.path("signal").asText(), summary.toString());
        assertTrue(summary.path("cases").asLong() >= 3 && summary.path("cases").asLong() < 100_000, summary.path("cases").toString());
        List<JsonNode> events = events(out);
        JsonNode last = events.get(events.size() - 1);
        assertEquals("end", last.path("event").asText(), last.toString());
        assertTrue(last.path("interrupted").asBoolean(), last.toString());
        assertEquals("SIG" + sig, last.path("signal").asText(), last.toString());
        assertEquals(summary.path("cases").asLong(), last.path("cases").asLong(), "the last event and summary.json agree");
    }

    /** A signal while the server's binaries are prepared (unpacked and checked on a first use) or started: it says so. */
    @Test
    void anInterruptionWhileTheServerIsPreparedSaysSo() throws Exception {
        Path freshHome = Files.createTempDirectory("txfuzz-signal-fresh-home");
        try {
            Path out = tmp.resolve("out");
            List<String> cmd = new ArrayList<>(txfuzz.ChildJvm.command("-Dtxfuzz.home=" + freshHome, "txfuzz.cli.Main"));
            cmd.addAll(List.of("run", "--dbms", "postgres", "--tests", "5", "--reduce-time", "0", "--out", out.toString()));
            Path err = tmp.resolve("fresh.stderr");
            Process p = new ProcessBuilder(cmd).redirectOutput(tmp.resolve("fresh.stdout").toFile()).redirectError(err.toFile()).start();
            waitFor(() -> Files.isDirectory(freshHome.resolve("postgres")), 120, "the server's private directory is made", p);
            signal(p, "INT");
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "txfuzz ends within a minute of SIGINT");
            assertEquals(Main.INTERRUPTED, p.exitValue());
            String said = Files.readString(err);
            assertTrue(said.lines().anyMatch(l -> l.startsWith("txfuzz: interrupted")), "says it was interrupted: " + said);
            assertFalse(said.contains("Exception") || said.contains("\tat "), "no stack trace: " + said);
        } finally {
            txfuzz.dbms.server.Lease.deleteTree(freshHome);
        }
    }

    private static List<JsonNode> events(Path out) {
        try {
            List<JsonNode> parsed = new ArrayList<>();
            for (String line : Files.readAllLines(out.resolve("events.jsonl"))) {
                parsed.add(new ObjectMapper().readTree(line));
            }
            return parsed;
        } catch (IOException e) {
            return List.of(); // not written yet, or a line being written
        }
    }

    private void stopMidReduction(String sig) throws Exception {
        Path out = tmp.resolve("out");
        // H2 at READ UNCOMMITTED finds a documented write deviation within the first cases of seed 1
        Process p = launch(out, "run", "--dbms", "h2", "--isolation", "READ_UNCOMMITTED", "--seed", "1", "--tests", "500",
                "--reduce-time", "5m");
        waitFor(() -> findingFolders(out).size() > 0, 60, "a finding is written", p);
        Thread.sleep(300); // the reduction of that finding is under way
        signal(p, sig);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "txfuzz ends within a minute of SIG" + sig);
        assertOutputWhole(out);
        assertEquals(sig.equals("INT") ? Main.INTERRUPTED : 128 + 15, p.exitValue(), "the shell's code for a run ended by SIG" + sig);
        JsonNode summary = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
        List<String> statuses = new ArrayList<>();
        for (JsonNode f : summary.path("findings")) {
            JsonNode r = f.path("reduction");
            statuses.add(r.path("status").asText());
            if ("reduced".equals(r.path("status").asText())) {
                assertTrue(r.path("statementsAfter").asInt() < r.path("statementsBefore").asInt(), "a finding recorded as reduced is smaller: " + f);
            }
        }
        assertTrue(statuses.contains("interrupted"), "the reduction under way is recorded as interrupted: " + statuses);
        assertFalse(statuses.contains("pending"), "no reduction is left pending: " + statuses);
    }

    @Test
    void aKilledRunsServerIsRemovedByTheNextRun() throws Exception {
        Path out = tmp.resolve("out");
        Process p = launch(out, "run", "--dbms", "postgres", "--isolation", "READ_COMMITTED", "--tests", "100000", "--reduce-time", "0");
        waitFor(() -> stdout(out).contains("txfuzz: testing"), 120, "the server is up", p);
        p.destroyForcibly(); // SIGKILL: no shutdown hook runs
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertFalse(serverProcesses().isEmpty(), "SIGKILL leaves the postmaster running (precondition of this test)");
        assertFalse(dataDirectories().isEmpty(), "... and its data directory");

        Path out2 = tmp.resolve("out2");
        Process next = launch(out2, "run", "--dbms", "postgres", "--isolation", "READ_COMMITTED", "--tests", "2", "--reduce-time", "0");
        assertTrue(next.waitFor(120, TimeUnit.SECONDS), "the next run finishes");
        String err = Files.readString(out2.resolveSibling(out2.getFileName() + ".stderr"));
        assertTrue(err.lines().anyMatch(l -> l.startsWith("txfuzz: stopped a PostgreSQL server (pid ")), "says what it removed: " + err);
        assertNothingLeft();
    }

    /** --subjects: Ctrl-C in the middle of a campaign over two server subjects stops both servers txfuzz started. */
    @Test
    void anInterruptedRunOverTwoSubjectsStopsBothServers() throws Exception {
        Path out = tmp.resolve("out");
        Process p = launch(out, "run", "--subjects", "postgres,postgres:prepared", "--isolation", "READ_COMMITTED", "--tests", "100000",
                "--reduce-time", "0");
        waitFor(() -> events(out).size() > 1, 180, "the campaign runs cases", p);
        assertEquals(2, dataDirectories().size(), "both subjects' servers run (precondition of this test)");
        JsonNode meta = events(out).get(0).path("meta");
        assertEquals("[\"postgres\",\"postgres:prepared\"]", meta.path("subjects").toString(), meta.toString());
        signal(p, "INT");
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "txfuzz ends within a minute of SIGINT");
        assertNothingLeft();
        assertOutputWhole(out);
        assertEquals(Main.INTERRUPTED, p.exitValue());
    }

    private void interruptDuringStartUp(String dbms, String sig) throws Exception {
        Path out = tmp.resolve("out");
        Process p = launch(out, "run", "--dbms", dbms, "--tests", "100000", "--reduce-time", "0");
        waitFor(() -> !leases().isEmpty(), 120, "the server start begins", p);
        signal(p, sig);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "txfuzz ends within a minute of SIG" + sig + " during start-up");
        assertNothingLeft();
        String err = Files.readString(out.resolveSibling(out.getFileName() + ".stderr"));
        assertFalse(err.contains("Exception") || err.contains("\tat "), "no stack trace: " + err);
        assertTrue(err.lines().anyMatch(l -> l.startsWith("txfuzz: interrupted")), "says it was interrupted: " + err);
        assertEquals(sig.equals("INT") ? Main.INTERRUPTED : Main.TERMINATED, p.exitValue());
    }

    private void interruptMidCase(String dbms, String sig) throws Exception {
        Path out = tmp.resolve("out");
        Process p = launch(out, "run", "--dbms", dbms, "--tests", "100000", "--reduce-time", "0");
        waitFor(() -> stdout(out).contains("txfuzz: testing"), 120, "the campaign runs", p);
        Thread.sleep(1500);
        signal(p, sig);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "txfuzz ends within a minute of SIG" + sig);
        assertNothingLeft();
        assertOutputWhole(out);
        String err = Files.readString(out.resolveSibling(out.getFileName() + ".stderr"));
        assertTrue(err.lines().anyMatch(l -> l.startsWith("txfuzz: interrupted (SIG" + sig + ")")), "says it was interrupted: " + err);
        assertEquals(sig.equals("INT") ? Main.INTERRUPTED : Main.TERMINATED, p.exitValue());
    }

    // ---- what an exit must leave: nothing of the servers, a whole output folder

    private static void assertNothingLeft() throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < until && !serverProcesses().isEmpty()) {
            Thread.sleep(100); // backends and mariadbd leave within moments of their server's stop
        }
        assertEquals(List.of(), serverProcesses(), "no server process of the run remains");
        assertEquals(List.of(), dataDirectories(), "no data directory remains");
        assertEquals(List.of(), leases(), "no lease remains");
    }

    private static void assertOutputWhole(Path out) throws IOException {
        Path summary = out.resolve("summary.json");
        if (Files.exists(summary)) {
            new ObjectMapper().readTree(summary.toFile()); // parseable
        }
        for (Path f : findingFolders(out)) {
            for (String name : List.of("case.json", "README.md", "reproduce.sql", "verdict.md")) {
                assertTrue(Files.exists(f.resolve(name)), f + " lacks " + name);
            }
            // every finding has its run's trace, except an engine failure outside any statement (MariaDB's
            // InnoDB assertion on DROP DATABASE, which can strike any case), which has no run to show
            boolean engineFailure = Files.readString(f.resolve("verdict.md")).contains("engine-failure");
            assertTrue(engineFailure || Files.exists(f.resolve("trace.txt")), f + " lacks trace.txt");
        }
    }

    private static List<Path> findingFolders(Path out) {
        Path dir = out.resolve("findings");
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(Files::isDirectory).filter(d -> !d.getFileName().toString().startsWith(".")).toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** Processes started from the class's private home: postmasters, backends, mariadbd. */
    private static List<String> serverProcesses() {
        String h = home.toString();
        return ProcessHandle.allProcesses().filter(ProcessHandle::isAlive)
                .map(ph -> ph.pid() + " " + ph.info().commandLine().orElse(""))
                .filter(c -> c.contains(h) && !c.contains("txfuzz.cli.Main")).toList();
    }

    /** Data directories under the home: PostgreSQL's hold PG_VERSION, MariaDB's aria_log_control. */
    private static List<Path> dataDirectories() throws IOException {
        try (Stream<Path> s = Files.walk(home, 4)) {
            return s.filter(f -> {
                String n = f.getFileName().toString();
                return n.equals("PG_VERSION") && !f.getParent().getFileName().toString().matches("\\d+") || n.equals("aria_log_control");
            }).map(Path::getParent).toList();
        }
    }

    private static List<Path> leases() {
        Path dir = home.resolve("leases");
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(f -> f.toString().endsWith(".lease")).toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    // ---- the child process

    private static Process launch(Path out, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(txfuzz.ChildJvm.command("-Dtxfuzz.home=" + home, "txfuzz.cli.Main"));
        cmd.addAll(List.of(args));
        cmd.addAll(List.of("--out", out.toString()));
        Files.createDirectories(out.getParent());
        return new ProcessBuilder(cmd).redirectOutput(out.resolveSibling(out.getFileName() + ".stdout").toFile())
                .redirectError(out.resolveSibling(out.getFileName() + ".stderr").toFile()).start();
    }

    private static String stdout(Path out) {
        try {
            return Files.readString(out.resolveSibling(out.getFileName() + ".stdout"));
        } catch (IOException e) {
            return "";
        }
    }

    private static void signal(Process p, String sig) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", "-" + sig, String.valueOf(p.pid())).start().waitFor());
    }

    private static void waitFor(BooleanSupplier condition, int seconds, String what, Process p) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (!p.isAlive()) {
                fail("txfuzz ended before " + what + " (exit " + p.exitValue() + ")");
            }
            if (System.nanoTime() > until) {
                p.destroyForcibly();
                fail("not seen within " + seconds + " s: " + what);
            }
            Thread.sleep(20);
        }
    }
}
