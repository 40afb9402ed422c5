package txfuzz.cli;

import java.io.PrintStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import txfuzz.campaign.Campaign;
import txfuzz.campaign.CampaignConfig;
import txfuzz.campaign.Summary;
import txfuzz.exec.ExecutorConfig;
import txfuzz.gen.GenConfig;
import txfuzz.dbms.Database;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.ConcurrentRun;
import txfuzz.exec.ConcurrentRunner;
import txfuzz.exec.Executor;
import txfuzz.exec.SetupFailedException;
import txfuzz.exec.Trace;
import txfuzz.exec.TxnStatus;
import txfuzz.gen.CaseGenerator;
import txfuzz.history.Analysis;
import txfuzz.history.History;
import txfuzz.history.HistoryJson;
import txfuzz.history.IsolationChecker;
import txfuzz.history.SyntheticHistory;
import txfuzz.model.TestCase;

@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Throughput benchmark: a fixed-seed campaign per DBMS at every level; prints a Markdown table.",
                "--checker: the isolation checker on synthetic 100,000-transaction histories instead.",
                "--runner: the concurrent runner against the controlled executor on generated cases instead."})
final class BenchCommand implements Callable<Integer> {
    @Option(names = "--dbms", defaultValue = "all", description = "DBMSs, comma-separated, or 'all'. Default: ${DEFAULT-VALUE}.")
    String dbms;

    @Option(names = "--tests", defaultValue = "300", description = "Cases per DBMS. Default: ${DEFAULT-VALUE}.")
    int tests;

    @Option(names = "--seed", defaultValue = "1", description = "Seed. Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--out", defaultValue = "txfuzz-out/bench", description = "Output folder (one subfolder per DBMS). Default: ${DEFAULT-VALUE}.")
    Path out;

    @Option(names = "--reduce-time", defaultValue = "0",
            description = "How long reducing one finding may take (as for run); 0, the default, measures the search alone.")
    String reduceTime;

    @Option(names = "--oracle", defaultValue = "wss,explicit", description = "Oracles, comma-separated. Default: ${DEFAULT-VALUE}.")
    String oracles;

    @Option(names = "--sessions", defaultValue = "0", description = "0: controlled runs; 2-5: concurrent runs (the isolation oracle only)."
            + " Default: ${DEFAULT-VALUE}.")
    int sessions;

    @Option(names = "--checker", description = "Measure the isolation checker on synthetic histories (serial and stale-snapshot,"
            + " --transactions each): JSON write/read and check times. No DBMS runs.")
    boolean checker;

    @Option(names = "--transactions", defaultValue = "100000", description = "History size for --checker. Default: ${DEFAULT-VALUE}.")
    int transactions;

    @Option(names = "--runner", description = "Measure the concurrent runner (4 sessions, 40-transaction cases) next to the controlled"
            + " executor on the same generated cases, per DBMS of --dbms, for --seconds each.")
    boolean runner;

    @Option(names = "--seconds", defaultValue = "8", description = "Measuring time per DBMS for --runner. Default: ${DEFAULT-VALUE}.")
    long seconds;

    @Override
    public Integer call() throws Exception {
        if (checker && runner) {
            throw new Main.UserError("--checker and --runner measure different things: give one");
        }
        if (checker) {
            return checkerBench();
        }
        java.time.Duration reduce = RunCommand.reduceDuration(reduceTime);
        List<String> oracleNames = Options.list(oracles);
        Options.oracles(oracles); // unknown names: a one-line error before anything starts
        RunCommand.checkSessions(sessions, oracleNames);
        List<String> names = dbms.equalsIgnoreCase("all") ? Targets.names() : Options.list(dbms);
        if (names.isEmpty()) {
            throw new Main.UserError("--dbms names no DBMS; known: " + String.join(", ", Targets.names()) + " (or 'all')");
        }
        names.forEach(Options::checkDbms); // before the table's header, not in the middle of it
        if (tests < 1) {
            throw new Main.UserError("--tests must be at least 1");
        }
        if (runner) {
            return runnerBench(names);
        }
        Options.checkOut(out, "--out");
        System.out.println("| DBMS | version | cases | seconds | cases/s | transactions/s | blocked stmts | invalid stmts | bug candidates | documented | flaky |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|");
        PrintStream silent = new PrintStream(OutputStream.nullOutputStream());
        for (String name : names) {
            try (Target target = Options.target(name)) {
                CampaignConfig config = new CampaignConfig(target.isolationLevels(), List.of(), oracleNames, tests, null, seed,
                        out.resolve(name), GenConfig.defaults(), ExecutorConfig.defaults(), null, CampaignConfig.Execution.PLAIN, reduce, sessions);
                Summary s = new Campaign(target, config, silent).run();
                System.out.printf("| %s | %s | %d | %.1f | %.1f | %.1f | %.1f%% | %.1f%% | %d | %d | %d |%n", name, target.version(), s.cases(),
                        s.seconds(), s.casesPerSecond(), s.transactionsPerSecond(), 100 * s.blockedShare(), 100 * s.invalidStatementShare(),
                        s.bugCandidates(), s.documented(), s.flaky());
            }
        }
        return Main.OK;
    }

    /** The isolation checker's throughput on synthetic histories (was SyntheticHistoryTest's -Dhistory.bench). */
    private Integer checkerBench() throws Exception {
        if (transactions < 1) {
            throw new Main.UserError("--transactions must be at least 1");
        }
        for (String kind : new String[] {"serial", "stale"}) {
            History h = kind.equals("serial") ? SyntheticHistory.serial(transactions, 7).generate()
                    : SyntheticHistory.stale(transactions, 4, 7).generate();
            long ops = h.transactions().stream().mapToLong(t -> t.ops().size()).sum();
            long t0 = System.nanoTime();
            String text = HistoryJson.write(h);
            long t1 = System.nanoTime();
            History back = HistoryJson.read(text, "bench");
            long t2 = System.nanoTime();
            Analysis an = null;
            long first = 0;
            long best = Long.MAX_VALUE;
            for (int run = 0; run < 3; run++) {
                long s = System.nanoTime();
                an = IsolationChecker.analyze(back);
                long t = System.nanoTime() - s;
                first = run == 0 ? t : first;
                best = Math.min(best, t);
            }
            System.out.printf(Locale.ROOT, "checker %s: %d transactions, %d ops, %d edges, %.1f MB JSON; write %d ms, read %d ms, check %d ms"
                            + " first, %d ms best of 3; observed %s%n", kind, h.size(), ops, an.graph().edgeCount(), text.length() / 1e6,
                    (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000, first / 1_000_000, best / 1_000_000, an.observed());
            if (kind.equals("serial") && !an.observed().isEmpty()) {
                System.out.println("checker serial: a serial history must show no anomaly, but shows " + an.observed());
                return Main.INTERNAL;
            }
        }
        return Main.OK;
    }

    /**
     * The concurrent runner's throughput on generated cases (40 transactions of up to 4 statements, 4
     * sessions), next to the controlled executor on the same cases (was ConcurrentRunnerThroughputTest's
     * -Dtxfuzz.bench).
     */
    private Integer runnerBench(List<String> names) throws Exception {
        if (seconds < 1) {
            throw new Main.UserError("--seconds must be at least 1");
        }
        CaseGenerator gen = new CaseGenerator(new GenConfig(3, 5, 5, 40, 4));
        for (String name : names) {
            try (Target target = Options.target(name);
                 ConcurrentRunner concurrent = new ConcurrentRunner(target, ExecutorConfig.defaults());
                 Executor controlled = new Executor(target, ExecutorConfig.defaults())) {
                String mode = target.modes().get(0);
                for (int i = 0; i < 5; i++) { // warm-up
                    concurrent.run(gen.generate(name, target.dialect(), target.defaultIsolationLevel(), mode, 7, i), 4);
                }
                Tally conc = new Tally();
                long deadline = System.nanoTime() + seconds * 1_000_000_000L;
                for (long it = 100; System.nanoTime() < deadline; it++) {
                    TestCase c = gen.generate(name, target.dialect(), target.defaultIsolationLevel(), mode, 7, it);
                    long t0 = System.nanoTime();
                    ConcurrentRun run;
                    long t1;
                    long t2;
                    try (Database db = target.freshDatabase()) {
                        t1 = System.nanoTime();
                        run = concurrent.run(c, 4, db);
                        t2 = System.nanoTime();
                    } catch (SetupFailedException e) {
                        continue;
                    }
                    conc.add(c, run.trace(), System.nanoTime() - t0);
                    conc.runNanos += t2 - t1;
                }
                Tally ctrl = new Tally();
                deadline = System.nanoTime() + seconds * 500_000_000L;
                for (long it = 100; System.nanoTime() < deadline; it++) {
                    TestCase c = gen.generate(name, target.dialect(), target.defaultIsolationLevel(), mode, 7, it);
                    long t0 = System.nanoTime();
                    try {
                        ctrl.add(c, controlled.run(c), System.nanoTime() - t0);
                    } catch (SetupFailedException e) {
                        // an invalid generated setup: not measured
                    }
                }
                System.out.printf(Locale.ROOT, "runner %-8s %s level=%s%n  concurrent(4 sessions): %s%n  controlled executor:    %s%n",
                        name, target.version(), target.defaultIsolationLevel(), conc, ctrl);
            }
        }
        return Main.OK;
    }

    private static final class Tally {
        long cases;
        long txns;
        long committed;
        long aborted;
        long stmts;
        long failedStmts;
        long autocommit;
        long hung;
        long stalls;
        long nanos;
        /** Only the run itself (setup SQL, sessions, final state), without creating and dropping the database. */
        long runNanos;

        void add(TestCase c, Trace t, long ns) {
            cases++;
            txns += t.outcomes().size();
            committed += t.outcomes().values().stream().filter(o -> o.status().committed()).count();
            aborted += t.outcomes().values().stream().filter(o -> o.status() == TxnStatus.ABORTED).count();
            stmts += t.schedule().size();
            failedStmts += t.schedule().stream().filter(e -> e.result().failed()).count();
            autocommit += c.transactions().stream().filter(x -> !x.explicit()).count();
            hung += t.hung().size();
            stalls += t.stalls();
            nanos += ns;
        }

        @Override
        public String toString() {
            double s = nanos / 1e9;
            return String.format(Locale.ROOT, "%d cases in %.1f s: %.0f txn/s (%.0f committed/s, %.0f%% aborted, %.0f%% autocommit), "
                            + "%.0f stmt/s (%.0f%% failed), %.1f ms/case%s, hung %d, stalls %d",
                    cases, s, txns / s, committed / s, 100.0 * aborted / Math.max(1, txns), 100.0 * autocommit / Math.max(1, txns),
                    stmts / s, 100.0 * failedStmts / Math.max(1, stmts), s * 1000 / Math.max(1, cases),
                    runNanos == 0 ? "" : String.format(Locale.ROOT, " (%.1f ms without creating/dropping the database: %.0f txn/s)",
                            runNanos / 1e6 / Math.max(1, cases), txns / (runNanos / 1e9)), hung, stalls);
        }
    }
}
