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

    /** The oracles judging this campaign's runs (their figures go into summary.json), made once and closed when the campaign ends. */
    private final OracleSet oracles;
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
    /** The limit that ended the loop (Summary.endedBy); null while it runs and when it was interrupted. */
    private String endedBy;
    /** The long step under way between cases, in the progress line's words ("reducing h2-RC-s1-i156"); null when none. */
    private volatile String step;
    /** When the next progress line is due (System.nanoTime); guarded by {@link #progressLock}. */
    private long nextProgress = Long.MAX_VALUE;
    private final Object progressLock = new Object();
    /** events.jsonl while the loop runs. */
    private EventLog events;

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
        FindingWriter writer = new FindingWriter(config.out());
        try (ProgressBeat beat = new ProgressBeat(config.progressEvery(), this::beat);
             Executor executor = new Executor(target, config.executor());
             ConcurrentRunner concurrent = config.concurrent() ? new ConcurrentRunner(target, config.executor()) : null) {
            Judge judge = new Judge(oracles.oracles(), executor);
            for (long i = 0; ; i++) {
                if (stopRequested) {
                    break;
                }
                if (config.tests() != null && i >= config.tests()) {
                    endedBy = "tests";
                    break;
                }
                if (System.nanoTime() >= deadline) {
                    endedBy = "time";
                    break;
                }
                if (maxBugCandidates > 0 && index.unique(Classification.BUG_CANDIDATE.label()) - bugCandidatesBefore >= maxBugCandidates) {
                    endedBy = Summary.MAX_BUGS;
                    break;
                }
                int n = config.levels().size();
                IsolationLevel level = config.levels().get((int) (i % n));
                String mode = modes.get((int) ((i / n) % modes.size()));
                TestCase c = source.make(level, mode, i);
                Outcome outcome;
                if (config.execution() == CampaignConfig.Execution.PREPARED || (config.execution() == CampaignConfig.Execution.MIXED && i % 2 == 1)) {
                    c = c.withExecution(ExecutionMode.PREPARED);
                }
                if (concurrent != null) {
                    outcome = runConcurrently(c, concurrent, executor, judge, writer);
                } else {
                    long iteration = i;
                    TestCase instrumented = c;
                    outcome = runOne(c, executor, judge, writer,
                            plainTwins == null ? null : () -> plainTwins.make(level, mode, iteration).withExecution(instrumented.execution()),
                            config.selfCheckEvery() > 0 && i % config.selfCheckEvery() == 0);
                }
                if (outcome != null) { // null: interrupted under the case, which then says nothing
                    events.append(new CampaignEvent.Case(EventLog.now(), c.iteration(), c.isolation().name(), c.mode(), outcome.outcome(),
                            outcome.finding()));
                }
                if (progressLine(false)) {
                    writeSummary();
                }
            }
        }
        if (config.progressEvery() != null) {
            progressLine(true);
        }
        return writeSummary();
    }

    /**
     * Runs and judges one case. {@code plainTwin} (instrumented cases only) gives the same case without
     * row tracking: it runs when the case has a violation, and on {@code sampled} cases, to measure the
     * instrumentation's effect (see {@link InstrumentationSelfCheck}).
     */
    private Outcome runOne(TestCase c, Executor executor, Judge judge, FindingWriter writer,
                        java.util.function.Supplier<TestCase> plainTwin, boolean sampled) {
        Trace trace;
        try {
            trace = executor.run(c);
        } catch (SetupFailedException e) {
            stats.invalidCases++;
            return Outcome.INVALID;
        } catch (SQLException | RuntimeException e) {
            if (stopRequested) {
                return null; // the run is being interrupted: the target is going away under this case
            }
            // The engine failed outside any one statement (it could not open or read back): that is
            // a finding too, and the campaign goes on with a fresh database.
            stats.cases++;
            return Outcome.finding(record(c, null, List.of(Oracles.engineFailure("while running the case", e)), writer, executor, judge));
        }
        stats.add(c, trace);
        List<Violation> violations = new ArrayList<>();
        try {
            violations.addAll(judge.judge(c, trace));
            if (!violations.isEmpty()) {
                beginStep("confirming iteration " + c.iteration(), null, null, false);
                try {
                    violations = new ArrayList<>(judge.confirm(c, violations));
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
            violations = selfChecked(c, trace, violations, plainTwin, executor);
        }
        tally(c, trace, violations);
        if (violations.isEmpty()) {
            return Outcome.CLEAN;
        }
        return stopRequested ? null : Outcome.finding(record(c, trace, violations, writer, executor, judge));
    }

    /** The generators' figures: whether the case showed an anomaly, and whether a pattern case realised its pattern. */
    private void tally(TestCase c, Trace trace, List<Violation> violations) {
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
     * Runs the plain twin and compares. When the twins disagree, every bug candidate of the case is an
     * instrumentation effect; either way a violation carries the twin (a case the maintainer can run
     * without txfuzz's extra columns) and what the comparison found.
     */
    private List<Violation> selfChecked(TestCase c, Trace trace, List<Violation> violations, java.util.function.Supplier<TestCase> plainTwin,
                                        Executor executor) {
        TestCase plain;
        Trace plainTrace;
        InstrumentationSelfCheck.Result r;
        try {
            plain = plainTwin.get();
            InstrumentationSelfCheck.Checked checked = InstrumentationSelfCheck.run(c, trace, plain, executor);
            plainTrace = checked.plainTrace();
            r = checked.result();
        } catch (SetupFailedException | SQLException | RuntimeException e) {
            stats.selfChecksNotComparable++;
            return violations; // the twin could not run: the verdicts stand as the instrumented run gives them
        }
        if (!r.comparable()) {
            stats.selfChecksNotComparable++;
            return violations;
        }
        stats.selfChecks++;
        if (!r.agrees()) {
            stats.selfCheckDisagreements++;
            if (stats.firstSelfCheckDisagreements.size() < 5) {
                stats.firstSelfCheckDisagreements.add("iteration " + c.iteration() + " at " + c.isolation() + ": "
                        + String.join("; ", r.differences()));
            }
        }
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
            } else {
                files.put("self-check.txt", r.text());
                Violation shown = v.withDetails(v.details(), files);
                out.add(v.classification() == Classification.BUG_CANDIDATE
                        ? shown.withClassification(Classification.INSTRUMENTATION_EFFECT, null) : shown);
            }
        }
        return out;
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
    private Outcome runConcurrently(TestCase c, ConcurrentRunner runner, Executor executor, Judge judge, FindingWriter writer) {
        ConcurrentRun concurrentRun;
        try {
            concurrentRun = runner.run(c, config.sessions());
        } catch (SetupFailedException e) {
            stats.invalidCases++;
            return Outcome.INVALID;
        } catch (SQLException | RuntimeException e) {
            if (stopRequested) {
                return null;
            }
            stats.cases++;
            return Outcome.finding(record(c, null, List.of(Oracles.engineFailure("while running the case", e)), writer, executor, judge));
        }
        Run run = Run.concurrent(c, concurrentRun);
        stats.add(c, run.trace());
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
                    return Outcome.finding(record(witness, wt, withEvidence, writer, executor, judge));
                }
            } catch (SQLException | SetupFailedException | RuntimeException e) {
                // the linearisation could not run: report the concurrent evidence as it is
            }
        }
        List<Violation> shown = new ArrayList<>();
        for (Violation v : violations) {
            shown.add(uncontrolledEvidence(v, c, run, true));
        }
        return Outcome.finding(record(c, null, shown, writer, executor, judge));
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
     * Writes the finding at once, then reduces and de-duplicates it (see docs/findings.md):
     * <ol>
     *   <li>if the case as found already has a known unique finding's signature key (the same
     *       cause: the same bug as far as txfuzz can tell) it is filed as that one's duplicate
     *       without reduction;</li>
     *   <li>else, if its primary violation can be reduced (confirmed, not flaky, reported by an
     *       oracle, reduction on, time left), the reducer shrinks it; the reduced case becomes
     *       case.json, the case as found stays as original.case.json; its reduced signature makes
     *       it a new unique finding or a duplicate of the one with that key;</li>
     *   <li>else it is filed by its own signature.</li>
     * </ol>
     */
    private String record(TestCase asRun, Trace trace, List<Violation> violations, FindingWriter writer, Executor executor, Judge judge) {
        TestCase c = asRun.withEngine(meta.engine().forCase(target.name())); // case.json says which build it was found on
        for (Violation v : violations) {
            switch (v.classification()) {
                case BUG_CANDIDATE -> stats.bugCandidates++;
                case DOCUMENTED -> stats.documented++;
                case FLAKY -> stats.flaky++;
                case INSTRUMENTATION_EFFECT -> stats.instrumentationEffects++;
            }
        }
        String id = FindingWriter.id(c);
        int before = Reducer.dataStatements(c);
        Finding found = Finding.unreduced(id, c, trace, violations, ReductionRecord.notRun(ReductionRecord.PENDING, before));
        Violation primary = found.primary();
        boolean reducible = primary.classification() != Classification.FLAKY && primary.classification() != Classification.INSTRUMENTATION_EFFECT
                && trace != null && primary.kind().reducible();
        Optional<FindingIndex.Group> known = index.covering(found.signature());
        String status = !reducible ? ReductionRecord.NOT_APPLICABLE
                : !config.reduces() ? ReductionRecord.OFF
                : known.isPresent() ? ReductionRecord.SKIPPED_DUPLICATE
                : stopRequested || System.nanoTime() >= deadline ? ReductionRecord.TIME_UP
                : ReductionRecord.PENDING;
        if (!ReductionRecord.PENDING.equals(status)) {
            ReductionRecord r = ReductionRecord.notRun(status, before);
            if (ReductionRecord.SKIPPED_DUPLICATE.equals(status)) {
                stats.reductionsSkipped++;
            }
            FindingIndex.Group g;
            if (known.isPresent()) {
                g = known.get();
                index.addDuplicate(g, id);
            } else {
                g = index.add(id, found.signature(), oneLine(primary.summary()), false);
            }
            Finding filed = found.withReduction(r).withDuplicateOf(duplicateOf(g, id), g.signature());
            filed(file(writer.write(filed, target)), violations.size());
            checkNewest(filed, judge, writer);
            return id;
        }
        file(writer.write(found, target)); // findings are never lost: written before the reduction starts
        beginStep("reducing " + id, "reducing", id, true);
        Finding reduced;
        try {
            reduced = reduce(found, executor, judge);
        } finally {
            endStep();
        }
        FindingIndex.Group g = index.add(id, reduced.signature(), oneLine(reduced.primary().summary()),
                reduced.reduced() || ReductionRecord.MINIMAL.equals(reduced.reduction().status())); // a minimal case is its own reduction
        Finding filed = reduced.withDuplicateOf(duplicateOf(g, id), g.signature());
        filed(file(writer.write(filed, target)), violations.size());
        checkNewest(filed, judge, writer);
        return id;
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
    private void checkNewest(Finding f, Judge judge, FindingWriter writer) {
        if (newestCheck == null || stopRequested || f.duplicateOf() != null || f.primary().classification() != Classification.BUG_CANDIDATE) {
            return;
        }
        beginStep("checking " + f.id() + " on the newest release, " + newestCheck.newest(), "checking-newest", f.id(), true);
        VersionReplay r;
        try {
            r = newestCheck.replay(f.testCase(), config.oracles());
        } finally {
            endStep();
        }
        file(writer.write(f.withOnNewest(new OnNewestRelease(newestCheck.newest(), r.verdict().words, r.verdict() == VersionReplay.Verdict.SHOWS,
                r.verdict() == VersionReplay.Verdict.CLEAN, r.detail())), target));
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
            String doing = step;
            progress.println(stats.progressLine() + (doing == null ? "" : "; " + doing + " …"));
            nextProgress = config.progressEvery() == null ? Long.MAX_VALUE : System.nanoTime() + config.progressEvery().toNanos();
            return true;
        }
    }

    /** The progress beat: between cases the loop prints the line; during a long step this does. */
    private void beat() {
        if (step != null) {
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
        step = words;
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
        step = null;
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

    /** Replays each unique bug candidate on {@code check}'s newest release too (see {@link NewestCheck}). */
    public Campaign checkingNewest(NewestCheck check) {
        this.newestCheck = check;
        return this;
    }

    private static String duplicateOf(FindingIndex.Group g, String id) {
        return g.representative().equals(id) ? null : g.representative();
    }

    /** Reduces the finding's case within the budget (and the campaign's remaining time); the finding unchanged if that fails. */
    private Finding reduce(Finding f, Executor executor, Judge judge) {
        long left = deadline == Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(deadline - System.nanoTime(), 0);
        java.time.Duration budget = left < config.reduceTime().toNanos() ? java.time.Duration.ofNanos(left) : config.reduceTime();
        Reduction r;
        try {
            r = new Reducer(executor, judge.oracles(), new ReduceConfig(budget, () -> stopRequested)).reduce(f.testCase(), f.primary());
        } catch (RuntimeException e) {
            // the reducer's own failure must not cost the finding: keep the case as found
            progress.println("txfuzz: reducing " + f.id() + " failed, keeping the case as found: " + e);
            return f.withReduction(ReductionRecord.notRun(ReductionRecord.FAILED, f.reduction().statementsBefore()));
        }
        stats.addReduction(r);
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
        findings.put(records.get(0).id(), records);
        stats.uniqueFindings = index.unique();
        stats.uniqueBugCandidates = index.unique(Classification.BUG_CANDIDATE.label());
        stats.duplicates = index.duplicates();
        writeSummary();
        return records;
    }

    private static String oneLine(String s) {
        return s.replaceAll("\\s+", " ").strip();
    }

    /** The figures of the oracles that keep any, by name. */
    private java.util.Map<String, java.util.Map<String, Long>> oracleFigures() {
        java.util.Map<String, java.util.Map<String, Long>> out = new java.util.LinkedHashMap<>();
        for (txfuzz.oracle.Oracle o : oracles.oracles()) {
            if (!o.figures().isEmpty()) {
                out.put(o.name(), o.figures());
            }
        }
        return out;
    }

    private Summary writeSummary() {
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
                java.util.stream.Stream.concat(earlier.groups().stream(), index.groups().stream().map(g -> new Summary.Group(g.signature().id(),
                        g.signature().text(), g.signature().classification(), g.representative(), g.description(), g.duplicates().size(),
                        g.duplicates()))).toList(),
                plainTwins == null ? null : new Summary.SelfCheck(config.selfCheckEvery(), stats.selfChecks, stats.selfCheckDisagreements,
                        round(stats.share(stats.selfCheckDisagreements, stats.selfChecks)), stats.selfChecksNotComparable,
                        stats.instrumentationEffects, List.copyOf(stats.firstSelfCheckDisagreements)),
                oracleFigures(), generated.figures(config.generation().kind().word()), interruptedBy != null,
                interruptedBy == null || !interruptedBy.startsWith("SIG") ? null : interruptedBy, interruptedBy != null ? null : endedBy);
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

    private static double round(double d) {
        return Math.round(d * 1000) / 1000.0;
    }
}
