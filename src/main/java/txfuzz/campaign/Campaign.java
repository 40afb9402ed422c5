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
import java.util.Map;
import java.util.Optional;
import txfuzz.exec.ConcurrentRun;
import txfuzz.exec.ConcurrentRunner;
import txfuzz.exec.Executor;
import txfuzz.exec.SetupFailedException;
import txfuzz.exec.Trace;
import txfuzz.gen.GenConfig;
import txfuzz.model.ExecutionMode;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;
import txfuzz.oracle.Oracle;
import txfuzz.oracle.Run;
import txfuzz.oracle.ViolationKind;
import txfuzz.reduce.ReduceConfig;
import txfuzz.reduce.Reducer;
import txfuzz.reduce.Reduction;
import txfuzz.reduce.Stripped;
import txfuzz.reduce.TrackingStripper;
import txfuzz.report.Finding;
import txfuzz.report.FindingIndex;
import txfuzz.report.FindingRecord;
import txfuzz.report.FindingWriter;
import txfuzz.report.OnNewestRelease;
import txfuzz.report.PlainForm;
import txfuzz.report.ReductionRecord;
import txfuzz.report.Signature;
import txfuzz.dbms.Target;

/** The loop: seed → case → execute → judge → record, until the test count or time budget is spent. */
public final class Campaign {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final Target target;
    private final CampaignConfig config;
    private final PrintStream progress;
    /** summary.json's findings, by finding id in the order found; a finding's records are replaced when it is reduced. */
    private final java.util.LinkedHashMap<String, List<FindingRecord>> findings = new java.util.LinkedHashMap<>();
    private final FindingIndex index = new FindingIndex();
    private long deadline = Long.MAX_VALUE;
    private final Stats stats = new Stats();
    private final GenerationFigures generated = new GenerationFigures();
    /** Where the cases' time went, by phase (bench's cost table). */
    private final CaseCosts costs = new CaseCosts();
    private volatile boolean stopRequested;
    /** Why the loop was asked to stop before its limits (a signal's name, or "stopped"); null while it was not. */
    private volatile String interruptedBy;
    private final java.util.concurrent.CountDownLatch finished = new java.util.concurrent.CountDownLatch(1);

    private final CaseSource source;
    private final CaseSource plainTwins;
    /** The cases carry the isolation oracle's row tracking: a reduced finding's plain form is derived and checked. */
    private final boolean rowTracking;

    /** Where case i comes from: the generator, or (in tests) a fixed family of cases. */
    interface CaseSource {
        TestCase make(IsolationLevel level, String mode, long iteration);
    }

    public Campaign(Target target, CampaignConfig config, PrintStream progress) {
        this(target, config, progress, null);
    }

    /**
     * A campaign over the subjects of {@code context} (opened by the caller, who closes them): cases are
     * generated for the primary subject, and its oracles are made from {@code context} and closed when the campaign ends.
     */
    public Campaign(txfuzz.oracle.OracleContext context, CampaignConfig config, PrintStream progress) {
        this(context, config, progress, null, null);
    }

    Campaign(Target target, CampaignConfig config, PrintStream progress, CaseSource source) {
        this(target, config, progress, source, null);
    }

    /** The oracles judging this campaign's runs (their figures go into summary.json), made once (they prepare every case; each worker judges with its own set) and closed when the campaign ends. */
    private final OracleSet oracles;
    /** The subjects and settings every worker's oracles are made from. */
    private final txfuzz.oracle.OracleContext context;
    /** The oracles judging this campaign's runs, every worker's, once it started (their figures, summed, go into summary.json). */
    private final List<txfuzz.oracle.Oracle> judging = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** The iterations this process runs ({@code run --worker i/N}). */
    private Partition partition = Partition.WHOLE;
    /** Workers running cases side by side in this process ({@code run --jobs}), each with its own executor and databases. */
    private int jobs = 1;
    /** The signatures a CI run already knows (run --known); null without. */
    private KnownSignatures known;
    /**
     * Guards what the workers share: the figures, the finding index and list, the finding folders being
     * written and summary.json. Held only for bookkeeping, never while a case runs or a finding is reduced,
     * so one worker's reduction does not stall the others. Taken after {@link #progressLock}, never before it.
     */
    private final Object books = new Object();
    /** With several workers: the figures of the case this worker thread runs, until the filer takes it ({@link #account}). */
    private final ThreadLocal<List<Runnable>> unfiled = new ThreadLocal<>();
    /** With several workers: cases run, filed or not yet (the progress line says how many wait to be filed). */
    private final java.util.concurrent.atomic.AtomicLong casesRun = new java.util.concurrent.atomic.AtomicLong();
    /** The first failure of a worker, which stops the others and is rethrown by {@link #run}. */
    private final java.util.concurrent.atomic.AtomicReference<RuntimeException> failure = new java.util.concurrent.atomic.AtomicReference<>();
    /** Set when the engine under test is older than its newest release: unique bug candidates are replayed there too. */
    private NewestCheck newestCheck;
    /** summary.json's meta; made from the target alone when the campaign was not described ({@link #describedBy}). */
    private RunMeta meta;
    /** junit.xml beside summary.json ({@code run --report junit}). */
    private boolean junit;
    /** What earlier runs left in the output folder this run continues; none for a folder of its own. */
    private EarlierRuns earlier = EarlierRuns.none();
    private boolean continues;
    /** Stop once this run has found this many unique bug candidates (run --max-bugs); 0: no such limit. */
    private int maxBugCandidates;
    /**
     * The index's unique bug candidates, earlier runs' included, as of the last finding filed: what the workers check
     * --max-bugs against before each case without taking {@link #books}, which the filer holds while it writes findings.
     */
    private volatile long uniqueBugCandidatesFiled;
    /** The limit that ended the loop (Summary.endedBy); null while it runs and when it was interrupted. */
    private String endedBy;
    /** The long steps under way between cases, by worker thread, in the progress line's words ("reducing h2-RC-s1-i156"). */
    private final Map<Long, String> steps = new java.util.concurrent.ConcurrentHashMap<>();
    /** When the next progress line is due (System.nanoTime); guarded by {@link #progressLock}. */
    private long nextProgress = Long.MAX_VALUE;
    private final Object progressLock = new Object();
    /** events.jsonl while the loop runs. */
    private EventLog events;
    /** Where findings wait for their reduction while the loop runs. */
    private ReductionLanes reductionLanes;
    /**
     * Places to run: a worker holds one while it runs a case, and a bug candidate's reduction holds one while it runs, so
     * where no core is left beside the workers it takes a worker's place (fairly: it gets the next place a case frees)
     * instead of a third of two cores. A reduction's budget is wall time, and one starved beside busy workers ran out of
     * it. As many as the workers or the cores, whichever is more, and at least two, so the one worker can wait (run
     * --max-bugs) for a bug candidate's reduction. Made when the loop starts.
     */
    private java.util.concurrent.Semaphore caseCores;

    /**
     * The campaign's two reduction lanes, each settling on a thread of its own with its own executor and oracles. Bug
     * candidates are reduced as they come: they are what a maintainer reads, and few. The other findings (documented
     * behaviour, mostly) are reduced only when nothing else waits for the cores: beside the cases only when the cores
     * outnumber the workers and the bug candidates' lane; once the cases are spent, by each worker whose cases ran out
     * and by the lane's own thread where the workers leave a core spare. So the workers keep the machine's cores while
     * cases remain, and a reduction, whose budget is wall time, is not starved by them. With {@code --time}, a documented
     * finding still waiting when the time is up is filed as found ({@link #reducedWhateverTheTime}) and can be reduced
     * by hand ({@code txfuzz reduce}).
     */
    private final class ReductionLanes {
        private final LaneTools bugCandidateTools = new LaneTools();
        private final LaneTools otherTools = new LaneTools();
        private final ReductionLane<ToSettle, Reduced> bugCandidates;
        private final ReductionLane<ToSettle, Reduced> others;

        /** Whether a core is left when the workers run: then the other findings' own thread reduces once the cases are spent. */
        private final boolean coreBesideWorkers;

        ReductionLanes(int workers, int cores) {
            java.util.function.Consumer<RuntimeException> failed = e -> failure.compareAndSet(null, e); // the workers stop on it
            coreBesideWorkers = workers < cores;
            bugCandidates = new ReductionLane<>("txfuzz-reduce-bug-candidates", true, bugCandidateTools, failed);
            others = new ReductionLane<>("txfuzz-reduce", workers + 1 < cores, otherTools, failed);
        }

        ReductionLane<ToSettle, Reduced> of(Finding f) {
            return reducedWhateverTheTime(f) ? bugCandidates : others;
        }

        /** Findings filed and not yet filed for good. */
        int waiting() {
            return bugCandidates.waiting() + others.waiting();
        }

        /** The filing thread (the one worker, or the filer of several) has filed its last case. */
        void noMoreFindings() {
            bugCandidates.close();
            others.close();
            if (coreBesideWorkers) {
                others.open();
            }
        }

        /** A worker whose cases are spent takes a reduction thread's place with its own executor and oracles, until all are filed. */
        void help(Executor executor, Judge judge) {
            others.help(settler(executor, judge));
        }

        /** Settles what still waits and closes the lanes' executors and oracles. */
        void finish() {
            bugCandidates.finish();
            others.finish();
            bugCandidateTools.close();
            otherTools.close();
        }
    }

    /** How a lane's own thread settles: with an executor and oracles of its own, made when it first reduces and closed once it ended. */
    private final class LaneTools implements ReductionLane.Settler<ToSettle, Reduced> {
        private Executor executor;
        private OracleSet oracleSet;
        private Judge judge;

        @Override
        public Reduced prepare(ToSettle q) {
            open();
            return prepareReduction(q, executor, judge);
        }

        @Override
        public void complete(ToSettle q, Reduced prepared) {
            completeFiling(q, prepared);
        }

        private void open() {
            if (executor == null) {
                executor = new Executor(target, config.executor());
                oracleSet = Oracles.create(config.oracles(), context);
                judge = new Judge(oracleSet.oracles(), executor);
                judging.addAll(judge.oracles());
            }
        }

        void close() {
            if (oracleSet != null) {
                oracleSet.close();
            }
            if (executor != null) {
                executor.close();
            }
        }
    }

    /** Files a case's violations as a finding (at once, or handed on to be filed in iteration order); returns the finding's id. */
    private interface Recorder {
        String record(TestCase asRun, Trace trace, List<Violation> violations);
    }

    /** A finding a worker handed on, to be filed in iteration order. */
    private record ToFile(TestCase asRun, Trace trace, List<Violation> violations) {
    }

    /** A worker's case, handed to the filer: its outcome (null: interrupted under it) and what to file, if anything. */
    private record Done(long iteration, TestCase testCase, Outcome outcome, ToFile toFile, List<Runnable> figures) {
    }

    /** How a case ended, for its line in events.jsonl. */
    private record Outcome(String outcome, String finding) {
        static final Outcome CLEAN = new Outcome(CampaignEvent.Case.CLEAN, null);
        static final Outcome INVALID = new Outcome(CampaignEvent.Case.INVALID, null);

        static Outcome finding(String id) {
            return new Outcome(CampaignEvent.Case.FINDING, id);
        }
    }

    /** {@code plainTwins}: for a test's instrumented source, the plain twin of each case (null: none). */
    Campaign(Target target, CampaignConfig config, PrintStream progress, CaseSource source, CaseSource plainTwins) {
        this(txfuzz.oracle.OracleContext.of(target, config.executor()), config, progress, source, plainTwins);
    }

    private Campaign(txfuzz.oracle.OracleContext context, CampaignConfig config, PrintStream progress, CaseSource source, CaseSource plainTwins) {
        this.target = context.primary();
        this.config = config;
        this.context = context;
        this.oracles = Oracles.create(config.oracles(), context);
        this.progress = progress;
        // The isolation oracle reads row versions: its cases carry rowId/wList columns.
        // Concurrent runs spread many transactions over a few sessions.
        boolean instrumented = !config.concurrent() && Oracles.needInstrumentation(config.oracles());
        this.rowTracking = instrumented;
        GenConfig gen = config.concurrent() ? IsolationTable.genConfig(config.sessions())
                : instrumented ? config.gen().withInstrumentation(true) : config.gen();
        CaseMaker generator = new CaseMaker(target, context.dialect(), context.beginVariants(), config, gen);
        // every oracle's preparation (the equiv oracle's version-set reads) before the one run they all judge
        List<txfuzz.oracle.Oracle> preparing = config.concurrent() ? List.of() : oracles.oracles();
        this.source = source != null ? source
                : (level, mode, i) -> {
                    TestCase c = generator.make(level, mode, i);
                    for (txfuzz.oracle.Oracle o : preparing) {
                        c = o.prepare(c);
                    }
                    return c;
                };
        // The same seed and iteration give the same data statements without tracking: the self-check's twin.
        CaseMaker plainGenerator = new CaseMaker(target, context.dialect(), context.beginVariants(), config, config.gen().withInstrumentation(false));
        this.plainTwins = source != null ? plainTwins
                : instrumented ? plainGenerator::make
                : null;
    }

    /**
     * Asks the loop to stop after the current case and waits up to {@code millis} for it (Ctrl-C):
     * nothing the interrupted case sees afterwards (a target being closed) is recorded as a finding.
     */
    public void stop(long millis) {
        interrupt(null, millis);
    }

    /**
     * As {@link #stop}, saying why: {@code signal} (SIGINT, SIGTERM; null when not known) goes into
     * summary.json and the last event, which say that the run was cut short.
     */
    public void interrupt(String signal, long millis) {
        interruptedBy = signal == null ? "stopped" : signal;
        stopRequested = true;
        try {
            finished.await(millis, java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The oracles this campaign judged with, every worker's (and the filer's), once {@link #run()} started: e.g. to combine their studies. */
    public List<txfuzz.oracle.Oracle> judgedWith() {
        return List.copyOf(judging);
    }

    /** Where the cases' time went so far, by phase: generation, the run, each oracle, confirmation, self-check, filing. */
    public CaseCosts costs() {
        return costs;
    }

    /** Whether it was asked to stop (Ctrl-C, SIGTERM): what the caller does after the run stops too. */
    public boolean stopping() {
        return stopRequested;
    }

    /** The subjects and settings its oracles were made with (open while the caller keeps its subjects open). */
    public txfuzz.oracle.OracleContext context() {
        return context;
    }

    /** Runs the loop; its oracles are closed when it ends, however it ends. */
    public Summary run() {
        try (OracleSet closing = oracles) {
            return loop();
        } finally {
            finished.countDown();
        }
    }

    private Summary loop() {
        if (meta == null) {
            meta = RunMeta.of(target);
        }
        meta = meta.ranAs(partition, jobs);
        try (EventLog log = EventLog.open(config.out().resolve("events.jsonl"), continues)) {
            events = log;
            log.append(new CampaignEvent.Start(EventLog.now(), meta));
            Summary s = cases();
            log.append(new CampaignEvent.End(EventLog.now(), s.cases(), s.seconds(), s.bugCandidates(), s.uniqueFindings(), s.uniqueBugCandidates(),
                    s.duplicates(), s.interrupted(), s.signal(), s.endedBy()));
            return s;
        } finally {
            events = null;
        }
    }

    private Summary cases() {
        List<String> modes = config.modes().isEmpty() ? List.of(target.modes().get(0)) : config.modes();
        deadline = config.time() == null ? Long.MAX_VALUE : System.nanoTime() + config.time().toNanos();
        synchronized (progressLock) {
            nextProgress = config.progressEvery() == null ? Long.MAX_VALUE : System.nanoTime() + config.progressEvery().toNanos();
        }
        long bugCandidatesBefore = index.unique(Classification.BUG_CANDIDATE.label()); // --continue: the earlier runs' do not count
        uniqueBugCandidatesFiled = bugCandidatesBefore;
        FindingWriter writer = new FindingWriter(config.out());
        // the next iteration to claim: the workers take this process's iterations in turn, so together they run
        // exactly the iterations one worker would, whichever is faster
        java.util.concurrent.atomic.AtomicLong next = new java.util.concurrent.atomic.AtomicLong(partition.index());
        int cores = Runtime.getRuntime().availableProcessors();
        caseCores = new java.util.concurrent.Semaphore(Math.max(2, Math.max(jobs, cores)), true);
        reductionLanes = new ReductionLanes(jobs, cores);
        try (ProgressBeat beat = new ProgressBeat(config.progressEvery(), this::beat)) {
            try {
                if (jobs == 1) {
                    work(modes, next, writer, bugCandidatesBefore, null);
                } else {
                    pooled(modes, next, writer, bugCandidatesBefore);
                }
            } finally {
                reductionLanes.finish(); // the cases are spent (or the run failed): what waits is settled now
            }
        }
        if (failure.get() != null) {
            throw failure.get();
        }
        if (config.progressEvery() != null) {
            progressLine(true);
        }
        return writeSummary();
    }

    /**
     * {@code jobs} workers run cases side by side, each with its own executor and databases; this thread files
     * what they found in iteration order and queues their reductions ({@link #record}), which run on threads of
     * their own. So neither generation nor filing waits for a reduction, and the findings, their de-duplication
     * and events.jsonl's lines are what one worker would have made of the same iterations. With --max-bugs, cases the workers ran past the
     * iteration that reached the limit are not filed, as one worker would not have run them.
     */
    private void pooled(List<String> modes, java.util.concurrent.atomic.AtomicLong next, FindingWriter writer, long bugCandidatesBefore) {
        Filer filer = new Filer(partition.index(), partition.count(), jobs);
        List<Thread> workers = new ArrayList<>();
        for (int j = 0; j < jobs; j++) {
            Thread t = new Thread(() -> {
                try {
                    work(modes, next, writer, bugCandidatesBefore, filer);
                } catch (RuntimeException | Error e) {
                    failure.compareAndSet(null, e instanceof RuntimeException r ? r : new IllegalStateException(e));
                } finally {
                    filer.workerEnded();
                }
            }, "txfuzz-worker-" + j);
            t.setDaemon(true);
            workers.add(t);
            t.start();
        }
        try {
            boolean limitReached = false;
            for (Done d = filer.next(); d != null; d = filer.next()) {
                if (limitReached) {
                    continue;
                }
                synchronized (books) {
                    d.figures().forEach(Runnable::run);
                }
                Outcome outcome = d.outcome();
                if (d.toFile() != null) {
                    try (CaseCosts.Timing timed = costs.time(CaseCosts.FILER)) {
                        outcome = Outcome.finding(record(d.toFile().asRun(), d.toFile().trace(), d.toFile().violations(), writer));
                    }
                }
                if (outcome != null) {
                    events.append(new CampaignEvent.Case(EventLog.now(), d.iteration(), d.testCase().isolation().name(), d.testCase().mode(),
                            outcome.outcome(), outcome.finding()));
                }
                synchronized (books) {
                    limitReached = maxBugCandidates > 0 && index.unique(Classification.BUG_CANDIDATE.label()) - bugCandidatesBefore >= maxBugCandidates;
                    if (limitReached) {
                        endedBy = Summary.MAX_BUGS; // the filed cases end here, whichever limit the workers met first
                    }
                }
            }
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
            stopRequested = true; // the workers stop after their case: nothing would file what they find
        } finally {
            reductionLanes.noMoreFindings(); // the workers helping with reductions end once the lanes are empty
            for (Thread t : workers) {
                joinQuietly(t);
            }
        }
        if (failure.get() != null) {
            throw failure.get();
        }
    }

    /**
     * The workers' cases, handed over as each ends and taken in iteration order (this process's iterations:
     * {@code first}, then every {@code step}-th). Every iteration a worker claims is handed over, so the order has no gaps
     * while workers run.
     */
    private static final class Filer {
        private final Map<Long, Done> done = new java.util.HashMap<>();
        private final int step;
        private long expected;
        private int running;

        Filer(long first, int step, int workers) {
            this.expected = first;
            this.step = step;
            this.running = workers;
        }

        synchronized void put(Done d) {
            done.put(d.iteration(), d);
            notifyAll();
        }

        /** Worker threads that said their cases are spent. */
        private final java.util.Set<Thread> ended = new java.util.HashSet<>();

        /** The calling worker's cases are spent (said once; again from its thread's end, which a failure reaches first). */
        synchronized void workerEnded() {
            if (ended.add(Thread.currentThread())) {
                running--;
                notifyAll();
            }
        }

        /** The next iteration's case, waiting for it while a worker runs; null once the workers ended and there is none. */
        synchronized Done next() {
            boolean interrupted = false;
            while (!done.containsKey(expected) && running > 0) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true; // the workers stop on stopRequested; what they hand over is still filed
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            Done d = done.remove(expected);
            if (d != null) {
                expected += step;
            }
            return d;
        }
    }

    private static void joinQuietly(Thread t) {
        boolean interrupted = false;
        while (t.isAlive()) {
            try {
                t.join();
            } catch (InterruptedException e) {
                interrupted = true; // the workers stop on stopRequested; wait for them to say so
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * One worker: its own executor and databases; it claims iterations from {@code next} until a limit is reached.
     * Without a {@code filer} it files its findings itself as it goes (one worker); with one, it hands each case over.
     */
    private void work(List<String> modes, java.util.concurrent.atomic.AtomicLong next, FindingWriter writer, long bugCandidatesBefore,
                      Filer filer) {
        try (Executor executor = new Executor(target, config.executor());
             ConcurrentRunner concurrent = config.concurrent() ? new ConcurrentRunner(target, config.executor()) : null;
             OracleSet working = Oracles.create(config.oracles(), context)) {
            Judge judge = new Judge(working.oracles(), executor, costs);
            judging.addAll(judge.oracles());
            ToFile[] handed = new ToFile[1];
            if (filer != null) {
                unfiled.set(new ArrayList<>());
            }
            Recorder recorder = filer == null ? (asRun, trace, violations) -> record(asRun, trace, violations, writer)
                    : (asRun, trace, violations) -> {
                        handed[0] = new ToFile(asRun, trace, violations);
                        return FindingWriter.id(asRun.withEngine(meta.engine().forCase(target.name())));
                    };
            while (true) {
                caseCores.acquireUninterruptibly(); // a bug candidate's reduction may hold one: it takes a worker's place, not a share of it
                try {
                    if (stopRequested || failure.get() != null) {
                        break;
                    }
                    if (System.nanoTime() >= deadline) {
                        endedBy("time");
                        break;
                    }
                    // read without taking the books: the filer holds them while it writes a finding and summary.json
                    if (maxBugCandidates > 0 && uniqueBugCandidatesFiled - bugCandidatesBefore >= maxBugCandidates) {
                        endedBy(Summary.MAX_BUGS);
                        break;
                    }
                    long i = next.getAndAdd(partition.count());
                    if (config.tests() != null && i >= config.tests()) {
                        endedBy("tests");
                        break;
                    }
                    int n = config.levels().size();
                    IsolationLevel level = config.levels().get((int) (i % n));
                    String mode = modes.get((int) ((i / n) % modes.size()));
                    TestCase c;
                    try (CaseCosts.Timing timed = costs.time(CaseCosts.GENERATION)) {
                        c = source.make(level, mode, i);
                    } catch (RuntimeException e) {
                        if (filer != null) {
                            filer.put(new Done(i, null, null, null, List.of())); // no gap in the order: the other workers' cases are still filed
                        }
                        throw e;
                    }
                    Outcome outcome;
                    if (config.execution() == CampaignConfig.Execution.PREPARED || (config.execution() == CampaignConfig.Execution.MIXED && i % 2 == 1)) {
                        c = c.withExecution(ExecutionMode.PREPARED);
                    }
                    if (concurrent != null) {
                        outcome = runConcurrently(c, concurrent, executor, judge, recorder);
                    } else {
                        long iteration = i;
                        TestCase instrumented = c;
                        outcome = runOne(c, executor, judge, recorder,
                                plainTwins == null ? null : () -> plainTwins.make(level, mode, iteration).withExecution(instrumented.execution()),
                                config.selfCheckEvery() > 0 && i % config.selfCheckEvery() == 0);
                    }
                    if (filer != null) {
                        filer.put(new Done(i, c, outcome, outcome == null ? null : handed[0], unfiled.get()));
                        unfiled.set(new ArrayList<>());
                        casesRun.incrementAndGet();
                        handed[0] = null;
                    } else if (outcome != null) { // null: interrupted under the case, which then says nothing
                        events.append(new CampaignEvent.Case(EventLog.now(), c.iteration(), c.isolation().name(), c.mode(), outcome.outcome(),
                                outcome.finding()));
                    }
                    if (progressLine(false)) {
                        writeSummary();
                    }
                } finally {
                    caseCores.release();
                }
            }
            // the cases are spent: this worker's core reduces what waits (the filer may still file the other workers' last cases)
            if (filer != null) {
                filer.workerEnded();
            } else {
                reductionLanes.noMoreFindings();
            }
            if (failure.get() == null) {
                reductionLanes.help(executor, judge);
            }
        }
    }

    /**
     * A case's figures go into the books: at once for one worker; with several, when the filer takes the case
     * (so a case run past the --max-bugs limit, which is not filed, is not counted either).
     */
    private void account(Runnable update) {
        List<Runnable> later = unfiled.get();
        if (later != null) {
            later.add(update);
            return;
        }
        synchronized (books) {
            update.run();
        }
    }

    /** The first limit a worker reached ends the run. */
    private void endedBy(String limit) {
        synchronized (books) {
            if (endedBy == null) {
                endedBy = limit;
            }
        }
    }

    /**
     * Runs and judges one case. {@code plainTwin} (instrumented cases only) gives the same case without
     * row tracking: it runs when the case has a violation, and on {@code sampled} cases, to measure the
     * instrumentation's effect (see {@link InstrumentationSelfCheck}).
     */
    private Outcome runOne(TestCase c, Executor executor, Judge judge, Recorder recorder,
                        java.util.function.Supplier<TestCase> plainTwin, boolean sampled) {
        Trace trace;
        try (CaseCosts.Timing timed = costs.time(CaseCosts.RUN)) {
            trace = executor.run(c);
        } catch (SetupFailedException e) {
            account(() -> stats.invalidCases++);
            return Outcome.INVALID;
        } catch (SQLException | RuntimeException e) {
            if (stopRequested) {
                return null; // the run is being interrupted: the target is going away under this case
            }
            // The engine failed outside any one statement (it could not open or read back): that is
            // a finding too, and the campaign goes on with a fresh database.
            account(() -> stats.cases++);
            return Outcome.finding(recorder.record(c, null, List.of(Oracles.engineFailure("while running the case", e))));
        }
        Trace ran = trace;
        account(() -> stats.add(c, ran));
        List<Violation> violations = new ArrayList<>();
        try {
            violations.addAll(judge.judge(c, trace));
            if (!violations.isEmpty()) {
                beginStep("confirming iteration " + c.iteration(), null, null, false);
                try (CaseCosts.Timing timed = costs.time(CaseCosts.CONFIRMATION)) {
                    violations = new ArrayList<>(judge.confirm(c, trace, violations));
                } finally {
                    endStep();
                }
            }
        } catch (SQLException | SetupFailedException | RuntimeException e) {
            if (stopRequested) {
                return null;
            }
            // Keep what was found; the failure of a replay is a finding of its own.
            violations.add(Oracles.engineFailure("while judging the case (serial replays, simulations or the confirming run)", e));
        }
        if (plainTwin != null && (sampled || !violations.isEmpty()) && !stopRequested) {
            try (CaseCosts.Timing timed = costs.time(CaseCosts.SELF_CHECK)) {
                violations = selfChecked(c, trace, violations, plainTwin, executor, judge);
            }
        }
        tally(c, trace, violations);
        violations = withoutNotPromised(violations);
        if (violations.isEmpty()) {
            return Outcome.CLEAN;
        }
        if (stopRequested) {
            return null;
        }
        try (CaseCosts.Timing timed = costs.time(CaseCosts.FILING)) {
            return Outcome.finding(recorder.record(c, trace, violations));
        }
    }

    /** The generators' figures: whether the case showed an anomaly, and whether a pattern case realised its pattern. */
    /**
     * The violations to file: those that break only txfuzz's own stricter expectation while every promise of the level holds
     * (not promised) are counted in the summary and left out unless asked for ({@link #filingNotPromised}); {@code txfuzz
     * replay} of the case shows them.
     */
    private List<Violation> withoutNotPromised(List<Violation> violations) {
        long notPromised = violations.stream().filter(v -> v.classification() == Classification.NOT_PROMISED).count();
        if (notPromised == 0 || fileNotPromised) {
            return violations; // filed: the filing counts them
        }
        synchronized (books) {
            stats.notPromised += notPromised;
        }
        return violations.stream().filter(v -> v.classification() != Classification.NOT_PROMISED).toList();
    }

    private void tally(TestCase c, Trace trace, List<Violation> violations) {
        List<Violation> judged = List.copyOf(violations);
        account(() -> tallied(c, trace, judged));
    }

    private void tallied(TestCase c, Trace trace, List<Violation> violations) {
        boolean anomalous = violations.stream().anyMatch(v -> v.kind().isAnomaly() && v.classification() != Classification.FLAKY);
        boolean candidate = violations.stream().anyMatch(v -> v.classification() == Classification.BUG_CANDIDATE);
        if (c.origin() == null) {
            generated.addRandom(anomalous, candidate);
            return;
        }
        txfuzz.gen.pattern.AnomalyPattern p = txfuzz.gen.pattern.PatternCatalogue.bundled().byName(c.origin().pattern()).orElse(null);
        generated.addPattern(c.origin().pattern(), c.isolation(), p != null && p.proscribedAt(c.isolation()),
                txfuzz.oracle.pattern.PatternRealisation.ofRun(c, trace), anomalous, candidate, c.iteration());
    }

    /**
     * Runs the plain twin and compares; either way a violation carries the twin (a case the maintainer can run
     * without txfuzz's extra columns) and what the comparison found. When the twins disagree, a bug candidate is
     * an instrumentation effect only when its violation is not in the plain program too ({@link #onTwin}): its own
     * oracle judges the twin's run where it can judge an untracked case, and the candidate stands when the same
     * violation shows there; an oracle that needs tracking cannot, and the candidate is demoted only when the twin
     * differed at a statement (or the end) of a transaction the violation is about. A documented finding keeps its
     * label, and its self-check text says that the twin differed.
     */
    private List<Violation> selfChecked(TestCase c, Trace trace, List<Violation> violations, java.util.function.Supplier<TestCase> plainTwin,
                                        Executor executor, Judge judge) {
        TestCase plain;
        Trace plainTrace;
        InstrumentationSelfCheck.Result r;
        try {
            plain = plainTwin.get();
            InstrumentationSelfCheck.Checked checked = InstrumentationSelfCheck.run(c, trace, plain, executor);
            plainTrace = checked.plainTrace();
            r = checked.result();
        } catch (SetupFailedException | SQLException | RuntimeException e) {
            account(() -> stats.selfChecksNotComparable++);
            return violations; // the twin could not run: the verdicts stand as the instrumented run gives them
        }
        if (!r.comparable()) {
            account(() -> stats.selfChecksNotComparable++);
            return violations;
        }
        InstrumentationSelfCheck.Result compared = r;
        account(() -> {
            stats.selfChecks++;
            if (!compared.agrees()) {
                stats.selfCheckDisagreements++;
                if (stats.firstSelfCheckDisagreements.size() < 5) {
                    stats.firstSelfCheckDisagreements.add("iteration " + c.iteration() + " at " + c.isolation() + ": "
                            + String.join("; ", compared.differences()));
                }
            }
        });
        Map<String, Optional<List<Violation>>> twinVerdicts = new java.util.HashMap<>();
        List<Violation> out = new ArrayList<>();
        for (Violation v : violations) {
            Map<String, String> files = new java.util.LinkedHashMap<>(v.attachments());
            files.put("plain.case.json", txfuzz.model.CaseJson.write(plain));
            files.put("plain.trace.txt", txfuzz.report.TraceText.render(plain, plainTrace));
            if (r.agrees()) {
                files.put("self-check.txt", "The same case without txfuzz's row tracking (`plain.case.json`), run in the same order, agreed with"
                        + " the instrumented run on every statement's error, affected rows, plain columns read and waiting, every"
                        + " transaction's end, and the final contents.\n");
                out.add(v.withDetails(v.details(), files));
                continue;
            }
            if (v.classification() != Classification.BUG_CANDIDATE) {
                files.put("self-check.txt", r.text() + "\nThis finding is " + v.classification().label() + " as the instrumented run gives it;"
                        + " the self-check re-judges only bug candidates, so its label was not checked against the plain twin.\n");
                out.add(v.withDetails(v.details(), files));
                continue;
            }
            TwinJudgement j = onTwin(v, c, plain, plainTrace, r, judge, executor, twinVerdicts);
            files.put("self-check.txt", r.text() + "\n" + j.why() + "\n");
            Violation shown = v.withDetails(v.details(), files);
            out.add(j.inTwin() ? shown : shown.withClassification(Classification.INSTRUMENTATION_EFFECT, null));
        }
        return out;
    }

    /** Whether a bug candidate's violation is in the plain program too, and why the self-check says so. */
    private record TwinJudgement(boolean inTwin, String why) {
    }

    /**
     * Judges bug candidate {@code v} against the plain twin, which differed from its instrumented run. An oracle that
     * judges untracked cases judges the twin's run (once per oracle and case): the same violation there (the same kind,
     * and where its evidence has an identity, the same statements, named by their instrumented counterparts, and
     * direction) keeps it a bug candidate. Otherwise (the oracle needs tracking, or could not judge the twin) it is an
     * instrumentation effect only when the twin differed at a statement or the end of a transaction the violation is
     * about, or when it names no transaction and the twin differed anywhere.
     */
    private static TwinJudgement onTwin(Violation v, TestCase c, TestCase plain, Trace plainTrace, InstrumentationSelfCheck.Result r,
                                        Judge judge, Executor executor, Map<String, Optional<List<Violation>>> cache) {
        Optional<txfuzz.oracle.Oracle> oracle = judge.oracleOf(v);
        String name = v.oracle();
        if (oracle.isPresent() && !oracle.get().needsRowTracking()) {
            Optional<List<Violation>> seen = cache.computeIfAbsent(name, k -> {
                try {
                    return Optional.of(oracle.get().judge(txfuzz.oracle.Run.controlled(plain, plainTrace), executor).violations());
                } catch (SQLException | SetupFailedException | RuntimeException e) {
                    return Optional.empty();
                }
            });
            if (seen.isPresent()) {
                java.util.function.UnaryOperator<txfuzz.model.StmtRef> origin = InstrumentationSelfCheck.plainToInstrumented(c, plain);
                Optional<Violation> same = seen.get().stream().filter(w -> v.sameAs(w, origin)).findFirst();
                return same.map(w -> new TwinJudgement(true, "The " + name + " oracle, judging the plain twin's run, finds the same violation there ("
                                + w.summary() + "): it is in the program as written, so it stays a bug candidate."))
                        .orElseGet(() -> new TwinJudgement(false, "The " + name + " oracle, judging the plain twin's run, does not find this violation"
                                + " there: it is an effect of the instrumentation, not of the engine on the program as written."));
            }
        }
        String cannot = "The " + name + " oracle " + (oracle.isPresent() && oracle.get().needsRowTracking() ? "needs row tracking, so it cannot judge"
                : "could not judge") + " the plain twin; ";
        List<Integer> txns = v.evidence().transactions();
        if (txns.isEmpty()) {
            return new TwinJudgement(false, cannot + "the violation names no transaction, so a difference anywhere may be its cause:"
                    + " it is counted as an instrumentation effect.");
        }
        String named = String.join(", ", txns.stream().map(t -> "T" + t).toList());
        if (r.where().touches(txns)) {
            return new TwinJudgement(false, cannot + "the twin differed in a transaction the violation is about (" + named
                    + "), so the violation may be an effect of the instrumentation.");
        }
        return new TwinJudgement(true, cannot + "the twin differed only outside the transactions the violation is about (" + named
                + "), so it stays a bug candidate.");
    }

    /**
     * An uncontrolled run (IsoRel's mode): the case's transactions run truly concurrently on a few
     * sessions, and the oracles that judge such runs judge it. A violation whose oracle gives a
     * witness — a controlled case taken from the run (for an isolation anomaly: its cycle's
     * transactions in the order their statements completed) — is then checked on that case: if the
     * witness shows it too, the witness is the finding (replayable, confirmed and reduced like any
     * other) with the uncontrolled run kept beside it. Otherwise the uncontrolled evidence is the
     * finding (not replayable as such, so not reduced). The first bug candidate with a witness is
     * tried, else the first violation with one.
     */
    private Outcome runConcurrently(TestCase c, ConcurrentRunner runner, Executor executor, Judge judge, Recorder recorder) {
        ConcurrentRun concurrentRun;
        try {
            concurrentRun = runner.run(c, config.sessions());
        } catch (SetupFailedException e) {
            account(() -> stats.invalidCases++);
            return Outcome.INVALID;
        } catch (SQLException | RuntimeException e) {
            if (stopRequested) {
                return null;
            }
            account(() -> stats.cases++);
            return Outcome.finding(recorder.record(c, null, List.of(Oracles.engineFailure("while running the case", e))));
        }
        Run run = Run.concurrent(c, concurrentRun);
        account(() -> stats.add(c, run.trace()));
        List<Violation> violations = new ArrayList<>();
        try {
            violations.addAll(judge.judge(run));
        } catch (SQLException | SetupFailedException | RuntimeException e) {
            if (stopRequested) {
                return null;
            }
            violations.add(Oracles.engineFailure("while judging the concurrent run", e));
        }
        if (violations.isEmpty()) {
            return Outcome.CLEAN;
        }
        if (stopRequested) {
            return null;
        }
        Violation toWitness = null;
        Oracle witnessing = null;
        TestCase witness = null;
        for (Violation v : violations) {
            Optional<Oracle> o = judge.oracleOf(v);
            Optional<TestCase> w = o.flatMap(x -> x.witness(run, v));
            if (w.isPresent() && (witness == null
                    || toWitness.classification() != Classification.BUG_CANDIDATE && v.classification() == Classification.BUG_CANDIDATE)) {
                toWitness = v;
                witnessing = o.get();
                witness = w.get();
            }
        }
        if (witness != null) {
            try {
                Trace wt = executor.run(witness);
                List<Violation> again = judge.judge(witness, wt);
                ViolationKind kind = toWitness.kind();
                if (again.stream().anyMatch(v -> v.kind().equals(kind))) {
                    again = judge.confirm(witness, again);
                    List<Violation> withEvidence = new ArrayList<>();
                    for (Violation v : again) {
                        Violation shown = judge.oracleOf(v).map(o -> o.asWitnessed(v)).orElse(v);
                        withEvidence.add(uncontrolledEvidence(shown, c, run, false));
                    }
                    return Outcome.finding(recorder.record(witness, wt, withEvidence));
                }
            } catch (SQLException | SetupFailedException | RuntimeException e) {
                // the linearisation could not run: report the concurrent evidence as it is
            }
        }
        List<Violation> shown = new ArrayList<>();
        for (Violation v : violations) {
            shown.add(uncontrolledEvidence(v, c, run, true));
        }
        return Outcome.finding(recorder.record(c, null, shown));
    }

    /** Adds the uncontrolled run to a violation: where it was seen, the whole case and its trace. */
    private Violation uncontrolledEvidence(Violation v, TestCase c, Run run, boolean onlyConcurrent) {
        java.util.Map<String, String> files = new java.util.LinkedHashMap<>(v.attachments());
        if (!onlyConcurrent) {
            files.put("concurrent.case.json", txfuzz.model.CaseJson.write(c)); // else it is case.json itself
        }
        files.put("concurrent.trace.txt", txfuzz.report.TraceText.render(c, run.trace()));
        String where = onlyConcurrent
                ? "Seen in a concurrent run (" + config.sessions() + " sessions, transaction i on session (i-1) % " + config.sessions()
                        + "); a controlled replay of its witness (the transactions involved, in completion order) did not show it, so `case.json`"
                        + " is the whole concurrent case (`txfuzz replay` runs it in its submitted order, which may not show it) and"
                        + " `concurrent.trace.txt`"
                        + " is what happened.\n\n"
                : "First seen in a concurrent run (" + config.sessions() + " sessions: `concurrent.case.json`, `concurrent.trace.txt`);"
                        + " `case.json` replays the transactions involved in the order their statements completed there, and shows it too.\n\n";
        return v.withDetails(where + v.details(), files);
    }

    /**
     * Writes the finding at once and files it, or queues its reduction; see {@link #completeFiling} for how a finding is reduced
     * and de-duplicated (docs/findings.md). The finding is on disk before this returns (findings are never lost), and this
     * never waits for a reduction: a finding to reduce, and every later finding of its lane, is written as found and
     * settled in filing order on the lane's thread ({@link ReductionLane}), so each is judged against the index as the
     * findings before it left it, as when every finding was reduced inline. Bug candidates and other findings go in
     * lanes of their own: a signature's key holds its classification, so neither lane's findings can be duplicates of
     * the other's. With --max-bugs a bug candidate is settled before this returns, as the limit counts it then.
     */
    private String record(TestCase asRun, Trace trace, List<Violation> violations, FindingWriter writer) {
        TestCase c = asRun.withEngine(meta.engine().forCase(target.name())); // case.json says which build it was found on
        String id = FindingWriter.id(c);
        int before = Reducer.dataStatements(c);
        Finding found = Finding.unreduced(id, c, trace, violations, ReductionRecord.notRun(ReductionRecord.PENDING, before));
        Violation primary = found.primary();
        boolean reducible = primary.classification() != Classification.FLAKY && primary.classification() != Classification.INSTRUMENTATION_EFFECT
                && trace != null && primary.kind().reducible();
        synchronized (books) {
            for (Violation v : violations) {
                switch (v.classification()) {
                    case BUG_CANDIDATE -> stats.bugCandidates++;
                    case DOCUMENTED -> stats.documented++;
                    case FLAKY -> stats.flaky++;
                    case INSTRUMENTATION_EFFECT -> stats.instrumentationEffects++;
                    case NOT_PROMISED -> stats.notPromised++; // filed with --not-promised, or as a concurrent run's witness
                }
            }
        }
        ToSettle queued = new ToSettle(found, reducible, violations.size(), writer);
        ReductionLane<ToSettle, Reduced> lane = reductionLanes.of(found);
        Filing[] now = new Filing[1];
        boolean filedForGood = lane.offer(queued, () -> {
            synchronized (books) { // the index is looked up and the finding filed in one step, so two workers never both file one signature as new
                now[0] = fileAtOnce(found, reducible, violations.size(), writer, false);
            }
            return !now[0].pending();
        }, () -> {
            synchronized (books) {
                file(writer.write(found, target)); // as found, until the findings before it are settled
            }
        });
        if (filedForGood) {
            checkNewest(now[0].finding(), writer);
        } else if (maxBugCandidates > 0 && reducedWhateverTheTime(found)) {
            lane.awaitSettled();
        }
        return id;
    }

    /** A finding written as found, queued for its reduction and final filing; {@code violations}: how many the case had. */
    private record ToSettle(Finding found, boolean reducible, int violations, FindingWriter writer) {
    }

    /**
     * Reduces a queued finding ahead of its turn, on a settling thread with that thread's executor and oracles, when it is
     * to be reduced as the index stands: findings before it can only make it a duplicate meanwhile (the index only grows,
     * the time only passes), so one not to be reduced now never is. Null when none is due.
     */
    private Reduced prepareReduction(ToSettle q, Executor executor, Judge judge) {
        boolean due;
        synchronized (books) {
            due = ReductionRecord.PENDING.equals(reductionStatus(q.found(), q.reducible()));
        }
        if (!due) {
            return null;
        }
        String id = q.found().id();
        boolean takesACore = reducedWhateverTheTime(q.found()); // documented findings are reduced only where no case waits for the core
        if (takesACore) {
            caseCores.acquireUninterruptibly();
        }
        beginStep("reducing " + id, "reducing", id, true);
        try {
            return reduce(q.found(), executor, judge);
        } finally {
            endStep();
            if (takesACore) {
                caseCores.release();
            }
        }
    }

    /**
     * Files a queued finding in its turn (see docs/findings.md):
     * <ol>
     *   <li>if the case as found already has a known unique finding's signature key (the same
     *       cause: the same bug as far as txfuzz can tell) it is filed as that one's duplicate
     *       without reduction;</li>
     *   <li>else, if its primary violation can be reduced (confirmed, not flaky, reported by an
     *       oracle, reduction on, and time left — a bug candidate is reduced even after the campaign's time, see
     *       {@link #reducedWhateverTheTime}), it is filed with its reduction ({@link #prepareReduction}): the reduced case
     *       becomes case.json, the case as found stays as original.case.json; its reduced signature makes it a new
     *       unique finding or a duplicate of the one with that key;</li>
     *   <li>else it is filed by its own signature.</li>
     * </ol>
     */
    private void completeFiling(ToSettle q, Reduced prepared) {
        Finding found = q.found();
        String id = found.id();
        Finding filed;
        synchronized (books) {
            // a reduction made while the finding was due stands, interrupted or out of time as it may be: only a
            // duplicate filed meanwhile drops it (a stop or the deadline since must not turn it into "time-up")
            boolean reducedWhileDue = prepared != null && index.covering(found.signature()).isEmpty();
            Filing filing = reducedWhileDue ? null : fileAtOnce(found, q.reducible(), q.violations(), q.writer(), true);
            if (filing != null && !filing.pending()) {
                filed = filing.finding();
            } else {
                if (prepared == null) {
                    throw new IllegalStateException(id + " is due for reduction now but was not when its reduction was prepared");
                }
                if (prepared.run() != null) {
                    stats.addReduction(prepared.run());
                }
                Finding reduced = prepared.finding();
                FindingIndex.Group g = index.add(id, reduced.signature(), oneLine(reduced.primary().summary()),
                        reduced.reduced() || ReductionRecord.MINIMAL.equals(reduced.reduction().status())); // a minimal case is its own reduction
                filed = reduced.withDuplicateOf(duplicateOf(g, id), g.signature());
                filed(file(q.writer().write(filed, target)), q.violations());
            }
        }
        checkNewest(filed, q.writer());
    }

    /** How a lane's thread, or a worker helping it, settles findings: with its own executor and oracles. */
    private ReductionLane.Settler<ToSettle, Reduced> settler(Executor executor, Judge judge) {
        return new ReductionLane.Settler<>() {
            @Override
            public Reduced prepare(ToSettle q) {
                return prepareReduction(q, executor, judge);
            }

            @Override
            public void complete(ToSettle q, Reduced prepared) {
                completeFiling(q, prepared);
            }
        };
    }

    /** Whether {@code found} is to be reduced as the index and the time stand ({@link ReductionRecord#PENDING}), else why not (under {@link #books}). */
    private String reductionStatus(Finding found, boolean reducible) {
        return !reducible ? ReductionRecord.NOT_APPLICABLE
                : !config.reduces() ? ReductionRecord.OFF
                : index.covering(found.signature()).isPresent() ? ReductionRecord.SKIPPED_DUPLICATE
                : !reducedWhateverTheTime(found) && !config.reduceDocumented() ? ReductionRecord.ON_REQUEST
                : stopRequested || (!reducedWhateverTheTime(found) && System.nanoTime() >= deadline) ? ReductionRecord.TIME_UP
                : ReductionRecord.PENDING;
    }

    /** What {@link #fileAtOnce} did: filed the finding for good, or as found, its reduction {@code pending}. */
    private record Filing(Finding finding, boolean pending) {
    }

    /**
     * Files {@code found} (under {@link #books}): for good when it is not to be reduced (a duplicate of a known
     * signature, or a unique finding by its own), else as found — findings are never lost — pending its reduction
     * ({@code writtenAsFound}: it already was, while it waited in its lane).
     */
    private Filing fileAtOnce(Finding found, boolean reducible, int violations, FindingWriter writer, boolean writtenAsFound) {
        String id = found.id();
        int before = found.reduction().statementsBefore();
        Optional<FindingIndex.Group> known = index.covering(found.signature());
        String status = reductionStatus(found, reducible);
        if (ReductionRecord.PENDING.equals(status)) {
            if (!writtenAsFound) {
                file(writer.write(found, target)); // written before the reduction starts
            }
            return new Filing(found, true);
        }
        ReductionRecord r = ReductionRecord.notRun(status, before);
        if (ReductionRecord.SKIPPED_DUPLICATE.equals(status)) {
            stats.reductionsSkipped++;
        }
        FindingIndex.Group g;
        if (known.isPresent()) {
            g = known.get();
            index.addDuplicate(g, id);
        } else {
            g = index.add(id, found.signature(), oneLine(found.primary().summary()), false);
        }
        Finding filed = found.withReduction(r).withDuplicateOf(duplicateOf(g, id), g.signature());
        filed(file(writer.write(filed, target)), violations);
        return new Filing(filed, false);
    }

    /** The finding's line in events.jsonl, from its primary record as summary.json has it. */
    private void filed(List<FindingRecord> records, int violations) {
        if (events == null) {
            return;
        }
        FindingRecord p = records.stream().filter(FindingRecord::primary).findFirst().orElse(records.get(0));
        events.append(new CampaignEvent.Finding(EventLog.now(), p.id(), p.oracle(), p.kind(), p.classification(), p.signature(),
                p.duplicateOf(), violations, p.dir(), oneLine(p.summary())));
    }

    /**
     * Replays the case of a unique bug candidate on the engine's newest release, when the campaign
     * tests an older one ({@link #checkingNewest}), and files the finding again with the outcome, which
     * its report names in its first lines.
     */
    private void checkNewest(Finding f, FindingWriter writer) {
        if (newestCheck == null || stopRequested || f.duplicateOf() != null || f.primary().classification() != Classification.BUG_CANDIDATE) {
            return;
        }
        // a divergence between subjects is not one engine's to re-check alone; a one-subject finding is replayed
        // with the campaign's one-subject oracles
        List<String> oneSubject = config.oracles().stream().filter(n -> !Oracles.registration(n).comparesSubjects()).toList();
        if (Oracles.registration(f.primary().oracle()).comparesSubjects() || oneSubject.isEmpty()) {
            return;
        }
        beginStep("checking " + f.id() + " on the newest release, " + newestCheck.newest(), "checking-newest", f.id(), true);
        VersionReplay r;
        try {
            r = newestCheck.replay(f.testCase(), oneSubject);
        } finally {
            endStep();
        }
        synchronized (books) {
            file(writer.write(f.withOnNewest(new OnNewestRelease(newestCheck.newest(), r.verdict().words, r.verdict() == VersionReplay.Verdict.SHOWS,
                    r.verdict() == VersionReplay.Verdict.CLEAN, r.detail())), target));
        }
    }

    /**
     * Prints the progress line when it is due, or now when {@code now}; true when it printed. During a
     * long step the line says what the campaign is doing ("; reducing h2-RC-s1-i156 …").
     */
    private boolean progressLine(boolean now) {
        synchronized (progressLock) {
            if (!now && System.nanoTime() < nextProgress) {
                return false;
            }
            String doing = steps.isEmpty() ? null : String.join("; ", new java.util.TreeMap<>(steps).values());
            String line;
            synchronized (books) {
                line = stats.progressLine();
                long waiting = jobs > 1 ? casesRun.get() - stats.cases - stats.invalidCases : 0;
                if (waiting > 0) {
                    line += "; " + waiting + " more run, waiting to be filed in order";
                }
            }
            int toReduce = reductionLanes == null ? 0 : reductionLanes.waiting();
            if (toReduce > 0) {
                // not yet in the findings counted before: each is filed as unique or duplicate once reduced
                line += "; " + Plural.of(toReduce, "more finding") + " queued for reduction";
            }
            progress.println(line + (doing == null ? "" : "; " + doing + " …"));
            nextProgress = config.progressEvery() == null ? Long.MAX_VALUE : System.nanoTime() + config.progressEvery().toNanos();
            return true;
        }
    }

    /** The progress beat: between cases the loop prints the line; during a long step this does. */
    private void beat() {
        if (!steps.isEmpty()) {
            progressLine(false);
        }
    }

    /**
     * A long step begins: the progress lines name it until it ends. With {@code announce} (reductions and
     * newest-release checks, a few per run) its event goes into events.jsonl and a progress line says so
     * at once; confirmations, which every violation has and which are mostly quick, only show on the
     * progress lines that fall due while they run.
     */
    private void beginStep(String words, String kind, String finding, boolean announce) {
        steps.put(Thread.currentThread().getId(), words);
        if (!announce) {
            return;
        }
        if (events != null) {
            events.append(new CampaignEvent.Step(EventLog.now(), kind, finding));
        }
        if (config.progressEvery() != null) {
            progressLine(true);
        }
    }

    private void endStep() {
        steps.remove(Thread.currentThread().getId());
    }

    /**
     * Stops the run once it has found {@code n} unique bug candidates (run --max-bugs), counted by
     * signature as the finding index counts them; the finding that reaches {@code n} is reduced and filed first.
     */
    public Campaign stoppingAfterBugCandidates(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("the number of unique bug candidates to stop after must be at least 1, not " + n);
        }
        this.maxBugCandidates = n;
        return this;
    }

    /** Records {@code m} as summary.json's meta (which txfuzz, the command line, the engine build). */
    public Campaign describedBy(RunMeta m) {
        this.meta = m;
        return this;
    }

    /** Files violations that break no promise of their level as findings too ({@code run --not-promised}); counted either way. */
    public Campaign filingNotPromised() {
        this.fileNotPromised = true;
        return this;
    }

    private boolean fileNotPromised;

    /** Writes junit.xml whenever summary.json is written ({@code run --report junit}). */
    public Campaign writingJunit() {
        this.junit = true;
        return this;
    }

    /**
     * Continues the output folder of earlier runs ({@code run --continue}): summary.json's findings and
     * signatures, and index.md, list theirs before this run's, and the unique-finding counts cover both.
     */
    public Campaign continuing(EarlierRuns e) {
        this.earlier = e;
        this.continues = true;
        index.carry(e.indexed());
        return this;
    }

    /**
     * Runs only worker {@code p}'s share of the iterations ({@code run --worker i/N}): iteration k when k mod N is i.
     * {@code --tests} still bounds the iterations (k below it), so N workers together run the iterations one would.
     */
    public Campaign partitioned(Partition p) {
        this.partition = p;
        return this;
    }

    /**
     * Runs {@code n} workers side by side ({@code run --jobs}), each with its own executor and databases, taking
     * this process's iterations in turn; one finding store de-duplicates across them by signature.
     */
    public Campaign withJobs(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("the number of workers must be at least 1, not " + n);
        }
        this.jobs = n;
        return this;
    }

    /** Counts the unique findings with a signature in {@code k} apart from the new ones (run --known; summary.json's known). */
    public Campaign knowing(KnownSignatures k) {
        this.known = k;
        return this;
    }

    /** Replays each unique bug candidate on {@code check}'s newest release too (see {@link NewestCheck}). */
    public Campaign checkingNewest(NewestCheck check) {
        this.newestCheck = check;
        return this;
    }

    private static String duplicateOf(FindingIndex.Group g, String id) {
        return g.representative().equals(id) ? null : g.representative();
    }

    /**
     * Whether {@code f} is reduced even once the campaign's time is up: a bug candidate is what a maintainer gets, and
     * one not reduced is a 20-statement case where two statements show the bug (a triage found half a campaign's
     * candidates unreduced, each of which reduces in 6–50 s). So a bug candidate gets its whole per-finding budget,
     * whatever the time left, and the run ends after it; documented and other explained findings are reduced only
     * within the campaign's time, and so never take a candidate's budget.
     */
    private static boolean reducedWhateverTheTime(Finding f) {
        return f.primary().classification() == Classification.BUG_CANDIDATE;
    }

    /**
     * Reduces the finding's case within the per-finding budget (and, unless it is a bug candidate, within the campaign's
     * remaining time: {@link #reducedWhateverTheTime}); the finding unchanged if that fails.
     */
    private Reduced reduce(Finding f, Executor executor, Judge judge) {
        long left = deadline == Long.MAX_VALUE || reducedWhateverTheTime(f) ? Long.MAX_VALUE : Math.max(deadline - System.nanoTime(), 0);
        java.time.Duration budget = left < config.reduceTime().toNanos() ? java.time.Duration.ofNanos(left) : config.reduceTime();
        Reduction r;
        try {
            r = new Reducer(executor, judge.oracles(), new ReduceConfig(budget, () -> stopRequested)).reduce(f.testCase(), f.primary());
        } catch (RuntimeException e) {
            // the reducer's own failure must not cost the finding: keep the case as found
            progress.println("txfuzz: reducing " + f.id() + " failed, keeping the case as found: " + e);
            return new Reduced(f.withReduction(ReductionRecord.notRun(ReductionRecord.FAILED, f.reduction().statementsBefore())), null);
        }
        return new Reduced(reported(f, r, executor, judge), r);
    }

    /**
     * A finding's reduction, made before its turn to be filed: {@code run} (null when the reducer failed) goes into the
     * figures only when the finding is filed with it (a finding found a duplicate meanwhile is not).
     */
    private record Reduced(Finding finding, Reduction run) {
    }

    /** The finding as reduction {@code r} leaves it: reduced, run again for its report, or as found when that failed. */
    private Finding reported(Finding f, Reduction r, Executor executor, Judge judge) {
        if (stopRequested || !r.changed()) {
            // interrupted, out of time before anything smaller was confirmed, or nothing to remove:
            // the case as found stays the finding (case.json, no original.* files)
            Finding kept = f.withReduction(ReductionRecord.unchanged(stopRequested ? Reduction.End.INTERRUPTED : r.end(), r));
            if (!stopRequested && r.end() == Reduction.End.FIXED_POINT && LevelIndependence.holds(f.testCase(), f.primary(), target, executor, judge)) {
                // already minimal: a single transaction that fails the same way at every level is one bug
                return new Finding(kept.id(), kept.testCase(), kept.trace(), kept.violations(), kept.primary(), kept.signature().atAnyLevel(),
                        null, null, kept.reduction(), null, null, null, null);
            }
            return kept;
        }
        // a run of the reduced case for trace.txt and the README, which must show the original violation
        // (the same statement, the same direction) as the reducer's confirming runs did
        Trace trace = null;
        Violation shown = null;
        for (int i = 0; i < REPORT_RUN_TRIES && shown == null && !stopRequested; i++) {
            try {
                trace = executor.run(r.reduced());
                shown = judge.judge(r.reduced(), trace).stream()
                        .filter(v -> v.classification() == f.primary().classification() && f.primary().sameAs(v, r::originOf))
                        .findFirst().orElse(null);
            } catch (SQLException | SetupFailedException | RuntimeException e) {
                trace = null;
            }
        }
        if (stopRequested) {
            return f.withReduction(ReductionRecord.unchanged(Reduction.End.INTERRUPTED, r));
        }
        if (shown == null) {
            // never report a reduction whose run does not show what was found: the case as found stays the finding
            return f.withReduction(ReductionRecord.lost(r, "the reduced case did not show it again in " + REPORT_RUN_TRIES
                    + " runs made for its report"));
        }
        Signature signature = Signature.of(r.reduced(), shown);
        if (LevelIndependence.holds(r.reduced(), shown, target, executor, judge)) {
            signature = signature.atAnyLevel(); // one transaction that fails the same way at every level: one bug
        }
        return new Finding(f.id(), r.reduced(), trace, f.violations(), shown, signature, null, null,
                ReductionRecord.of(r), f.testCase(), f.trace(), null,
                rowTracking && TrackingStripper.tracked(r.reduced()) ? plainForm(r.reduced(), trace, executor) : null); // the reducer may have dropped the tracking
    }

    /** Runs of a reduced case made to find one that shows its violation, for its report. */
    private static final int REPORT_RUN_TRIES = 3;

    /**
     * The reduced case without row tracking, run in the same order and compared with the tracked run:
     * no generator seed describes a reduced case, so its plain form is derived from its text
     * ({@link TrackingStripper}). When the two behave the same the report can show the plain program
     * first; when not, the differences say why the tracked form is needed.
     */
    private PlainForm plainForm(TestCase reduced, Trace trace, Executor executor) {
        if (trace == null) {
            return PlainForm.notShown("the reduced case could not be run, so there is no run of it to compare a plain form with");
        }
        Stripped stripped = TrackingStripper.strip(reduced);
        if (stripped instanceof Stripped.CannotStrip no) {
            return PlainForm.notShown(no.text());
        }
        TestCase plain = ((Stripped.Plain) stripped).plain().withEngine(reduced.engine());
        Trace plainTrace;
        InstrumentationSelfCheck.Result r;
        try {
            InstrumentationSelfCheck.Checked checked = InstrumentationSelfCheck.run(reduced, trace, plain, executor);
            plainTrace = checked.plainTrace();
            r = checked.result();
        } catch (SQLException | SetupFailedException | RuntimeException e) {
            return PlainForm.notShown("its plain form could not be run: " + oneLine(String.valueOf(e.getMessage())));
        }
        if (!r.comparable()) {
            return PlainForm.notShown("its plain form does not line up with it statement for statement (" + String.join("; ", r.differences()) + ")");
        }
        return r.agrees() ? PlainForm.same(plain, plainTrace) : PlainForm.different(plain, plainTrace, r.text());
    }

    private List<FindingRecord> file(List<FindingRecord> records) {
        synchronized (books) {
            findings.put(records.get(0).id(), records);
            stats.uniqueFindings = index.unique();
            stats.uniqueBugCandidates = index.unique(Classification.BUG_CANDIDATE.label());
            uniqueBugCandidatesFiled = stats.uniqueBugCandidates;
            stats.duplicates = index.duplicates();
            writeSummary();
            return records;
        }
    }

    private static String oneLine(String s) {
        return s.replaceAll("\\s+", " ").strip();
    }

    /** The figures of the oracles that keep any, by name, summed over the workers. */
    private java.util.Map<String, java.util.Map<String, Long>> oracleFigures() {
        java.util.Map<String, java.util.Map<String, Long>> out = new java.util.LinkedHashMap<>();
        for (txfuzz.oracle.Oracle o : judging) {
            java.util.Map<String, Long> figures = o.figures();
            if (!figures.isEmpty()) {
                java.util.Map<String, Long> sum = out.computeIfAbsent(o.name(), k -> new java.util.LinkedHashMap<>());
                figures.forEach((k, v) -> sum.merge(k, v, Long::sum));
            }
        }
        return out;
    }

    private Summary writeSummary() {
        synchronized (books) {
            return summaryWritten();
        }
    }

    private Summary summaryWritten() {
        double s = Math.max(stats.seconds(), 1e-9);
        Summary summary = new Summary(meta, target.name(), target.version(), config.seed(),
                config.levels().stream().map(Enum::name).toList(), config.oracles(), stats.cases, stats.invalidCases,
                stats.transactions, stats.statements, round(stats.seconds()), round(stats.cases / s), round(stats.transactions / s),
                round(stats.share(stats.blockedStatements, stats.statements)),
                round(stats.share(stats.invalidStatements, stats.statements)), stats.stalls,
                stats.bugCandidates, stats.documented, stats.flaky,
                java.util.stream.Stream.concat(earlier.findings().stream(), findings.values().stream().flatMap(List::stream)).toList(),
                index.unique(), index.unique(Classification.BUG_CANDIDATE.label()), index.duplicates(),
                new Summary.Reduction(round(config.reduceTime().toMillis() / 1000.0), stats.reductions, stats.reductionsSkipped,
                        stats.reducedStatementsBefore, stats.reducedStatementsAfter,
                        stats.medianRatio() == null ? null : round(stats.medianRatio()), round(stats.reductionSeconds), stats.reductionRuns,
                        stats.reductionsExhausted),
                java.util.stream.Stream.concat(earlier.groups().stream(), groupsInFindingOrder().stream().map(g -> new Summary.Group(g.signature().id(),
                        g.signature().text(), g.signature().classification(), g.representative(), g.description(), g.duplicates().size(),
                        g.duplicates()))).toList(),
                plainTwins == null ? null : new Summary.SelfCheck(config.selfCheckEvery(), stats.selfChecks, stats.selfCheckDisagreements,
                        round(stats.share(stats.selfCheckDisagreements, stats.selfChecks)), stats.selfChecksNotComparable,
                        stats.instrumentationEffects, List.copyOf(stats.firstSelfCheckDisagreements)),
                oracleFigures(), generated.figures(config.generation().kind().word()), interruptedBy != null,
                interruptedBy == null || !interruptedBy.startsWith("SIG") ? null : interruptedBy, interruptedBy != null ? null : endedBy,
                known == null ? null : known.split(groupsInFindingOrder().stream().map(g -> new Summary.Group(g.signature().id(), g.signature().text(),
                        g.signature().classification(), g.representative(), g.description(), g.duplicates().size(), g.duplicates())).toList()),
                stats.notPromised);
        try {
            Files.createDirectories(config.out());
            Path tmp = config.out().resolve("summary.json.tmp");
            Files.writeString(tmp, JSON.writeValueAsString(summary) + "\n");
            Files.move(tmp, config.out().resolve("summary.json"), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + config.out().resolve("summary.json") + ": " + e.getMessage(), e);
        }
        index.write(config.out().resolve("findings"), target.version(), config.seed());
        if (junit) {
            JunitXml.write(summary, config.out().resolve("junit.xml"));
        }
        return summary;
    }

    /**
     * The unique findings in the order their representatives were found, as reducing each before the next made them: the
     * index makes a group when its representative is filed for good, which a bug candidate's lane may do before an
     * earlier documented finding's.
     */
    private List<FindingIndex.Group> groupsInFindingOrder() {
        Map<String, Integer> found = new java.util.HashMap<>();
        for (String id : findings.keySet()) {
            found.put(id, found.size());
        }
        List<FindingIndex.Group> groups = new ArrayList<>(index.groups());
        groups.sort(java.util.Comparator.comparingInt(g -> found.getOrDefault(g.representative(), Integer.MAX_VALUE)));
        return groups;
    }

    private static double round(double d) {
        return Math.round(d * 1000) / 1000.0;
    }
}
