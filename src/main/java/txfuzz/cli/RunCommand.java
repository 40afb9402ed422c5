package txfuzz.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import txfuzz.campaign.Campaign;
import txfuzz.campaign.CampaignConfig;
import txfuzz.campaign.EarlierRuns;
import txfuzz.campaign.OpenedSubjects;
import txfuzz.campaign.Oracles;
import txfuzz.campaign.Plural;
import txfuzz.campaign.RunMeta;
import txfuzz.campaign.Summary;
import txfuzz.exec.ExecutorConfig;
import txfuzz.gen.GenConfig;
import txfuzz.gen.Generation;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.Target;

@Command(name = "run", description = "Generate test cases, run them on a DBMS, judge them, record findings.")
final class RunCommand implements Callable<Integer> {
    @Option(names = "--dbms", defaultValue = txfuzz.dbms.Targets.DEFAULT, description = "DBMS to test (see 'txfuzz targets'). Default: ${DEFAULT-VALUE}.")
    String dbms;

    @Option(names = "--subjects", paramLabel = "A,B[,C]", description = "Run every case on several subjects, each"
            + " dbms[@version][:mode|:plain|:prepared][+key=value]... (e.g. postgres@15.17,postgres@15.18 or h2+MODE=PostgreSQL,postgres):"
            + " cases are made for what all of them understand and judged on the first; --url and friends apply to a server subject"
            + " without a version of its own. Instead of --dbms.")
    String subjects;

    @picocli.CommandLine.Mixin
    ServerOptions server = new ServerOptions();

    @picocli.CommandLine.Mixin
    EngineVersionOption engineVersion = new EngineVersionOption();

    @Option(names = "--isolation", defaultValue = "all", description = "Isolation level(s), comma-separated, or 'all' (rotated). Default: ${DEFAULT-VALUE}.")
    String isolation;

    @Option(names = "--mode", description = "Concurrency mode(s) where the DBMS has several (e.g. hsqldb: mvcc, locks), comma-separated, or 'all' (rotated). Default: the DBMS's default mode.")
    String mode;

    @Option(names = "--oracle", description = "Oracles, comma-separated. Default: wss,explicit; with --generator pattern or mixed, isolation,explicit.")
    String oracles;

    @Option(names = "--generator", defaultValue = "random", description = "How cases are made: random, pattern (from anomaly patterns, APTrans;"
            + " see 'txfuzz patterns') or mixed (both in turn). Default: ${DEFAULT-VALUE}.")
    String generator;

    @Option(names = "--patterns", paramLabel = "NAMES", description = "With --generator pattern or mixed: the patterns to rotate through,"
            + " comma-separated, or 'all' (the default). Each level gets the patterns it proscribes, and every 5th pattern case one it permits.")
    String patterns;

    @Option(names = "--tests", description = "Stop after this many test cases (default 300 when --time is not given).")
    Integer tests;

    @Option(names = "--time", description = "Stop after this long, e.g. 90s, 5m, 1h.")
    String time;

    @Option(names = "--max-bugs", paramLabel = "N", description = "Also stop once N unique bug candidates were found (counted by signature,"
            + " as findings/index.md counts them); the N-th is reduced and filed first.")
    Integer maxBugs;

    @Option(names = "--seed", description = "Seed; the same seed gives the same cases. Default: the current time.")
    Long seed;

    @Option(names = "--out", description = "Output folder for summary.json, events.jsonl and findings/; it must be new or empty"
            + " (see --continue). Default: a folder of the run's own, txfuzz-out/<UTC time>-<dbms>, with txfuzz-out/latest pointing at it.")
    Path out;

    @Option(names = "--not-promised", description = "Also file the violations that break no promise of their level (the engine's standard"
            + " level and its manual hold; only txfuzz's stricter write-specific expectation is broken) as findings. They are counted in"
            + " summary.json either way.")
    boolean fileNotPromised;

    @Option(names = "--continue", description = "Add this run to the --out folder of an earlier run: its summary.json and findings/index.md"
            + " go on listing the earlier findings beside this run's (which are not de-duplicated against them); events.jsonl is appended to.")
    boolean continueOut;

    @Option(names = "--execution", defaultValue = "plain",
            description = "How statements reach the engine: plain, prepared (prepared statements re-used per session) or mixed. Default: ${DEFAULT-VALUE}.")
    String execution;

    @Option(names = "--reduce-time", defaultValue = "30s",
            description = "How long reducing one finding may take, e.g. 30s, 2m; 0 turns reduction off. Default: ${DEFAULT-VALUE}.")
    String reduceTime;

    @Option(names = "--reduce-documented", description = "Also reduce the findings that are not bug candidates (documented, not promised),"
            + " once no case waits for a core. By default they are filed as found, and `txfuzz reduce` shrinks one on request: the run ends"
            + " when its cases and its bug candidates' reductions are done.")
    boolean reduceDocumented;

    @Option(names = "--sessions", defaultValue = "0",
            description = "0: each case runs in its submitted order (reproducible). 2-5: the isolation oracle's concurrent mode (IsoRel):"
                    + " that many sessions run larger cases' transactions truly concurrently. Default: ${DEFAULT-VALUE}.")
    int sessions;

    @Option(names = "--self-check-every", defaultValue = "10",
            description = "With the isolation oracle: besides every case with a violation, every N-th case also runs without row tracking"
                    + " and is compared, to measure how often the tracking changes what the engine does; 0: only cases with a"
                    + " violation. Default: ${DEFAULT-VALUE}.")
    int selfCheckEvery;

    @Option(names = "--progress", defaultValue = "3s", description = "Progress line interval. Default: ${DEFAULT-VALUE}.")
    String progressEvery;

    @Option(names = "--report", split = ",", paramLabel = "FORMAT",
            description = "Extra reports in the output folder, comma-separated: junit (junit.xml, one testcase per unique finding, for CI).")
    List<String> reports = List.of();

    @Option(names = "--worker", paramLabel = "i/N", description = "Run only worker i's share of the iterations (iteration k when k mod N = i,"
            + " i from 0), so N processes with the same seed never run the same case; 'txfuzz merge' combines their output folders."
            + " --tests still bounds the iterations. Default: all of them.")
    String worker;

    @Option(names = "--jobs", paramLabel = "N", description = "Workers running cases side by side in this process, each with its own databases;"
            + " findings are filed in iteration order, as one worker would file them. Default: the number of cores.")
    Integer jobs;

    @Option(names = "--known", paramLabel = "FILE", description = "Signatures already known (one id a line, or a summary.json of a run or of"
            + " 'txfuzz merge'): findings with them are counted apart, and the exit code is 1 only for a new unique bug candidate (CI regression mode).")
    Path known;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /** --jobs as given, or the number of cores; a one-line error below 1. */
    static int jobs(Integer given) {
        int n = given != null ? given : Runtime.getRuntime().availableProcessors();
        if (n < 1) {
            throw new Main.UserError("--jobs must be at least 1, not " + n);
        }
        return n;
    }

    /** The report formats --report names; a one-line error for any other. */
    static boolean junitReport(List<String> reports) {
        boolean junit = false;
        for (String r : reports) {
            if (!r.strip().equals("junit")) {
                throw new Main.UserError("unknown report format '" + r.strip() + "' for --report; known: junit");
            }
            junit = true;
        }
        return junit;
    }

    /** Concurrent runs take 2..5 sessions and only the oracles that can judge them. */
    static void checkSessions(int sessions, List<String> oracleNames) {
        if (sessions == 0) {
            return;
        }
        if (sessions < 2 || sessions > 5) {
            throw new Main.UserError("--sessions must be 0 (controlled runs) or 2 to 5, not " + sessions);
        }
        List<txfuzz.oracle.OracleRegistration> oracles = oracleNames.stream().map(Oracles::registration).toList();
        List<String> cannot = oracles.stream().filter(o -> !o.judgesUncontrolledRuns()).map(txfuzz.oracle.OracleRegistration::name).toList();
        boolean anomalyOracle = oracles.stream().anyMatch(o -> o.judgesUncontrolledRuns() && o.needsRowTracking());
        if (!cannot.isEmpty() || !anomalyOracle) {
            List<String> can = Oracles.judgingUncontrolledRuns();
            throw new Main.UserError("--sessions runs cases concurrently, which " + (cannot.isEmpty() ? "needs an oracle that tracks rows"
                    : "oracle " + String.join(", ", cannot) + " cannot judge") + "; oracles that judge concurrent runs: " + String.join(", ", can));
        }
    }

    /** --subjects parsed and checked against the options it replaces; a one-line error for a bad spec. */
    private List<txfuzz.dbms.Subject> subjects(String specs, int sessions) {
        var parsed = spec.commandLine().getParseResult();
        if (parsed.hasMatchedOption("--dbms")) {
            throw new Main.UserError("--subjects names the DBMSs: drop --dbms");
        }
        if (engineVersion.version != null) {
            throw new Main.UserError("--subjects gives each subject its version (postgres@15.17): drop --version");
        }
        if (sessions > 0) {
            throw new Main.UserError("--subjects runs each case in its submitted order: --sessions does not apply");
        }
        List<txfuzz.dbms.Subject> parsedSubjects;
        try {
            parsedSubjects = txfuzz.dbms.Subject.parseList(specs);
        } catch (IllegalArgumentException e) {
            throw new Main.UserError(Main.oneLine(e.getMessage()));
        }
        // --url and friends reach one server: the server subjects without a version of their own, all of one DBMS
        List<String> reached = parsedSubjects.stream().filter(x -> x.version() == null && x.engine().server()).map(txfuzz.dbms.Subject::dbms)
                .distinct().toList();
        if ((server.url != null || server.serverHome != null) && reached.isEmpty()) {
            throw new Main.UserError("--url and --server-home apply to a server subject without a version of its own, and --subjects names none");
        }
        if ((server.url != null || server.serverHome != null) && reached.size() > 1) {
            throw new Main.UserError("--url and --server-home reach one server, but " + String.join(" and ", reached)
                    + " subjects have no version of their own: give all but one a @version");
        }
        return parsedSubjects;
    }

    /**
     * What the earlier runs in {@code dir} left, for --continue; a one-line error when their summary.json cannot
     * be read, or when they ran with {@code seed} (this run's findings would take their folders' names).
     */
    private static EarlierRuns earlierRuns(Path dir, long seed) {
        EarlierRuns e;
        try {
            e = EarlierRuns.in(dir);
        } catch (IllegalArgumentException x) {
            throw new Main.UserError(x.getMessage());
        }
        if (OutFolder.holdsSomething(dir) && !java.nio.file.Files.exists(dir.resolve("summary.json"))) {
            throw new Main.UserError("--continue: " + dir + " holds no summary.json of an earlier run to continue");
        }
        if (e.seeds().contains(seed)) {
            throw new Main.UserError("--continue: an earlier run in " + dir + " ran with seed " + seed + ", and this run's findings would"
                    + " replace its finding folders; give another --seed (or none)");
        }
        return e;
    }

    /** "0" (off) or a duration as --time takes it. */
    static Duration reduceDuration(String text) {
        return text.strip().equals("0") ? Duration.ZERO : Options.duration(text, "--reduce-time");
    }

    private txfuzz.campaign.Partition partition;
    /** What a command built on run does with the campaign once it ran (compat writes its study), before the run's last lines; nothing by default. */
    java.util.function.BiConsumer<Campaign, Path> afterRun = (c, dir) -> { };
    private int workers;
    private txfuzz.campaign.KnownSignatures knownSignatures;

    @Override
    public Integer call() {
        // every option value is checked before anything is printed or started
        Integer count = tests != null ? Integer.valueOf(Options.caseLimit(tests, "--tests")) : time == null ? Integer.valueOf(300) : null;
        Duration budget = time == null ? null : Options.timeLimit(time, "--time");
        if (maxBugs != null) {
            Options.caseLimit(maxBugs, "--max-bugs");
        }
        Duration reduce = reduceDuration(reduceTime);
        Duration progress = Options.duration(progressEvery, "--progress");
        CampaignConfig.Execution exec = Options.execution(execution);
        Generation generation = Options.generation(generator, patterns);
        String oracleWords = oracles != null ? oracles : Options.defaultOracles(generation);
        List<String> oracleNames = Options.list(oracleWords);
        Options.oracles(oracleWords); // unknown names: a one-line error before anything starts
        checkSessions(sessions, oracleNames);
        if (sessions > 0 && generation.kind() != Generation.Kind.RANDOM) {
            throw new Main.UserError("--sessions runs random cases concurrently; pattern cases run in their pattern's order: use --generator random");
        }
        if (selfCheckEvery < 0) {
            throw new Main.UserError("--self-check-every must be 0 or more, not " + selfCheckEvery);
        }
        Options.checkDbms(dbms);
        List<txfuzz.dbms.Subject> subjectList = subjects == null ? null : subjects(subjects, sessions);
        String primaryDbms = subjectList == null ? dbms : subjectList.get(0).dbms();
        Options.checkLevelNames(isolation);
        txfuzz.campaign.Partition partition = txfuzz.campaign.Partition.WHOLE;
        if (worker != null) {
            try {
                partition = txfuzz.campaign.Partition.parse(worker);
            } catch (IllegalArgumentException e) {
                throw new Main.UserError(e.getMessage());
            }
        }
        int workers = jobs(jobs);
        txfuzz.campaign.KnownSignatures knownSignatures = null;
        if (known != null) {
            try {
                knownSignatures = txfuzz.campaign.KnownSignatures.read(known);
            } catch (IllegalArgumentException e) {
                throw new Main.UserError(e.getMessage());
            }
        }
        this.partition = partition;
        this.workers = workers;
        this.knownSignatures = knownSignatures;
        boolean junit = junitReport(reports);
        var targetOptions = server.toTargetOptions(engineVersion.version);
        if (continueOut && out == null) {
            throw new Main.UserError("--continue needs --out: the folder of the earlier run to continue");
        }
        long s = seed != null ? seed : System.currentTimeMillis();
        EarlierRuns earlier = continueOut ? earlierRuns(out, s) : EarlierRuns.none();
        // a finding must have somewhere to go before the first case runs
        OutFolder folder = OutFolder.choose(out, primaryDbms, "--out", true, continueOut);
        Path out = folder.dir();
        try {
            return run(folder, out, earlier, count, budget, reduce, progress, exec, generation, oracleNames, junit, targetOptions, s, subjectList);
        } catch (RuntimeException e) {
            folder.discardIfEmpty(); // the DBMS did not start, or does not offer a level asked for: no empty result folder stays
            throw e;
        }
    }

    private int run(OutFolder folder, Path out, EarlierRuns earlier, Integer count, Duration budget, Duration reduce, Duration progress, CampaignConfig.Execution exec,
                    Generation generation, List<String> oracleNames, boolean junit, txfuzz.dbms.TargetOptions serverOptions, long s,
                    List<txfuzz.dbms.Subject> subjectList) {
        // without --subjects, the one subject is --dbms opened as before
        List<txfuzz.dbms.Subject> named = subjectList != null ? subjectList : List.of(new txfuzz.dbms.Subject(dbms, null, null, null, java.util.Map.of()));
        txfuzz.dbms.Subject primary = named.get(0);
        txfuzz.dbms.TargetOptions targetOptions = subjectList == null ? serverOptions : primary.options(serverOptions);
        String dbms = primary.dbms();
        try (OpenedSubjects opened = OpenedSubjects.open(named,
                sub -> Options.open(sub.dbms(), subjectList == null ? serverOptions : sub.options(serverOptions)))) {
            Target target = opened.primary();
            List<IsolationLevel> levels = Options.levels(target, isolation);
            List<String> m = primary.mode() != null ? List.of(primary.mode()) : Options.modes(target, mode);
            if (primary.execution() != null) {
                exec = primary.execution() == txfuzz.model.ExecutionMode.PREPARED ? CampaignConfig.Execution.PREPARED : CampaignConfig.Execution.PLAIN;
            }
            if (subjectList != null) {
                txfuzz.oracle.OracleContext context = opened.context(ExecutorConfig.defaults());
                System.out.printf("txfuzz: subjects %s; cases use what all of them understand (%s)%n", String.join(", ", opened.labels()),
                        context.dialect().name());
                for (IsolationLevel l : levels) {
                    for (String md : m.isEmpty() ? List.of(target.modes().get(0)) : m) {
                        context.unpaired(l, md).forEach(line -> System.out.println("txfuzz: " + line));
                    }
                }
            }
            System.out.printf("txfuzz: testing %s at %s%s, oracles %s, seed %d, %s; output in %s%n", target.version(),
                    String.join(" ", levels.stream().map(IsolationLevel::name).toList()),
                    m.isEmpty() ? "" : " in mode " + String.join(", ", m), String.join(",", oracleNames), s,
                    Options.limits(count, time) + (maxBugs == null ? "" : " or " + Plural.of(maxBugs, "unique bug candidate")), out);
            if (sessions > 0) {
                System.out.printf("txfuzz: concurrent mode, %d sessions per case%n", sessions);
            }
            if (!partition.whole() || workers > 1) {
                System.out.printf("txfuzz: %s%s%n", partition.whole() ? "" : "worker " + partition + " (iterations k with k mod " + partition.count()
                        + " = " + partition.index() + ")" + (workers > 1 ? ", " : ""), workers > 1 ? workers + " workers in this process" : "");
            }
            if (generation.kind() != Generation.Kind.RANDOM) {
                System.out.printf("txfuzz: %s generation from %d anomaly patterns%n", generation.kind().word(), generation.patterns().size());
            }
            CampaignConfig config = new CampaignConfig(levels, m, oracleNames, count, budget, s, out, GenConfig.defaults(),
                    ExecutorConfig.defaults(), progress, exec, reduce, sessions, selfCheckEvery, generation, reduceDocumented);
            RunMeta meta = RunMeta.of(target, targetOptions, RecordedCommandLine.of(spec.commandLine().getParseResult().originalArgs()));
            Campaign campaign = new Campaign(opened.context(config.executor()), config, System.out)
                    .describedBy(subjectList == null ? meta : meta.withSubjects(opened.labels()));
            campaign.partitioned(partition).withJobs(workers);
            if (knownSignatures != null) {
                campaign.knowing(knownSignatures);
            }
            if (continueOut) {
                campaign.continuing(earlier);
            }
            if (junit) {
                campaign.writingJunit();
            }
            if (fileNotPromised) {
                campaign.filingNotPromised();
            }
            if (maxBugs != null) {
                campaign.stoppingAfterBugCandidates(maxBugs);
            }
            txfuzz.campaign.NewestCheck.forRun(dbms, targetOptions).ifPresent(check -> {
                System.out.printf("txfuzz: %s is not the newest release (%s): each unique bug candidate is replayed there too%n",
                        target.version(), check.newest());
                campaign.checkingNewest(check);
            });
            // SIGINT/SIGTERM: let the current case finish, say how the run ended, then close the target (stopping a server txfuzz started)
            java.util.concurrent.CountDownLatch said = Main.sayingInterruption();
            Thread onExit = new Thread(() -> {
                Main.SHUTTING_DOWN.set(true);
                campaign.interrupt(Main.signal(), 10_000);
                try {
                    said.await(10, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                opened.close(); // every subject, stopping the servers txfuzz started
            }, "txfuzz-stop");
            Main.addShutdownHook(onExit); // Ctrl-C already under way: a quiet "interrupted", and the target closes below
            folder.linkLatest();
            Summary summary;
            try {
                summary = campaign.run();
                afterRun.accept(campaign, out);
                if (summary.interrupted()) {
                    // partial figures: not a "done" line that reads as a finished run
                    Main.sayInterrupted(String.format(Locale.ROOT, " after %s in %.1fs; so far %s; partial results in %s and %s",
                            Plural.of(summary.cases(), "case"), summary.seconds(), summary.findingsText(),
                            out.resolve("summary.json"), out.resolve("findings").resolve("index.md")));
                    return "SIGTERM".equals(summary.signal()) ? Main.TERMINATED : Main.INTERRUPTED;
                }
            } finally {
                said.countDown();
            }
            Main.removeShutdownHook(onExit); // while exiting, the hook is running: it closes the target
            System.out.println(String.format(Locale.ROOT, "done: %s%s in %.1fs (%.1f cases/s, %.1f transactions/s); %s; see %s and %s",
                    summary.stoppedAtMaxBugs() ? "stopped at " + Plural.of(maxBugs, "unique bug candidate") + " (--max-bugs) after " : "",
                    Plural.of(summary.cases(), "case"), summary.seconds(), summary.casesPerSecond(), summary.transactionsPerSecond(),
                    summary.findingsText(), out.resolve("summary.json"), out.resolve("findings").resolve("index.md")));
            Summary.Generation g = summary.generation();
            if (g.patternCases() > 0) {
                long realised = g.totalRealised();
                long prevented = g.totalPrevented();
                long unreported = g.totalRealisedUnreported();
                System.out.printf("patterns: %d of %d pattern cases realised their pattern, the engine prevented %d; %d anomalous%s (per pattern"
                                + " and level in summary.json's generation)%n", realised, g.patternCases(), prevented, g.patternAnomalous(),
                        unreported == 0 ? "" : "; " + unreported + " realised a pattern their level proscribes with no anomaly reported");
            }
            if (summary.known() != null) {
                Summary.Known k = summary.known();
                System.out.printf("known: %d of %s unique finding%s had a signature in %s; new: %d, of which %d bug candidate%s%s%n",
                        k.knownFindings(), k.knownFindings() + k.newFindings(), k.knownFindings() + k.newFindings() == 1 ? "" : "s", k.file(), k.newFindings(),
                        k.newBugCandidates(), k.newBugCandidates() == 1 ? "" : "s",
                        k.newBugCandidates() == 0 ? "" : " (" + String.join(", ", k.newBugCandidateSignatures()) + ")");
            }
            return summary.foundNew() ? Main.FOUND : Main.OK;
        }
    }
}
