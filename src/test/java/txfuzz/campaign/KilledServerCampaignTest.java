package txfuzz.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.dbms.postgres.PostgresTarget;
import txfuzz.dbms.postgres.StartedPostgres;
import txfuzz.exec.ExecutorConfig;
import txfuzz.gen.CaseGenerator;
import txfuzz.gen.GenConfig;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.report.FindingRecord;

/**
 * A server that dies under a campaign of two workers ({@code run --jobs 2}) is restarted, for real: txfuzz
 * starts PostgreSQL, the test kills its postmaster with SIGKILL (by the pid txfuzz recorded from
 * postmaster.pid) once the campaign has filed some cases, and the campaign files the case that was running
 * as a finding, says on stderr that it starts a new server, finishes its cases on it, and leaves no
 * server or data directory behind.
 *
 * <p>So that the kill lands inside a case (a kill between two cases is only noticed by the next fresh
 * database, which restarts the server without any case failing), iteration {@value #KILLED} is a case whose
 * transaction waits for an advisory lock this test holds: the kill comes once the server shows that wait.
 * Every other iteration is a generated case.
 */
class KilledServerCampaignTest {
    private static final long SEED = 3;
    private static final int CASES = 16;
    /** The iteration running when the server is killed. */
    private static final int KILLED = 6;
    private static final long LOCK_KEY = 4711;
    private static final Duration PATIENCE = Duration.ofMinutes(2);

    @Test
    void aServerKilledUnderTwoWorkersIsAFindingAndANewServerFinishesTheCampaign(@TempDir Path out) throws Exception {
        PrintStream oldErr = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        AtomicReference<String> watcherFailure = new AtomicReference<>();
        long killed;
        Path killedDataDir;
        long replacement;
        Path replacementDataDir;
        Summary s;
        Path crashLog;
        try (PostgresTarget target = new PostgresTarget()) {
            killed = StartedPostgres.postmasterPid(target);
            killedDataDir = StartedPostgres.dataDir(target);
            assertTrue(killed > 0, "txfuzz knows its postmaster's pid");
            CaseGenerator generator = new CaseGenerator(GenConfig.defaults());
            Campaign.CaseSource cases = (level, mode, i) -> {
                if (i == KILLED) {
                    return waitingForTheTest(level, mode, i);
                }
                synchronized (generator) { // the two workers ask at once
                    return generator.generate(target.name(), target.dialect(), level, mode, SEED, i);
                }
            };
            // the waiting case must still wait when the server is killed: the executor gives up on a stalled case only after PATIENCE
            ExecutorConfig executor = new ExecutorConfig(Duration.ofMillis(500), PATIENCE, PATIENCE);
            CampaignConfig config = new CampaignConfig(List.of(IsolationLevel.READ_COMMITTED), List.of(), List.of("wss", "explicit"), CASES, null,
                    SEED, out, GenConfig.defaults(), executor, null, CampaignConfig.Execution.PLAIN, Duration.ZERO);
            try (Connection holder = StartedPostgres.admin(target); Statement st = holder.createStatement()) {
                st.execute("SELECT pg_advisory_lock(" + LOCK_KEY + ")");
                Thread killer = new Thread(() -> killWhenTheCaseWaits(target, killed, out.resolve("events.jsonl"), holder, watcherFailure),
                        "test-killer");
                killer.start();
                System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
                try {
                    s = new Campaign(target, config, new PrintStream(OutputStream.nullOutputStream()), cases).withJobs(2).run();
                } finally {
                    System.setErr(oldErr);
                }
                killer.join();
            }
            assertNull(watcherFailure.get());
            String stderr = err.toString(StandardCharsets.UTF_8);
            oldErr.print(stderr);
            oldErr.println("campaign: " + s.cases() + " cases, " + s.invalidCases() + " invalid, " + s.seconds() + " s; findings: "
                    + s.findings().stream().map(f -> f.id() + " " + f.oracle() + "/" + f.kind() + "/" + f.classification()).toList());

            // a new server was started, and said so in one line, as a MariaDB restart is
            assertEquals(1, target.restarts(), stderr);
            replacement = StartedPostgres.postmasterPid(target);
            replacementDataDir = StartedPostgres.dataDir(target);
            assertNotEquals(killed, replacement);
            assertTrue(StartedPostgres.running(replacement), "the new server runs until the target closes");
            List<String> restartLines = stderr.lines().filter(l -> l.startsWith("txfuzz: the PostgreSQL server died")).toList();
            assertEquals(1, restartLines.size(), stderr);
            assertTrue(restartLines.get(0).contains("; starting a new one. Its last words: "), restartLines.get(0));
            crashLog = target.lastCrashLog();
            assertTrue(restartLines.get(0).endsWith("(log kept: " + crashLog + ")"), restartLines.get(0));

            // the campaign finished its cases: every iteration has its line in events.jsonl, and the limit ended it
            assertFalse(s.interrupted());
            assertEquals("tests", s.endedBy());
            // a case whose setup the dying server cut short is the engine failing, not an invalid case: every case counts
            assertEquals(CASES, s.cases(), s.toString());
            assertEquals(0, s.invalidCases(), s.toString());
            List<String> events = Files.readAllLines(out.resolve("events.jsonl"));
            for (int i = 0; i < CASES; i++) {
                String iteration = "\"iteration\":" + i + ",";
                assertEquals(1, events.stream().filter(l -> l.contains("\"event\":\"case\"") && l.contains(iteration)).count(), "iteration " + i);
            }

            // the case the kill cut short is a finding, filed on disk
            FindingRecord crash = s.findings().stream().filter(f -> f.id().endsWith("-i" + KILLED)).findFirst()
                    .orElseThrow(() -> new AssertionError("no finding for iteration " + KILLED + ": " + s.findings()));
            assertTrue(Oracles.kind(crash.kind()).orElseThrow().engineFailure() || crash.kind().equals("connection-lost"), crash.toString());
            assertTrue(Files.isRegularFile(out.resolve(crash.dir()).resolve("case.json")), crash.toString());
            assertTrue(events.stream().anyMatch(l -> l.contains("\"event\":\"finding\"") && l.contains("\"id\":\"" + crash.id() + "\"")));
        }
        // nothing is left behind: neither server runs, neither data directory exists (the dead server's log is kept on purpose)
        for (long pid : new long[] {killed, replacement}) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (StartedPostgres.running(pid) && System.nanoTime() < deadline) {
                Thread.sleep(5); // between two looks at the process table: a stopped postmaster may still be reaped
            }
            assertFalse(StartedPostgres.running(pid), "postmaster " + pid + " still runs");
        }
        assertFalse(Files.exists(killedDataDir), killedDataDir.toString());
        assertFalse(Files.exists(replacementDataDir), replacementDataDir.toString());
        assertEquals(List.of(), leasesOf(List.of(killedDataDir, replacementDataDir)), "no lease names either server");
        assertTrue(crashLog != null && Files.isRegularFile(crashLog), "the dead server's log is kept: " + crashLog);
        Files.delete(crashLog);
    }

    /** Iteration {@value #KILLED}: its transaction waits for the advisory lock the test holds until the server dies. */
    private static TestCase waitingForTheTest(IsolationLevel level, String mode, long i) {
        TestCase base = txfuzz.exec.Cases.on("postgres").table("t").level(level).mode(mode)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)")
                .txn("SELECT pg_advisory_lock(" + LOCK_KEY + ")", "UPDATE t SET v = 1 WHERE id = 1")
                .order(1, 1, 1, 1);
        return new TestCase(base.formatVersion(), base.dbms(), SEED, i, base.isolation(), base.mode(), base.execution(), base.tables(),
                base.setup(), base.transactions(), base.order());
    }

    /**
     * Kills the postmaster by its pid (SIGKILL) once the campaign has filed the cases before iteration {@value #KILLED}
     * (events.jsonl says so) and the server shows that iteration's transaction waiting for the test's lock (pg_locks says
     * so). On any failure the lock is let go, so the campaign ends and the test reports why.
     */
    private static void killWhenTheCaseWaits(PostgresTarget target, long pid, Path events, Connection holder, AtomicReference<String> failure) {
        long deadline = System.nanoTime() + PATIENCE.toNanos() / 2;
        try {
            while (caseEvents(events) < KILLED) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the campaign filed " + caseEvents(events) + " cases, not " + KILLED);
                }
                Thread.sleep(10); // between two looks at events.jsonl
            }
            try (Statement st = holder.createStatement()) {
                while (true) {
                    try (ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")) {
                        rs.next();
                        if (rs.getInt(1) > 0) {
                            break;
                        }
                    }
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("no case waited for the test's advisory lock");
                    }
                    Thread.sleep(10); // between two looks at pg_locks
                }
            }
            assertTrue(ProcessHandle.of(pid).orElseThrow().destroyForcibly(), "SIGKILL to " + pid); // destroyForcibly is SIGKILL on Unix
        } catch (Exception | AssertionError e) {
            failure.set(e.toString());
            try {
                holder.close(); // the session's end lets the waiting case go
            } catch (SQLException ignored) {
                // the session is gone already
            }
        }
    }

    /** The lease files (txfuzz's record of a server it started, for txfuzz clean) naming one of {@code dataDirs}. */
    private static List<Path> leasesOf(List<Path> dataDirs) throws java.io.IOException {
        Path folder = txfuzz.dbms.server.Lease.folder();
        if (!Files.isDirectory(folder)) {
            return List.of();
        }
        List<Path> out = new java.util.ArrayList<>();
        try (var files = Files.list(folder)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".lease")).toList()) {
                java.util.Properties p = new java.util.Properties();
                try (var in = Files.newInputStream(f)) {
                    p.load(in);
                } catch (NoSuchFileException goneMeanwhile) {
                    continue; // another test's server stopped
                }
                if (dataDirs.stream().anyMatch(d -> d.toAbsolutePath().normalize().toString().equals(p.getProperty("dataDir")))) {
                    out.add(f);
                }
            }
        }
        return out;
    }

    /** How many case lines events.jsonl has so far (none before it exists). */
    private static long caseEvents(Path events) throws java.io.IOException {
        try {
            // read while the campaign appends: a half-written last line is no harm to a count of finished lines
            return new String(Files.readAllBytes(events), StandardCharsets.UTF_8).lines().filter(l -> l.contains("\"event\":\"case\"")).count();
        } catch (NoSuchFileException notYet) {
            return 0;
        }
    }
}
