package txfuzz.oracle.wss;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import txfuzz.dbms.ErrorClass;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Executor;
import txfuzz.exec.SetupFailedException;
import txfuzz.exec.StmtResult;
import txfuzz.exec.Trace;
import txfuzz.exec.TxnStatus;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;
import txfuzz.oracle.Classification;
import txfuzz.oracle.SerialReplay;
import txfuzz.oracle.Violation;

/**
 * Errors are verdicts too (issue 33 item 3). A transaction the engine aborted because one of its statements failed is left
 * out of the serial replays of the committed ones, so its failing statement is never compared: an engine that raises a
 * constraint error no serial order raises would pass. Here each such statement is replayed in a serial position: the
 * committed transactions that come before the aborted one in a commit order, then the aborted one's statements up to and
 * including the failing one (then ROLLBACK). Nothing runs after it, so the committed transactions' own comparison is
 * untouched. The error is explained when some allowed position raises the same error class there; an error of the
 * engine's concurrency control (deadlock, serialization failure, lock wait timeout, SQLite's busy) is its documented
 * mechanism and needs no replay. Anything else is an {@link WssKind#UNEXPLAINED_ERROR}, a bug candidate.
 */
final class AbortingErrors {
    /** Serial replays tried per failing statement at most: positions times commit orders. */
    static final int MAX_REPLAYS = 24;

    private AbortingErrors() {
    }

    /**
     * A statement whose error aborted its transaction.
     *
     * @param statement the failing statement (its transaction's id is the aborted transaction)
     * @param result    what it returned in the run: the error
     */
    record AbortingError(StmtRef statement, StmtResult result) {
        int txn() {
            return statement.txn();
        }

        ErrorClass errorClass() {
            return result.errorClass();
        }
    }

    /**
     * The errors that aborted a transaction and need a serial order to explain them: not the case's own ROLLBACK, not a
     * transaction txfuzz cancelled or never started, not a concurrency-control failure (deadlock, serialization, lock
     * timeout, busy: each engine documents these as how its concurrency control ends a transaction), not an engine
     * failure or lost connection (the explicit oracle's findings), and not a refusal after an earlier error (25P02).
     */
    static List<AbortingError> toJudge(TestCase c, Trace trace) {
        List<AbortingError> out = new ArrayList<>();
        for (int txn : trace.endOrder()) {
            var outcome = trace.outcome(txn);
            if (outcome.status() != TxnStatus.ABORTED || outcome.reason().startsWith("cancelled by txfuzz")) {
                continue;
            }
            Optional<ExecutedStmt> cause = trace.executed(outcome.cause());
            if (cause.isEmpty() || !cause.get().result().failed() || cause.get().result().errorClass() == null) {
                continue;
            }
            ErrorClass e = cause.get().result().errorClass();
            if (e.isConcurrencyConflict() || e.isEngineFailure() || e == ErrorClass.IN_FAILED_TRANSACTION
                    || changedARowTwice(c, outcome.cause(), cause.get().result())) {
                continue;
            }
            out.add(new AbortingError(outcome.cause(), cause.get().result()));
        }
        return out;
    }

    /**
     * The positions in {@code order} (how many of its transactions run before the aborted one) the run allows, the FCRFS
     * one first (after every transaction that ended before the aborted one did), then the others nearest first. The
     * aborted transaction follows every transaction that had ended when its first statement was submitted (it saw all
     * of them), and follows only transactions that had begun by the time its failing statement completed (a later one
     * cannot have caused the error).
     */
    static List<Integer> positions(Trace trace, List<Integer> order, AbortingError failure) {
        int began = firstSubmitted(trace, failure.txn()).map(ExecutedStmt::completedBefore).orElse(0);
        int failedAt = trace.position(failure.statement());
        Set<Integer> endedBefore = new HashSet<>();
        Set<Integer> beganBefore = new HashSet<>();
        for (int t : order) {
            if (trace.position(trace.outcome(t).cause()) < began) {
                endedBefore.add(t);
            }
            if (firstSubmitted(trace, t).map(e -> e.completedBefore() <= failedAt).orElse(false)) {
                beganBefore.add(t);
            }
        }
        int fcrfs = 0;
        List<Integer> allowed = new ArrayList<>();
        for (int k = 0; k <= order.size(); k++) {
            Set<Integer> before = Set.copyOf(order.subList(0, k));
            if (before.containsAll(endedBefore) && beganBefore.containsAll(before)) {
                allowed.add(k);
            }
            if (k < order.size() && trace.endOrder().indexOf(order.get(k)) < trace.endOrder().indexOf(failure.txn())) {
                fcrfs = k + 1;
            }
        }
        if (allowed.isEmpty()) {
            allowed.add(fcrfs); // an order that puts a later transaction before an earlier one: judge FCRFS's position at least
        }
        int first = fcrfs;
        allowed.sort(Comparator.comparingInt((Integer k) -> Math.abs(k - first)).thenComparingInt(k -> k));
        return allowed;
    }

    private static Optional<ExecutedStmt> firstSubmitted(Trace trace, int txn) {
        return trace.schedule().stream().filter(e -> e.ref().txn() == txn).min(Comparator.comparingInt(ExecutedStmt::submitSeq));
    }

    /**
     * The first {@code k} transactions of {@code order}, whole, then the aborted transaction's statements that took effect
     * before its failing one, the failing one, and ROLLBACK (unless the failing one is its COMMIT). The failing statement
     * is the aborted transaction's last but one (or last) in the serial case.
     */
    static SerialSchedule replayUpTo(TestCase c, Trace trace, List<Integer> order, int k, AbortingError failure) {
        List<Integer> before = order.subList(0, k);
        SerialReplay committed = SerialReplay.of(c, trace, before);
        List<Txn> txns = new ArrayList<>(committed.testCase().transactions());
        List<Integer> submitted = new ArrayList<>(committed.testCase().order());
        Map<StmtRef, StmtRef> origin = new java.util.HashMap<>(committed.origin());
        Txn aborted = c.txn(failure.txn());
        int id = txns.size() + 1;
        List<Stmt> stmts = new ArrayList<>();
        for (int i = 0; i <= failure.statement().index(); i++) {
            StmtRef ref = new StmtRef(failure.txn(), i);
            Optional<ExecutedStmt> e = trace.executed(ref);
            boolean undone = e.isPresent() && e.get().result().failed() && e.get().result().errorClass().isConcurrencyConflict();
            // a write of its own that changed no row had no effect in the run, whatever it read (a per-table snapshot not
            // taken yet, a dirty read): replayed after others it could remove their rows (h2-RR-s1796063364561-i42)
            boolean noEffect = e.isPresent() && c.stmt(ref).kind().isWrite() && e.get().result().updateCount() == 0;
            boolean begin = c.stmt(ref).kind() == StmtKind.BEGIN;
            if (begin || i == failure.statement().index() || (e.isPresent() && !undone && !noEffect)) {
                origin.put(new StmtRef(id, stmts.size()), ref);
                stmts.add(c.stmt(ref));
            }
        }
        if (c.stmt(failure.statement()).kind() != StmtKind.COMMIT && aborted.explicit()) {
            stmts.add(Stmt.rollback()); // what the run did after the error: nothing of it may stay (an autocommit statement is last anyway)
        }
        txns.add(aborted.with(id, stmts));
        stmts.forEach(s -> submitted.add(id));
        List<Integer> txnOrder = new ArrayList<>(before);
        txnOrder.add(failure.txn());
        return new SerialSchedule(c.withTransactions(txns, submitted), origin, txnOrder);
    }

    /**
     * READ COMMITTED's view of the failing statement: each statement sees what committed before it began. The aborted
     * transaction's statements, each as an autocommit statement, with every transaction that committed before the failing
     * statement completed run whole at its commit point: the failing statement then sees its transaction's own earlier
     * writes and everything committed before it, as at that level (a row another transaction inserted between two of its
     * statements, which a serial position cannot show). Nothing runs after the failing statement. Empty for an error
     * raised by COMMIT (no statement of its own to show it) and at levels that keep one snapshot per transaction. With
     * {@code atStart} each of its statements runs where it began (a statement that waited chose its rows then, PostgreSQL's
     * re-check aside), else where it completed.
     */
    static Optional<SerialSchedule> statementSnapshotReplay(TestCase c, Trace trace, AbortingError failure, boolean atStart) {
        var level = c.txn(failure.txn()).levelIn(c);
        if ((level != txfuzz.model.IsolationLevel.READ_COMMITTED && level != txfuzz.model.IsolationLevel.READ_UNCOMMITTED)
                || c.stmt(failure.statement()).kind() == StmtKind.COMMIT) {
            return Optional.empty();
        }
        int failedAt = trace.position(failure.statement());
        // by position in the run: the aborted one's statements (where they began, or where they completed: a statement that
        // waited chose its rows when it began) and the others' ends
        java.util.TreeMap<Double, StmtRef> steps = new java.util.TreeMap<>();
        // A write that changed no row had no effect, whatever data it read, and is left out, the failing transaction's own and
        // the committed ones' alike: at READ UNCOMMITTED a DELETE that saw another transaction's uncommitted deletion, replayed
        // without it, would remove the rows (campaigns h2-RU-s52-i12960, its own DELETE; and a newcomer's first run,
        // h2-RU-s1796062425617-i10, an autocommit DELETE of another transaction)
        Set<txfuzz.model.Stmt> noEffect = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (int i = 0; i <= failedAt; i++) {
            ExecutedStmt e = trace.schedule().get(i);
            if (!e.ref().equals(failure.statement()) && c.stmt(e.ref()).kind().isWrite() && e.result().updateCount() == 0) {
                noEffect.add(c.stmt(e.ref()));
            }
        }
        for (int i = 0; i <= failedAt; i++) {
            ExecutedStmt e = trace.schedule().get(i);
            StmtRef ref = e.ref();
            boolean own = ref.txn() == failure.txn() && !c.stmt(ref).kind().isControl() && !noEffect.contains(c.stmt(ref))
                    && (ref.equals(failure.statement()) || !e.result().failed());
            boolean committedHere = ref.txn() != failure.txn() && trace.outcome(ref.txn()).status() == TxnStatus.COMMITTED
                    && trace.outcome(ref.txn()).cause().equals(ref);
            if (own) {
                steps.put(atStart ? e.completedBefore() - 0.5 + i * 1e-6 : i, ref);
            } else if (committedHere) {
                steps.put((double) i, ref);
            }
        }
        List<Txn> txns = new ArrayList<>();
        List<Integer> submitted = new ArrayList<>();
        Map<StmtRef, StmtRef> origin = new java.util.HashMap<>();
        List<Integer> txnOrder = new ArrayList<>();
        for (StmtRef step : steps.values()) {
            int id = txns.size() + 1;
            Txn t;
            if (step.txn() == failure.txn()) {
                t = c.txn(step.txn()).with(id, List.of(c.stmt(step)));
                origin.put(new StmtRef(id, 0), step);
            } else {
                SerialReplay whole = SerialReplay.of(c, trace, List.of(step.txn()), st -> !noEffect.contains(st));
                if (whole.testCase().transactions().isEmpty()) {
                    continue;
                }
                t = whole.testCase().transactions().get(0).with(id, whole.testCase().transactions().get(0).statements());
                whole.origin().forEach((serial, original) -> origin.put(new StmtRef(id, serial.index()), original));
                txnOrder.add(step.txn());
            }
            txns.add(t);
            t.statements().forEach(x -> submitted.add(id));
        }
        txnOrder.add(failure.txn());
        return Optional.of(new SerialSchedule(c.withTransactions(txns, submitted), origin, txnOrder));
    }

    /**
     * SQLSTATE class 27, "triggered data change violation", from a statement that can start another command of its own: it
     * calls a function or procedure the case creates (by name, or through the setup: a DEFAULT, CHECK, view or trigger that
     * names it), or the case creates a trigger or rule. Such an error says the statement changed a row that an operation it
     * triggered had already changed (PostgreSQL raises 27000 "tuple to be updated was already modified by an operation
     * triggered by the current command" only where the row's change came from a later command than the statement's own:
     * a trigger's or a function's). Which of the two changes meets the row first is the engine's own execution order,
     * which no serial order of transactions decides — PostgreSQL's manual: "However, SQL commands executed in a row-level BEFORE
     * trigger will see the effects of data changes for rows previously processed in the same outer command. This requires
     * caution, since the ordering of these change events is not in general predictable; an SQL command that affects
     * multiple rows can visit the rows in any order." (trigger-datachanges.html), and a function is a command of its own
     * ("A VOLATILE function can do anything, including modifying the database.", xfunc-volatility.html) — so no replay can
     * explain or refute it: it is not judged (judge-suite, eval-plan-qual permutations 23 and 25, where a data-modifying
     * WITH calls a function that updates the row the WITH updates). A data-modifying WITH alone starts no other command:
     * "Trying to update the same row twice in a single statement is not supported. Only one of the modifications takes
     * place" (queries.html, "Data-Modifying Statements in WITH") — no error. A class-27 error of a statement that can start
     * nothing else (every statement txfuzz generates) is judged like any other error.
     */
    static boolean changedARowTwice(TestCase c, StmtRef statement, StmtResult result) {
        return result.error() != null && result.error().sqlState() != null && result.error().sqlState().startsWith("27")
                && startsOtherCommands(c, c.stmt(statement).sql());
    }

    /** A CREATE TRIGGER or CREATE RULE, after any leading comments. */
    private static final Pattern CREATES_TRIGGER = Pattern.compile(
            "^(?:\\s|--[^\\n]*(?:\\n|$)|/\\*.*?\\*/)*CREATE\\s+(?:OR\\s+REPLACE\\s+)?(?:CONSTRAINT\\s+)?(?:TRIGGER|RULE)\\b",
            Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
    /** A CREATE FUNCTION or CREATE PROCEDURE, after any leading comments; group 1 is its name. */
    private static final Pattern CREATES_FUNCTION = Pattern.compile(
            "^(?:\\s|--[^\\n]*(?:\\n|$)|/\\*.*?\\*/)*CREATE\\s+(?:OR\\s+REPLACE\\s+)?(?:FUNCTION|PROCEDURE)\\s+(?:\\w+\\.)?\"?(\\w+)\"?\\s*\\(",
            Pattern.CASE_INSENSITIVE | Pattern.DOTALL);

    /**
     * Whether {@code sql}, a statement of {@code c}, can run a command other than itself: the case creates a trigger or rule
     * (on a table it writes, or one a cascade reaches), or a function or procedure that {@code sql} or another statement of
     * the setup names (a call, a DEFAULT or CHECK, a view, a trigger's EXECUTE FUNCTION). The case's statements are searched
     * too: an imported schedule may create one in a step.
     */
    static boolean startsOtherCommands(TestCase c, String sql) {
        List<String> all = new ArrayList<>(c.setup());
        c.transactions().forEach(t -> t.statements().forEach(s -> all.add(s.sql())));
        for (String ddl : all) {
            if (CREATES_TRIGGER.matcher(ddl).find()) {
                return true;
            }
            Matcher f = CREATES_FUNCTION.matcher(ddl);
            if (!f.find()) {
                continue;
            }
            Pattern call = Pattern.compile("\\b" + Pattern.quote(f.group(1)) + "\\s*\\(",
                    Pattern.CASE_INSENSITIVE);
            if (call.matcher(sql).find() || c.setup().stream().anyMatch(other -> !other.equals(ddl) && call.matcher(other).find())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the error of {@code statement}, a failed statement of a transaction that went on (an engine whose constraint
     * errors end only the statement), is explained as an aborting one would be: by the engine's concurrency control, or by
     * an allowed serial position (or, at READ COMMITTED and below, the statement's own read point) that raises it too. A
     * visibility deviation reproducing the final state says nothing of it: the simulations skip a failed statement.
     */
    static boolean explained(TestCase c, Trace trace, Executor executor, List<List<Integer>> orders, StmtRef statement)
            throws SQLException, SetupFailedException {
        Optional<ExecutedStmt> e = trace.executed(statement);
        if (e.isEmpty() || !e.get().result().failed() || e.get().result().errorClass() == null) {
            return true;
        }
        ErrorClass cls = e.get().result().errorClass();
        if (cls.isConcurrencyConflict() || cls.isEngineFailure() || cls == ErrorClass.IN_FAILED_TRANSACTION
                || changedARowTwice(c, statement, e.get().result())) {
            return true;
        }
        // its own transaction is replayed up to the statement in each position, never before it as a committed one
        List<List<Integer>> others = orders.stream().map(o -> o.stream().filter(t -> t != statement.txn()).toList()).distinct().toList();
        return judge(c, trace, executor, others, new AbortingError(statement, e.get().result())).isEmpty();
    }

    /** The failing statements no allowed serial position explains, each as a bug candidate. */
    static List<Violation> unexplained(TestCase c, Trace trace, Executor executor, List<List<Integer>> orders)
            throws SQLException, SetupFailedException {
        List<Violation> out = new ArrayList<>();
        for (AbortingError failure : toJudge(c, trace)) {
            judge(c, trace, executor, orders, failure).ifPresent(out::add);
        }
        return out;
    }

    private static Optional<Violation> judge(TestCase c, Trace trace, Executor executor, List<List<Integer>> orders, AbortingError failure)
            throws SQLException, SetupFailedException {
        List<String> tried = new ArrayList<>();
        SerialSchedule shown = null; // the replay the report shows: the FCRFS position in the recorded order
        StmtResult shownResult = null;
        Set<List<Integer>> replayed = new HashSet<>(); // orders differing only after the position replay alike
        for (List<Integer> order : orders) {
            for (int k : positions(trace, order, failure)) {
                if (tried.size() >= MAX_REPLAYS) {
                    break;
                }
                if (!replayed.add(List.copyOf(order.subList(0, k)))) {
                    continue;
                }
                SerialSchedule serial = replayUpTo(c, trace, order, k, failure);
                Optional<StmtResult> there = replayed(executor, serial, failure);
                if (there.isPresent() && there.get().failed() && there.get().errorClass() == failure.errorClass()) {
                    return Optional.empty(); // a serial order raises it: the error is the data's, not the concurrency's
                }
                tried.add(serial.describeOrder() + ": " + outcome(there, true));
                if (shown == null) {
                    shown = serial;
                    shownResult = there.orElse(null);
                }
            }
        }
        if (shown == null) {
            return Optional.empty(); // no position to try (cannot happen: the FCRFS one is always allowed)
        }
        // Below serializability in commit order, the order the level serialized the committed transactions in need not be the
        // one they committed in (a snapshot writer serializes before a transaction it did not see): every order of those that
        // began before the error, all before the failing transaction, within what is left of the budget.
        List<Integer> beganBefore = orders.get(0).stream()
                .filter(t -> firstSubmitted(trace, t).map(e -> e.completedBefore() <= trace.position(failure.statement())).orElse(false)).toList();
        for (List<Integer> order : StateOrderSearch.permutations(beganBefore, MAX_REPLAYS)) {
            if (tried.size() >= 2 * MAX_REPLAYS || !replayed.add(order)) {
                continue;
            }
            SerialSchedule serial = replayUpTo(c, trace, order, order.size(), failure);
            Optional<StmtResult> there = replayed(executor, serial, failure);
            if (there.isPresent() && there.get().failed() && there.get().errorClass() == failure.errorClass()) {
                return Optional.empty(); // a serial order, though not the commit order, raises it
            }
            tried.add(serial.describeOrder() + ": " + outcome(there, true));
        }
        for (boolean atStart : new boolean[] {true, false}) {
            Optional<SerialSchedule> statementSnapshot = statementSnapshotReplay(c, trace, failure, atStart);
            if (statementSnapshot.isEmpty()) {
                break;
            }
            Optional<StmtResult> there = replayed(executor, statementSnapshot.get(), failure);
            if (there.isPresent() && there.get().failed() && there.get().errorClass() == failure.errorClass()) {
                return Optional.empty(); // what the level documents: the statement saw rows committed after its transaction began
            }
            tried.add("each statement of T" + failure.txn() + " on its own where it " + (atStart ? "began" : "completed")
                    + ", the others committing where they did in the run (what "
                    + c.txn(failure.txn()).levelIn(c).sql() + " lets a statement see): " + outcome(there, false));
        }
        if (c.txn(failure.txn()).levelIn(c) == txfuzz.model.IsolationLevel.READ_UNCOMMITTED) {
            Optional<SerialSchedule> dirty = dirtyPrefixReplay(c, trace, failure);
            Optional<StmtResult> there = dirty.isEmpty() ? Optional.empty() : replayed(executor, dirty.get(), failure);
            if (there.isPresent() && there.get().failed() && there.get().errorClass() == failure.errorClass()) {
                return Optional.empty(); // what READ UNCOMMITTED lets it see: others' writes, committed or not
            }
            dirty.ifPresent(d -> tried.add("every write that completed before it, each on its own in the order they completed (what READ"
                    + " UNCOMMITTED lets a statement see): " + outcome(there, false)));
        }
        Optional<Integer> keyWriter = committedKeyWriterSinceSnapshot(c, trace, failure);
        if (keyWriter.isPresent()) {
            return Optional.empty(); // the snapshot's first-committer-wins, met in the key check
        }
        return Optional.of(violation(c, failure, shown, shownResult, tried));
    }

    /**
     * A constraint error of a write whose key check met a row its view did not show as the check found it: the write acts on
     * its view while the engine checks keys against the newest data, so no serial position and no statement replay raises
     * the error, yet it is what the level's visibility gives (snapshot isolation's first-committer-wins raised as a key
     * violation, PostgreSQL's documented ON CONFLICT-less race). The view is the transaction's snapshot at levels that keep
     * one (a writer of the statement's table that committed after the failing transaction began and before the error), the
     * statement's own at READ COMMITTED and READ UNCOMMITTED (a writer that committed while the statement ran: it waited for
     * that writer). A writer still open when the error came, or one that rolled back, explains nothing: a key check that meets
     * another transaction's uncommitted key waits for it (H2, InnoDB, PostgreSQL alike), so failing at once against it is no
     * behaviour of a level (at READ UNCOMMITTED that window once hid h2-multi-row-insert-own-row-duplicate); where a dirty read
     * of an earlier statement left the data the key check meets, the visibility simulation that reproduces the final state
     * says so (DeviationExplainer#reproducedFailure). Judged by table, not by key: the transaction that wrote the table in
     * that window, or empty (also for errors other than constraint violations).
     */
    static Optional<Integer> committedKeyWriterSinceSnapshot(TestCase c, Trace trace, AbortingError failure) {
        if (failure.errorClass() != ErrorClass.CONSTRAINT) {
            return Optional.empty();
        }
        Optional<String> table = txfuzz.oracle.TableWrites.target(c.stmt(failure.statement()).sql());
        if (table.isEmpty()) {
            return Optional.empty();
        }
        var level = c.txn(failure.txn()).levelIn(c);
        int failedAt = trace.position(failure.statement());
        int submitted = trace.executed(failure.statement()).map(ExecutedStmt::completedBefore).orElse(failedAt);
        int viewAt = switch (level) {
            case READ_COMMITTED, READ_UNCOMMITTED -> submitted;
            default -> firstSubmitted(trace, failure.txn()).map(ExecutedStmt::completedBefore).orElse(0);
        };
        for (int t : trace.endOrder()) {
            var outcome = trace.outcome(t);
            if (t == failure.txn() || outcome.cause() == null) {
                continue;
            }
            int endedAt = trace.position(outcome.cause());
            boolean inWindow = outcome.status() == TxnStatus.COMMITTED && endedAt >= viewAt && endedAt <= failedAt;
            if (!inWindow) {
                continue;
            }
            for (StmtRef r : SerialSchedule.effective(c, trace, t)) {
                boolean before = trace.executed(r).map(e -> !e.result().failed() && trace.position(r) < failedAt).orElse(false);
                if (before && c.stmt(r).kind().isWrite() && txfuzz.oracle.TableWrites.target(c.stmt(r).sql())
                        .map(x -> x.equalsIgnoreCase(table.get())).orElse(false)) {
                    return Optional.of(t);
                }
            }
        }
        return Optional.empty();
    }

    /**
     * READ UNCOMMITTED's view of the failing statement: every write that completed before it, of its own transaction and of
     * those that committed (before it, or still open then and committed later), each as an autocommit statement in the order
     * they completed, then the failing one. Not the writes of a transaction that rolled back: replayed as if they stayed,
     * their keys would raise the error, where an engine meeting such a key uncommitted waits for its transaction, and finds
     * it gone (h2-multi-row-insert-own-row-duplicate at READ UNCOMMITTED hid behind them). What the failing statement or an
     * earlier one of its transaction read of them is the dirty-read simulation's to show (DeviationExplainer#reproducedFailure).
     * Empty for an error raised by COMMIT.
     */
    static Optional<SerialSchedule> dirtyPrefixReplay(TestCase c, Trace trace, AbortingError failure) {
        if (c.stmt(failure.statement()).kind() == StmtKind.COMMIT) {
            return Optional.empty();
        }
        int failedAt = trace.position(failure.statement());
        List<Txn> txns = new ArrayList<>();
        List<Integer> submitted = new ArrayList<>();
        Map<StmtRef, StmtRef> origin = new java.util.HashMap<>();
        for (int i = 0; i <= failedAt; i++) {
            ExecutedStmt e = trace.schedule().get(i);
            StmtRef ref = e.ref();
            boolean failing = ref.equals(failure.statement());
            boolean rolledBack = ref.txn() != failure.txn() && trace.outcome(ref.txn()) != null
                    && trace.outcome(ref.txn()).status() != TxnStatus.COMMITTED;
            if (!failing && (c.stmt(ref).kind().isControl() || !c.stmt(ref).kind().isWrite() || e.result().failed() || rolledBack)) {
                continue;
            }
            int id = txns.size() + 1;
            txns.add(c.txn(ref.txn()).with(id, List.of(c.stmt(ref))));
            submitted.add(id);
            origin.put(new StmtRef(id, 0), ref);
        }
        List<Integer> txnOrder = new ArrayList<>();
        for (StmtRef r : origin.values()) {
            if (!txnOrder.contains(r.txn())) {
                txnOrder.add(r.txn());
            }
        }
        return Optional.of(new SerialSchedule(c.withTransactions(txns, submitted), origin, txnOrder));
    }

    /** What the failing statement returned in {@code serial}; empty when it did not run (or the replay hung before it). */
    private static Optional<StmtResult> replayed(Executor executor, SerialSchedule serial, AbortingError failure)
            throws SQLException, SetupFailedException {
        Trace replay = executor.runSerial(serial.testCase());
        return serial.origin().entrySet().stream().filter(e -> e.getValue().equals(failure.statement()))
                .findFirst().flatMap(e -> replay.executed(e.getKey())).map(ExecutedStmt::result);
    }

    private static String outcome(Optional<StmtResult> there, boolean inItsTransaction) {
        return there.map(r -> r.failed() ? "fails with " + r.error() : "succeeds (" + r.summary() + ")")
                .orElse(inItsTransaction ? "does not run: an earlier statement of its transaction failed" : "does not run");
    }

    private static Violation violation(TestCase c, AbortingError failure, SerialSchedule shown, StmtResult shownResult, List<String> tried) {
        String sql = c.stmt(failure.statement()).sql();
        StmtResult.EngineError error = failure.result().error();
        StringBuilder md = new StringBuilder();
        md.append("Statement ").append(failure.statement()).append(" `").append(sql).append("` failed with ").append(describe(error))
                .append(", and the engine aborted T").append(failure.txn()).append(". An error needs an explanation: a serial order of the")
                .append(" committed transactions that raises it too, or a concurrency-control failure the engine documents (a deadlock,")
                .append(" a serialization failure, a lock wait timeout). txfuzz replayed T").append(failure.txn())
                .append(" up to that statement, alone, after the committed transactions that may come before it, in every position the")
                .append(" run allows (it follows every transaction that had ended when it began, and only transactions that had begun")
                .append(" when the statement failed); none raises ").append(error.errorClass()).append(" there:\n\n");
        tried.forEach(t -> md.append("- ").append(t).append('\n'));
        md.append("\n- actual: ").append(failure.result().summary()).append('\n');
        md.append("- serial ").append(shown.describeOrder()).append(": ").append(shownResult == null ? "did not run" : shownResult.summary())
                .append('\n');
        md.append("\nThe serial replay compared (").append(shown.describeOrder()).append("), one transaction after another:\n\n```sql\n");
        c.setup().forEach(s -> md.append(s.strip()).append(";\n"));
        Map<Integer, Integer> originalTxn = new java.util.HashMap<>(); // serial transaction → the run's
        shown.origin().forEach((serial, original) -> originalTxn.put(serial.txn(), original.txn()));
        for (StmtRef ref : shown.testCase().submittedOrder()) {
            StmtRef from = shown.origin().get(ref);
            Integer txn = originalTxn.get(ref.txn());
            md.append(txn == null ? "" : "/* T" + txn + " */ ").append(shown.testCase().stmt(ref).sql().strip()).append(';')
                    .append(failure.statement().equals(from) ? "   -- failed in the run" : "").append('\n');
        }
        md.append("```\n");
        String summary = WssKind.UNEXPLAINED_ERROR.label() + " at " + failure.statement() + ": " + error.errorClass() + " ["
                + error.sqlState() + "], no serial order raises it";
        return new Violation(WssKind.UNEXPLAINED_ERROR, Classification.BUG_CANDIDATE, summary, md.toString(), null,
                Map.of("serial.case.json", txfuzz.model.CaseJson.write(shown.testCase())),
                new WssEvidence(WssKind.UNEXPLAINED_ERROR, failure.statement(), failure.result(), List.of(sql), null,
                        "failed as " + error.errorClass() + ", no serial order does"));
    }

    /** An error in words, with its SQLState: "a unique-key violation (23505)", "a CONSTRAINT error (23000)". */
    static String describe(StmtResult.EngineError error) {
        String state = error.sqlState() == null ? "" : error.sqlState();
        String what = switch (state) {
            case "23505" -> "a unique-key violation";
            case "23503", "23506" -> "a foreign-key violation";
            case "23502" -> "a not-null violation";
            case "23513", "23514" -> "a check-constraint violation";
            default -> error.errorClass() == ErrorClass.CONSTRAINT ? "a constraint violation" : "an error of class " + error.errorClass();
        };
        return what + (state.isEmpty() ? "" : " (" + state + ")");
    }
}
