package txfuzz.campaign;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import txfuzz.dbms.ErrorClass;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.StmtResult;
import txfuzz.exec.Trace;
import txfuzz.exec.TxnStatus;
import txfuzz.model.DbState;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Tracking;
import txfuzz.model.TrackedGroups;
import txfuzz.model.Txn;

/**
 * Does row tracking change what the engine does? The isolation oracle judges an instrumented case
 * (every table gains rid/wl, every write appends its tag, a DELETE becomes a tag-UPDATE and a delete
 * by tag, companions read the tagged rows). Those changes can change the engine's behaviour: an
 * UPDATE that set a row to the value it had becomes a real change, a tag-UPDATE takes locks earlier
 * or makes a snapshot engine see a conflict, a post-read starts a snapshot. A verdict on such a run is
 * about a program the user never wrote. So the campaign runs the plain twin of the case (the same data
 * statements without tracking, generated from the same seed and iteration) in the same order and
 * compares what the user can see: per data statement its error class, affected-row count, the plain
 * columns of the rows it read, and whether it waited; per transaction how it ended; and the final
 * contents without rid/wl. Any difference is an instrumentation effect, never an engine bug.
 */
public final class InstrumentationSelfCheck {
    private InstrumentationSelfCheck() {
    }

    /**
     * The outcome: {@code comparable} false when the twins do not line up statement for statement
     * (nothing was compared); otherwise the differences found, empty when the runs agree.
     */
    public record Result(boolean comparable, List<String> differences, Where where) {
        public Result {
            differences = List.copyOf(differences);
            where = where == null ? Where.NOWHERE : where;
        }

        public Result(boolean comparable, List<String> differences) {
            this(comparable, differences, Where.NOWHERE);
        }

        static Result notComparable(String why) {
            return new Result(false, List.of(why));
        }

        public boolean agrees() {
            return comparable && differences.isEmpty();
        }

        /** The report attachment: what differed and why that makes the verdict about the instrumentation. */
        public String text() {
            StringBuilder sb = new StringBuilder("The same case without txfuzz's row tracking (rid/wl columns, tags, companion statements),\n"
                    + "run in the same order, behaved differently:\n\n");
            differences.forEach(d -> sb.append("  - ").append(d).append('\n'));
            sb.append("\nSo the violation may be an effect of the instrumentation, not of the engine on the program as written.\n");
            return sb.toString();
        }
    }

    /**
     * Where the twins differed, in the plain twin's terms: the data statements whose error, waiting, affected rows or
     * rows read differed, the transactions that ended differently, and the transactions with a write when the final
     * contents differ (any of them may have left the difference).
     */
    public record Where(java.util.Set<StmtRef> statements, java.util.Set<Integer> endings, java.util.Set<Integer> finalWriters) {
        static final Where NOWHERE = new Where(java.util.Set.of(), java.util.Set.of(), java.util.Set.of());

        public Where {
            statements = java.util.Set.copyOf(statements);
            endings = java.util.Set.copyOf(endings);
            finalWriters = java.util.Set.copyOf(finalWriters);
        }

        /** Whether a statement of one of {@code txns} differed, one of them ended differently, or wrote to final contents that differ. */
        public boolean touches(java.util.Collection<Integer> txns) {
            return endings.stream().anyMatch(txns::contains) || finalWriters.stream().anyMatch(txns::contains)
                    || statements.stream().anyMatch(r -> txns.contains(r.txn()));
        }

    }

    /**
     * The plain twin's statements named by the instrumented case's: each data statement by its group's main statement,
     * each BEGIN/COMMIT/ROLLBACK by the instrumented transaction's control statement of the same kind and rank. A
     * statement with no counterpart maps to null (so a violation naming it never equals one named by the other case).
     */
    public static java.util.function.UnaryOperator<StmtRef> plainToInstrumented(TestCase instrumented, TestCase plain) {
        Map<StmtRef, StmtRef> map = new java.util.HashMap<>();
        for (Txn p : plain.transactions()) {
            Txn i;
            try {
                i = instrumented.txn(p.id());
            } catch (RuntimeException e) {
                continue;
            }
            if (i == null) {
                continue;
            }
            List<TrackedGroups.Group> groups = TrackedGroups.of(i).groups();
            List<Integer> data = dataStatements(p);
            for (int k = 0; k < data.size() && k < groups.size(); k++) {
                map.put(new StmtRef(p.id(), data.get(k)), groups.get(k).main());
            }
            for (StmtKind kind : List.of(StmtKind.BEGIN, StmtKind.COMMIT, StmtKind.ROLLBACK)) {
                List<Integer> mine = indexes(p, kind);
                List<Integer> theirs = indexes(i, kind);
                for (int k = 0; k < mine.size() && k < theirs.size(); k++) {
                    map.put(new StmtRef(p.id(), mine.get(k)), new StmtRef(i.id(), theirs.get(k)));
                }
            }
        }
        return map::get;
    }

    private static List<Integer> indexes(Txn t, StmtKind kind) {
        List<Integer> out = new ArrayList<>();
        for (int k = 0; k < t.statements().size(); k++) {
            if (t.statements().get(k).kind() == kind) {
                out.add(k);
            }
        }
        return out;
    }

    /** A plain twin's run and how it compared with the instrumented run. */
    public record Checked(Trace plainTrace, Result result) {
    }

    /**
     * Runs {@code plain} and compares it with {@code tracked}, the run of {@code instrumented}. A twin
     * that behaves differently runs once more, and the second run decides when it agrees: a wait that
     * ends in a deadlock on one run and not on the next is timing, not tracking (H2 READ COMMITTED,
     * seed 1 iteration 156: its plain twin deadlocked in 1 of 4 campaigns). Throws when the twin
     * cannot run at all. The campaign's self-check and a reduced finding's plain form both ask this.
     */
    public static Checked run(TestCase instrumented, Trace tracked, TestCase plain, txfuzz.exec.Executor executor)
            throws java.sql.SQLException, txfuzz.exec.SetupFailedException {
        Trace plainTrace = executor.run(plain);
        Result r = compare(instrumented, tracked, plain, plainTrace);
        if (r.comparable() && !r.agrees()) {
            try {
                Trace again = executor.run(plain);
                Result second = compare(instrumented, tracked, plain, again);
                if (second.agrees()) {
                    return new Checked(again, second);
                }
            } catch (java.sql.SQLException | txfuzz.exec.SetupFailedException | RuntimeException e) {
                // the first comparison stands
            }
        }
        return new Checked(plainTrace, r);
    }

    /** Compares the run of {@code instrumented} with the run of its plain twin {@code plain}. */
    public static Result compare(TestCase instrumented, Trace tracked, TestCase plain, Trace untracked) {
        if (instrumented.transactions().size() != plain.transactions().size()) {
            return Result.notComparable("the twins have different transactions");
        }
        List<String> differences = new ArrayList<>();
        java.util.Set<StmtRef> differingStatements = new java.util.LinkedHashSet<>();
        java.util.Set<Integer> differingEndings = new java.util.LinkedHashSet<>();
        for (Txn p : plain.transactions()) {
            Txn i = instrumented.txn(p.id());
            TrackedGroups grouped = TrackedGroups.of(i);
            if (grouped.problem() != null) {
                return Result.notComparable("T" + p.id() + "'s instrumented form does not group: " + grouped.problem());
            }
            List<TrackedGroups.Group> groups = grouped.groups();
            List<Integer> data = dataStatements(p);
            if (groups.size() != data.size()) {
                return Result.notComparable("T" + p.id() + "'s statements do not line up with its instrumented form");
            }
            for (int k = 0; k < data.size(); k++) {
                StmtRef ref = new StmtRef(p.id(), data.get(k));
                Optional<String> d = compareStatement(plain.stmt(ref), untracked.executed(ref), untracked, instrumented, tracked, groups.get(k));
                d.ifPresent(x -> differences.add(ref + " `" + oneLine(plain.stmt(ref).sql()) + "`: " + x));
                if (d.isPresent()) {
                    differingStatements.add(ref);
                }
            }
            TxnStatus a = untracked.outcome(p.id()).status();
            TxnStatus b = tracked.outcome(p.id()).status();
            if (a != b && !failedAlone(p, untracked, tracked)) {
                differences.add("T" + p.id() + " ended " + a + " without tracking, " + b + " with it");
                differingEndings.add(p.id());
            }
        }
        DbState withoutTracking = untracked.finalState();
        DbState withTrackingStripped = stripTracking(tracked.finalState());
        boolean finalDiffers = !withoutTracking.equals(withTrackingStripped);
        if (finalDiffers) {
            differences.add("final contents differ: " + withoutTracking.diff(withTrackingStripped));
        }
        java.util.Set<Integer> writers = new java.util.LinkedHashSet<>();
        if (finalDiffers) {
            plain.transactions().stream().filter(t -> t.statements().stream().anyMatch(x -> x.kind().isWrite())).forEach(t -> writers.add(t.id()));
        }
        return new Result(true, differences, new Where(differingStatements, differingEndings, writers));
    }

    /**
     * Whether {@code waiter}'s wait in {@code run} ended with a deadlock: another transaction's statement failed as the
     * deadlock's victim while it waited (after it was sent and before it completed, or in its sweep). Such a wait is the
     * one that closed the cycle: the engine breaks the cycle the moment it forms, and whether the client sees the waiter
     * blocked before the victim's locks are gone is timing (a MERGE that closed a cycle was seen waiting in one run of
     * either twin and not in the next, and a real bug, visible only in the tracking's columns, came out as an
     * instrumentation effect in some runs: docs/verdicts.md). The victim's error and its transaction's end are compared
     * on their own, so a twin where tracking changes the victim still differs.
     */
    /** Whether the wait of one of {@code statements} (those of one side that waited) in {@code run} ended with a deadlock. */
    private static boolean waitEndedByADeadlock(List<ExecutedStmt> statements, Trace run) {
        return statements.stream().anyMatch(e -> e.blocked() && waitEndedByADeadlock(run, e));
    }

    static boolean waitEndedByADeadlock(Trace run, ExecutedStmt waiter) {
        List<ExecutedStmt> schedule = run.schedule();
        int completed = schedule.indexOf(waiter);
        for (int i = 0; i < schedule.size(); i++) {
            ExecutedStmt other = schedule.get(i);
            boolean whileWaiting = i >= waiter.completedBefore() && i < completed
                    || waiter.resumedWith() >= 0 && other.resumedWith() == waiter.resumedWith();
            if (whileWaiting && other.ref().txn() != waiter.ref().txn() && other.result().failed()
                    && other.result().errorClass() == ErrorClass.DEADLOCK) {
                return true;
            }
        }
        return false;
    }

    /**
     * An autocommit statement that failed in both runs changed nothing either way: plain, it is a
     * transaction of its own that "commits" nothing; tracked, it sits in BEGIN … COMMIT, where an
     * engine that aborts the transaction on any error (PostgreSQL, DuckDB) reports it aborted.
     */
    private static boolean failedAlone(Txn plain, Trace untracked, Trace tracked) {
        if (plain.explicit()) {
            return false;
        }
        TxnStatus t = tracked.outcome(plain.id()).status();
        boolean plainFailed = untracked.executed(new StmtRef(plain.id(), 0)).map(e -> e.result().failed()).orElse(false);
        return plainFailed && t != TxnStatus.COMMITTED;
    }

    private static Optional<String> compareStatement(Stmt plainStmt, Optional<ExecutedStmt> plainRun, Trace untracked, TestCase instrumented,
                                                     Trace tracked, TrackedGroups.Group group) {
        Optional<ExecutedStmt> mainRun = tracked.executed(group.main());
        if (plainRun.isEmpty() || group.all().stream().allMatch(r -> tracked.executed(r).isEmpty())) {
            return plainRun.isPresent() == mainRun.isPresent() ? Optional.empty()
                    : Optional.of(plainRun.isPresent() ? "ran without tracking only" : "ran with tracking only");
        }
        ExecutedStmt plainDone = plainRun.get();
        // the group's first error is what the plain statement's error corresponds to (a failing tag-UPDATE stops a DELETE)
        ErrorClass trackedError = null;
        boolean trackedBlocked = false;
        for (StmtRef r : group.all()) {
            Optional<ExecutedStmt> e = tracked.executed(r);
            if (e.isEmpty()) {
                continue;
            }
            trackedBlocked |= e.get().blocked();
            if (trackedError == null && e.get().result().failed()) {
                trackedError = e.get().result().errorClass();
            }
        }
        ErrorClass plainError = plainDone.result().errorClass();
        if (plainError != trackedError) {
            return Optional.of((plainError == null ? "succeeded" : "failed with " + plainError) + " without tracking, "
                    + (trackedError == null ? "succeeded" : "failed with " + trackedError) + " with it");
        }
        if (plainDone.blocked() != trackedBlocked && !waitEndedByADeadlock(plainDone.blocked() ? List.of(plainDone)
                : group.all().stream().map(tracked::executed).flatMap(Optional::stream).toList(), plainDone.blocked() ? untracked : tracked)) {
            return Optional.of((plainDone.blocked() ? "waited" : "did not wait") + " without tracking, "
                    + (trackedBlocked ? "waited" : "did not wait") + " with it");
        }
        if (plainError != null || mainRun.isEmpty()) {
            return Optional.empty();
        }
        StmtResult a = plainDone.result();
        StmtResult b = mainRun.get().result();
        if (plainStmt.kind().isWrite() && a.updateCount() >= 0 && b.updateCount() >= 0 && a.updateCount() != b.updateCount()) {
            return Optional.of("affected " + a.updateCount() + " rows without tracking, " + b.updateCount() + " with it");
        }
        if (plainStmt.kind() == StmtKind.SELECT && a.rows() != null && b.rows() != null) {
            Stmt trackedStmt = instrumented.stmt(group.main());
            Optional<List<List<String>>> shown = plainColumns(trackedStmt, b.rows(), a.rows());
            if (shown.isPresent() && !sameRows(a.rows(), shown.get(), distinct(plainStmt))) {
                return Optional.of("read " + a.rows() + " without tracking, " + shown.get() + " with it");
            }
        }
        return Optional.empty();
    }

    /** A SELECT list of nothing but tracking items: the rows an aggregate or a UNION read, in its tracked form. */
    private static final java.util.regex.Pattern ONLY_TRACKING = java.util.regex.Pattern.compile(
            "SELECT (DISTINCT )?(('\\w+', )?\\w+\\.rid, \\w+\\.wl(, )?)+");

    /**
     * The plain columns of an instrumented read's rows: each row without the (rid, wl) items it leads
     * with. Empty when the read shows no plain columns (an aggregate or a UNION reads its rows instead,
     * which cannot be compared) or the widths do not match.
     */
    private static Optional<List<List<String>>> plainColumns(Stmt trackedStmt, List<List<String>> rows, List<List<String>> plainRows) {
        Tracking t = trackedStmt.tracking();
        if (t == null || t.role() != Tracking.Role.READ) {
            return Optional.of(rows);
        }
        int from = trackedStmt.sql().indexOf(" FROM ");
        if (from > 0 && ONLY_TRACKING.matcher(trackedStmt.sql().substring(0, from)).matches()) {
            return Optional.empty();
        }
        int lead = 0;
        for (String table : t.tables()) {
            lead += Tracking.TABLE_COLUMN.equals(table) ? 3 : 2;
        }
        List<List<String>> out = new ArrayList<>();
        for (List<String> r : rows) {
            out.add(r.subList(Math.min(lead, r.size()), r.size()));
        }
        if (!out.isEmpty() && !plainRows.isEmpty() && out.get(0).size() != plainRows.get(0).size()) {
            return Optional.empty();
        }
        return Optional.of(out);
    }

    private static boolean distinct(Stmt plainStmt) {
        return plainStmt.sql().regionMatches(true, 0, "SELECT DISTINCT", 0, 15);
    }

    /** As multisets; as sets for SELECT DISTINCT, whose instrumented form is distinct over (rid, wl, …) and may repeat plain rows. */
    private static boolean sameRows(List<List<String>> a, List<List<String>> b, boolean asSets) {
        List<List<String>> x = new ArrayList<>(asSets ? new java.util.LinkedHashSet<>(a) : a);
        List<List<String>> y = new ArrayList<>(asSets ? new java.util.LinkedHashSet<>(b) : b);
        return DbState.sorted(x).equals(DbState.sorted(y));
    }

    /** Indexes of a plain transaction's data statements (everything but BEGIN/COMMIT/ROLLBACK). */
    private static List<Integer> dataStatements(Txn t) {
        List<Integer> out = new ArrayList<>();
        for (int k = 0; k < t.statements().size(); k++) {
            if (!control(t.statements().get(k))) {
                out.add(k);
            }
        }
        return out;
    }

    private static boolean control(Stmt s) {
        return s.kind() == StmtKind.BEGIN || s.kind() == StmtKind.COMMIT || s.kind() == StmtKind.ROLLBACK;
    }

    /** The final contents without the two tracking columns, which every instrumented table has last. */
    static DbState stripTracking(DbState state) {
        Map<String, List<List<String>>> out = new java.util.LinkedHashMap<>();
        state.tables().forEach((table, rows) -> {
            List<List<String>> plain = new ArrayList<>();
            for (List<String> r : rows) {
                plain.add(r.size() >= 2 ? r.subList(0, r.size() - 2) : r);
            }
            out.put(table, plain);
        });
        return new DbState(Collections.unmodifiableMap(out));
    }

    private static String oneLine(String sql) {
        String s = sql.replaceAll("\\s+", " ");
        return s.length() > 80 ? s.substring(0, 77) + "..." : s;
    }
}
