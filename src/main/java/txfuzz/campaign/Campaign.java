package txfuzz.campaign;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import txfuzz.exec.Executor;
import txfuzz.exec.SetupFailedException;
import txfuzz.exec.Trace;
import txfuzz.gen.CaseGenerator;
import txfuzz.model.ExecutionMode;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;
import txfuzz.report.FindingRecord;
import txfuzz.report.FindingWriter;
import txfuzz.target.Target;

/** The loop: seed → case → execute → judge → record, until the test count or time budget is spent. */
public final class Campaign {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final Target target;
    private final CampaignConfig config;
    private final PrintStream progress;
    private final List<FindingRecord> findings = new ArrayList<>();
    private final Stats stats = new Stats();
    private volatile boolean stopRequested;
    private final java.util.concurrent.CountDownLatch finished = new java.util.concurrent.CountDownLatch(1);

    public Campaign(Target target, CampaignConfig config, PrintStream progress) {
        this.target = target;
        this.config = config;
        this.progress = progress;
    }

    /**
     * Asks the loop to stop after the current case and waits up to {@code millis} for it (Ctrl-C):
     * nothing the interrupted case sees afterwards (a target being closed) is recorded as a finding.
     */
    public void stop(long millis) {
        stopRequested = true;
        try {
            finished.await(millis, java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public Summary run() {
        try {
            return loop();
        } finally {
            finished.countDown();
        }
    }

    private Summary loop() {
        CaseGenerator generator = new CaseGenerator(config.gen());
        List<String> modes = config.modes().isEmpty() ? List.of(target.modes().get(0)) : config.modes();
        long deadline = config.time() == null ? Long.MAX_VALUE : System.nanoTime() + config.time().toNanos();
        long nextProgress = config.progressEvery() == null ? Long.MAX_VALUE : System.nanoTime() + config.progressEvery().toNanos();
        FindingWriter writer = new FindingWriter(config.out());
        try (Executor executor = new Executor(target, config.executor())) {
            Judge judge = new Judge(txfuzz.campaign.Oracles.create(config.oracles()), executor);
            for (long i = 0; ; i++) {
                if (stopRequested || (config.tests() != null && i >= config.tests()) || System.nanoTime() >= deadline) {
                    break;
                }
                int n = config.levels().size();
                IsolationLevel level = config.levels().get((int) (i % n));
                String mode = modes.get((int) ((i / n) % modes.size()));
                TestCase c = generator.generate(target.name(), target.dialect(), level, mode, config.seed(), i);
                if (config.execution() == CampaignConfig.Execution.PREPARED || (config.execution() == CampaignConfig.Execution.MIXED && i % 2 == 1)) {
                    c = c.withExecution(ExecutionMode.PREPARED);
                }
                runOne(c, executor, judge, writer);
                if (System.nanoTime() >= nextProgress) {
                    progress.println(stats.progressLine());
                    writeSummary();
                    nextProgress = System.nanoTime() + config.progressEvery().toNanos();
                }
            }
        }
        if (config.progressEvery() != null) {
            progress.println(stats.progressLine());
        }
        return writeSummary();
    }

    private void runOne(TestCase c, Executor executor, Judge judge, FindingWriter writer) {
        Trace trace;
        try {
            trace = executor.run(c);
        } catch (SetupFailedException e) {
            stats.invalidCases++;
            return;
        } catch (SQLException | RuntimeException e) {
            if (stopRequested) {
                return; // the run is being interrupted: the target is going away under this case
            }
            // The engine failed outside any one statement (it could not open or read back): that is
            // a finding too, and the campaign goes on with a fresh database.
            stats.cases++;
            record(c, null, List.of(failure("while running the case", e)), writer);
            return;
        }
        stats.add(c, trace);
        List<Violation> violations = new ArrayList<>();
        try {
            violations.addAll(judge.judge(c, trace));
            if (!violations.isEmpty()) {
                violations = new ArrayList<>(judge.confirm(c, violations));
            }
        } catch (SQLException | SetupFailedException | RuntimeException e) {
            if (stopRequested) {
                return;
            }
            // Keep what was found; the failure of a replay is a finding of its own.
            violations.add(failure("while judging the case (serial replays, simulations or the confirming run)", e));
        }
        if (!violations.isEmpty() && !stopRequested) {
            record(c, trace, violations, writer);
        }
    }

    private static Violation failure(String when, Exception e) {
        return new Violation("explicit", "engine-failure", Classification.BUG_CANDIDATE,
                "engine failure " + when + ": " + e.getClass().getSimpleName() + ": " + e.getMessage(),
                "The engine failed " + when + ", outside any single statement of the run:\n\n```\n" + e + "\n```\n", null);
    }

    private void record(TestCase c, Trace trace, List<Violation> violations, FindingWriter writer) {
        for (Violation v : violations) {
            switch (v.classification()) {
                case BUG_CANDIDATE -> stats.bugCandidates++;
                case DOCUMENTED -> stats.documented++;
                case FLAKY -> stats.flaky++;
            }
        }
        findings.addAll(writer.write(findingId(c), c, trace, violations, target));
        writeSummary();
    }

    /** e.g. h2-RC-s1-i42, hsqldb-SER-locks-s1-i7, h2-RR-prepared-s1-i9: unique within a run and across modes. */
    private String findingId(TestCase c) {
        return c.dbms() + "-" + c.isolation().shortName() + ("default".equals(c.mode()) ? "" : "-" + c.mode())
                + (c.execution() == ExecutionMode.PREPARED ? "-prepared" : "") + "-s" + c.seed() + "-i" + c.iteration();
    }

    private Summary writeSummary() {
        double s = Math.max(stats.seconds(), 1e-9);
        Summary summary = new Summary(target.name(), target.version(), config.seed(),
                config.levels().stream().map(Enum::name).toList(), config.oracles(), stats.cases, stats.invalidCases,
                stats.transactions, stats.statements, round(stats.seconds()), round(stats.cases / s), round(stats.transactions / s),
                round(stats.share(stats.blockedStatements, stats.statements)),
                round(stats.share(stats.invalidStatements, stats.statements)), stats.stalls,
                stats.bugCandidates, stats.documented, stats.flaky, List.copyOf(findings));
        try {
            Files.createDirectories(config.out());
            Path tmp = config.out().resolve("summary.json.tmp");
            Files.writeString(tmp, JSON.writeValueAsString(summary) + "\n");
            Files.move(tmp, config.out().resolve("summary.json"), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + config.out().resolve("summary.json") + ": " + e.getMessage(), e);
        }
        return summary;
    }

    private static double round(double d) {
        return Math.round(d * 1000) / 1000.0;
    }
}
