package txfuzz.oracle.equiv;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Executor;
import txfuzz.exec.SetupFailedException;
import txfuzz.exec.Trace;
import txfuzz.model.ExecutionMode;
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Oracle;
import txfuzz.oracle.Run;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;
import txfuzz.oracle.ViolationKind;

/**
 * TxCheck's oracle (OSDI 2023; docs/equiv.md) on real engines: the run of an instrumented case with
 * version-set reads becomes a statement-dependency graph, decycling re-runs the case without the
 * statements that blocked or sit on cycles until the graph is acyclic, and up to
 * {@value #MAX_ORDERS} topological orders are replayed one statement at a time in autocommit on a
 * fresh database (with their tag-updates, without the tracking's reads, whose rows nothing compares).
 * A statement whose result differs, or a final state that differs, is a bug candidate. READ
 * UNCOMMITTED is not judged: it breaks the paper's Assumption 3 (a statement sees committed versions
 * only, plus its own transaction's).
 */
public final class EquivOracle implements Oracle {
    public static final String NAME = "equiv";
    /** Needs row tracking for its version-set reads; a recorded case with such reads needs it (only it adds them). */
    public static final txfuzz.oracle.OracleRegistration REGISTRATION = txfuzz.oracle.OracleRegistration
            .of(NAME, context -> new EquivOracle(), List.of(EquivKind.values()))
            .needingRowTracking()
            .judgingRecordedCases(c -> c.transactions().stream().flatMap(t -> t.statements().stream())
                    .anyMatch(s -> s.tracking() != null && s.tracking().role() == txfuzz.model.Tracking.Role.VERSION_SET_READ));
    static final int MAX_ROUNDS = 8;
    static final int MAX_ORDERS = 3;

    /** What {@link #examine} counts, as summary.json names it. */
    private enum Figure {
        /** runs examined */
        RUNS("runs"),
        /** decycled and replayed */
        COMPARED("compared"),
        /** READ UNCOMMITTED, a plain case, a read that skips locked rows, a hang, a transaction whose end is unknown */
        NOT_APPLICABLE("notApplicable"),
        /** decycling ran out of rounds */
        GAVE_UP("gaveUp"),
        ORDERS_REPLAYED("ordersReplayed"),
        /** by decycling */
        STATEMENTS_REMOVED("statementsRemoved");

        final String label;

        Figure(String label) {
            this.label = label;
        }
    }

    private final java.util.concurrent.atomic.AtomicLongArray counts = new java.util.concurrent.atomic.AtomicLongArray(Figure.values().length);

    private void count(Figure f, long n) {
        counts.addAndGet(f.ordinal(), n);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Map<String, Long> figures() {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Figure f : Figure.values()) {
            out.put(f.label, counts.get(f.ordinal()));
        }
        return out;
    }

    @Override
    public List<? extends ViolationKind> kinds() {
        return List.of(EquivKind.values());
    }

    @Override
    public boolean needsRowTracking() {
        return true;
    }

    /** The case with its version-set reads: what the campaign runs, so one run serves every oracle. */
    @Override
    public TestCase prepare(TestCase generated) {
        return tracked(generated) ? VersionSetReads.add(generated) : generated;
    }

    private static boolean tracked(TestCase c) {
        return c.transactions().stream().anyMatch(t -> t.statements().stream().anyMatch(s -> s.tracking() != null));
    }

    /** Its equivalent runs keep one level's promise about which reads may differ; with transactions at different levels no one level's promise holds, so it does not judge. */
    @Override
    public java.util.Optional<String> notApplicableTo(TestCase c) {
        return c.mixedLevels() ? java.util.Optional.of("its transactions run at different isolation levels; its equivalent runs keep one level's promise") : java.util.Optional.empty();
    }

    @Override
    public Verdict judge(Run run, Executor executor) throws SQLException, SetupFailedException {
        if (run.uncontrolled()) {
            return Verdict.notApplicable(NAME, "an uncontrolled run");
        }
        java.util.Optional<String> why = notApplicableTo(run.testCase());
        return why.isPresent() ? Verdict.notApplicable(NAME, why.get()) : judgement(run.testCase(), run.trace(), executor).verdict();
    }

    /**
     * The verdict on a controlled run and, when the own-write check found nothing, what
     * {@link #examine} did to reach it (tests count the runs really compared without judging twice).
     */
    record Judgement(Verdict verdict, Optional<Examined> examined) {
    }

    Judgement judgement(TestCase c, Trace trace, Executor executor) throws SQLException, SetupFailedException {
        Optional<Violation> stale = staleOwnVersion(c, trace);
        if (stale.isPresent()) {
            return new Judgement(new Verdict(NAME, List.of(stale.get())), Optional.empty());
        }
        Examination e = examination(c, trace, executor);
        if (e.wrongRead() != null) {
            return new Judgement(new Verdict(NAME, List.of(e.wrongRead())), Optional.empty());
        }
        Optional<Examined> examined = Optional.ofNullable(e.examined());
        if (examined.isEmpty()) {
            return new Judgement(Verdict.notApplicable(NAME, e.notApplicable()), examined);
        }
        for (EquivCheck.OrderCheck check : examined.get().outcome().checks()) {
            if (!check.differences().isEmpty()) {
                return new Judgement(new Verdict(NAME, List.of(violation(examined.get().judged(), examined.get().outcome(), check))), examined);
            }
        }
        return new Judgement(Verdict.clean(NAME), examined);
    }

    /**
     * A statement that read or replaced a row version an earlier statement of its own transaction had
     * already replaced: wrong at every level (a transaction sees its own writes), and no replay order
     * can show it, since the two statements depend on each other both ways (decycling would drop one).
     */
    static Optional<Violation> staleOwnVersion(TestCase c, Trace trace) {
        if (!tracked(c) || !trace.hung().isEmpty()) {
            return Optional.empty();
        }
        Optional<Execution> e = TraceCapture.capture(c, trace, UnaryOperator.identity());
        if (e.isEmpty()) {
            return Optional.empty();
        }
        for (StmtExec later : e.get().stmts()) {
            for (StmtExec earlier : e.get().stmts()) {
                if (earlier.ref().txn() != later.ref().txn() || earlier.completion() >= later.completion() || !earlier.isWrite()) {
                    continue;
                }
                Set<Item> used = new java.util.LinkedHashSet<>(later.reads());
                used.addAll(later.bwr());
                used.retainAll(earlier.bwr());
                if (!used.isEmpty()) {
                    return Optional.of(staleViolation(earlier, later, used));
                }
            }
        }
        return Optional.empty();
    }

    private static Violation staleViolation(StmtExec earlier, StmtExec later, Set<Item> used) {
        String verb = later.isRead() ? "read" : "replaced";
        String items = String.join(" ", used.stream().map(Item::toString).sorted().toList());
        String summary = EquivKind.OWN_WRITE_UNSEEN.label() + ": " + later.label() + " " + verb + " " + items + ", which "
                + earlier.label() + " of the same transaction had already replaced";
        String details = "- " + earlier.label() + " `" + earlier.sql() + "` replaced " + items + " (it installed "
                + String.join(" ", earlier.awr().stream().map(Item::toString).sorted().toList()) + ").\n"
                + "- " + later.label() + " `" + later.sql() + "`, which completed after it in the same transaction, " + verb + " " + items
                + " again.\n\nItems are (table(row identity, write list)): the write list names every write that produced the version, "
                + "so a version is replaced exactly once. A transaction sees its own writes at every isolation level.\n";
        return new Violation(EquivKind.OWN_WRITE_UNSEEN, Classification.BUG_CANDIDATE, summary, details, null, Map.of(),
                new Differed(List.of(later.sql())));
    }

    private static Violation misnamedRow(VersionSetReads.MisnamedRow m) {
        String named = m.named() == null ? "NULL" : "'" + m.named() + "'";
        String tables = String.join(", ", m.tables());
        String summary = EquivKind.TRACKING_READ.label() + ": " + StmtExec.label(m.read()) + "'s version-set read returned a row naming " + named
                + ", none of the tables it reads (" + tables + ")";
        String details = "- " + StmtExec.label(m.read()) + " `" + m.sql() + "` returned a row whose first value is " + named + ".\n"
                + "- Each operand of that UNION ALL selects its table's name as a literal, so every row names one of " + tables + ".\n\n"
                + "The run's version sets cannot be read from it, so the case was not compared with a replay.\n";
        return new Violation(EquivKind.TRACKING_READ, Classification.BUG_CANDIDATE, summary, details, null, Map.of(), new Differed(List.of(m.sql())));
    }

    /** The oracle's work on one case: the case it ran (with version-set reads) and what decycling and the replays gave. */
    public record Examined(TestCase judged, EquivCheck.Outcome outcome) {
    }

    /**
     * Decycles and replays a controlled run of {@code c}. Empty when the oracle does not apply: a plain
     * case, READ UNCOMMITTED, a read that skips locked rows, a hang, a transaction whose end is unknown, or decycling gave up.
     */
    public Optional<Examined> examine(TestCase c, Trace given, Executor executor) throws SQLException, SetupFailedException {
        return Optional.ofNullable(examination(c, given, executor).examined());
    }

    /**
     * What {@link #examine} did; or (examined null) why the oracle does not apply, the phrase the verdict gives; or the wrong
     * result of a version-set read, the verdict itself.
     */
    private record Examination(Examined examined, String notApplicable, Violation wrongRead) {
        Examination(Examined examined, String notApplicable) {
            this(examined, notApplicable, null);
        }

        static Examination not(String why) {
            return new Examination(null, why);
        }
    }

    /** Why the oracle does not judge {@code c}'s run {@code given} before trying, or null. */
    private static String premiseMissing(TestCase c, Trace given) {
        if (!tracked(c)) {
            return "the case has no row tracking";
        }
        if (c.isolation() == IsolationLevel.READ_UNCOMMITTED) {
            return "READ UNCOMMITTED (a statement may see uncommitted versions)";
        }
        if (SkipLockedReads.present(c)) {
            return "a read skips locked rows (SKIP LOCKED: its result depends on others' locks)";
        }
        if (!given.hung().isEmpty()) {
            return "a statement hung";
        }
        return null;
    }

    private Examination examination(TestCase c, Trace given, Executor executor) throws SQLException, SetupFailedException {
        count(Figure.RUNS, 1);
        String missing = premiseMissing(c, given);
        if (missing != null) {
            count(Figure.NOT_APPLICABLE, 1);
            return Examination.not(missing);
        }
        TestCase withVsrs = VersionSetReads.add(c); // the case as prepared, or made so (a reduced or hand-written case)
        Trace trace = withVsrs.equals(c) ? given : executor.run(withVsrs);
        Optional<VersionSetReads.MisnamedRow> misnamed = VersionSetReads.misnamedRow(withVsrs, trace);
        if (misnamed.isPresent()) {
            // a wrong result of the tracking's own read: a finding, never a run that merely "cannot be captured"
            return new Examination(null, null, misnamedRow(misnamed.get()));
        }
        boolean currentReads = executor.target().dialect().features().contains(txfuzz.dbms.Feature.CURRENT_READS);
        Optional<Execution> first = trace.hung().isEmpty() ? TraceCapture.capture(withVsrs, trace, UnaryOperator.identity(), currentReads)
                : Optional.empty();
        if (first.isEmpty()) {
            count(Figure.NOT_APPLICABLE, 1);
            return Examination.not(trace.hung().isEmpty() ? "the run cannot be captured (a transaction's end unknown, or a statement without row tracking)" : "a statement hung");
        }
        StatementGroups groups = StatementGroups.of(withVsrs);
        EquivCheck.Outcome outcome;
        try {
            outcome = EquivCheck.check(first.get(), removed -> reexecute(executor, withVsrs, groups, removed),
                    order -> replay(executor, withVsrs, groups, order), c.seed() * 31 + c.iteration(), MAX_ROUNDS, MAX_ORDERS);
        } catch (EngineStep e) {
            if (e.getCause() instanceof SetupFailedException s) {
                throw s;
            }
            throw (SQLException) e.getCause();
        }
        count(Figure.STATEMENTS_REMOVED, outcome.decycling().removed().size());
        if (outcome.gaveUp()) {
            count(Figure.GAVE_UP, 1);
            return Examination.not("decycling gave up after " + MAX_ROUNDS + " rounds");
        }
        count(Figure.COMPARED, 1);
        count(Figure.ORDERS_REPLAYED, outcome.checks().size());
        return new Examination(new Examined(withVsrs, outcome), null);
    }

    private static Violation violation(TestCase c, EquivCheck.Outcome outcome, EquivCheck.OrderCheck check) {
        Difference first = check.differences().get(0);
        boolean state = check.differences().stream().allMatch(d -> d.aspect() == Difference.Aspect.STATE);
        EquivKind kind = state ? EquivKind.FINAL_STATE : EquivKind.STATEMENT_RESULT;
        Difference shown = state ? first : check.differences().stream().filter(d -> d.aspect() != Difference.Aspect.STATE).findFirst().orElse(first);
        String summary = kind.label() + ": " + shown.describe();
        StatementDependencyGraph g = outcome.decycling().graph();
        StringBuilder details = new StringBuilder();
        Decycler.Result d = outcome.decycling();
        if (!d.removed().isEmpty()) {
            details.append("Decycling removed ").append(labels(d.removed())).append(" (")
                    .append(d.steps().stream().map(s -> s.reason().name().toLowerCase(java.util.Locale.ROOT)).distinct().toList())
                    .append(") and re-ran the case ").append(d.reexecutions()).append(d.reexecutions() == 1 ? " time" : " times")
                    .append("; the statements below are those of the last run.\n\n");
        }
        details.append("```\n").append(Explanation.of(g, check)).append("```\n\n");
        details.append("Statement-dependency graph:\n\n```mermaid\n").append(g.mermaid()).append("```\n");
        Map<String, String> attachments = new LinkedHashMap<>();
        attachments.put("sdg.dot", g.dot());
        attachments.put("sdg.mmd", g.mermaid());
        attachments.put("equiv-order.sql", orderScript(c, check.order()));
        return new Violation(kind, Classification.BUG_CANDIDATE, summary, details.toString(), null, attachments, new Differed(differing(c, shown)));
    }

    /** The differing statement; for a final state, the case's writes to the table that differs. */
    private static List<String> differing(TestCase c, Difference d) {
        if (d.stmt() != null) {
            return List.of(c.stmt(d.stmt()).sql());
        }
        String table = d.table() == null ? "" : d.table().toLowerCase(java.util.Locale.ROOT);
        return c.transactions().stream().flatMap(t -> t.statements().stream())
                .filter(s -> s.kind().isWrite() && (s.tracking() == null || !s.tracking().role().companion()))
                .map(Stmt::sql).filter(sql -> txfuzz.oracle.TableWrites.target(sql).map(table::equals).orElse(false)).toList();
    }

    private static String labels(Set<StmtRef> refs) {
        return String.join(", ", refs.stream().sorted().map(StmtExec::label).toList());
    }

    /** The replayed order as a script: each statement (with its companions) alone, in autocommit. */
    private static String orderScript(TestCase c, List<StmtRef> order) {
        StringBuilder sb = new StringBuilder("-- the non-transactional replay that disagreed: every statement in autocommit, in this order\n");
        StatementGroups groups = StatementGroups.of(c);
        for (StmtRef r : order) {
            sb.append("-- ").append(StmtExec.label(r)).append('\n');
            for (StmtRef m : replayed(c, groups.group(r), r)) {
                sb.append(c.stmt(m).sql()).append(";\n");
            }
        }
        return sb.toString();
    }

    /**
     * The members of {@code main}'s group a replay runs: all but the tracking's reads (post-reads, companion reads),
     * whose results the comparison never looks at (only the program statement's outcome and the final state count)
     * and which change no row; each would be a session and a round trip of its own.
     */
    private static List<StmtRef> replayed(TestCase c, txfuzz.model.TrackedGroups.Group group, StmtRef main) {
        return group.members().stream().filter(m -> m.equals(main) || !txfuzz.oracle.TrackingReads.isTrackingRead(c.stmt(m))).toList();
    }

    /** A checked failure of the engine inside a callback of the engine-free core. */
    private static final class EngineStep extends RuntimeException {
        EngineStep(Exception cause) {
            super(cause);
        }
    }

    /** The case run again without the groups of {@code removed}; statements keep their identities in {@code c}. */
    private static Execution reexecute(Executor executor, TestCase c, StatementGroups groups, Set<StmtRef> removed) {
        Set<StmtRef> gone = new HashSet<>();
        removed.forEach(r -> gone.addAll(groups.group(r).all()));
        List<Txn> txns = new ArrayList<>();
        Map<StmtRef, StmtRef> origin = new HashMap<>();
        for (Txn t : c.transactions()) {
            List<Stmt> kept = new ArrayList<>();
            for (int k = 0; k < t.statements().size(); k++) {
                if (!gone.contains(new StmtRef(t.id(), k))) {
                    origin.put(new StmtRef(t.id(), kept.size()), new StmtRef(t.id(), k));
                    kept.add(t.statements().get(k));
                }
            }
            txns.add(t.with(t.id(), kept));
        }
        List<Integer> order = c.submittedOrder().stream().filter(r -> !gone.contains(r)).map(StmtRef::txn).toList();
        TestCase refined = c.withTransactions(txns, order);
        try {
            Trace trace = executor.run(refined);
            boolean currentReads = executor.target().dialect().features().contains(txfuzz.dbms.Feature.CURRENT_READS);
            return TraceCapture.capture(refined, trace, origin::get, currentReads)
                    .orElseThrow(() -> new EngineStep(new SQLException("the refined case's run could not be read back")));
        } catch (SQLException | SetupFailedException e) {
            throw new EngineStep(e);
        }
    }

    /** The statements of {@code order}, each group alone in autocommit, on a fresh database; outcomes by original identity. */
    private static RunResult replay(Executor executor, TestCase c, StatementGroups groups, List<StmtExec> order) {
        List<Txn> txns = new ArrayList<>();
        Map<Integer, StmtRef> mains = new HashMap<>();
        for (StmtExec s : order) {
            for (StmtRef m : replayed(c, groups.group(s.ref()), s.ref())) {
                int id = txns.size() + 1;
                Stmt stmt = c.stmt(m);
                txns.add(c.txn(m.txn()).with(id, List.of(new Stmt(stmt.kind(), stmt.sql(), false, stmt.tracking()))));
                if (m.equals(s.ref())) {
                    mains.put(id, s.ref());
                }
            }
        }
        List<Integer> sequence = new ArrayList<>();
        for (int i = 1; i <= txns.size(); i++) {
            sequence.add(i);
        }
        TestCase alone = new TestCase(TestCase.FORMAT_VERSION, c.dbms(), c.seed(), c.iteration(), c.isolation(), c.mode(), ExecutionMode.PLAIN,
                c.tables(), c.setup(), txns, sequence);
        try {
            Trace trace = executor.run(alone);
            Map<StmtRef, StmtOutcome> outcomes = new LinkedHashMap<>();
            for (ExecutedStmt e : trace.schedule()) {
                StmtRef original = mains.get(e.ref().txn());
                if (original != null) {
                    outcomes.put(original, TraceCapture.outcome(c.stmt(original).tracking(), e.result()));
                }
            }
            return new RunResult(outcomes, trace.finalState());
        } catch (SQLException | SetupFailedException e) {
            throw new EngineStep(e);
        }
    }
}
