package txfuzz.oracle.diff;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Function;
import txfuzz.dbms.Target;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.SetupFailedException;
import txfuzz.exec.Trace;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Oracle;
import txfuzz.oracle.Run;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;
import txfuzz.oracle.ViolationKind;

/**
 * DT2's differential oracle (ASE 2022): the primary run of a case is compared with runs of the same case, in
 * the same submitted order, on each other subject at the level that keeps the same promise. Setup must be
 * equal, neither side may need the executor to break a stall, and each side runs twice: only a divergence
 * both runs show counts ({@link TraceComparison}, {@link Comparison#confirmedBy}). A confirmed divergence is
 * triaged with each side's own oracles ({@link Triage}); bug candidates, behaviour changes and compatibility
 * issues are reported, what cannot be compared is counted ({@link #figures()}, {@link #studies()}).
 *
 * <p>It owns one executor per other subject and closes them; the targets belong to the caller.
 */
public final class DiffOracle implements Oracle, AutoCloseable {
    public static final String NAME = "diff";

    /** The registry's entry: made from a campaign's subjects, the first the primary, each other one compared with it. */
    public static final txfuzz.oracle.OracleRegistration REGISTRATION =
            txfuzz.oracle.OracleRegistration.of(NAME, DiffOracle::of, List.of(DivergenceKind.values())).comparingSubjects()
                    .keepingStudy(StudyReport::of);

    /** The oracle over {@code context}'s subjects: each other one at the level keeping the primary level's promise. */
    static DiffOracle of(txfuzz.oracle.OracleContext context) {
        txfuzz.oracle.OracleContext.Opened primary = context.subjects().get(0);
        List<OtherSubject> others = new ArrayList<>();
        Map<String, txfuzz.dbms.Target> targets = new LinkedHashMap<>();
        Map<String, VersionBoundary> boundaries = new LinkedHashMap<>();
        for (txfuzz.oracle.OracleContext.Opened o : context.subjects().subList(1, context.subjects().size())) {
            targets.put(o.subject().label(), o.target());
            VersionBoundary.between(primary.subject(), o.subject(), context.executor()).ifPresent(b -> boundaries.put(o.subject().label(), b));
            others.add(new OtherSubject(o.subject().label(), o.target(), level -> context.levelOf(o, level, primary.mode()), o.subject().mode(),
                    o.subject().execution()));
        }
        // each side's own oracles are made once, on the first divergence that asks for them, not per divergence
        Map<String, List<Oracle>> own = new java.util.concurrent.ConcurrentHashMap<>();
        return new DiffOracle(primary.subject().label(), others, label -> own.computeIfAbsent(label,
                l -> context.ownOracles().apply(targets.containsKey(l) ? targets.get(l) : primary.target())), context.executor(), boundaries);
    }

    private enum Figure {
        COMPARED("compared"), AGREEING("agreeing"), DIVERGED("diverged"), NOT_COMPARABLE("notComparable"), FLAKY("flaky"),
        UNPAIRED_LEVEL("unpairedLevel");

        final String label;

        Figure(String label) {
            this.label = label;
        }
    }

    private final String primaryLabel;
    private final List<OtherSubject> others;
    private final Map<String, Executor> executors = new LinkedHashMap<>();
    private final Function<String, List<Oracle>> ownOracles;
    private final Map<String, Study.Builder> studies = new LinkedHashMap<>();
    /** The cases (seed/iteration) each pair's study counted already. */
    private final Map<String, java.util.Set<String>> studied = new java.util.HashMap<>();
    private final AtomicLongArray counts = new AtomicLongArray(Figure.values().length);
    /** Per other subject that is another release of the primary's engine (same settings): where a behaviour changed between them. */
    private final Map<String, VersionBoundary> boundaries;

    /**
     * @param primaryLabel the subject the judged runs come from, as the user named it
     * @param others       the subjects to compare with
     * @param ownOracles   a subject's own oracles (by label), run on its first run when a divergence is confirmed
     */
    public DiffOracle(String primaryLabel, List<OtherSubject> others, Function<String, List<Oracle>> ownOracles, ExecutorConfig config) {
        this(primaryLabel, others, ownOracles, config, Map.of());
    }

    /** @param boundaries per other subject's label, the search for a behaviour change's version boundary (none for subjects not in it) */
    private DiffOracle(String primaryLabel, List<OtherSubject> others, Function<String, List<Oracle>> ownOracles, ExecutorConfig config,
                       Map<String, VersionBoundary> boundaries) {
        this.boundaries = Map.copyOf(boundaries);
        this.primaryLabel = primaryLabel;
        this.others = List.copyOf(others);
        this.ownOracles = ownOracles;
        for (OtherSubject o : this.others) {
            executors.put(o.label(), new Executor(o.target(), config));
            studies.put(o.label(), new Study.Builder(primaryLabel + " vs " + o.label()));
        }
    }

    public DiffOracle(String primaryLabel, List<OtherSubject> others, Function<String, List<Oracle>> ownOracles) {
        this(primaryLabel, others, ownOracles, ExecutorConfig.defaults());
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<? extends ViolationKind> kinds() {
        return List.of(DivergenceKind.values());
    }

    @Override
    public Map<String, Long> figures() {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Figure f : Figure.values()) {
            out.put(f.label, counts.get(f.ordinal()));
        }
        return out;
    }

    /** What the comparisons so far give, per pair: the figures of compatibility.md ({@link StudyReport}). */
    public synchronized List<Study> studies() {
        return studies.values().stream().map(Study.Builder::build).toList();
    }

    private void count(Figure f) {
        counts.incrementAndGet(f.ordinal());
    }

    /** Its sides are compared at the case's one level (and the other engine's counterpart of it); a case whose transactions run at different levels has no one level. */
    @Override
    public java.util.Optional<String> notApplicableTo(TestCase c) {
        return c.mixedLevels() ? java.util.Optional.of("its transactions run at different isolation levels; the two engines are compared at one level") : java.util.Optional.empty();
    }

    @Override
    public Verdict judge(Run run, Executor primary) throws SQLException, SetupFailedException {
        if (run.uncontrolled() || notApplicableTo(run.testCase()).isPresent()) {
            return Verdict.clean(NAME);
        }
        List<Violation> out = new ArrayList<>();
        for (OtherSubject other : others) {
            judgeAgainst(run.testCase(), run.trace(), primary, other).ifPresent(out::add);
        }
        return new Verdict(NAME, out);
    }

    /** The run of {@code c} on the primary compared with {@code other}: a violation when they diverge and it is worth reporting. */
    private Optional<Violation> judgeAgainst(TestCase c, Trace primaryTrace, Executor primary, OtherSubject other)
            throws SQLException, SetupFailedException {
        Optional<TestCase> paired = other.caseFor(c);
        if (paired.isEmpty()) {
            count(Figure.UNPAIRED_LEVEL);
            return Optional.empty();
        }
        TestCase oc = paired.get();
        Executor ex = executors.get(other.label());
        // the study counts a case once: confirming and reducing it judge it again (the same seed and iteration)
        Study.Builder study = firstLook(other.label(), c) ? studies.get(other.label()) : new Study.Builder(other.label());
        count(Figure.COMPARED);
        SideRun p1 = new SideRun(setupState(primary, c), primaryTrace);
        SideRun o1;
        try {
            o1 = new SideRun(setupState(ex, oc), ex.run(oc));
        } catch (SetupFailedException e) {
            return notComparable(study, "setup failed on " + other.label() + ": " + e.getMessage());
        }
        Rules rules = Rules.of(c, primary.target().name().equals(other.target().name()));
        Comparison first = TraceComparison.compare(c, p1, o1, rules);
        if (first.status() == Comparison.Status.AGREE) {
            count(Figure.AGREEING);
            synchronized (this) {
                study.agreed();
            }
            return Optional.empty();
        }
        if (first.status() == Comparison.Status.NOT_COMPARABLE) {
            return notComparable(study, first.reason());
        }
        SideRun p2 = new SideRun(p1.setup(), primary.run(c));
        SideRun o2 = new SideRun(o1.setup(), ex.run(oc));
        Comparison confirmed = first.confirmedBy(TraceComparison.compare(c, p2, o2, rules));
        if (confirmed.status() != Comparison.Status.DIVERGE) {
            if (confirmed.flaky()) {
                count(Figure.FLAKY);
            }
            return notComparable(study, confirmed.reason());
        }
        Divergence d = confirmed.divergence();
        Side left = side(primaryLabel, primary.target(), c, p1.trace(), primary);
        Side right = side(other.label(), other.target(), oc, o1.trace(), ex);
        PromisedRules promised = new PromisedRules(promised(primary, c), promised(ex, oc));
        Triaged t = Triage.triage(c, d, left, p1, right, o1, serialComparison(c, oc, p1, primary, ex, rules), promised);
        String sideBySide = SideBySide.render(c, d, left, p1.trace(), right, o1.trace());
        String boundaryText = "";
        VersionBoundary versions = boundaries.get(other.label());
        if (versions != null && (t.label() == Label.BEHAVIOUR_CHANGE || t.label() == Label.BUG_CANDIDATE && t.change() != null)) {
            boolean primaryOlder = versions.olderIs(primaryLabel);
            VersionBoundary.Found found = versions.find(scenario(c, d, t), c, primaryOlder ? p1 : o1, primaryOlder ? o1 : p1, rules);
            t = withBoundary(t, found);
            boundaryText = "\n" + String.join("\n", found.sentences().stream().map(x -> "- " + x).toList()) + "\n";
        }
        Consequence consequence = Consequence.of(c, p1.trace(), o1.trace());
        Violation reported = t.label() == Label.NOT_COMPARABLE ? null : violation(c, d, t, consequence, left, right, sideBySide);
        synchronized (this) {
            study.diverged(d, t, consequence, c.statementCount(), sideBySide + boundaryText, c, reported);
        }
        if (reported == null) {
            count(Figure.NOT_COMPARABLE);
            return Optional.empty();
        }
        count(Figure.DIVERGED);
        return Optional.of(reported);
    }

    /** What the boundary of a divergence is searched once for: its signature but the pair (the search is per pair already). */
    private static String scenario(TestCase c, Divergence d, Triaged t) {
        return c.isolation() + "/" + d.kind() + "/" + (d.at() == null ? "state" : c.stmt(d.at()).kind()) + "/" + t.cause() + "/" + t.label();
    }

    /**
     * {@code t} with the version boundary's sentences as evidence; a behaviour change's change is the boundary once
     * decided, a bug candidate keeps its "fixed in …" (the boundary sentences say between which releases).
     */
    private static Triaged withBoundary(Triaged t, VersionBoundary.Found found) {
        List<String> evidence = new ArrayList<>(t.evidence());
        evidence.addAll(found.sentences());
        String change = t.label() == Label.BEHAVIOUR_CHANGE && found.decided() ? found.change() : t.change();
        return new Triaged(t.label(), t.culprits(), t.cause(), change, evidence, t.references());
    }

    /** Whether {@code c} (its seed and iteration) is compared with {@code other} for the first time. */
    private synchronized boolean firstLook(String other, TestCase c) {
        return studied.computeIfAbsent(other, k -> new java.util.HashSet<>()).add(c.seed() + "/" + c.iteration());
    }

    private Optional<Violation> notComparable(Study.Builder study, String reason) {
        count(Figure.NOT_COMPARABLE);
        synchronized (this) {
            study.notComparable(reason);
        }
        return Optional.empty();
    }

    /**
     * Both subjects run the case's transactions one after another, in the order the primary ended them (the rest
     * after): whether the divergence needs concurrency at all.
     */
    private static Comparison serialComparison(TestCase c, TestCase oc, SideRun primaryRun, Executor primary, Executor other, Rules rules)
            throws SQLException {
        TestCase serial = serialised(c, primaryRun.trace().endOrder());
        TestCase otherSerial = serialised(oc, primaryRun.trace().endOrder());
        try {
            return TraceComparison.compare(serial, new SideRun(primaryRun.setup(), primary.run(serial)),
                    new SideRun(primaryRun.setup(), other.run(otherSerial)), rules);
        } catch (SetupFailedException e) {
            return Comparison.notComparable("setup failed: " + e.getMessage());
        }
    }

    /** What {@code sideCase}'s level promises on the executor's target, and its serial replays run there. */
    private static PromisedRules.Promised promised(Executor ex, TestCase sideCase) {
        PromisedRules.Replay replay = (txns, order) -> ex.run(sideCase.withTransactions(txns, order));
        try {
            txfuzz.dbms.LevelPromise p = ex.target().promise(sideCase.isolation(), sideCase.mode());
            boolean readsInCommitOrder = ex.target().profile(sideCase.mode()).at(sideCase.isolation()).serializableReads();
            return new PromisedRules.Promised(p.promise(), readsInCommitOrder, p.manual(), replay);
        } catch (IllegalArgumentException e) {
            return new PromisedRules.Promised(null, false, "(no profile entry for " + sideCase.isolation() + ")", replay); // nothing promised
        }
    }

    /** {@code c} with every transaction's statements submitted together, transactions in {@code endOrder} first. */
    static TestCase serialised(TestCase c, List<Integer> endOrder) {
        List<Integer> ids = new ArrayList<>(endOrder);
        c.transactions().forEach(t -> {
            if (!ids.contains(t.id())) {
                ids.add(t.id());
            }
        });
        List<Integer> order = new ArrayList<>();
        for (int id : ids) {
            for (int i = 0; i < c.txn(id).statements().size(); i++) {
                order.add(id);
            }
        }
        return c.withTransactions(c.transactions(), order);
    }

    /** The database as the case's setup leaves it: the case with no transactions, run on a fresh database. */
    static txfuzz.model.DbState setupState(Executor ex, TestCase c) throws SQLException, SetupFailedException {
        return ex.run(c.withTransactions(List.of(), List.of())).finalState();
    }

    private Side side(String label, Target target, TestCase c, Trace trace, Executor ex) throws SQLException, SetupFailedException {
        List<Verdict> own = new ArrayList<>();
        for (Oracle o : ownOracles.apply(label)) {
            own.add(o.judge(c, trace, ex));
        }
        String reference;
        try {
            reference = target.profile(c.mode()).at(c.isolation()).reference();
        } catch (IllegalArgumentException e) {
            reference = "(" + target.name() + "'s profile has no entry for " + c.isolation() + ")";
        }
        // a server setting can change what the level keeps (innodb_snapshot_isolation): then its manual says so too
        txfuzz.dbms.LevelPromise kept = target.promise(c.isolation(), c.mode());
        if (!target.settings().isEmpty() && !kept.equals(target.engine().promise(c.isolation(), c.mode()))) {
            reference += "; with " + settingsText(target) + ", " + kept.promise().name().replace('_', ' ').toLowerCase(java.util.Locale.ROOT)
                    + ": " + kept.manual();
        }
        String settings = "mode " + c.mode() + ", " + c.execution() + (target.settings().isEmpty() ? "" : ", " + settingsText(target));
        return new Side(label, target.name(), target.version(), settings, c.isolation(), reference, own);
    }

    private static String settingsText(Target target) {
        return String.join(", ", new java.util.TreeMap<>(target.settings()).entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList());
    }

    private static Violation violation(TestCase c, Divergence d, Triaged t, Consequence consequence, Side left, Side right, String sideBySide) {
        String pair = left.label() + " vs " + right.label();
        String sql = d.at() == null ? null : c.stmt(d.at()).sql();
        DiffSignature sig = new DiffSignature(pair, c.isolation(), d.kind(), d.at() == null ? null : c.stmt(d.at()).kind(), t.cause(), t.label());
        Classification cl = t.label() == Label.BUG_CANDIDATE ? Classification.BUG_CANDIDATE : Classification.DOCUMENTED;
        String summary = d.kind().label() + " " + pair + (d.at() == null ? "" : " at " + d.at()) + ": " + t.label().label()
                + (t.culprits().isEmpty() ? "" : " of " + String.join(", ", t.culprits()))
                + (t.change() == null ? "" : "; behaviour change: " + t.change()) + " (" + t.cause().label() + ")";
        String details = sideBySide + "\n" + String.join("\n", t.evidence().stream().map(s -> "- " + s).toList()) + "\n";
        String reference = cl == Classification.DOCUMENTED
                ? String.join("; ", t.references().entrySet().stream().map(e -> e.getKey() + ": " + e.getValue()).toList())
                : null;
        return new Violation(d.kind(), cl, summary, details, reference, Map.of(), new DiffEvidence(d, t, sig, sql, consequence));
    }

    @Override
    public void close() {
        executors.values().forEach(Executor::close);
    }
}
