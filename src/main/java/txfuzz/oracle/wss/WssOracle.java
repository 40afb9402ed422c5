package txfuzz.oracle.wss;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Executor;
import txfuzz.exec.SetupFailedException;
import txfuzz.exec.StmtResult;
import txfuzz.exec.Trace;
import txfuzz.model.DbState;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.TableWrites;
import txfuzz.oracle.Run;
import txfuzz.oracle.Oracle;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.LevelPromise;
import txfuzz.dbms.LevelSemantics;

/**
 * Write-specific serializability (WriteCheck, PVLDB 2025): the actual run must leave the same
 * database state, and its writes the same outcomes, as the serial replay of its committed
 * transactions in First-Commit/Rollback-First-Scheduled order — transaction by transaction
 * (tx-WSS) and statement by statement (stmt-WSS). At levels whose reads must be serializable in
 * commit order, read results are compared too.
 */
public final class WssOracle implements Oracle {
    public static final String NAME = "wss";
    /** WriteCheck's oracle judges every case, and is what random campaigns run by default. */
    public static final txfuzz.oracle.OracleRegistration REGISTRATION = txfuzz.oracle.OracleRegistration
            .of(NAME, context -> new WssOracle(), List.of(WssKind.values()))
            .judgingRecordedCases(c -> true).byDefaultFor(txfuzz.gen.Generation.Kind.RANDOM);

    @Override
    public String name() {
        return NAME;
    }

    /** Its verdict is the trace's, with serial replays and simulations of it. */
    @Override
    public boolean verdictFollowsFromTrace() {
        return true;
    }

    @Override
    public List<WssKind> kinds() {
        return List.of(WssKind.values());
    }

    /** Its rule is one level's: a serial order that explains the run, with the deviations that level's profile entry documents; which deviations a transaction beside one at another level may show, no profile entry says, so it does not guess. */
    @Override
    public java.util.Optional<String> notApplicableTo(TestCase c) {
        return c.mixedLevels() ? java.util.Optional.of("its transactions run at different isolation levels; its rule judges a run against one level's documented deviations") : java.util.Optional.empty();
    }

    @Override
    public Verdict judge(Run run, Executor executor) throws SQLException, SetupFailedException {
        TestCase c = run.testCase();
        Trace trace = run.trace();
        if (notApplicableTo(c).isPresent()) {
            return Verdict.clean(NAME);
        }
        if (!trace.hung().isEmpty() || trace.stalls() > 0) {
            // The explicit oracle reports hangs; after txfuzz cancelled a statement to break a stall,
            // the engine may still be undoing it, so the final state is no evidence either way.
            return Verdict.notApplicable(name(), "a statement hung or stalled (the final state is no evidence)");
        }
        LevelSemantics semantics = executor.target().profile(c.mode()).at(c.isolation());
        try (DeviationExplainer explainer = new DeviationExplainer(c, trace, executor)) {
            // A rule the level documents and the run broke is a bug candidate whatever the final state, and
            // a deviation resting on it explains nothing; a rule only measured, where the break may have lost an update.
            boolean measured = semantics.requires(Deviation.Precondition.MEASURED_FIRST_COMMITTER_WINS);
            boolean documented = semantics.requires(Deviation.Precondition.FIRST_COMMITTER_WINS);
            // A measured rule's break counts only where no writer-last serial order gives the run, and the commit order is
            // one for every break (the later committer ends last): where it gives the run, no simulation can find a break that counts.
            Optional<DeviationExplainer.RuleBreak> broken = documented || (measured && !givesTheRun(c, trace, executor, SerialSchedule.fcrfsCommitted(trace)))
                    ? explainer.firstCommitterWinsBroken() : Optional.empty();
            if (broken.isPresent() && measured) {
                // a rule only measured says no more than what was seen: a break whose run is the writer-first serial order's lost
                // nothing, and the engine promised nothing more
                broken = lostUpdate(c, trace, executor, broken.get());
            }
            List<Violation> ruleBreaks = new ArrayList<>(broken.map(b -> List.of(new Violation(WssKind.FIRST_COMMITTER_WINS, Classification.BUG_CANDIDATE,
                    b.summary(), b.details(), null, Map.of(), new WssEvidence(WssKind.FIRST_COMMITTER_WINS, b.write(), null,
                            b.writes().stream().map(w -> c.stmt(w).sql()).toList(), null)))).orElse(List.of()));
            // an error that aborted a transaction is judged on replays of its own (issue 33 item 3): whatever the committed ones show
            ruleBreaks.addAll(AbortingErrors.unexplained(c, trace, executor, SerialSchedule.possibleOrders(trace, MAX_ORDERS)));
            List<Violation> found = null;
            List<List<Integer>> tried = new ArrayList<>();
            List<Integer> stateOrder = null; // a commit order whose transaction-level replay gives the final state
            List<Violation> againstStateOrder = null; // what is left against it: the final state is no violation then
            List<DbState> serialStates = new ArrayList<>(); // the transaction-level replays' final states, in the order tried
            for (List<Integer> order : SerialSchedule.possibleOrders(trace, MAX_ORDERS)) {
                List<Violation> v = compare(c, trace, executor, order, semantics.serializableReads(), serialStates);
                if (v.stream().anyMatch(x -> x.kind() == WssKind.REPLAY_HANG)) {
                    return new Verdict(name(), v);
                }
                if (v.isEmpty()) {
                    // an order the engine may have committed in explains everything but a broken rule
                    return ruleBreaks.isEmpty() ? Verdict.clean(name()) : new Verdict(name(), ruleBreaks);
                }
                tried.add(order);
                if (stateOrder == null && v.stream().noneMatch(x -> x.kind() == WssKind.TX_WSS)) {
                    stateOrder = order;
                    againstStateOrder = v;
                }
                if (found == null) {
                    found = v; // report against the recorded order, unless an order the engine may have committed in gives the state
                }
            }
            if (againstStateOrder != null) {
                // The engine may have committed in an order whose replay gives the final state: a tx-wss against the
                // recorded order would claim writes were lost that the run cannot show were (issue 21 item 3).
                found = againstStateOrder;
            }
            // the search of the other orders runs only if a report asks (StateOrderSearch): it changes the headline, not the verdict
            found = checkedAgainst(found, StateOrderSearch.run(c, trace, executor, tried, stateOrder,
                    SerialOrders.promise(executor.target().name(), c.isolation(), semantics)));
            if (!found.isEmpty() && !semantics.deviations().isEmpty()) {
                LevelPromise claimed = executor.target().promise(c.isolation(), c.mode());
                ConstraintCheck constraints = () -> serialStates.isEmpty() ? Optional.empty()
                        : DeclaredConstraints.brokenBy(c, executor.target(), trace.finalState(), serialStates.get(0));
                ErrorCheck errors = errorVerdict(c, trace, executor);
                List<Violation> asRecorded = classify(found, semantics, claimed, explainer, broken.isPresent(), constraints, errors);
                found = broken.isPresent() || !anyBugCandidate(asRecorded) ? asRecorded
                        : inAnotherRecording(c, trace, executor, found, semantics, claimed, constraints, errors).orElse(asRecorded);
            }
            List<Violation> all = new ArrayList<>(ruleBreaks);
            all.addAll(found);
            return new Verdict(name(), all);
        }
    }

    private static boolean anyBugCandidate(List<Violation> vs) {
        return vs.stream().anyMatch(v -> v.classification() == Classification.BUG_CANDIDATE);
    }

    /**
     * The violations explained in a recording of the run that differs from the one made only in the order of statements
     * found finished together ({@link Trace#possibleRecordings}): their clients' order says nothing of the engine's (two
     * statements one COMMIT released reach their clients in either order), so a deviation that explains the run in another
     * of those orders explains it. Empty when no other recording leaves every violation explained.
     */
    private static Optional<List<Violation>> inAnotherRecording(TestCase c, Trace trace, Executor executor, List<Violation> found,
                                                              LevelSemantics semantics, LevelPromise claimed, ConstraintCheck constraints,
                                                              ErrorCheck errors) throws SQLException, SetupFailedException {
        List<Trace> recordings = trace.possibleRecordings(MAX_ORDERS);
        for (Trace other : recordings.subList(1, recordings.size())) {
            try (DeviationExplainer explainer = new DeviationExplainer(c, other, executor)) {
                List<Violation> judged = classify(found, semantics, claimed, explainer, false, constraints, errors);
                if (!anyBugCandidate(judged)) {
                    String why = "Explained with " + reorderedStatements(trace, other) + " finishing in that order: they were found finished"
                            + " together, and the order their clients saw them finish in, as recorded, says nothing of the engine's.";
                    return Optional.of(judged.stream().map(v -> v.withDetails(v.details() + "\n" + why + "\n", v.attachments())).toList());
                }
            }
        }
        return Optional.empty();
    }

    /** The statements whose places differ between the two recordings, in {@code other}'s order. */
    private static String reorderedStatements(Trace recorded, Trace other) {
        List<String> refs = new ArrayList<>();
        for (int i = 0; i < other.schedule().size(); i++) {
            if (!other.schedule().get(i).ref().equals(recorded.schedule().get(i).ref())) {
                refs.add(other.schedule().get(i).ref().toString());
            }
        }
        return String.join(", ", refs);
    }

    /** Transactions that resumed together have no known order; at most this many orders are tried. */
    private static final int MAX_ORDERS = 24;

    /**
     * The break of a measured first-committer-wins, with the serial orders that fail to show it harmless in its details;
     * or empty when a serial order of the committed transactions in which the writer's transaction follows the ones it
     * conflicts with (the commit order first, then the others, at most {@link #MAX_ORDERS}) gives every read, every
     * write's outcome and the final state of the run. Such a run is the writer-first serial order's: no update was lost,
     * whatever the engine's conflict check did (H2 lets a write through when the row's values are those its snapshot
     * shows, or when a waiting {@code UPDATE ... SET c = constant} re-reads the row; docs/verdicts.md).
     */
    private Optional<DeviationExplainer.RuleBreak> lostUpdate(TestCase c, Trace trace, Executor executor, DeviationExplainer.RuleBreak b)
            throws SQLException, SetupFailedException {
        int writer = b.write().txn();
        List<Integer> committed = SerialSchedule.fcrfsCommitted(trace);
        java.util.Set<Integer> first = new java.util.LinkedHashSet<>();
        b.writes().forEach(w -> first.add(w.txn()));
        first.remove(writer);
        if (first.isEmpty()) {
            // an upsert that arbitrated on newer data: whatever committed before it ran comes first
            int at = trace.position(b.write());
            committed.stream().filter(t -> t != writer && trace.position(trace.outcome(t).cause()) < at).forEach(first::add);
        }
        List<String> tried = new ArrayList<>();
        for (List<Integer> order : writerAfter(committed, writer, first, MAX_ORDERS)) {
            Optional<String> differs = differsFromSerial(c, trace, executor, order);
            if (differs.isEmpty()) {
                return Optional.empty();
            }
            tried.add(differs.get());
        }
        String which = first.isEmpty() ? "" : " in which T" + writer + " follows " + String.join(", ", first.stream().map(t -> "T" + t).toList());
        String serial = "Nothing shows the break harmless: no serial order of the committed transactions" + which
                + " gives the run's reads, write outcomes and final state (tried: " + String.join("; ", tried) + ").\n";
        return Optional.of(new DeviationExplainer.RuleBreak(b.write(), b.writes(), b.summary(), b.details() + "\n" + serial));
    }

    /** Whether the transaction-level replay in {@code order} gives every read, every write's outcome and the final state of the run. */
    private boolean givesTheRun(TestCase c, Trace trace, Executor executor, List<Integer> order) throws SQLException, SetupFailedException {
        return differsFromSerial(c, trace, executor, order).isEmpty();
    }

    /**
     * How the run differs from its transaction-level replay in {@code order} (the order, then what differs: a replay that hung,
     * the final state, a read or a write's count or error); empty when that replay gives every read, every write's outcome
     * and the final state.
     */
    private Optional<String> differsFromSerial(TestCase c, Trace trace, Executor executor, List<Integer> order)
            throws SQLException, SetupFailedException {
        SerialSchedule tx = SerialSchedule.transactionLevel(c, trace, order);
        Trace replay = executor.runSerial(tx.testCase());
        if (!replay.hung().isEmpty() || replay.stalls() > 0) {
            return Optional.of(tx.describeOrder() + " (the replay hung)");
        }
        GeneratedKeys keys = GeneratedKeys.of(c, executor.target().dialect());
        Optional<Violation> state = stateViolation(c, WssKind.TX_WSS, "transaction-level", tx, trace, replay, keys);
        // what the clients saw: every read, and every write's count or error (a write that reports a row it did not change is
        // no outcome of that order either)
        Optional<Violation> seen = outcomeViolations(c, tx, trace, replay, true, order, keys).stream().findFirst();
        if (state.isEmpty() && seen.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(tx.describeOrder() + " (" + (state.isPresent() ? "its final state differs" : "") + (state.isPresent() && seen.isPresent()
                ? ", and " : "") + seen.map(v -> (v.kind() == WssKind.READ_RESULT ? "the read " : "the write ")
                + ((WssEvidence) v.evidence()).statement() + " returns otherwise").orElse("") + ")");
    }

    /** The orders of {@code committed} (its own first) in which {@code writer} comes after every transaction of {@code first}; at most {@code limit}. */
    static List<List<Integer>> writerAfter(List<Integer> committed, int writer, java.util.Set<Integer> first, int limit) {
        return StateOrderSearch.permutations(committed, limit,
                order -> !order.contains(writer) || first.stream().allMatch(t -> !order.contains(t) || order.indexOf(t) < order.indexOf(writer)));
    }

    /** The violations with the orders they were checked against in their evidence (their headlines say what was checked). */
    private static List<Violation> checkedAgainst(List<Violation> found, SerialOrders orders) {
        return found.stream().map(v -> v.evidence() instanceof WssEvidence e ? v.withEvidence(e.checkedAgainst(orders)) : v).toList();
    }

    /**
     * Compares the actual run with the serial replays in {@code order} (only a replay-hang when a replay hung); the
     * transaction-level replay's final state goes to {@code serialStates}.
     */
    private List<Violation> compare(TestCase c, Trace trace, Executor executor, List<Integer> order, boolean compareReads, List<DbState> serialStates)
            throws SQLException, SetupFailedException {
        List<Violation> found = new ArrayList<>();
        // reads are compared only where the level promises serializable reads; elsewhere the tracking's reads only cost
        SerialSchedule tx = compareReads ? SerialSchedule.transactionLevel(c, trace, order)
                : SerialSchedule.transactionLevelWithoutTrackingReads(c, trace, order);
        Trace txTrace = executor.runSerial(tx.testCase());
        if (!txTrace.hung().isEmpty()) {
            return List.of(replayHang(c, tx, txTrace));
        }
        serialStates.add(txTrace.finalState());
        GeneratedKeys keys = GeneratedKeys.of(c, executor.target().dialect());
        Optional<Violation> state = stateViolation(c, WssKind.TX_WSS, "transaction-level", tx, trace, txTrace, keys);
        List<Violation> outcomes = outcomeViolations(c, tx, trace, txTrace, compareReads, order, keys);
        // the final state is explained by the first write whose outcome differs in the same replay, where one does
        Optional<OutcomeDeviation> write = outcomes.stream().filter(v -> v.kind() == WssKind.WRITE_OUTCOME)
                .map(v -> ((WssEvidence) v.evidence()).deviation()).filter(Objects::nonNull).findFirst();
        state.map(v -> write.isPresent() && v.evidence() instanceof WssEvidence e ? v.withEvidence(e.explainedBy(write.get())) : v)
                .ifPresent(found::add);
        found.addAll(outcomes);
        Optional<SerialSchedule> stmt = SerialSchedule.statementLevel(c, trace, order);
        if (stmt.isPresent()) {
            Trace stmtTrace = executor.runSerial(stmt.get().testCase());
            stateViolation(c, WssKind.STMT_WSS, "statement-level", stmt.get(), trace, stmtTrace, keys).ifPresent(found::add);
        }
        return found;
    }

    /** {@link AbortingErrors#explained} once per failed write: each deviation tried asks again. */
    private static ErrorCheck errorVerdict(TestCase c, Trace trace, Executor executor) {
        Map<StmtRef, Boolean> verdicts = new java.util.HashMap<>();
        return ref -> {
            Boolean known = verdicts.get(ref);
            if (known == null) {
                known = AbortingErrors.explained(c, trace, executor, SerialSchedule.possibleOrders(trace, MAX_ORDERS), ref);
                verdicts.put(ref, known);
            }
            return known;
        };
    }

    /** Whether a failed write's error is explained by what explains an aborting error ({@link AbortingErrors#explained}). */
    @FunctionalInterface
    private interface ErrorCheck {
        boolean explained(StmtRef failed) throws SQLException, SetupFailedException;
    }

    /** The constraint the run's final state breaks, if any ({@link DeclaredConstraints}): asked only when a deviation would explain it. */
    @FunctionalInterface
    private interface ConstraintCheck {
        Optional<String> broken() throws SQLException, SetupFailedException;
    }

    /**
     * Violations at a level that permits write-order deviations: explained when a deviation, simulated, reproduces the
     * actual state — and, for a write's update count, when that simulation gave the statement the count it reported. That
     * holds when the final state equals the serial replay's too: a level's weaker visibility explains a different count
     * only where a simulation of it shows that count (a statement saw a different set of rows), never by the state alone,
     * which is how a real miscount (DuckDB's) once passed as documented (issue 33 rule 4).
     * <p>
     * What an explanation makes of a violation is the promise catalogue's ({@link #explainedAs}): documented where the
     * manual's sentence describes the deviation, not promised where txfuzz measured it within the level's promises or the
     * standard level the engine claims permits all it does; a deviation that breaks the claimed level and that the manual
     * does not describe explains nothing.
     */
    private static List<Violation> classify(List<Violation> found, LevelSemantics semantics, LevelPromise claimed, DeviationExplainer explainer,
                                            boolean firstCommitterWinsBroken, ConstraintCheck constraints, ErrorCheck errors)
            throws SQLException, SetupFailedException {
        boolean stateDiffers = found.stream().anyMatch(v -> ((WssKind) v.kind()).stateDiffers());
        if (firstCommitterWinsBroken) {
            return found; // snapshot isolation rests on the rule the run broke: nothing documented explains it
        }
        // The first deviation that explains every violation; else the first that explains the final state (a
        // deviation may reproduce the state but not a write's count, which another one reproduces too).
        List<Violation> partly = null;
        List<String> unpromised = new ArrayList<>(); // explanations the catalogue does not accept
        Optional<String> constraint = null; // checked once, when a deviation would first explain a state
        for (Deviation d : semantics.deviations()) {
            // a manual describing some read points only: those first, so a run it describes is called documented
            Optional<String> rule = explainer.explanation(d, semantics.basis(d).filter(b -> b instanceof txfuzz.dbms.Basis.Documented)
                    .map(b -> ((txfuzz.dbms.Basis.Documented) b).readPoints()).orElse(java.util.Set.of()));
            if (rule.isPresent() && stateDiffers && constraint == null) {
                constraint = constraints.broken();
                if (constraint.isPresent()) {
                    // The engine enforces the schema's constraints under every schedule: what data a write sees explains no such state.
                    String why = "The run's final state breaks a constraint the schema declares (" + constraint.get() + "): the engine"
                            + " enforces it whatever each write saw, so no behaviour the level documents explains this state.";
                    return found.stream().map(v -> ((WssKind) v.kind()).stateDiffers() ? v.withDetails(v.details() + "\n" + why + "\n",
                            v.attachments()) : v).toList();
                }
            }
            Optional<Deviation.ReadPoint> point = explainer.lastReadPoint();
            Optional<Explained> as = rule.flatMap(r -> explainedAs(d, r, point, semantics, claimed));
            if (rule.isPresent() && as.isEmpty()) {
                unpromised.add(rule.get());
            }
            if (as.isPresent()) {
                String ref = as.get().reference();
                List<Violation> out = new ArrayList<>();
                for (Violation v : found) {
                    boolean explained = switch ((WssKind) v.kind()) {
                        case READ_RESULT -> false;
                        // a write's count must come out of the simulation too, not just the final state; a write that failed
                        // is explained as an aborting error is (issue 33 item 3; asked once per statement), or fails with the
                        // same error on what the simulation gives it to read and its key check (asked per simulation)
                        case WRITE_OUTCOME -> v.evidence() instanceof WssEvidence w && w.actual() != null
                                && (w.actual().failed()
                                        ? errors.explained(w.statement()) || explainer.reproducedFailure(w.statement(), w.actual().error())
                                        : explainer.reproducedCount(w.statement(), w.actual().updateCount()));
                        default -> true;
                    };
                    out.add(explained ? v.explainedBy(as.get().classification(), ref, Mechanisms.label(d)) : v);
                }
                if (out.stream().noneMatch(v -> v.classification() == Classification.BUG_CANDIDATE)) {
                    return out;
                }
                partly = partly == null ? out : partly;
            }
        }
        if (partly != null) {
            return partly;
        }
        if (unpromised.isEmpty()) {
            return found;
        }
        String why = "A behaviour txfuzz knows of this engine reproduces the run (" + String.join("; ", unpromised) + "), but it breaks"
                + " the promise the level makes, " + claimed.promise().definition() + " (" + claimed.manual() + "), and the manual"
                + " does not describe it: it explains nothing.";
        return found.stream().map(v -> v.withDetails(v.details() + "\n" + why + "\n", v.attachments())).toList();
    }

    /** What an explanation makes of a violation, and the reference that says why. */
    record Explained(Classification classification, String reference) {
    }

    /**
     * The promise catalogue's word on a violation deviation {@code d} reproduces ({@code rule}, in words): documented with the
     * manual's sentence; not promised with the measurement and why the promises hold, or with the standard level the engine
     * claims when {@code d} keeps it; nothing when {@code d} breaks the claimed level and the manual does not describe it.
     */
    static Optional<Explained> explainedAs(Deviation d, String rule, Optional<Deviation.ReadPoint> point, LevelSemantics semantics,
                                           LevelPromise claimed) {
        Optional<txfuzz.dbms.Basis> basis = semantics.basis(d);
        if (basis.isPresent() && basis.get() instanceof txfuzz.dbms.Basis.Documented doc) {
            if (point.isEmpty() || doc.readPoints().contains(point.get())) {
                return Optional.of(new Explained(Classification.DOCUMENTED, doc.cite() + " (" + rule + ")"));
            }
            basis = Optional.empty(); // the sentence describes another read point: this one is judged by the standard level
        }
        if (basis.isPresent() && basis.get() instanceof txfuzz.dbms.Basis.Measured m) {
            return Optional.of(new Explained(Classification.NOT_PROMISED, rule + " (measured, not in the manual; pinned by " + m.pinnedBy()
                    + "); " + m.promiseHolds()));
        }
        if (Mechanisms.of(d).keeps().implies(claimed.promise())) {
            return Optional.of(new Explained(Classification.NOT_PROMISED, rule + ", which keeps the promise the level makes: "
                    + claimed.promise().definition() + " (" + claimed.manual() + "); the level promises no serial order of its writes"));
        }
        return Optional.empty();
    }

    /**
     * A hang in the serial replay: the report gives the script that hangs (the serial case, statement by
     * statement in the one order it ran, as {@code replay-hang.case.json} to replay too) and what the
     * engine showed when txfuzz called the statement hung — the concurrent schedule completes, so it is
     * not the evidence.
     */
    private Violation replayHang(TestCase c, SerialSchedule serial, Trace replay) {
        StmtRef hung = replay.hung().get(0);
        StmtRef original = serial.origin().get(hung);
        StringBuilder script = new StringBuilder();
        c.setup().forEach(sql -> script.append(sql.strip()).append(";\n"));
        for (StmtRef ref : serial.testCase().submittedOrder()) {
            StmtRef from = serial.origin().getOrDefault(ref, ref);
            script.append("/* T").append(from.txn()).append(" */ ").append(serial.testCase().stmt(ref).sql().strip()).append(';')
                    .append(ref.equals(hung) ? "   -- hangs here" : "").append('\n');
            if (ref.equals(hung)) {
                break;
            }
        }
        var evidence = replay.hangEvidence().get(hung);
        String details = "Statement " + original + " `" + c.stmt(original).sql() + "` neither finished nor waited on a lock when the committed"
                + " transactions were replayed one after another (" + serial.describeOrder() + "), each statement on its own after the"
                + " one before had finished. The script that hangs, in that order (`replay-hang.case.json` replays it):\n\n```sql\n"
                + script + "```\n"
                + (evidence == null ? "" : "\nWhat the engine said: " + evidence.describe() + ".\n")
                + (evidence == null || evidence.engineState() == null ? ""
                        : "\nThe engine's state when txfuzz called the statement hung:\n\n```\n" + evidence.engineState() + "\n```\n");
        return new Violation(WssKind.REPLAY_HANG, Classification.BUG_CANDIDATE,
                "replay-hang at " + original + ": the statement hung in the serial replay " + serial.describeOrder(), details, null,
                Map.of("replay-hang.case.json", txfuzz.model.CaseJson.write(serial.testCase())),
                new WssEvidence(WssKind.REPLAY_HANG, original, null, List.of(c.stmt(original).sql()), null));
    }

    /**
     * The final states compared with generated keys (and references to them) by position, not value:
     * they are allocated when the INSERT runs, so a commit-order replay hands out other numbers
     * ({@link GeneratedKeys}; issue 11 item 6). The rows listed are the normalised ones.
     */
    private Optional<Violation> stateViolation(TestCase c, WssKind kind, String level, SerialSchedule serial, Trace actual, Trace expected,
                                               GeneratedKeys keys) {
        List<DbState.TableDiff> diffs = keys.normalise(actual.finalState()).diff(keys.normalise(expected.finalState()));
        if (diffs.isEmpty()) {
            return Optional.empty();
        }
        StringBuilder md = new StringBuilder();
        md.append("The actual run's final state differs from the ").append(level).append(" serial replay ")
                .append(serial.describeOrder()).append(" (First-Commit/Rollback-First-Scheduled order).\n\n");
        for (DbState.TableDiff d : diffs) {
            md.append("Table `").append(d.table()).append("`:\n\n");
            d.onlyHere().forEach(r -> md.append("- only in the actual run: `").append(DbState.formatRow(r)).append("`\n"));
            d.onlyThere().forEach(r -> md.append("- only in the serial replay: `").append(DbState.formatRow(r)).append("`\n"));
            md.append('\n');
        }
        if (!keys.isEmpty()) {
            md.append("(Generated keys, and references to them, are shown as `#n`: the position of their row among the table's rows"
                    + " ordered by its other columns. They are allocated when the INSERT runs, so their values are not compared.)\n\n");
        }
        List<String> keyed = keys.keyedStatements(serial.testCase().transactions().stream()
                .flatMap(t -> t.statements().stream()).map(txfuzz.model.Stmt::sql).toList());
        if (!keyed.isEmpty()) {
            md.append("**Caution:** these statements pick rows by a generated key, which the serial replay allocated to other rows"
                    + " (keys are allocated when the INSERT runs, in the order the INSERTs ran, not in commit order), so in the replay"
                    + " they may address other rows than in the run: ");
            md.append(String.join("; ", keyed.stream().map(q -> "`" + q + "`").toList())).append(".\n\n");
        }
        md.append("Actual state:\n\n").append(formatState(actual.finalState()))
                .append("\nExpected (serial ").append(serial.describeOrder()).append("):\n\n").append(formatState(expected.finalState()));
        DbState.TableDiff first = diffs.get(0);
        String summary = kind.label() + ": table " + first.table() + " differs from serial " + serial.describeOrder()
                + " (" + rows(first.onlyHere().size()) + " only in the run, " + first.onlyThere().size() + " only in the serial replay)";
        // the deviating statements: the committed writes to the tables that ended differently
        java.util.Set<String> tables = new java.util.HashSet<>();
        diffs.forEach(d -> tables.add(d.table().toLowerCase(java.util.Locale.ROOT)));
        List<String> writes = new ArrayList<>();
        for (int t : SerialSchedule.fcrfsCommitted(actual)) {
            for (StmtRef r : SerialSchedule.effective(c, actual, t)) {
                txfuzz.model.Stmt s = c.stmt(r);
                if (s.kind().isWrite() && TableWrites.target(s.sql()).map(tables::contains).orElse(false)) {
                    writes.add(s.sql());
                }
            }
        }
        return Optional.of(new Violation(kind, Classification.BUG_CANDIDATE, summary, md.toString(), null, Map.of(),
                new WssEvidence(kind, null, null, writes, null, stateDirection(diffs), null, stateDifference(first, serial))));
    }

    private static List<Violation> outcomeViolations(TestCase c, SerialSchedule serial, Trace actual, Trace expected, boolean compareReads,
                                                     List<Integer> order, GeneratedKeys keys) {
        List<Violation> found = new ArrayList<>();
        for (Map.Entry<StmtRef, StmtRef> e : serial.origin().entrySet()) {
            StmtRef original = e.getValue();
            var kind = c.stmt(original).kind();
            boolean write = kind.isWrite();
            if (!write && !(compareReads && kind.isRead())) {
                continue;
            }
            StmtResult a = actual.executed(original).map(ExecutedStmt::result).orElse(null);
            StmtResult s = expected.executed(e.getKey()).map(ExecutedStmt::result).orElse(null);
            if (a == null || s == null) {
                continue;
            }
            String difference = write ? writeDifference(a, s) : readDifference(a, s, keys, c.stmt(original).sql());
            if (difference == null) {
                continue;
            }
            WssKind vkind = write ? WssKind.WRITE_OUTCOME : WssKind.READ_RESULT;
            String sql = c.stmt(original).sql();
            String md = "Statement " + original + " `" + sql + "` " + difference + " in the actual run than in the serial replay "
                    + serial.describeOrder() + ".\n\n- actual: " + describe(a) + "\n- serial: " + describe(s) + "\n";
            found.add(new Violation(vkind, Classification.BUG_CANDIDATE,
                    vkind.label() + " at " + original + ": actual " + a.summary() + ", serial " + s.summary(), md, null, Map.of(),
                    new WssEvidence(vkind, original, a, List.of(sql), null, direction(write, a, s, keys, sql),
                            OutcomeDeviation.of(c, actual, order, original, a, s), null)));
        }
        found.sort((x, y) -> x.summary().compareTo(y.summary()));
        return found;
    }

    /** The first row that ended differently, in words: "table `t0` has `(1, 1, )` where the serial replay T1 → T2 has `(1, 1, NULL)`". */
    private static String stateDifference(DbState.TableDiff d, SerialSchedule serial) {
        String table = "table `" + d.table() + "` ";
        String replay = "the serial replay " + serial.describeOrder();
        String more = d.onlyHere().size() + d.onlyThere().size() > 2 ? " (and more rows differ)" : "";
        if (d.onlyThere().isEmpty()) {
            return table + "has `" + DbState.formatRow(d.onlyHere().get(0)) + "`, which " + replay + " does not" + more;
        }
        if (d.onlyHere().isEmpty()) {
            return table + "lacks `" + DbState.formatRow(d.onlyThere().get(0)) + "`, which " + replay + " has" + more;
        }
        return table + "has `" + DbState.formatRow(d.onlyHere().get(0)) + "` where " + replay + " has `"
                + DbState.formatRow(d.onlyThere().get(0)) + "`" + more;
    }

    private static String rows(int n) {
        return n + (n == 1 ? " row" : " rows");
    }

    /** Which tables differ and which way (rows only in the run, only in the replay): what a reduced case must keep showing. */
    private static String stateDirection(List<DbState.TableDiff> diffs) {
        java.util.TreeSet<String> out = new java.util.TreeSet<>();
        for (DbState.TableDiff d : diffs) {
            String t = d.table().toLowerCase(java.util.Locale.ROOT);
            if (!d.onlyHere().isEmpty()) {
                out.add(t + ": rows only actual");
            }
            if (!d.onlyThere().isEmpty()) {
                out.add(t + ": rows only serial");
            }
        }
        return String.join("; ", out);
    }

    /**
     * Which way a statement's outcome differs from the replay's, without its values: failed or succeeded against the
     * replay, more or fewer rows changed, rows missing or extra.
     */
    private static String direction(boolean write, StmtResult a, StmtResult s, GeneratedKeys keys, String sql) {
        if (a.failed() != s.failed()) {
            return a.failed() ? "failed, serial succeeded" : "succeeded, serial failed";
        }
        if (a.failed()) {
            return "failed as " + a.errorClass() + ", serial as " + s.errorClass();
        }
        if (write) {
            return a.updateCount() > s.updateCount() ? "changed more rows than serial" : "changed fewer rows than serial";
        }
        List<List<String>> missing = new ArrayList<>(keys.normaliseResult(sql, s.rows()));
        List<List<String>> extra = new ArrayList<>(keys.normaliseResult(sql, a.rows()));
        List<List<String>> common = new ArrayList<>(extra);
        for (List<String> r : missing) {
            common.remove(r);
        }
        boolean hasExtra = !common.isEmpty();
        for (List<String> r : keys.normaliseResult(sql, a.rows())) {
            missing.remove(r);
        }
        return hasExtra && !missing.isEmpty() ? "rows missing and extra" : hasExtra ? "rows extra" : "rows missing";
    }

    private static String writeDifference(StmtResult a, StmtResult s) {
        if (a.failed() != s.failed()) {
            return a.failed() ? "failed" : "succeeded";
        }
        if (a.failed()) {
            return a.errorClass() == s.errorClass() ? null : "failed differently";
        }
        return a.updateCount() == s.updateCount() ? null : "changed a different number of rows";
    }

    /** Result rows compared as multisets, generated keys by position ({@link GeneratedKeys#normaliseResult}). */
    private static String readDifference(StmtResult a, StmtResult s, GeneratedKeys keys, String sql) {
        if (a.failed() != s.failed()) {
            return a.failed() ? "failed" : "succeeded";
        }
        if (a.failed()) {
            return null;
        }
        return Objects.equals(DbState.sorted(keys.normaliseResult(sql, a.rows())), DbState.sorted(keys.normaliseResult(sql, s.rows())))
                ? null : "returned different rows";
    }

    private static String describe(StmtResult r) {
        if (r.rows() != null) {
            return r.rows().isEmpty() ? "no rows" : String.join(", ", r.rows().stream().map(DbState::formatRow).toList());
        }
        return r.summary();
    }

    static String formatState(DbState s) {
        StringBuilder sb = new StringBuilder();
        s.tables().forEach((t, rows) -> {
            sb.append("    ").append(t).append(": ");
            sb.append(rows.isEmpty() ? "(empty)" : String.join(" ", rows.stream().map(DbState::formatRow).toList()));
            sb.append('\n');
        });
        return sb.toString();
    }
}
