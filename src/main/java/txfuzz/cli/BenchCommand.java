package txfuzz.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import txfuzz.campaign.Campaign;
import txfuzz.campaign.CampaignConfig;
import txfuzz.campaign.Corpus;
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
import txfuzz.history.CompactHistory;
import txfuzz.history.HistoryFiles;
import txfuzz.history.IsolationChecker;
import txfuzz.history.SyntheticHistory;
import txfuzz.model.TestCase;

@Command(name = "bench",
        description = {"Throughput benchmark: a fixed-seed campaign per DBMS at every level; prints a Markdown table.",
                "--checker: the isolation checker on synthetic 100,000-transaction histories instead.",
                "--runner: the concurrent runner against the controlled executor on generated cases instead.",
                "--corpus: replays the corpus of published engine behaviours; prints each verdict, recall and false bug candidates"
                        + " (exit 1 if an entry does not replay as the corpus records it)."})
final class BenchCommand implements Callable<Integer> {
    @picocli.CommandLine.Mixin
    EngineVersionOption engineVersion = new EngineVersionOption();

    /** For the command line each campaign's summary.json records. */
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--dbms", defaultValue = "all", description = "DBMSs, comma-separated, or 'all'. Default: ${DEFAULT-VALUE}.")
    String dbms;

    @Option(names = "--tests", defaultValue = "300", description = "Cases per DBMS. Default: ${DEFAULT-VALUE}.")
    int tests;

    @Option(names = "--seed", defaultValue = "1", description = "Seed. Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--out", description = "Output folder (one subfolder per DBMS); it must be new or empty. Default: a folder of its own,"
            + " txfuzz-out/<UTC time>-bench, with txfuzz-out/latest pointing at it.")
    Path out;

    /** The output folder, chosen (and --out checked) before the first row. */
    private void chooseOut() {
        OutFolder folder = OutFolder.choose(out, "bench", "--out");
        folder.linkLatest();
        out = folder.dir();
    }

    @Option(names = "--reduce-time", defaultValue = "0",
            description = "How long reducing one finding may take (as for run); 0, the default, measures the search alone.")
    String reduceTime;

    @Option(names = "--oracle", description = "Oracles, comma-separated. Default: those a random campaign runs (as 'run' without --oracle).")
    String oracles;

    @Option(names = "--generator", paramLabel = "random|pattern|mixed", description = "How the campaigns' cases are made (as run --generator)."
            + " Default: random.")
    String generator;

    @Option(names = "--warm-up", paramLabel = "CASES|DURATION|CASES,DURATION", description = "Before each DBMS's measured rows: a campaign of this many cases"
            + " (e.g. 200), this long (e.g. 20s) or both, whichever comes first (e.g. 200,60s), on another seed, with the most workers of"
            + " --jobs, printed as a row of its own and left out of the measurement, so the rows measure a warm JIT; 0 for none."
            + " Default: " + WarmUp.DEFAULT + ".")
    String warmUp;

    @Option(names = "--sessions", defaultValue = "0", description = "0: controlled runs; 2-5: concurrent runs (the isolation oracle only)."
            + " Default: ${DEFAULT-VALUE}.")
    int sessions;

    @Option(names = "--jobs", defaultValue = "1,2", paramLabel = "N[,N...]", description = "Workers per campaign (as run --jobs), comma-separated:"
            + " a row per DBMS and number of workers, on the same cases. Default: ${DEFAULT-VALUE}.")
    String jobs;

    @Option(names = "--checker", description = "Measure the isolation checker on synthetic histories (serial and stale-snapshot,"
            + " --transactions each), written in the compact form and then read and checked in three rounds (one above a million"
            + " transactions): the first round's times (the JIT compiling), the best round's, and the heap they use. No DBMS runs.")
    boolean checker;

    @Option(names = "--transactions", defaultValue = "100000", description = "History size for --checker. Default: ${DEFAULT-VALUE}.")
    int transactions;

    @Option(names = "--runner", description = "Measure the concurrent runner (4 sessions, 40-transaction cases) next to the controlled"
            + " executor on the same generated cases, per DBMS of --dbms, for --seconds each.")
    boolean runner;

    @Option(names = "--seconds", defaultValue = "8", description = "Measuring time per DBMS for --runner; per DBMS, level and generator for"
            + " --generators. Default: ${DEFAULT-VALUE}.")
    long seconds;

    @Option(names = "--generators", description = "Compare random and pattern generation (APTrans' ablation): per DBMS of --dbms and"
            + " level, a campaign of --seconds per generator with the isolation and explicit oracles, reduction off; prints cases, how"
            + " often pattern cases realise their pattern, and anomalous cases and bug candidates per 1,000 cases.")
    boolean generators;

    @Option(names = "--patterns", paramLabel = "NAMES", description = "With --generators: the patterns to rotate through (default: all).")
    String patterns;

    @Option(names = "--corpus", description = "Replay the corpus of published engine behaviours (docs/corpus.md) on the engines of --dbms,"
            + " each entry with its own oracles: a table of verdicts, then recall and false bug candidates.")
    boolean corpus;

    @Option(names = "--corpus-campaigns", paramLabel = "DURATION", description = "With --corpus: also run a campaign of this length"
            + " (e.g. 10m) per published bug that reproduces, at its engine, level and mode with its oracles and --seed, output under"
            + " --out, and report whether it finds a bug candidate of the same kind. Default: off.")
    String corpusCampaigns;

    @Option(names = "--soak", paramLabel = "DURATION", description = "A long run (e.g. 30m): one campaign of this length on the DBMS of"
            + " --dbms (default h2) with --jobs workers, sampling every --sample-every the process's resident memory, threads, open files"
            + " and heap after GC; prints them as a table, writes soak.json under --out and says whether each stayed flat"
            + " (exit 1 if one did not).")
    String soak;

    @Option(names = "--sample-every", paramLabel = "DURATION", defaultValue = "10s", description = "With --soak: time between samples."
            + " Default: ${DEFAULT-VALUE}.")
    String sampleEvery;

    @Override
    public Integer call() throws Exception {
        if ((checker ? 1 : 0) + (runner ? 1 : 0) + (corpus ? 1 : 0) + (generators ? 1 : 0) + (soak != null ? 1 : 0) > 1) {
            throw new Main.UserError("--checker, --runner, --corpus, --generators and --soak measure different things: give one");
        }
        boolean campaignTable = !checker && !runner && !corpus && !generators && soak == null;
        if (patterns != null && !generators && generator == null) {
            throw new Main.UserError("--patterns chooses the patterns of --generators or of --generator pattern or mixed");
        }
        if (warmUp != null && !campaignTable) {
            throw new Main.UserError("--warm-up applies to the campaigns' table, not to --checker, --runner, --corpus, --generators or --soak");
        }
        if (generator != null && !campaignTable) {
            throw new Main.UserError("--generator chooses how the campaigns' cases are made, not those of --checker, --runner, --corpus,"
                    + " --generators or --soak");
        }
        if (corpusCampaigns != null && !corpus) {
            throw new Main.UserError("--corpus-campaigns needs --corpus");
        }
        if (checker && engineVersion.version != null) {
            throw new Main.UserError("--checker runs no DBMS: --version does not apply to it");
        }
        if (checker) {
            System.out.printf(Locale.ROOT, "JIT: %s%nCollector: %s%n", JitMode.current(), CollectorName.current());
            return checkerBench();
        }
        java.time.Duration reduce = RunCommand.reduceDuration(reduceTime);
        txfuzz.gen.Generation generation = generator == null ? txfuzz.gen.Generation.random() : Options.generation(generator, patterns);
        if (sessions > 0 && generation.kind() != txfuzz.gen.Generation.Kind.RANDOM) {
            throw new Main.UserError("--sessions runs random cases concurrently; pattern cases run in their pattern's order: use --generator random");
        }
        WarmUp warm = WarmUp.parse(warmUp == null ? WarmUp.DEFAULT : warmUp);
        String oracleWords = oracles != null ? oracles : Options.defaultOracles(generation);
        List<String> oracleNames = Options.oracles(oracleWords); // unknown names: a one-line error before anything starts
        RunCommand.checkSessions(sessions, oracleNames);
        List<String> names = dbms.equalsIgnoreCase("all") ? Targets.names() : Options.list(dbms);
        if (names.isEmpty()) {
            throw new Main.UserError("--dbms names no DBMS; known: " + String.join(", ", Targets.names()) + " (or 'all')");
        }
        names.forEach(Options::checkDbms); // before the table's header, not in the middle of it
        if (engineVersion.version != null && names.size() != 1) {
            throw new Main.UserError("--version is one engine's version: give that engine alone with --dbms");
        }
        Options.caseLimit(tests, "--tests");
        if (runner) {
            return runnerBench(names);
        }
        if (corpus) {
            return corpusBench(names);
        }
        if (generators) {
            return generatorBench(names);
        }
        if (soak != null) {
            return soakBench(names, oracleNames, reduce);
        }
        return campaignBench(names, oracleNames, reduce, generation, warm);
    }

    /**
     * The campaigns' table: per DBMS a warm-up row (unless --warm-up 0), then a row per number of workers, all on the
     * same cases; then the cost table, where each case's time went, per phase and oracle.
     */
    private Integer campaignBench(List<String> names, List<String> oracleNames, Duration reduce, txfuzz.gen.Generation generation,
                                  WarmUp warm) throws Exception {
        List<Integer> workerCounts = workerCounts(jobs);
        chooseOut();
        System.out.printf(Locale.ROOT, "JIT: %s%n", JitMode.current());
        if (!warm.none()) {
            System.out.printf(Locale.ROOT, "Warm-up: %s per DBMS on seed %d, %d worker(s), before its measured rows (not measured)%n%n",
                    warm.text(), WarmUp.seed(seed), java.util.Collections.max(workerCounts));
        }
        System.out.println("| DBMS | version | workers | cases | seconds | cases/s | transactions/s | blocked stmts | invalid stmts | bug candidates | documented | flaky |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|");
        CostTable costs = new CostTable(oracleNames);
        try {
            for (String name : names) {
                try (Target target = Options.target(name, targetOptions())) {
                    if (!warm.none()) {
                        int workers = java.util.Collections.max(workerCounts);
                        CampaignConfig config = campaignConfig(target, oracleNames, reduce, generation, warm.cases(), warm.time(),
                                WarmUp.seed(seed), out.resolve(name + "-warm-up"));
                        measured(target, config, workers, workers + ", warm-up", costs);
                    }
                    for (int workers : workerCounts) {
                        CampaignConfig config = campaignConfig(target, oracleNames, reduce, generation, tests, null, seed,
                                out.resolve(workers == 1 ? name : name + "-jobs" + workers));
                        measured(target, config, workers, String.valueOf(workers), costs);
                    }
                }
            }
        } finally {
            costs.print(System.out); // the DBMSs measured before one that failed to start keep their costs
            if (!databaseLines.isEmpty()) {
                System.out.println();
                databaseLines.forEach(System.out::println);
            }
        }
        return Main.OK;
    }

    private CampaignConfig campaignConfig(Target target, List<String> oracleNames, Duration reduce, txfuzz.gen.Generation generation,
                                          Integer cases, Duration time, long campaignSeed, Path folder) {
        return new CampaignConfig(target.isolationLevels(), List.of(), oracleNames, cases, time, campaignSeed, folder, GenConfig.defaults(),
                ExecutorConfig.defaults(), null, CampaignConfig.Execution.PLAIN, reduce, sessions).withGeneration(generation);
    }

    /** Per measured row: how many databases were new, reused, kept with their tables, discarded (printed after the costs). */
    private final List<String> databaseLines = new java.util.ArrayList<>();

    /** Runs one campaign, prints its row of the throughput table and adds its costs to {@code costs}. */
    private void measured(Target target, CampaignConfig config, int workers, String label, CostTable costs) {
        Campaign campaign = new Campaign(target, config, new PrintStream(OutputStream.nullOutputStream())).withJobs(workers)
                .describedBy(txfuzz.campaign.RunMeta.of(target, targetOptions(), RecordedCommandLine.of(spec.commandLine().getParseResult().originalArgs())));
        long start = System.nanoTime();
        txfuzz.dbms.ReusedDatabases.Counts before = target.databaseReuse();
        Summary s = campaign.run();
        long wall = System.nanoTime() - start;
        txfuzz.dbms.ReusedDatabases.Counts after = target.databaseReuse();
        databaseLines.add(String.format(Locale.ROOT, "databases %s %s: %d new, %d reused (%d with their setup's tables kept), %d discarded by the check",
                target.name(), label, after.created() - before.created(), after.reused() - before.reused(), after.tablesKept() - before.tablesKept(),
                after.discarded() - before.discarded()));
        System.out.printf(Locale.ROOT, "| %s | %s | %s | %d | %.1f | %.1f | %.1f | %.1f%% | %.1f%% | %d | %d | %d |%n", target.name(), target.version(), label,
                s.cases(), s.seconds(), s.casesPerSecond(), s.transactionsPerSecond(), 100 * s.blockedShare(), 100 * s.invalidStatementShare(),
                s.bugCandidates(), s.documented(), s.flaky());
        costs.add(new CostTable.Row(target.name(), label, workers, s.cases() + s.invalidCases(), wall, campaign.costs().phases()));
    }

    /**
     * --warm-up: a number of cases, a time, or both (whichever is reached first); none with 0. The warm-up's seed
     * differs from the measured one, so the measured rows never replay cases the engine has just seen.
     */
    record WarmUp(Integer cases, Duration time) {
        /**
         * The JIT warms with the cases run, not the seconds: on a loaded machine 20 s were 33 H2 cases and left the
         * 1-worker row at 156 ms a case, where 200 cases gave 87 (docs/performance.md, Per-oracle cost); the time
         * bounds what the slow engines (Derby, DuckDB, every oracle on a server) spend on it.
         */
        static final String DEFAULT = "200,60s";
        private static final String FORM = "--warm-up takes a number of cases (e.g. 200), a time (e.g. 20s) or both, whichever comes first"
                + " (e.g. 200,60s), or 0 for none; not '";

        static WarmUp parse(String text) {
            String t = text.strip();
            String[] parts = t.split("\\s*,\\s*", -1);
            if (parts.length == 2 && parts[0].matches("\\d+") && !parts[1].matches("\\d+")) {
                WarmUp count = parse(parts[0]);
                WarmUp time = parse(parts[1]);
                if (count.none() || time.none()) {
                    throw new Main.UserError(FORM + t + "' (0 goes alone)");
                }
                return new WarmUp(count.cases(), time.time());
            }
            if (t.matches("\\d+")) {
                long n;
                try {
                    n = Long.parseLong(t);
                } catch (NumberFormatException e) {
                    n = Long.MAX_VALUE;
                }
                if (n > 1_000_000) {
                    throw new Main.UserError("--warm-up " + t + " is too many cases; give at most 1000000, or a time such as 20s");
                }
                return new WarmUp((int) n, null);
            }
            if (!t.matches("\\d+\\s*(ms|s|m|h)")) {
                throw new Main.UserError(FORM + t + "'");
            }
            Duration d = Options.duration(t, "--warm-up");
            return d.isZero() ? new WarmUp(0, null) : new WarmUp(null, Options.timeLimit(t, "--warm-up"));
        }

        boolean none() {
            return time == null && cases == 0;
        }

        String text() {
            String count = cases == null ? null : txfuzz.campaign.Plural.of(cases, "case");
            String length = time == null ? null : Corpus.durationText(time);
            return count == null ? length : length == null ? count : count + " or " + length + ", whichever comes first,";
        }

        /** Another seed than the measured one's, the same for every DBMS. */
        static long seed(long measured) {
            return measured + 1_000_003;
        }
    }

    /**
     * A long run on one DBMS, watched from inside the process: what must stay flat over hours (memory,
     * threads, open files) is sampled while the campaign runs, then judged (see SoakSampler.verdicts).
     */
    private Integer soakBench(List<String> names, List<String> oracleNames, Duration reduce) throws Exception {
        Duration length = Options.timeLimit(soak, "--soak");
        Duration period = Options.timeLimit(sampleEvery, "--sample-every");
        if (period.compareTo(length) >= 0) {
            throw new Main.UserError("--sample-every " + sampleEvery + " must be shorter than --soak " + soak);
        }
        String name = dbms.equalsIgnoreCase("all") ? txfuzz.dbms.Targets.DEFAULT : names.get(0);
        if (!dbms.equalsIgnoreCase("all") && names.size() != 1) {
            throw new Main.UserError("--soak runs one DBMS: give one with --dbms");
        }
        List<Integer> counts = jobs.equals("1,2") ? List.of(2) : workerCounts(jobs);
        if (counts.size() != 1) {
            throw new Main.UserError("--soak runs one campaign: give one number of workers with --jobs");
        }
        int workers = counts.get(0);
        chooseOut();
        System.out.printf(Locale.ROOT, "Soak: %s on %s, %d worker(s), oracles %s, seed %d, a sample every %ds; output in %s%n%n",
                Corpus.durationText(length), name, workers, String.join(",", oracleNames), seed, period.toSeconds(), out);
        System.out.println("| seconds | cases | resident memory (MB) | threads | open files | heap after GC (MB) |");
        System.out.println("|---|---|---|---|---|---|");
        LastProgressLine progressLine = new LastProgressLine();
        List<SoakSampler.Sample> samples;
        Summary s;
        try (Target target = Options.target(name, targetOptions());
             SoakSampler sampler = new SoakSampler(period.toSeconds(), progressLine::cases, BenchCommand::printSample)) {
            CampaignConfig config = new CampaignConfig(target.isolationLevels(), List.of(), oracleNames, null, length, seed, out.resolve(name),
                    GenConfig.defaults(), ExecutorConfig.defaults(), period, CampaignConfig.Execution.PLAIN, reduce, sessions);
            s = new Campaign(target, config, progressLine.stream()).withJobs(workers)
                    .describedBy(txfuzz.campaign.RunMeta.of(target, targetOptions(), RecordedCommandLine.of(spec.commandLine().getParseResult().originalArgs())))
                    .run();
            samples = sampler.finish();
        }
        List<SoakSampler.Verdict> verdicts = SoakSampler.verdicts(samples);
        System.out.printf(Locale.ROOT, "%n%d cases in %.0f s (%.1f cases/s), %d bug candidates, %d documented, %d unique findings%n", s.cases(),
                s.seconds(), s.casesPerSecond(), s.bugCandidates(), s.documented(), s.uniqueFindings());
        for (SoakSampler.Verdict v : verdicts) {
            System.out.printf(Locale.ROOT, "%s: first-quarter max %d, last-quarter max %d; %s: %s%n", v.figure(), v.firstQuarterMax(),
                    v.lastQuarterMax(), v.bound(), v.flat() ? "flat" : "NOT flat");
        }
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("dbms", name);
        json.put("version", s.version());
        json.put("workers", workers);
        json.put("seconds", s.seconds());
        json.put("cases", s.cases());
        json.put("sampleEverySeconds", period.toSeconds());
        json.put("samples", samples);
        json.put("verdicts", verdicts);
        Path file = out.resolve("soak.json");
        new com.fasterxml.jackson.databind.ObjectMapper().enable(com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT)
                .writeValue(file.toFile(), json);
        System.out.println("soak.json: " + file);
        return verdicts.stream().allMatch(SoakSampler.Verdict::flat) ? Main.OK : Main.FOUND;
    }

    private static void printSample(SoakSampler.Sample x) {
        System.out.printf(Locale.ROOT, "| %d | %d | %.1f | %d | %d | %.1f |%n", x.secondsIn(), x.cases(), x.rssKb() / 1024.0, x.threads(),
                x.openFiles(), x.heapAfterGcKb() / 1024.0);
    }

    /** The campaign's progress lines, of which the soak keeps the last for its case count ("[  12s] 345 cases (…"). */
    private static final class LastProgressLine {
        private volatile long cases;

        PrintStream stream() {
            return new PrintStream(new java.io.ByteArrayOutputStream() {
                @Override
                public synchronized void flush() {
                    String text = toString(java.nio.charset.StandardCharsets.UTF_8);
                    reset();
                    java.util.regex.Matcher m = java.util.regex.Pattern.compile("^\\[\\s*\\d+s\\] ([\\d,]+) case").matcher(text.strip());
                    if (m.find()) {
                        cases = Long.parseLong(m.group(1).replace(",", ""));
                    }
                }
            }, true, java.nio.charset.StandardCharsets.UTF_8);
        }

        long cases() {
            return cases;
        }
    }

    /** --jobs: the worker counts, each at least 1; a one-line error otherwise. */
    static List<Integer> workerCounts(String text) {
        List<Integer> counts = new ArrayList<>();
        for (String n : Options.list(text)) {
            int k;
            try {
                k = Integer.parseInt(n.strip());
            } catch (NumberFormatException e) {
                throw new Main.UserError("--jobs takes numbers of workers, comma-separated (e.g. 1,2), not '" + n.strip() + "'");
            }
            counts.add(RunCommand.jobs(k));
        }
        if (counts.isEmpty()) {
            throw new Main.UserError("--jobs names no number of workers");
        }
        return counts;
    }

    /**
     * Replays every corpus entry of the chosen engines (one target per engine, started once) and
     * prints a table and the figures; with --corpus-campaigns, a campaign per reproducing bug too.
     * Exit 1 when an entry does not replay as the index records it — a lost bug, a new false bug
     * candidate or a closed gap: something to look at, as a bug candidate is for run.
     */
    private Integer corpusBench(List<String> names) throws Exception {
        Duration campaignTime = null;
        if (corpusCampaigns != null) {
            campaignTime = Options.timeLimit(corpusCampaigns, "--corpus-campaigns");
            if (campaignTime.toMillis() < 1000) {
                throw new Main.UserError("--corpus-campaigns must be at least 1s");
            }
            chooseOut();
        }
        Corpus all = Corpus.load();
        // grouped by engine and the version the entry was checked on, in the order engines appear in the index: each server
        // starts once, and an in-process engine is loaded at the version each entry was checked on (or at --version)
        Map<EngineAt, List<Corpus.Entry>> byEngine = new LinkedHashMap<>();
        for (Corpus.Entry e : all.entries()) {
            if (names.contains(e.engine())) {
                byEngine.computeIfAbsent(EngineAt.of(e, engineVersion.version), k -> new ArrayList<>()).add(e);
            }
        }
        int count = byEngine.values().stream().mapToInt(List::size).sum();
        System.out.printf("Corpus: %d of %d entries (engines %s); each replayed once with its oracles, as 'txfuzz replay' does, on the"
                        + " version it was checked on%n%n", count, all.entries().size(),
                String.join(", ", byEngine.keySet().stream().map(EngineAt::engine).distinct().toList()));
        System.out.println("| id | engine | version | level | kind | expected | verdict today | violations | ok? |");
        System.out.println("|---|---|---|---|---|---|---|---|---|");
        List<Corpus.Replay> replays = new ArrayList<>();
        for (var group : byEngine.entrySet()) {
            try (Target target = Options.target(group.getKey().engine(), group.getKey().options());
                 Executor executor = new Executor(target, ExecutorConfig.defaults())) {
                for (Corpus.Entry e : group.getValue()) {
                    Corpus.Replay r = Corpus.replay(e, executor);
                    replays.add(r);
                    List<String> problems = r.problems();
                    String ok = !problems.isEmpty() ? "no: " + String.join("; ", problems) : e.knownGap() != null ? "yes (known gap)" : "yes";
                    System.out.printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s |%n", e.id(), e.engine(), r.version(), e.level().name(),
                            e.kind().label(), e.expected().label(), r.verdict().label(),
                            r.labels().isEmpty() ? "-" : String.join(", ", r.labels()), ok);
                }
            }
        }
        Corpus.Figures f = Corpus.figures(replays);
        System.out.println();
        List<String> perEngine = new ArrayList<>();
        f.recallByEngine().forEach((engine, ratio) -> perEngine.add(engine + " " + ratio));
        System.out.printf("recall: %s published bugs that reproduce on the shipped versions are bug candidates%s%n", f.recall(),
                perEngine.isEmpty() ? " (none among these engines)" : " (" + String.join(", ", perEngine) + ")");
        System.out.printf("recall on bugs published independently of txfuzz: %s%n", f.independentRecall());
        System.out.printf("false bug candidates: %s correct or documented entries (%d correct, %d documented)%s%n", f.falseCandidates(),
                f.correctEntries(), f.documentedAsDocumented().total(),
                f.falseCandidateIds().isEmpty() ? "" : ": " + String.join(", ", f.falseCandidateIds()));
        System.out.printf("documented behaviour classified documented: %s%n", f.documentedAsDocumented());
        System.out.printf("published bugs fixed before the shipped version, called bug candidates: %s%n", f.fixedBugsFlagged());
        List<String> off = f.offExpected().stream().map(r -> r.entry().id() + " (expected " + r.entry().expected().label() + ", verdict "
                + r.verdict().label() + (r.entry().knownGap() != null ? ", known gap" : "") + ")").toList();
        System.out.printf("verdict other than expected: %d%s%n", off.size(), off.isEmpty() ? "" : ": " + String.join(", ", off));
        System.out.printf("replayed as the corpus records them: %s%n", f.asIndexed());
        if (campaignTime != null) {
            corpusCampaigns(byEngine, campaignTime);
        }
        return f.asIndexed().hits() == f.asIndexed().total() ? Main.OK : Main.FOUND;
    }

    /** A campaign per reproducing bug: does the generator reach the bug's class when nothing points it there? */
    private void corpusCampaigns(Map<EngineAt, List<Corpus.Entry>> byEngine, Duration time) {
        Path folder = out.resolve("corpus");
        System.out.printf("%nCampaign check: a %s campaign per published bug that reproduces, at its engine, level and mode, with its"
                + " oracles, seed %d, reduction off (bugs with the same setting share one campaign); output in %s%n%n", Corpus.durationText(time), seed,
                folder);
        System.out.println("| id | engine | version | level | oracles | duration | cases | kinds sought | same class found? | first such finding"
                + " | other bug candidates | sought kinds found documented | campaign |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        for (var group : byEngine.entrySet()) {
            List<Corpus.Entry> bugs = group.getValue().stream().filter(Corpus.Entry::reproducingBug).toList();
            if (bugs.isEmpty()) {
                continue;
            }
            Map<Corpus.CampaignSetting, Summary> campaigns = new HashMap<>();
            try (Target target = Options.target(group.getKey().engine(), group.getKey().options())) {
                for (Corpus.Entry e : bugs) {
                    Corpus.CampaignSetting setting = Corpus.CampaignSetting.of(e);
                    Summary s = campaigns.computeIfAbsent(setting,
                            k -> Corpus.campaign(k, target, group.getKey().options(), time, seed, folder.resolve(k.folder())));
                    Corpus.CampaignCheck c = Corpus.check(e, s, time);
                    List<String> others = new ArrayList<>();
                    c.otherCandidates().forEach((kind, n) -> others.add(kind + " " + n));
                    System.out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %d | %s | %s | %s | %s | %d | %s |%n", e.id(), e.engine(),
                            c.version(), e.level().name(), String.join(",", e.oracles()), Corpus.durationText(time), c.cases(),
                            String.join(", ", c.sought()), c.found() ? "yes (" + c.sameClass().size() + (c.sameClass().size() == 1 ? " finding)" : " findings)") : "no",
                            c.found() ? c.sameClass().get(0) : "-", others.isEmpty() ? "-" : String.join(", ", others), c.soughtDocumented(),
                            c.campaign());
                }
            }
        }
    }

    /**
     * Random against pattern generation with the same time per engine and level: what APTrans'
     * ablation (Table 7) measures, as rates, since bugs are too rare to count in minutes.
     */
    private Integer generatorBench(List<String> names) throws Exception {
        if (seconds < 1) {
            throw new Main.UserError("--seconds must be at least 1");
        }
        txfuzz.gen.Generation pattern = Options.generation("pattern", patterns);
        chooseOut();
        // the oracles a pattern campaign runs by default, for both generators: the same judges on both sides
        List<String> judges = txfuzz.campaign.Oracles.defaults(txfuzz.gen.Generation.Kind.PATTERN);
        System.out.printf("Generators compared: %ds per engine, level and generator; oracles %s; seed %d; reduction off%n%n",
                seconds, String.join(",", judges), seed);
        System.out.println("| DBMS | version | level | generator | cases | cases/s | patterns realised | prevented | anomalous cases per 1,000"
                + " | bug candidates per 1,000 |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|");
        PrintStream silent = new PrintStream(OutputStream.nullOutputStream());
        for (String name : names) {
            try (Target target = Options.target(name, targetOptions())) {
                for (txfuzz.model.IsolationLevel level : target.isolationLevels()) {
                    for (txfuzz.gen.Generation g : List.of(txfuzz.gen.Generation.random(), pattern)) {
                        String word = g.kind().word();
                        CampaignConfig config = new CampaignConfig(List.of(level), List.of(), judges, null,
                                Duration.ofSeconds(seconds), seed, out.resolve(name).resolve(level.name()).resolve(word), GenConfig.defaults(),
                                ExecutorConfig.defaults(), null, CampaignConfig.Execution.PLAIN, Duration.ZERO).withGeneration(g);
                        Summary s = new Campaign(target, config, silent)
                                .describedBy(txfuzz.campaign.RunMeta.of(target, targetOptions(), RecordedCommandLine.of(spec.commandLine().getParseResult().originalArgs())))
                                .run();
                        Summary.Generation f = s.generation();
                        long cases = f.randomCases() + f.patternCases();
                        long anomalous = f.randomAnomalous() + f.patternAnomalous();
                        long candidates = f.randomBugCandidates() + f.patternBugCandidates();
                        long realised = f.totalRealised();
                        long prevented = f.totalPrevented();
                        System.out.printf(Locale.ROOT, "| %s | %s | %s | %s | %d | %.1f | %s | %s | %.1f | %.1f |%n", name, target.version(), level.shortName(),
                                word, cases, s.casesPerSecond(), f.patternCases() == 0 ? "-" : percent(realised, f.patternCases()),
                                f.patternCases() == 0 ? "-" : percent(prevented, f.patternCases()), perThousand(anomalous, cases),
                                perThousand(candidates, cases));
                    }
                }
            }
        }
        return Main.OK;
    }

    private static String percent(long part, long whole) {
        return String.format(Locale.ROOT, "%.0f%%", whole == 0 ? 0.0 : 100.0 * part / whole);
    }

    private static double perThousand(long part, long whole) {
        return whole == 0 ? 0 : 1000.0 * part / whole;
    }

    /** The isolation checker's throughput on synthetic histories (was SyntheticHistoryTest's -Dhistory.bench). */
    private Integer checkerBench() throws Exception {
        if (transactions < 1) {
            throw new Main.UserError("--transactions must be at least 1");
        }
        // Through a file, as `check` reads one, in the compact form (docs/history-format.md): the generator
        // streams each transaction to it, so no history is held while writing.
        Path dir = Files.createTempDirectory("txfuzz-bench-checker");
        try {
            for (String kind : new String[] {"serial", "stale"}) {
                if (!checkerBench(kind, dir.resolve(kind + ".txh"))) {
                    return Main.INTERNAL;
                }
            }
            return Main.OK;
        } finally {
            try (var left = Files.list(dir)) {
                for (Path p : left.toList()) {
                    Files.deleteIfExists(p);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    /**
     * One synthetic history written, then read back and checked in rounds: the first round is what a process that checks
     * one history pays, the JIT compiling the reader and the checker as they run; the best of the rounds is the steady
     * state (issue 34 item 4: reported apart). A method of its own so that nothing of one kind's history is still
     * reachable while the next is generated.
     */
    private boolean checkerBench(String kind, Path file) throws Exception {
        long[] ops = {0};
        long t0 = System.nanoTime();
        SyntheticHistory gen = kind.equals("serial") ? SyntheticHistory.serial(transactions, 7) : SyntheticHistory.stale(transactions, 4, 7);
        try (CompactHistory.Writer w = new CompactHistory.Writer(file, Map.of())) {
            gen.generate(t -> {
                ops[0] += t.ops().size();
                try {
                    w.write(t);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
        long written = System.nanoTime() - t0;
        long bytes = Files.size(file);
        // ten million transactions and more take minutes a round: one says enough
        int rounds = transactions > 1_000_000 ? 1 : 3;
        CheckerRound first = null;
        CheckerRound best = null;
        Analysis an = null;
        int size = 0;
        for (int round = 0; round < rounds; round++) {
            System.gc(); // the generator's state, or the last round's history, is garbage now: measure the read's heap from here
            HeapPeak.reset();
            long c1 = ProcessCpu.nanos();
            long s1 = System.nanoTime();
            History back = HistoryFiles.read(file);
            long read = System.nanoTime() - s1;
            long readCpu = ProcessCpu.nanos() - c1;
            long readPeak = HeapPeak.peakBytes();
            long held = HeapPeak.liveBytesAfterGc();
            HeapPeak.reset();
            size = back.size();
            an = null;
            long c2 = ProcessCpu.nanos();
            long s2 = System.nanoTime();
            an = IsolationChecker.analyze(back);
            CheckerRound r = new CheckerRound(read, System.nanoTime() - s2, readCpu, ProcessCpu.nanos() - c2, held, readPeak, HeapPeak.peakBytes());
            back = null;
            first = first == null ? r : first;
            best = best == null || r.clock() < best.clock() ? r : best;
        }
        Files.delete(file);
        System.out.printf(Locale.ROOT, "checker %s: %d transactions, %d ops, %d edges, %.1f MB compact; write %d ms; first round (the JIT compiling):"
                        + " read %d ms, check %d ms, read + check %.1f s (CPU, GC threads included: read %.1f s, check %.1f s); best of %d rounds:"
                        + " read %d ms, check %d ms, read + check %.1f s (CPU: read %.1f s, check %.1f s); heap: %d MB held by the history read,"
                        + " peak %d MB reading, %d MB checking (max %d MB); observed %s%n", kind, size, ops[0], an.graph().edgeCount(), bytes / 1e6,
                written / 1_000_000, first.read() / 1_000_000, first.check() / 1_000_000, first.clock() / 1e9, first.readCpu() / 1e9,
                first.checkCpu() / 1e9, rounds, best.read() / 1_000_000, best.check() / 1_000_000, best.clock() / 1e9, best.readCpu() / 1e9,
                best.checkCpu() / 1e9, first.held() >> 20, first.readPeak() >> 20, first.checkPeak() >> 20, Runtime.getRuntime().maxMemory() >> 20,
                an.observed());
        if (kind.equals("serial") && !an.observed().isEmpty()) {
            System.out.println("checker serial: a serial history must show no anomaly, but shows " + an.observed());
            return false;
        }
        return true;
    }

    /** One round of the checker's benchmark: nanoseconds by the clock and of the process's CPU, and bytes of heap. */
    private record CheckerRound(long read, long check, long readCpu, long checkCpu, long held, long readPeak, long checkPeak) {
        long clock() {
            return read + check;
        }
    }

    /** CPU time of the whole process (every thread, the collector's too): on a shared machine it says more than the clock. */
    private static final class ProcessCpu {
        static long nanos() {
            return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os ? os.getProcessCpuTime() : 0;
        }
    }

    /** Peak heap use over a phase, from the heap pools' own peaks (an upper bound: the pools may peak at different times). */
    private static final class HeapPeak {
        static void reset() {
            for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                if (pool.getType() == MemoryType.HEAP) {
                    pool.resetPeakUsage();
                }
            }
        }

        static long peakBytes() {
            long sum = 0;
            for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                if (pool.getType() == MemoryType.HEAP) {
                    sum += pool.getPeakUsage().getUsed();
                }
            }
            return sum;
        }

        static long liveBytesAfterGc() {
            System.gc();
            Runtime rt = Runtime.getRuntime();
            return rt.totalMemory() - rt.freeMemory();
        }
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
            try (Target target = Options.target(name, targetOptions());
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

    /** The bundled engine, or the one --version names (then --dbms names that engine alone). */
    private txfuzz.dbms.TargetOptions targetOptions() {
        return txfuzz.dbms.TargetOptions.version(engineVersion.version);
    }

    /** An engine at the version to replay corpus entries on: --version if given, else the version an entry was checked on. */
    private record EngineAt(String engine, txfuzz.dbms.TargetOptions options) {
        static EngineAt of(Corpus.Entry e, String version) {
            return new EngineAt(e.engine(), version != null ? txfuzz.dbms.TargetOptions.version(version)
                    : txfuzz.dbms.versions.VersionPin.options(Targets.engine(e.engine()), e.checkedOn()));
        }
    }
}
