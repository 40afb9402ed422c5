package txfuzz.reduce;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.CaseJson;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Oracle;
import txfuzz.oracle.Violation;
import txfuzz.dbms.ErrorClass;

/**
 * Shrinks a failing case while the same violation keeps appearing: the row tracking when no judging
 * oracle needs it, then delta debugging (ddmin) over transactions, data statements, tables, setup
 * rows and indexes, then simpler interleavings, constraints and unused columns, then expression
 * simplification of each statement; rounds repeat until nothing changes or the time budget runs out.
 *
 * <p>A candidate "still fails" when a fresh run of it, judged by the oracle that found the
 * original violation, shows that violation again: the same oracle and kind, about the same
 * statements (named by their origin in the case as found: every edit carries it, {@link Lineage})
 * and differing the same way ({@link Violation#sameAs}), with the same classification when the
 * original was a bug candidate or documented. Another violation of the same kind (another
 * statement, the other direction) is another behaviour: a step that shows only that is refused.
 * A candidate the engine cannot set up, that throws, or in which a statement the reducer rewrote
 * is rejected as invalid, does not fail.
 * Results are cached by content. Because findings can be nondeterministic, every pass that changed
 * the case is confirmed by two more fresh runs; when they do not both fail, reduction falls back
 * to the last confirmed case (the original at worst), so the result always reproduces.
 *
 * <p>A run that hangs lasts the executor's statement timeout, which is long (a verdict must not call a slow statement
 * hung), so a hang took a whole budget to reduce. The search therefore judges its candidates with a short statement
 * timeout, and the result is then run with the executor's own settings: only a violation shown there is the result.
 * When it is not shown (on a loaded machine a slow statement can pass for hung in the short time), or the case as given
 * did not fail in the search, the search runs again with the executor's own settings, in what is left of the budget.
 */
public final class Reducer {
    private final Executor executor;
    private final List<Oracle> oracles;
    private final ReduceConfig config;

    /** Fresh runs that must all fail before a reduced case is trusted. */
    static final int CONFIRMATIONS = 2;
    /** Runs of the original before it is declared not failing. */
    static final int ORIGINAL_TRIES = 3;
    /**
     * The statement timeout of the search's runs: the generated databases hold a few rows and every statement takes
     * milliseconds, so a statement neither finished nor waiting after this long is hung in all but a loaded machine's
     * pauses, and those the run with the executor's own timeout catches.
     */
    static final java.time.Duration SEARCH_STATEMENT_TIMEOUT = java.time.Duration.ofMillis(250);

    public Reducer(Executor executor, List<Oracle> oracles, ReduceConfig config) {
        this.executor = executor;
        this.oracles = List.copyOf(oracles);
        this.config = config;
    }

    /** Never throws for an engine failure during a candidate run: such a candidate just does not count as failing. */
    public Reduction reduce(TestCase c, Violation v) {
        long start = System.nanoTime();
        long budgetEnd = start + config.budget().toNanos();
        ExecutorConfig full = executor.config();
        if (full.statementTimeout().compareTo(SEARCH_STATEMENT_TIMEOUT) <= 0) {
            return new Search(c, v, executor, start, budgetEnd).run();
        }
        Search quick = new Search(c, v, executor.withConfig(
                new ExecutorConfig(full.blockTimeout(), full.stallTimeout(), SEARCH_STATEMENT_TIMEOUT)), start, budgetEnd);
        Reduction found = quick.run();
        if (found.end() == Reduction.End.INTERRUPTED
                || !found.changed() && (found.end() == Reduction.End.FIXED_POINT || found.end() == Reduction.End.TIME_UP)) {
            return withViolation(found, v); // nothing to verify: the case as given stays, with the verdict it was found with
        }
        if (found.changed()) {
            Optional<Reduction> held = quick.underOwnSettings(found);
            if (held.isPresent()) {
                return held.get();
            }
        } else if (!quick.anyRunHung) {
            return withViolation(found, v); // the short timeout called nothing hung: the executor's own settings would have run the same
        }
        // the case as given not failing, or showing only another violation of its kind, while the short timeout called a
        // statement hung; or the result not failing under the executor's own settings: search again with those, in what
        // is left of the budget
        Search again = new Search(c, v, executor, start, budgetEnd);
        again.runs = quick.runs;
        again.refused = quick.refused;
        return again.run();
    }

    private static Reduction withViolation(Reduction r, Violation v) {
        return new Reduction(r.original(), r.reduced(), r.origin(), v, r.statementsBefore(), r.statementsAfter(), r.runs(), r.refused(),
                r.seconds(), r.end(), r.otherOfKind());
    }

    /** Runs of the search's result with the executor's own settings, of which one must show the violation. */
    static final int VERIFICATIONS = 2;

    /** Statements other than BEGIN/COMMIT/ROLLBACK. */
    public static int dataStatements(TestCase c) {
        return (int) c.transactions().stream().flatMap(t -> t.statements().stream()).filter(s -> !s.kind().isControl()).count();
    }

    /** Thrown inside a pass when the search part of the budget is spent, or when asked to stop. */
    private static final class Halt extends RuntimeException {
        final Reduction.End end;

        Halt(Reduction.End end) {
            super(null, null, false, false);
            this.end = end;
        }
    }

    /** One reduction: its cache, counters and clock. */
    private final class Search {
        private final Lineage original;
        private final Violation wanted;
        private final List<Oracle> judges;
        /** Runs the candidates: the reducer's executor, or a view of it with a short statement timeout. */
        private final Executor runner;
        private final long start;
        private final long budgetEnd;
        /** What a run that shows the violation typically costs (a confirmation run). */
        private long typicalFailingRun;
        /** Whether the last run that showed the violation had a statement called hung: such a run lasts its statement timeout. */
        private boolean failingRunHung;
        /** Whether the last run had a statement called hung. */
        private boolean lastRunHung;
        /** Whether any run had a statement called hung. */
        private boolean anyRunHung;
        /** What a run of any kind typically costs (a hang is cancelled only after a while): a candidate run. */
        private long typicalRun;
        private final java.util.ArrayDeque<Long> recentRuns = new java.util.ArrayDeque<>();
        private final java.util.ArrayDeque<Long> recentFailingRuns = new java.util.ArrayDeque<>();
        private final Map<String, Optional<Violation>> cache = new HashMap<>();
        private final Set<String> originalSql = new HashSet<>();
        private int runs;
        /** Candidate runs that showed a violation of the wanted kind, but another one: refused steps. */
        private int refused;
        /** The last violation of the wanted kind that was not the wanted one, seen in a run of the case as found. */
        private Violation otherOfKind;
        private Lineage current;
        private Lineage confirmed;
        private Violation confirmedViolation;

        Search(TestCase original, Violation wanted, Executor runner, long start, long budgetEnd) {
            this.original = Lineage.original(original);
            this.wanted = wanted;
            List<Oracle> same = oracles.stream().filter(o -> o.name().equals(wanted.oracle())).toList();
            this.judges = same.isEmpty() ? oracles : same;
            this.runner = runner;
            this.start = start;
            this.budgetEnd = budgetEnd;
            for (Txn t : original.transactions()) {
                t.statements().forEach(s -> originalSql.add(s.sql()));
            }
        }

        Reduction run() {
            int before = dataStatements(original.testCase());
            // the original must fail before anything else is believed; its first run is the one run
            // that may overrun the budget (nothing tells how long it takes before it ran once)
            Optional<Violation> first = Optional.empty();
            for (int i = 0; i < ORIGINAL_TRIES && first.isEmpty(); i++) {
                if (config.stop().getAsBoolean()) {
                    return unchanged(before, Reduction.End.INTERRUPTED);
                }
                if (System.nanoTime() + typicalRun > budgetEnd || System.nanoTime() >= budgetEnd) {
                    return unchanged(before, Reduction.End.TIME_UP);
                }
                first = execute(original);
            }
            if (first.isEmpty()) {
                return unchanged(before, config.stop().getAsBoolean() ? Reduction.End.INTERRUPTED
                        : otherOfKind != null ? Reduction.End.VIOLATION_LOST : Reduction.End.NOT_FAILING);
            }
            otherOfKind = null;
            cache.put(key(original), first);
            current = original;
            confirmed = original;
            confirmedViolation = first.get();
            Reduction.End end = Reduction.End.FIXED_POINT;
            try {
                boolean changed = true;
                while (changed) {
                    changed = false;
                    changed |= pass(this::untracked);
                    changed |= pass(this::transactions);
                    changed |= pass(this::statements);
                    changed |= pass(this::tables);
                    changed |= pass(this::setupRows);
                    changed |= pass(this::indexes);
                    changed |= pass(this::autocommit);
                    changed |= pass(this::interleaving);
                    changed |= pass(this::constraints);
                    changed |= pass(this::columns);
                    changed |= pass(this::expressions);
                    changed |= pass(this::setupConstants);
                }
            } catch (Halt h) {
                end = h.end;
                if (end == Reduction.End.TIME_UP) {
                    try {
                        checkpoint(); // confirms the last steps only if its runs fit in the budget
                    } catch (Halt again) {
                        end = again.end;
                    }
                }
            }
            if (end == Reduction.End.INTERRUPTED) {
                return unchanged(before, end); // a half-done reduction is not a result: keep the case as found
            }
            Lineage reduced = confirmed;
            return new Reduction(original.testCase(), reduced.testCase(), reduced.origin(), confirmedViolation, before,
                    dataStatements(reduced.testCase()), runs, refused, seconds(), end, null);
        }

        private Reduction unchanged(int before, Reduction.End end) {
            return new Reduction(original.testCase(), original.testCase(), original.origin(),
                    confirmedViolation != null ? confirmedViolation : wanted, before, before, runs, refused, seconds(), end,
                    end == Reduction.End.VIOLATION_LOST ? otherOfKind : null);
        }

        /** Stops the search when asked to, or when a run of {@code cost} could not finish before {@code end}. */
        private void checkTime(long cost, long end) {
            if (config.stop().getAsBoolean()) {
                throw new Halt(Reduction.End.INTERRUPTED);
            }
            if (System.nanoTime() + cost > end) {
                throw new Halt(Reduction.End.TIME_UP);
            }
        }

        private double seconds() {
            return (System.nanoTime() - start) / 1e9;
        }

        /** Runs one pass; when it changed the case, confirms the change (or falls back). */
        private boolean pass(Runnable p) {
            Lineage before = current;
            p.run();
            if (current == before) {
                return false;
            }
            return checkpoint(); // its runs come out of the reserve: candidates start only while it is free
        }

        /** Confirms {@code current} by fresh runs; on failure returns to the last confirmed case. */
        private boolean checkpoint() {
            if (current == confirmed) {
                return false;
            }
            Violation last = null;
            for (int i = 0; i < CONFIRMATIONS; i++) {
                try {
                    checkTime(typicalFailingRun, budgetEnd);
                } catch (Halt h) {
                    current = confirmed; // no time left to confirm the last steps
                    throw h;
                }
                Optional<Violation> v = execute(current);
                if (v.isEmpty()) {
                    cache.put(key(current), Optional.empty()); // it failed once by chance: never accept it again
                    current = confirmed;
                    return false;
                }
                last = v.get();
            }
            confirmed = current;
            confirmedViolation = last;
            return true;
        }

        // ------------------------------------------------------------ testing candidates

        /** The case and its statements' origins: the same text reached by other removals may be about other statements. */
        private String key(Lineage c) {
            return CaseJson.write(c.testCase()) + "\n" + c.originKey();
        }

        /** Whether {@code c} fails (cached); accepting it makes it current. */
        private boolean tryCandidate(Lineage c) {
            checkTime(0, searchEnd()); // also between cached candidates: building them costs time on a large case
            if (c == null) {
                return false;
            }
            String k = key(c);
            Optional<Violation> v = cache.get(k);
            if (v == null) {
                checkTime(typicalRun, searchEnd()); // never start a run that cannot finish in time
                v = execute(c);
                cache.put(k, v);
            }
            if (v.isPresent()) {
                current = c;
                return true;
            }
            return false;
        }

        /** A fresh run, judged: the matching violation, if any. Engine trouble counts as not failing. */
        private Optional<Violation> execute(Lineage c) {
            long t0 = System.nanoTime();
            Optional<Violation> v = executeOnce(c);
            long took = System.nanoTime() - t0;
            typicalRun = typical(recentRuns, took);
            if (v.isPresent()) {
                typicalFailingRun = typical(recentFailingRuns, took);
                failingRunHung = lastRunHung;
            }
            return v;
        }

        /**
         * The median of the last few runs, with {@code took} added: one slow run (a pause, a busy
         * machine) does not end the search early, a case whose runs are all long stops it in time.
         */
        private static long typical(java.util.ArrayDeque<Long> recent, long took) {
            recent.addLast(took);
            if (recent.size() > 5) {
                recent.removeFirst();
            }
            List<Long> sorted = new ArrayList<>(recent);
            sorted.sort(null);
            return sorted.get(sorted.size() / 2);
        }

        /** Time kept back for confirming the final case. */
        private long reserve() {
            return CONFIRMATIONS * typicalFailingRun + (runner == executor ? 0 : verification());
        }

        /** What the run of the result under the executor's own settings will cost: longer by the timeouts' difference if it hangs. */
        private long verification() {
            return typicalFailingRun + (failingRunHung
                    ? executor.config().statementTimeout().minus(runner.config().statementTimeout()).toNanos() : 0);
        }

        /** Candidates start only before this. */
        private long searchEnd() {
            return budgetEnd - reserve();
        }

        /**
         * {@code found}, this search's result, with the violation one of a few runs of it shows under the reducer's
         * executor's own settings (the report's verdict); empty when none shows it.
         */
        Optional<Reduction> underOwnSettings(Reduction found) {
            for (int i = 0; i < VERIFICATIONS && !config.stop().getAsBoolean(); i++) {
                Optional<Violation> shown = executeOnce(confirmed, executor);
                if (shown.isPresent()) {
                    return Optional.of(new Reduction(found.original(), found.reduced(), found.origin(), shown.get(),
                            found.statementsBefore(), found.statementsAfter(), runs, refused, seconds(), found.end(), null));
                }
            }
            return Optional.empty();
        }

        private Optional<Violation> executeOnce(Lineage candidate) {
            return executeOnce(candidate, runner);
        }

        private Optional<Violation> executeOnce(Lineage candidate, Executor by) {
            runs++;
            TestCase c = candidate.testCase();
            try {
                lastRunHung = false;
                Trace trace = by.run(c);
                lastRunHung = !trace.hung().isEmpty();
                anyRunHung |= lastRunHung;
                for (ExecutedStmt e : trace.schedule()) {
                    if (e.result().failed() && e.result().errorClass() == ErrorClass.INVALID_STATEMENT
                            && !originalSql.contains(c.stmt(e.ref()).sql())) {
                        return Optional.empty(); // a rewrite the engine does not accept
                    }
                }
                Violation sameKind = null;
                for (Oracle o : judges) {
                    for (Violation v : o.judge(c, trace, by).violations()) {
                        if (!sameClassification(v)) {
                            continue;
                        }
                        if (wanted.sameAs(v, candidate::originOf)) {
                            return Optional.of(v);
                        }
                        if (v.kind().equals(wanted.kind()) && sameKind == null) {
                            sameKind = v;
                        }
                    }
                }
                if (sameKind != null) {
                    refused++; // the same kind, but another statement or the other direction: another behaviour
                    if (candidate == original) {
                        otherOfKind = sameKind;
                    }
                }
                return Optional.empty();
            } catch (Exception | StackOverflowError e) {
                return Optional.empty();
            }
        }

        private boolean sameClassification(Violation v) {
            return switch (wanted.classification()) {
                case BUG_CANDIDATE -> v.classification() == Classification.BUG_CANDIDATE;
                case DOCUMENTED -> v.classification() == Classification.DOCUMENTED;
                case NOT_PROMISED -> v.classification() == Classification.NOT_PROMISED;
                case FLAKY -> true;
                case INSTRUMENTATION_EFFECT -> v.classification() == Classification.INSTRUMENTATION_EFFECT;
            };
        }

        // ------------------------------------------------------------ ddmin

        /**
         * Delta debugging over {@code items} of the current case: {@code build} makes the case that
         * keeps only the given items (null when no valid case does). Tries removing everything
         * first, then complements of ever smaller chunks. Accepted candidates become current.
         */
        private <T> void ddmin(List<T> items, Function<List<T>, Lineage> build) {
            if (items.isEmpty()) {
                return;
            }
            if (items.size() > 1 && tryCandidate(safe(build, List.of()))) {
                return;
            }
            List<T> cur = new ArrayList<>(items);
            int n = 2;
            while (!cur.isEmpty()) {
                n = Math.min(n, cur.size());
                List<List<T>> chunks = chunks(cur, n);
                boolean reduced = false;
                for (List<T> chunk : chunks) {
                    List<T> complement = new ArrayList<>(cur);
                    complement.removeAll(chunk);
                    if (tryCandidate(safe(build, complement))) {
                        cur = complement;
                        n = Math.max(n - 1, 2);
                        reduced = true;
                        break;
                    }
                }
                if (!reduced) {
                    if (n >= cur.size()) {
                        break;
                    }
                    n = Math.min(cur.size(), 2 * n);
                }
            }
        }

        private <T> Lineage safe(Function<List<T>, Lineage> build, List<T> keep) {
            try {
                return build.apply(keep);
            } catch (IllegalArgumentException | IllegalStateException e) {
                return null;
            }
        }

        private static <T> List<List<T>> chunks(List<T> items, int n) {
            List<List<T>> out = new ArrayList<>();
            int size = items.size();
            int startAt = 0;
            for (int i = 0; i < n; i++) {
                int end = startAt + (size - startAt) / (n - i);
                if (end > startAt) {
                    out.add(new ArrayList<>(items.subList(startAt, end)));
                }
                startAt = end;
            }
            return out;
        }

        // ------------------------------------------------------------ passes

        /**
         * The case without row tracking, when no oracle judging it needs that (an engine error needs only the
         * statement): its companions go, so a transaction of one statement can become an autocommit one.
         */
        private void untracked() {
            if (judges.stream().anyMatch(Oracle::needsRowTracking) || !TrackingStripper.tracked(current.testCase())) {
                return;
            }
            if (TrackingStripper.strip(current.testCase()) instanceof Stripped.Plain p) {
                tryCandidate(current.then(new CaseEdits.Edit(p.plain(), p.origin())));
            }
        }

        private void transactions() {
            Lineage base = current;
            List<Integer> ids = base.testCase().transactions().stream().map(Txn::id).toList();
            ddmin(ids, keep -> {
                Set<Integer> gone = new HashSet<>(ids);
                gone.removeAll(keep);
                return gone.size() == ids.size() ? null : base.then(CaseEdits.removeTxns(base.testCase(), gone));
            });
        }

        /** Data statements, a write together with its row-tracking companions (they go or stay as one). */
        private void statements() {
            Lineage base = current;
            List<StmtRef> refs = CaseEdits.dataRefs(base.testCase());
            List<List<StmtRef>> units = CaseEdits.trackingUnits(base.testCase(), refs);
            ddmin(units, keep -> {
                if (keep.isEmpty()) {
                    return null;
                }
                Set<StmtRef> gone = new HashSet<>(refs);
                keep.forEach(gone::removeAll);
                return base.then(CaseEdits.removeStmts(base.testCase(), gone));
            });
        }

        private void tables() {
            Lineage base = current;
            List<String> tables = base.testCase().tables();
            if (tables.size() < 2) {
                return;
            }
            ddmin(tables, keep -> {
                if (keep.isEmpty()) {
                    return null;
                }
                Set<String> gone = new LinkedHashSet<>(tables);
                keep.forEach(gone::remove);
                return base.then(dropTables(base.testCase(), gone));
            });
        }

        /** Setup INSERT statements (whole), then rows of multi-row INSERTs. */
        private void setupRows() {
            Lineage base = current;
            List<String> setup = base.testCase().setup();
            List<Integer> inserts = new ArrayList<>();
            for (int i = 0; i < setup.size(); i++) {
                if (SchemaText.insert(setup.get(i)).isPresent() || setup.get(i).strip().toUpperCase().startsWith("INSERT")) {
                    inserts.add(i);
                }
            }
            ddmin(inserts, keep -> base.same(withoutSetup(base.testCase(), inserts, keep)));
            for (int i = 0; i < current.testCase().setup().size(); i++) {
                Optional<SchemaText.Insert> ins = SchemaText.insert(current.testCase().setup().get(i));
                if (ins.isEmpty() || ins.get().rows().size() < 2) {
                    continue;
                }
                Lineage b = current;
                int at = i;
                List<Integer> rows = new ArrayList<>();
                for (int k = 0; k < ins.get().rows().size(); k++) {
                    rows.add(k);
                }
                ddmin(rows, keep -> SchemaText.keepRows(b.testCase().setup().get(at), keep)
                        .map(sql -> b.same(replaceSetup(b.testCase(), at, sql))).orElse(null));
            }
        }

        private void indexes() {
            Lineage base = current;
            List<Integer> idx = new ArrayList<>();
            for (int i = 0; i < base.testCase().setup().size(); i++) {
                if (SchemaText.isIndex(base.testCase().setup().get(i))) {
                    idx.add(i);
                }
            }
            ddmin(idx, keep -> base.same(withoutSetup(base.testCase(), idx, keep)));
        }

        /** BEGIN; s; COMMIT as the autocommit statement s. */
        private void autocommit() {
            for (int id = 1; id <= current.testCase().transactions().size(); id++) {
                Txn t = current.testCase().txn(id);
                if (t.explicit() && !t.endsWithRollback() && t.statements().size() == 3 && !t.statements().get(1).needsTransaction()) {
                    tryCandidate(current.then(CaseEdits.toAutocommit(current.testCase(), id)));
                }
            }
        }

        /** Fewer switches between sessions: a fully serial order, then statements moved up to their transaction's previous one. */
        private void interleaving() {
            List<Integer> serial = new ArrayList<>(current.testCase().order());
            serial.sort(Integer::compare);
            if (switches(serial) < switches(current.testCase().order())) {
                tryCandidate(current.same(current.testCase().withTransactions(current.testCase().transactions(), serial)));
            }
            boolean moved = true;
            while (moved) {
                moved = false;
                List<Integer> order = current.testCase().order();
                for (int i = 1; i < order.size() && !moved; i++) {
                    int id = order.get(i);
                    if (order.get(i - 1) == id) {
                        continue;
                    }
                    int j = order.subList(0, i).lastIndexOf(id);
                    if (j < 0) {
                        continue;
                    }
                    List<Integer> cand = new ArrayList<>(order);
                    cand.remove(i);
                    cand.add(j + 1, id);
                    if (switches(cand) < switches(order)) {
                        moved = tryCandidate(current.same(current.testCase().withTransactions(current.testCase().transactions(), cand)));
                    }
                }
            }
        }

        private static int switches(List<Integer> order) {
            int n = 0;
            for (int i = 1; i < order.size(); i++) {
                if (!order.get(i).equals(order.get(i - 1))) {
                    n++;
                }
            }
            return n;
        }

        /** PRIMARY KEY, UNIQUE, CHECK, FOREIGN KEY, NOT NULL and DEFAULT clauses of CREATE TABLE. */
        private void constraints() {
            TestCase base = current.testCase();
            Lineage lineage = current;
            record Span(int setupIndex, int[] span) {
            }
            List<Span> spans = new ArrayList<>();
            for (int i = 0; i < base.setup().size(); i++) {
                if (SchemaText.createdTable(base.setup().get(i)) != null) {
                    for (int[] s : SchemaText.constraintSpans(base.setup().get(i))) {
                        spans.add(new Span(i, s));
                    }
                }
            }
            ddmin(spans, keep -> {
                List<String> setup = new ArrayList<>(base.setup());
                for (int i = 0; i < setup.size(); i++) {
                    List<int[]> drop = new ArrayList<>();
                    for (Span s : spans) {
                        if (s.setupIndex() == i && !keep.contains(s)) {
                            drop.add(s.span());
                        }
                    }
                    if (!drop.isEmpty()) {
                        setup.set(i, SchemaText.delete(setup.get(i), drop));
                    }
                }
                return lineage.same(base.withSetup(base.tables(), setup));
            });
        }

        /** Columns nothing mentions: out of CREATE TABLE and out of every INSERT's column list and rows. */
        private void columns() {
            TestCase base = current.testCase();
            Lineage lineage = current;
            List<String[]> unused = new ArrayList<>();
            for (String sql : base.setup()) {
                String table = SchemaText.createdTable(sql);
                if (table == null) {
                    continue;
                }
                for (String col : SchemaText.columns(sql)) {
                    if (!SchemaText.instrumentation(col) && dropColumn(base, table, col) != null) {
                        unused.add(new String[] {table, col});
                    }
                }
            }
            ddmin(unused, keep -> {
                TestCase c = base;
                for (String[] u : unused) {
                    if (!keep.contains(u)) {
                        c = dropColumn(c, u[0], u[1]);
                        if (c == null) {
                            return null;
                        }
                    }
                }
                return lineage.same(c);
            });
        }

        /** Statement by statement, simpler expressions, greedily. */
        private void expressions() {
            for (StmtRef ref : CaseEdits.dataRefs(current.testCase())) {
                boolean progress = true;
                while (progress) {
                    progress = false;
                    Stmt s = current.testCase().stmt(ref);
                    if (!CaseEdits.editable(s)) {
                        break;
                    }
                    for (String v : Simplifier.variants(s.sql())) {
                        if (TrackedText.keeps(s, v) && tryCandidate(current.same(CaseEdits.replaceSql(current.testCase(), ref, v)))) {
                            progress = true;
                            break;
                        }
                    }
                }
            }
        }

        /** Simpler constants in the setup's INSERT rows. */
        private void setupConstants() {
            for (int i = 0; i < current.testCase().setup().size(); i++) {
                if (SchemaText.insert(current.testCase().setup().get(i)).isEmpty()) {
                    continue;
                }
                boolean progress = true;
                while (progress) {
                    progress = false;
                    String sql = current.testCase().setup().get(i);
                    for (String v : Simplifier.constantVariants(sql)) {
                        if (TrackedText.keepsSetup(sql, v) && tryCandidate(current.same(replaceSetup(current.testCase(), i, v)))) {
                            progress = true;
                            break;
                        }
                    }
                }
            }
        }
    }

    // ---------------------------------------------------------------- case edits on the setup

    private static TestCase withoutSetup(TestCase base, List<Integer> candidates, List<Integer> keep) {
        List<String> setup = new ArrayList<>();
        for (int i = 0; i < base.setup().size(); i++) {
            if (!candidates.contains(i) || keep.contains(i)) {
                setup.add(base.setup().get(i));
            }
        }
        return base.withSetup(base.tables(), setup);
    }

    private static TestCase replaceSetup(TestCase base, int index, String sql) {
        List<String> setup = new ArrayList<>(base.setup());
        setup.set(index, sql);
        return base.withSetup(base.tables(), setup);
    }

    /** Without the tables {@code gone}: their CREATE TABLE, indexes, rows, references to them and every statement naming them. */
    static CaseEdits.Edit dropTables(TestCase base, Set<String> gone) {
        List<String> setup = new ArrayList<>();
        for (String sql : base.setup()) {
            String created = SchemaText.createdTable(sql);
            if (created != null && contains(gone, created)) {
                continue;
            }
            String indexed = SchemaText.indexedTable(sql);
            if (indexed != null && contains(gone, indexed)) {
                continue;
            }
            Optional<SchemaText.Insert> ins = SchemaText.insert(sql);
            if (ins.isPresent() && contains(gone, ins.get().table())) {
                continue;
            }
            String s = sql;
            for (String g : gone) {
                if (created != null) {
                    s = SchemaText.dropReferencesTo(s, g);
                }
            }
            if (gone.stream().anyMatch(g -> Sql.mentions(sql, g)) && created == null) {
                continue; // another setup statement about a dropped table (INSERT ... SELECT)
            }
            setup.add(s);
        }
        List<String> tables = base.tables().stream().filter(t -> !contains(gone, t)).toList();
        Set<StmtRef> drop = new HashSet<>();
        for (StmtRef r : CaseEdits.dataRefs(base)) {
            String sql = withPlain(base.stmt(r));
            if (gone.stream().anyMatch(g -> Sql.mentions(sql, g))) {
                drop.add(r);
            }
        }
        TestCase c = base.withSetup(tables, setup);
        if (drop.size() == CaseEdits.dataRefs(base).size()) {
            return null;
        }
        return CaseEdits.removeStmts(c, drop);
    }

    private static boolean contains(Set<String> names, String name) {
        return names.stream().anyMatch(n -> n.equalsIgnoreCase(name));
    }

    /**
     * Without column {@code col} of {@code table}, or null when something other than INSERT column
     * lists mentions it: the CREATE TABLE, the table's indexes, another table, or a statement.
     */
    static TestCase dropColumn(TestCase base, String table, String col) {
        List<String> setup = new ArrayList<>(base.setup());
        int position = -1;
        for (int i = 0; i < setup.size(); i++) {
            String sql = setup.get(i);
            String created = SchemaText.createdTable(sql);
            if (created != null && created.equalsIgnoreCase(table)) {
                position = SchemaText.columns(sql).stream().map(String::toLowerCase).toList().indexOf(col.toLowerCase());
                if (Sql.count(Sql.tokens(sql), col) != 1) {
                    return null; // a table constraint or another column's CHECK names it
                }
                Optional<String> s = SchemaText.dropColumnDef(sql, col);
                if (s.isEmpty()) {
                    return null;
                }
                setup.set(i, s.get());
            }
        }
        if (position < 0) {
            return null;
        }
        for (int i = 0; i < setup.size(); i++) {
            String sql = setup.get(i);
            String created = SchemaText.createdTable(sql);
            if (created != null) {
                if (!created.equalsIgnoreCase(table) && Sql.mentions(sql, table) && Sql.mentions(sql, col)) {
                    return null; // a reference to it, perhaps
                }
                continue;
            }
            Optional<SchemaText.Insert> ins = SchemaText.insert(sql);
            if (ins.isPresent() && ins.get().table().equalsIgnoreCase(table)) {
                Optional<String> s = SchemaText.dropInsertColumn(sql, col, position);
                if (s.isEmpty()) {
                    return null;
                }
                setup.set(i, s.get());
            } else if (Sql.mentions(sql, table) && Sql.mentions(sql, col)) {
                return null;
            }
        }
        Map<StmtRef, String> rewritten = new HashMap<>();
        for (StmtRef r : CaseEdits.dataRefs(base)) {
            String sql = withPlain(base.stmt(r));
            if (!Sql.mentions(sql, table)) {
                continue;
            }
            Optional<SchemaText.Insert> ins = SchemaText.insert(sql);
            if (ins.isPresent() && ins.get().table().equalsIgnoreCase(table)) {
                Optional<String> s = SchemaText.dropInsertColumn(sql, col, position);
                if (s.isEmpty()) {
                    return null;
                }
                if (!s.get().equals(sql)) {
                    rewritten.put(r, s.get());
                }
            } else if (Sql.mentionsColumn(sql, table, col) || sql.contains("*") && !sql.contains("(*)")) {
                return null;
            }
        }
        TestCase c = base.withSetup(base.tables(), setup);
        for (var e : rewritten.entrySet()) {
            c = CaseEdits.replaceSql(c, e.getKey(), e.getValue());
        }
        return c;
    }

    /**
     * A statement's text with the program's statement its tracking records beside it (an aggregate's):
     * a table or column that one names cannot go either.
     */
    private static String withPlain(txfuzz.model.Stmt s) {
        return s.tracking() == null || s.tracking().plain() == null ? s.sql() : s.sql() + " " + s.tracking().plain();
    }

    /** For tests and the command line: the kinds of statements in a case, in submitted order. */
    static List<StmtKind> kinds(TestCase c) {
        List<StmtKind> out = new ArrayList<>();
        for (StmtRef r : c.submittedOrder()) {
            out.add(c.stmt(r).kind());
        }
        return out;
    }
}
