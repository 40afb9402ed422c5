package txfuzz.oracle.isolation;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import txfuzz.dbms.LevelSemantics;
import txfuzz.dbms.Profile;
import txfuzz.exec.Executor;
import txfuzz.history.Analysis;
import txfuzz.history.Anomaly;
import txfuzz.history.AnomalyFinding;
import txfuzz.history.Documented;
import txfuzz.history.FracturedReads;
import txfuzz.history.History;
import txfuzz.history.HistoryJson;
import txfuzz.history.IsolationChecker;
import txfuzz.history.IsolationModel;
import txfuzz.exec.Trace;
import txfuzz.gen.pattern.AnomalyPattern;
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Tracking;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Evidence;
import txfuzz.oracle.HistoryRecorder;
import txfuzz.oracle.Oracle;
import txfuzz.oracle.Run;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;
import txfuzz.oracle.pattern.PatternMatch;

/**
 * IsoRel's oracle (ISSTA 2025): the run of an instrumented case becomes a row-level history
 * (rowId/wList), whose dependency graph must have no cycle the isolation level proscribes.
 * A proscribed anomaly the engine documents at that level (its profile) is documented
 * behaviour; any other is a bug candidate. Anomalies the level itself permits are not reported.
 *
 * <p>It judges uncontrolled runs too (IsoRel's concurrent sessions: the history records each
 * transaction's session), and linearises an anomaly found there into a replayable witness case
 * ({@link WitnessCase}).
 */
public final class IsolationOracle implements Oracle {
    public static final String NAME = "isolation";
    /**
     * Reads the rows' versions from row tracking (so a recorded case with tracking needs it), judges
     * concurrent runs, sees the anomaly a pattern case aims at (pattern campaigns run it by default), and
     * judges recorded histories on their own (txfuzz check, isolation-table).
     */
    public static final txfuzz.oracle.OracleRegistration REGISTRATION = txfuzz.oracle.OracleRegistration
            .of(NAME, context -> new IsolationOracle(), IsolationKind.ALL)
            .needingRowTracking().judgingUncontrolledRuns()
            .judgingRecordedCases(c -> c.transactions().stream().flatMap(t -> t.statements().stream()).anyMatch(s -> s.tracking() != null))
            .byDefaultFor(txfuzz.gen.Generation.Kind.PATTERN, txfuzz.gen.Generation.Kind.MIXED)
            .judgingHistories(new AnomalyJudge());

    @Override
    public String name() {
        return NAME;
    }

    /** Its verdict is the trace's: the history its row tracking recorded. */
    @Override
    public boolean verdictFollowsFromTrace() {
        return true;
    }

    @Override
    public List<IsolationKind> kinds() {
        return IsolationKind.ALL;
    }

    /**
     * The anomaly behind a violation: its first witness (transactions, cycle, explanation) and how
     * many witnesses of its kind the history had.
     */
    public record Witnessed(AnomalyFinding finding, int witnesses, List<String> patterns) implements Evidence {
        /**
         * @param patterns the catalogue patterns whose witness cycle has this cycle's structure, by name
         *                 ({@link PatternMatch}); empty when none does
         */
        public Witnessed {
            patterns = List.copyOf(patterns);
        }

        public Witnessed(AnomalyFinding finding, int witnesses) {
            this(finding, witnesses, PatternMatch.bundled().matches(finding).stream().map(AnomalyPattern::name).toList());
        }

        /**
         * What the transactions did, naming them, in the anomaly's own words where those name no transaction: "write skew
         * between T1 and T2: two transactions each read what the other then wrote", "read skew between T2 and T3".
         */
        @Override
        public Optional<String> headline() {
            String what = finding.anomaly().description();
            int aside = what.indexOf(" (");
            String plain = aside > 0 ? what.substring(0, aside) : what; // the literature's codes stay in the rule and details
            List<String> names = finding.transactions().stream().map(t -> "T" + t).toList();
            String among = names.isEmpty() ? "" : names.size() == 1 ? " in " + names.get(0)
                    : " between " + String.join(", ", names.subList(0, names.size() - 1)) + " and " + names.get(names.size() - 1);
            if (finding.anomaly() == Anomaly.INTERNAL) {
                // what the transaction read, from the finding ("T1.3 read both the old and the new version of row t.2"): the
                // kind's words, "did not see its own write", are false of a statement that saw both versions
                String prefix = finding.anomaly().label() + ": ";
                String said = finding.summary().startsWith(prefix) ? finding.summary().substring(prefix.length()) : finding.summary();
                return Optional.of(finding.anomaly().label() + among + ": " + said);
            }
            // a description that names a generic "T1" could contradict the transactions named here: then the label says it
            return Optional.of(finding.anomaly().label() + among + (plain.contains("T1") ? "" : ": " + plain));
        }

        /** The cycle's transactions. */
        @Override
        public List<Integer> transactions() {
            return finding.transactions().stream().map(Long::intValue).distinct().toList();
        }

        /** The cycle's shape signs the finding: one bug shows the same cycle whatever random SQL led to it. */
        @Override
        public Optional<String> shape() {
            return Optional.of(finding.shape());
        }
    }

    @Override
    public Verdict judge(Run run, Executor executor) {
        TestCase c = run.testCase();
        if (!instrumented(c)) {
            return Verdict.notApplicable(NAME, "the case has no row tracking"); // nothing to observe: no rowId/wList columns
        }
        History h = HistoryRecorder.record(run);
        LevelSemantics s = executor.target().profile(c.mode()).atOrNothing(c.isolation());
        Analysis analysis = IsolationChecker.analyze(h);
        if (!run.uncontrolled()) {
            analysis = analysis.with(FracturedReads.find(h, (txn, stmt) -> ranAlone(c, run.trace(), txn, stmt)));
        }
        Map<Integer, String> modes = sessionModes(c, run.trace(), executor.target());
        if (c.mixedLevels() || modes.values().stream().anyMatch(m -> !m.equals(c.mode()))) {
            return new Verdict(NAME, mixedLevelViolations(analysis, h, c, executor.target()::profile, modes));
        }
        return new Verdict(NAME, proscribedOnly(analysis, h, c.isolation(), s.documented(), s.anomalyReference()));
    }

    /**
     * {@link #observe}'s violations that the level proscribes, the others never built: a violation carries the history as
     * JSON, the cycle's drawings and its pattern matches, work a campaign's case does for each permitted anomaly it
     * sees (write skew at snapshot isolation) only to drop it.
     */
    private static List<Violation> proscribedOnly(Analysis analysis, History h, IsolationLevel level, Documented documented, String reference) {
        List<Violation> out = new ArrayList<>();
        for (AnomalyFinding f : firstPerKind(analysis, level, documented)) {
            if (f.proscribed()) {
                out.add(violation(f, analysis.count(f.anomaly()), h, reference, documented));
            }
        }
        return out;
    }

    /**
     * A case whose transactions run at different levels (Adya's mixed-level histories, conservatively): a finding is a
     * violation only when the weakest level of the transactions on it proscribes it, judged with that level's profile
     * entry. A finding whose transactions' levels have no weakest (REPEATABLE READ beside SNAPSHOT, which neither implies)
     * is not judged. One violation per kind, its first proscribed witness.
     */
    static List<Violation> mixedLevelViolations(Analysis analysis, History h, TestCase c, Profile profile) {
        Map<Integer, String> modes = new LinkedHashMap<>();
        c.transactions().forEach(t -> modes.put(t.id(), c.mode()));
        return mixedLevelViolations(analysis, h, c, m -> profile, modes);
    }

    /**
     * As above, with each session's mode ({@code modes}, by transaction: {@link txfuzz.dbms.Target#sessionMode}, its own
     * settings can change it): a finding is documented when the profile of any mode on its cycle documents it at the
     * weakest level — the session whose setting did not forbid it may be the one that made it (conservative as the levels).
     */
    static List<Violation> mixedLevelViolations(Analysis analysis, History h, TestCase c, java.util.function.Function<String, Profile> profiles,
                                                Map<Integer, String> modes) {
        Map<Anomaly, Violation> firstPerKind = new LinkedHashMap<>();
        for (AnomalyFinding f : analysis.findings()) {
            Optional<IsolationLevel> weakest = weakestLevel(c, f.transactions());
            Violation kept = firstPerKind.get(f.anomaly());
            if (weakest.isEmpty() || (kept != null && kept.classification() == Classification.BUG_CANDIDATE)) {
                continue;
            }
            Set<String> onCycle = new java.util.TreeSet<>();
            for (long t : f.transactions()) {
                if (t >= 1 && t <= c.transactions().size()) {
                    onCycle.add(modes.getOrDefault((int) t, c.mode()));
                }
            }
            if (onCycle.isEmpty()) {
                onCycle.add(c.mode());
            }
            Violation chosen = null;
            for (String mode : onCycle) {
                LevelSemantics at = profiles.apply(mode).atOrNothing(weakest.get());
                AnomalyFinding judged = f.judged(weakest.get(), at.documented());
                if (!judged.proscribed()) {
                    break;
                }
                Violation v = violation(judged, analysis.count(f.anomaly()), h, at.anomalyReference(), at.documented());
                if (chosen == null || v.classification() != Classification.BUG_CANDIDATE) {
                    chosen = v;
                }
            }
            // a later witness of a kind replaces a documented one only as a bug candidate (kinds documented in some shapes only)
            if (chosen != null && (kept == null || chosen.classification() == Classification.BUG_CANDIDATE)) {
                firstPerKind.put(f.anomaly(), chosen);
            }
        }
        return List.copyOf(firstPerKind.values());
    }

    /** Each transaction's session mode: the case's, changed by the settings of its own the engine took (not those it refused). */
    static Map<Integer, String> sessionModes(TestCase c, Trace trace, txfuzz.dbms.Target target) {
        Map<Integer, String> out = new LinkedHashMap<>();
        for (txfuzz.model.Txn t : c.transactions()) {
            List<String> taken = t.settings().stream().filter(s -> trace.refusedSettings().stream()
                    .noneMatch(r -> r.txn() == t.id() && r.setting().equals(s))).toList();
            out.put(t.id(), taken.isEmpty() ? c.mode() : target.sessionMode(c.mode(), taken));
        }
        return out;
    }

    /** The level every transaction of {@code txns} runs at or above (those of the case; others, e.g. the final read, are not its). */
    static Optional<IsolationLevel> weakestLevel(TestCase c, List<Long> txns) {
        Set<IsolationLevel> levels = new java.util.HashSet<>();
        for (long t : txns) {
            if (t >= 1 && t <= c.transactions().size()) {
                levels.add(c.txn((int) t).levelIn(c));
            }
        }
        if (levels.isEmpty()) {
            levels.add(c.isolation());
        }
        return levels.stream().filter(l -> levels.stream().allMatch(o -> atMost(l, o))).findFirst();
    }

    /** Whether {@code weaker} proscribes no more than {@code stronger}: RU ⊑ RC ⊑ RR, SI ⊑ SER; RR and SI are incomparable. */
    static boolean atMost(IsolationLevel weaker, IsolationLevel stronger) {
        if (weaker == stronger) {
            return true;
        }
        boolean incomparable = (weaker == IsolationLevel.REPEATABLE_READ && stronger == IsolationLevel.SNAPSHOT)
                || (weaker == IsolationLevel.SNAPSHOT && stronger == IsolationLevel.REPEATABLE_READ);
        return !incomparable && weaker.ordinal() < stronger.ordinal();
    }

    /**
     * A tracked SELECT that did not wait and during which no other statement completed: in a
     * controlled run nothing else ran while it did (commits are only ever submitted between statements).
     */
    static boolean ranAlone(TestCase c, Trace trace, long txn, int stmt) {
        if (txn < 1 || txn > c.transactions().size() || stmt >= c.txn((int) txn).statements().size()) {
            return false; // the final state's reader, or a statement a reducer removed
        }
        StmtRef ref = new StmtRef((int) txn, stmt);
        Stmt s = c.stmt(ref);
        if (s.tracking() == null || s.tracking().role() != Tracking.Role.READ) {
            return false; // write scans and subqueries of writes read another way than the write (locking vs. snapshot)
        }
        return trace.executed(ref).map(e -> !e.blocked() && trace.position(ref) == e.completedBefore()).orElse(false);
    }

    /** Every read must reveal which version it saw. */
    @Override
    public boolean needsRowTracking() {
        return true;
    }

    @Override
    public boolean judgesUncontrolledRuns() {
        return true;
    }

    /** The anomaly's transactions (its cycle), submitted in the order their statements completed in the run. */
    @Override
    public Optional<TestCase> witness(Run uncontrolled, Violation v) {
        if (!(v.evidence() instanceof Witnessed w)) {
            return Optional.empty();
        }
        TestCase c = uncontrolled.testCase();
        Set<Integer> cycle = new TreeSet<>();
        for (long t : w.finding().transactions()) {
            if (t >= 1 && t <= c.transactions().size()) {
                cycle.add((int) t);
            }
        }
        return Optional.of(WitnessCase.of(c, uncontrolled.trace(), cycle));
    }

    /** The witness run's history is not the uncontrolled run's: {@code witness.history.jsonl}. */
    @Override
    public Violation asWitnessed(Violation v) {
        Map<String, String> files = new LinkedHashMap<>();
        v.attachments().forEach((name, content) -> files.put(name.equals(HISTORY) ? "witness." + HISTORY : name, content));
        return v.withDetails(v.details(), files);
    }

    private static final String HISTORY = "history.jsonl";

    /** Generated in gen's instrumented mode: some statement says how its result reveals row versions. */
    static boolean instrumented(TestCase c) {
        return c.transactions().stream().flatMap(t -> t.statements().stream()).anyMatch(s -> s.tracking() != null);
    }

    /** One violation per anomaly kind the level proscribes (its first witness), judged against the profile. */
    public static List<Violation> violations(History h, IsolationLevel level, LevelSemantics semantics) {
        return violations(h, level, semantics.documented(), semantics.anomalyReference());
    }

    /**
     * One violation per anomaly kind the level proscribes (its first witness): documented when the
     * engine documents it at the level ({@code documented}, see {@code reference}), else a bug candidate.
     */
    public static List<Violation> violations(History h, IsolationLevel level, Set<Anomaly> documented, String reference) {
        return violations(h, level, Documented.anyShape(documented), reference);
    }

    /** As above, each documented kind in the shape of cycle the engine documents. */
    public static List<Violation> violations(History h, IsolationLevel level, Documented documented, String reference) {
        return observe(h, level, documented, reference).stream().filter(IsolationOracle::proscribed).toList();
    }

    /**
     * Every anomaly kind the history shows (its first witness), also those the level permits:
     * those are classified documented, the level's definition being the reference (see {@link #proscribed}).
     */
    public static List<Violation> observe(History h, IsolationLevel level, Set<Anomaly> documented, String reference) {
        return observe(h, level, Documented.anyShape(documented), reference);
    }

    /** As above, each documented kind in the shape of cycle the engine documents. */
    public static List<Violation> observe(History h, IsolationLevel level, Documented documented, String reference) {
        return observe(IsolationChecker.analyze(h), h, level, documented, reference);
    }

    /**
     * One finding per kind: its first witness, or the first one that is a bug candidate when an earlier witness of the kind
     * is documented (a kind documented only in some shapes may show a documented witness beside one of another shape).
     */
    private static List<Violation> observe(Analysis analysis, History h, IsolationLevel level, Documented documented, String reference) {
        List<Violation> out = new ArrayList<>();
        for (AnomalyFinding f : firstPerKind(analysis, level, documented)) {
            Violation v = violation(f, analysis.count(f.anomaly()), h, reference, documented);
            out.add(f.proscribed() ? v : v.withClassification(Classification.NOT_PROMISED, IsolationModel.reference(f.level()) + " does not proscribe it"));
        }
        return out;
    }

    /** Per anomaly kind its first witness, or its first bug candidate when an earlier witness is documented. */
    private static java.util.Collection<AnomalyFinding> firstPerKind(Analysis analysis, IsolationLevel level, Documented documented) {
        Map<Anomaly, AnomalyFinding> firstPerKind = new LinkedHashMap<>();
        for (AnomalyFinding f : analysis.judge(level, documented)) {
            AnomalyFinding kept = firstPerKind.get(f.anomaly());
            if (kept == null || (!kept.bugCandidate() && f.bugCandidate())) {
                firstPerKind.put(f.anomaly(), f);
            }
        }
        return firstPerKind.values();
    }

    /**
     * A violation for every proscribed witness of an analysed history, not just the first per kind
     * ({@code txfuzz check} files each). The history is the file {@code historyFile} names, so it is
     * referred to, not attached again.
     */
    public static List<Violation> everyWitness(Analysis analysis, History h, IsolationLevel level, Set<Anomaly> documented, String reference,
                                               String historyFile) {
        return everyWitness(analysis, h, level, Documented.anyShape(documented), reference, historyFile);
    }

    /** As above, each documented kind in the shape of cycle the engine documents. */
    public static List<Violation> everyWitness(Analysis analysis, History h, IsolationLevel level, Documented documented, String reference,
                                               String historyFile) {
        List<Violation> out = new ArrayList<>();
        for (AnomalyFinding f : analysis.judge(level, documented)) {
            if (f.proscribed()) {
                out.add(violation(f, analysis.count(f.anomaly()), h, reference, historyFile, documented));
            }
        }
        return out;
    }

    /** Whether the level proscribes the violation's anomaly (false for a violation of another oracle). */
    public static boolean proscribed(Violation v) {
        return v.evidence() instanceof Witnessed w && w.finding().proscribed();
    }

    /** "lost update" → "lost-update": the kind's one spelling. */
    public static String kind(Anomaly a) {
        return IsolationKind.of(a).label();
    }

    /**
     * A finding judged at its level as a violation: documented when the profile permits it, a bug
     * candidate otherwise; the history and the cycle's drawings come along as files.
     */
    static Violation violation(AnomalyFinding f, int count, History h, String reference, Documented catalogue) {
        return violation(f, count, h, reference, null, catalogue);
    }

    /**
     * @param historyFile where the history already is; null: attach it as {@code history.jsonl}
     * @param catalogue   what the profile says of the level's anomalies: a finding its measured entry covers is not
     *                    promised, one its manual's entry covers documented
     */
    private static Violation violation(AnomalyFinding f, int count, History h, String reference, String historyFile, Documented catalogue) {
        boolean documented = f.permittedByProfile();
        Classification covered = documented && catalogue.coveredByMeasurement(f.anomaly(), f.cycle()) ? Classification.NOT_PROMISED
                : Classification.DOCUMENTED;
        IsolationKind kind = IsolationKind.of(f.anomaly());
        String label = kind.label();
        StringBuilder details = new StringBuilder();
        details.append("The dependency graph of the run's row-level history (IsoRel: rowId/wList instrumentation) has a cycle that ")
                .append(f.level().sql()).append(f.proscribed() ? " proscribes (" : " permits (").append(IsolationModel.reference(f.level()))
                .append(").");
        if (count > 1) {
            details.append(" Witnesses of this kind: ").append(count).append("; the shortest found is shown.");
        }
        details.append("\n\n").append(f.markdown(false)).append('\n');
        List<AnomalyPattern> matched = PatternMatch.bundled().matches(f);
        String pattern = PatternMatch.describe(matched);
        if (!pattern.isEmpty()) {
            details.append("The cycle has the structure of ").append(pattern).append(" (docs/patterns.md).\n\n");
        }
        String history = historyFile == null ? HISTORY : historyFile;
        details.append("The row-level history is in `").append(history).append("` (check it offline with `txfuzz check ").append(history)
                .append(" --level ").append(f.level().name()).append("`); the cycle is drawn in `").append(label).append(".dot`.\n");
        Map<String, String> files = new LinkedHashMap<>();
        if (historyFile == null) {
            files.put(HISTORY, HistoryJson.write(h));
        }
        files.put(label + ".mmd", f.mermaid());
        files.put(label + ".dot", f.dot());
        if (!f.plainCycle().isEmpty()) {
            files.put(label + ".txt", f.plainCycle() + "\n"); // the drawing for trackers that render no diagrams
        }
        return new Violation(kind, documented ? covered : Classification.BUG_CANDIDATE,
                f.anomaly().label() + " at " + f.level().sql() + ": " + f.summary() + (pattern.isEmpty() ? "" : "; matches " + pattern), details.toString(),
                documented ? reference : null, files, new Witnessed(f, count, matched.stream().map(AnomalyPattern::name).toList()));
    }
}
