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
import java.util.concurrent.CopyOnWriteArrayList;
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
 * Both signals take one path in txfuzz (the JVM's exit and its shutdown hooks), and each server stops by its own
 * means whatever the signal, so each server meets each signal once and each phase each signal once (PostgreSQL:
 * SIGTERM while it starts, SIGINT mid-case; MariaDB the other way round) instead of every combination.
 * After every exit it can see, no server process and no data directory of the run remain and the
 * output folder is whole; what a SIGKILLed run left, the next run removes, saying so.
 */
class SignalExitTest {
    /**
     * How many scenarios run at once. Each is a txfuzz process of its own; most of their time goes to waiting (a server's
     * start, cases until the moment to signal, the stop), so a few at a time finish the class in far less than one after
     * another, even on two cores. Two, not three: the suite runs other classes in two more JVMs beside this one, and
     * three at once left a MariaDB start without its "ready" line for 60 s.
     */
    private static final int AT_ONCE = 2;
    /** The class's folder: every scenario has its own folder in it, with its own private home and output. */
    @TempDir
    static Path tmp;

    private static Scenarios scenarios;
    private static final List<Process> STARTED = new CopyOnWriteArrayList<>();

    /** One scenario: the txfuzz processes it starts run with {@code home} as their private home, {@code out} as their output. */
    private record Scenario(Path dir, Path home) {
        Path out() {
            return dir.resolve("out");
        }
    }

    private interface Body {
        void run(Scenario s) throws Exception;
    }

    /**
     * Every scenario starts here, {@link #AT_ONCE} at a time, each with a private home of its own (the server binaries
     * linked in from one unpacking per JVM), so that each sees only its own runs' servers, data directories and
     * leases; each test waits for its own scenario and fails with what it found.
     */
    @BeforeAll
    static void startEveryScenario() {
        scenarios = new Scenarios(tmp, AT_ONCE, "signal-scenario");
        // the longest first: the class takes as long as its slowest thread of scenarios
        scenario("aKilledRunsServerIsRemovedByTheNextRun", "postgres", s -> killedRunsServerIsRemovedByTheNextRun(s));
        scenario("anInterruptedRunOverTwoSubjectsStopsBothServers", "postgres", s -> interruptedRunOverTwoSubjectsStopsBothServers(s));
        scenario("mariadbTerminatedMidCase", "mariadb", s -> interruptMidCase(s, "mariadb", "TERM"));
        scenario("postgresInterruptedMidCase", "postgres", s -> interruptMidCase(s, "postgres", "INT"));
        scenario("mariadbInterruptedDuringStartUp", "mariadb", s -> interruptDuringStartUp(s, "mariadb", "INT"));
        scenario("postgresTerminatedDuringStartUp", "postgres", s -> interruptDuringStartUp(s, "postgres", "TERM"));
        scenario("interruptedMidReductionLeavesWholeFindingsAndSaysSo", null, s -> stopMidReduction(s, "INT"));
        scenario("terminatedMidReductionLeavesWholeFindingsAndSaysSo", null, s -> stopMidReduction(s, "TERM"));
        scenario("anInterruptedRunSaysSoAndItsSummaryAndLastEventSayItWasCutShort", null, s -> stopMidRun(s, "INT", Main.INTERRUPTED));
        scenario("aTerminatedRunSaysSoAndItsSummaryAndLastEventSayItWasCutShort", null, s -> stopMidRun(s, "TERM", Main.TERMINATED));
        scenario("anInterruptionWhileTheServerIsPreparedSaysSo", null, s -> interruptionWhileTheServerIsPrepared(s));
    }

    /** Queues the scenario of test {@code name}, in a home holding the binaries of {@code engine} (none when null). */
    private static void scenario(String name, String engine, Body body) {
        scenarios.start(name, engine, (dir, home) -> body.run(new Scenario(dir, engine == null ? Files.createDirectories(home) : home)));
    }

    /** The outcome of the scenario of test {@code name}: its failure, thrown here. */
    private static void outcome(String name) throws Throwable {
        scenarios.outcome(name);
    }

    @AfterAll
    static void stopWhatIsLeft() throws InterruptedException {
        scenarios.close();
        for (Process p : STARTED) {
            p.destroyForcibly(); // a scenario that failed half-way; its servers stop with it (SIGKILL leaves them: the homes' sweep below)
        }
        for (Process p : STARTED) {
            p.waitFor(30, TimeUnit.SECONDS);
        }
        try (Stream<Path> dirs = Files.list(tmp)) {
            for (Path d : (Iterable<Path>) dirs::iterator) {
                for (String line : serverProcesses(d.resolve("home"))) {
                    ProcessHandle.of(Long.parseLong(line.substring(0, line.indexOf(' ')))).ifPresent(ProcessHandle::destroyForcibly);
                }
            }
        } catch (IOException ignored) {
            // nothing was made
        }
    }

    @Test
    void postgresTerminatedDuringStartUp() throws Throwable {
        outcome("postgresTerminatedDuringStartUp");
    }

    @Test
    void mariadbTerminatedMidCase() throws Throwable {
        outcome("mariadbTerminatedMidCase");
    }

    @Test
    void postgresInterruptedMidCase() throws Throwable {
        outcome("postgresInterruptedMidCase");
    }

    @Test
    void mariadbInterruptedDuringStartUp() throws Throwable {
        outcome("mariadbInterruptedDuringStartUp");
    }

    @Test
    void interruptedMidReductionLeavesWholeFindingsAndSaysSo() throws Throwable {
        outcome("interruptedMidReductionLeavesWholeFindingsAndSaysSo");
    }

    @Test
    void terminatedMidReductionLeavesWholeFindingsAndSaysSo() throws Throwable {
        outcome("terminatedMidReductionLeavesWholeFindingsAndSaysSo");
    }

    @Test
    void anInterruptedRunSaysSoAndItsSummaryAndLastEventSayItWasCutShort() throws Throwable {
        outcome("anInterruptedRunSaysSoAndItsSummaryAndLastEventSayItWasCutShort");
    }

    @Test
    void aTerminatedRunSaysSoAndItsSummaryAndLastEventSayItWasCutShort() throws Throwable {
        outcome("aTerminatedRunSaysSoAndItsSummaryAndLastEventSayItWasCutShort");
    }

    /** A signal while the server's binaries are prepared (unpacked and checked on a first use) or started: it says so. */
    @Test
    void anInterruptionWhileTheServerIsPreparedSaysSo() throws Throwable {
        outcome("anInterruptionWhileTheServerIsPreparedSaysSo");
    }

    /** SIGKILL: no shutdown hook runs; the next run in the same home stops what it left and says so. */
    @Test
    void aKilledRunsServerIsRemovedByTheNextRun() throws Throwable {
        outcome("aKilledRunsServerIsRemovedByTheNextRun");
    }

    /** --subjects: Ctrl-C in the middle of a campaign over two server subjects stops both servers txfuzz started. */
    @Test
    void anInterruptedRunOverTwoSubjectsStopsBothServers() throws Throwable {
        outcome("anInterruptedRunOverTwoSubjectsStopsBothServers");
    }

    /**
     * H2 in process, stopped by a signal while cases run: the run does not print a "done:" line as if it
     * had finished; it says "txfuzz: interrupted" (once) and the shell's code; summary.json and the
     * last line of events.jsonl say it was cut short, and by which signal.
     */
    private static void stopMidRun(Scenario s, String sig, int code) throws Exception {
        Path out = s.out();
        Process p = launch(s, out, "run", "--dbms", "h2", "--seed", "1", "--tests", "100000", "--reduce-time", "0");
        waitFor(() -> caseEvents(out) >= 3, 120, "three cases ran", p);
        signal(p, sig);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "txfuzz ends within a minute of SIG" + sig);
        assertEquals(code, p.exitValue(), "the shell's code for a run ended by SIG" + sig);
        String err = stderr(out);
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

    /** A fresh home: the signal comes while the binaries are unpacked and checked, before any server starts. */
    private static void interruptionWhileTheServerIsPrepared(Scenario s) throws Exception {
        Path freshHome = s.home();
        Path out = s.out();
        Process p = launch(s, out, "run", "--dbms", "postgres", "--tests", "5", "--reduce-time", "0");
        waitFor(() -> Files.isDirectory(freshHome.resolve("postgres")), 120, "the server's private directory is made", p);
        signal(p, "INT");
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "txfuzz ends within a minute of SIGINT");
        assertEquals(Main.INTERRUPTED, p.exitValue());
        String said = stderr(out);
        assertTrue(said.lines().anyMatch(l -> l.startsWith("txfuzz: interrupted")), "says it was interrupted: " + said);
        assertFalse(said.contains("Exception") || said.contains("\tat "), "no stack trace: " + said);
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

    private static long caseEvents(Path out) {
        return events(out).stream().filter(e -> e.path("event").asText().equals("case")).count();
    }

    private static void stopMidReduction(Scenario s, String sig) throws Exception {
        Path out = s.out();
        // H2 at READ UNCOMMITTED files documented findings within the first cases of seed 1 (five in 120 cases); asked to
        // reduce them, it does so once the cases have run, two at a time, for several seconds: time to signal mid-reduction
        Process p = launch(s, out, "run", "--dbms", "h2", "--isolation", "READ_UNCOMMITTED", "--seed", "1", "--tests", "120",
                "--reduce-time", "5m", "--reduce-documented");
        waitFor(() -> findingFolders(out).size() > 0, 60, "a finding is written", p);
        // the reduction of that finding is under way: the last event is its "reducing" step (a finding is written before it)
        waitFor(() -> {
            List<JsonNode> events = events(out);
            JsonNode last = events.isEmpty() ? null : events.get(events.size() - 1);
            return last != null && last.path("event").asText().equals("step") && last.path("step").asText().equals("reducing");
        }, 60, "a reduction is under way", p);
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

    private static void killedRunsServerIsRemovedByTheNextRun(Scenario s) throws Exception {
        Path out = s.out();
        Path home = s.home();
        Process p = launch(s, out, "run", "--dbms", "postgres", "--isolation", "READ_COMMITTED", "--tests", "100000", "--reduce-time", "0");
        waitFor(() -> stdout(out).contains("txfuzz: testing"), 120, "the server is up", p);
        p.destroyForcibly(); // SIGKILL: no shutdown hook runs
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertFalse(serverProcesses(home).isEmpty(), "SIGKILL leaves the postmaster running (precondition of this test)");
        assertFalse(dataDirectories(home).isEmpty(), "... and its data directory");

        Path out2 = s.dir().resolve("out2");
        Process next = launch(s, out2, "run", "--dbms", "postgres", "--isolation", "READ_COMMITTED", "--tests", "2", "--reduce-time", "0");
        assertTrue(next.waitFor(120, TimeUnit.SECONDS), "the next run finishes");
        String err = stderr(out2);
        assertTrue(err.lines().anyMatch(l -> l.startsWith("txfuzz: stopped a PostgreSQL server (pid ")), "says what it removed: " + err);
        assertNothingLeft(home);
    }

    private static void interruptedRunOverTwoSubjectsStopsBothServers(Scenario s) throws Exception {
        Path out = s.out();
        Path home = s.home();
        Process p = launch(s, out, "run", "--subjects", "postgres,postgres:prepared", "--isolation", "READ_COMMITTED", "--tests", "100000",
                "--reduce-time", "0");
        waitFor(() -> events(out).size() > 1, 180, "the campaign runs cases", p);
        assertEquals(2, dataDirectories(home).size(), "both subjects' servers run (precondition of this test)");
        JsonNode meta = events(out).get(0).path("meta");
        assertEquals("[\"postgres\",\"postgres:prepared\"]", meta.path("subjects").toString(), meta.toString());
        signal(p, "INT");
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "txfuzz ends within a minute of SIGINT");
        assertNothingLeft(home);
        assertOutputWhole(out);
        assertEquals(Main.INTERRUPTED, p.exitValue());
    }

    private static void interruptDuringStartUp(Scenario s, String dbms, String sig) throws Exception {
        Path out = s.out();
        Path home = s.home();
        Process p = launch(s, out, "run", "--dbms", dbms, "--tests", "100000", "--reduce-time", "0");
        waitFor(() -> !leases(home).isEmpty(), 120, "the server start begins", p);
        signal(p, sig);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "txfuzz ends within a minute of SIG" + sig + " during start-up");
        assertNothingLeft(home);
        String err = stderr(out);
        assertFalse(err.contains("Exception") || err.contains("\tat "), "no stack trace: " + err);
        assertTrue(err.lines().anyMatch(l -> l.startsWith("txfuzz: interrupted")), "says it was interrupted: " + err);
        assertEquals(sig.equals("INT") ? Main.INTERRUPTED : Main.TERMINATED, p.exitValue());
    }

    private static void interruptMidCase(Scenario s, String dbms, String sig) throws Exception {
        Path out = s.out();
        Path home = s.home();
        Process p = launch(s, out, "run", "--dbms", dbms, "--tests", "100000", "--reduce-time", "0");
        waitFor(() -> stdout(out).contains("txfuzz: testing"), 120, "the campaign runs", p);
        waitFor(() -> caseEvents(out) >= 1, 120, "a case has run: the campaign is in the middle of its cases", p);
        signal(p, sig);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "txfuzz ends within a minute of SIG" + sig);
        assertNothingLeft(home);
        assertOutputWhole(out);
        String err = stderr(out);
        assertTrue(err.lines().anyMatch(l -> l.startsWith("txfuzz: interrupted (SIG" + sig + ")")), "says it was interrupted: " + err);
        assertEquals(sig.equals("INT") ? Main.INTERRUPTED : Main.TERMINATED, p.exitValue());
    }

    // ---- what an exit must leave: nothing of the servers, a whole output folder

    private static void assertNothingLeft(Path home) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < until && !serverProcesses(home).isEmpty()) {
            Thread.sleep(100); // backends and mariadbd leave within moments of their server's stop
        }
        assertEquals(List.of(), serverProcesses(home), "no server process of the run remains");
        assertEquals(List.of(), dataDirectories(home), "no data directory remains");
        assertEquals(List.of(), leases(home), "no lease remains");
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

    /** Processes started from the scenario's private home: postmasters, backends, mariadbd (not the txfuzz JVM itself). */
    private static List<String> serverProcesses(Path home) {
        String h = home.toString();
        return ProcessHandle.allProcesses().filter(ProcessHandle::isAlive)
                .map(ph -> ph.pid() + " " + ph.info().commandLine().orElse(""))
                .filter(c -> c.contains(h) && !c.contains("txfuzz.cli.Main")).toList();
    }

    /** Data directories under the home: PostgreSQL's hold PG_VERSION, MariaDB's aria_log_control. */
    /** The data directories of servers runs with {@code home} started, in the home or in its twin in memory. */
    private static List<Path> dataDirectories(Path home) throws IOException {
        List<Path> found = new java.util.ArrayList<>();
        for (Path root : List.of(home, txfuzz.dbms.server.MemoryDirectory.location(home))) {
            if (!Files.isDirectory(root)) {
                continue;
            }
            try (Stream<Path> s = Files.walk(root, 4)) {
                s.filter(f -> {
                    String n = f.getFileName().toString();
                    return n.equals("PG_VERSION") && !f.getParent().getFileName().toString().matches("\\d+") || n.equals("aria_log_control");
                }).map(Path::getParent).forEach(found::add);
            }
        }
        return found;
    }

    private static List<Path> leases(Path home) {
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

    /** txfuzz in a JVM of its own with the scenario's private home, writing to {@code out}, its output beside it. */
    private static Process launch(Scenario s, Path out, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(txfuzz.ChildJvm.command("-Dtxfuzz.home=" + s.home(), "txfuzz.cli.Main"));
        cmd.addAll(List.of(args));
        cmd.addAll(List.of("--out", out.toString()));
        Files.createDirectories(out.getParent());
        Process p = new ProcessBuilder(cmd).redirectOutput(out.resolveSibling(out.getFileName() + ".stdout").toFile())
                .redirectError(out.resolveSibling(out.getFileName() + ".stderr").toFile()).start();
        STARTED.add(p);
        return p;
    }

    private static String stdout(Path out) {
        try {
            return Files.readString(out.resolveSibling(out.getFileName() + ".stdout"));
        } catch (IOException e) {
            return "";
        }
    }

    private static String stderr(Path out) throws IOException {
        return Files.readString(out.resolveSibling(out.getFileName() + ".stderr"));
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
