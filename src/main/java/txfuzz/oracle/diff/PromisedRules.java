package txfuzz.oracle.diff;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Promise;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.StmtResult;
import txfuzz.exec.Trace;
import txfuzz.exec.TxnOutcome;
import txfuzz.model.DbState;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;
import txfuzz.oracle.SerialReplay;

/**
 * DT2's second way to a bug candidate (issue 23 item 3): a side that breaks a rule both subjects' levels promise,
 * where the other side keeps it, with no own oracle of its own flagging the divergence. Asked by {@link Triage}
 * only then. Each rule applies only when both sides promise it at the levels they ran ({@link Rule#promisedBy}):
 * <ul>
 *   <li>{@link Rule#SERIAL_REPLAY} (both serializable): the final state is the one some serial order of the side's
 *       committed transactions leaves (its commit order first, then every other order, up to four transactions);</li>
 *   <li>{@link Rule#READS_IN_COMMIT_ORDER} (both serializable in commit order, as the profiles say): each query of a
 *       committed transaction returns the rows it returns in the serial replay in commit order;</li>
 *   <li>{@link Rule#FIRST_COMMITTER_WINS} (both snapshot isolation): a write the other side failed with a
 *       write conflict (a serialization failure, or a deadlock with no other transaction open) did not commit here
 *       beside a concurrent transaction that changed rows and committed
 *       (the other side's engine found the two in conflict; this one let both commit).</li>
 * </ul>
 * A side is a culprit only when it breaks a rule the other side keeps, and the break involves the divergence's
 * transaction (or the divergence is the final state): never from the divergence alone. The serial replays are the
 * wss oracle's ({@link SerialReplay}); running them is the caller's engine step ({@link Replay}), so this class
 * is tested without an engine.
 */
public final class PromisedRules {
    /** Every serial order is tried for the final state of up to this many committed transactions (24 orders). */
    static final int MAX_TRANSACTIONS = 4;

    /** A rule a level's promise includes. */
    public enum Rule {
        SERIAL_REPLAY("same serial replay result", "the committed transactions leave the database as one of their serial orders does"),
        READS_IN_COMMIT_ORDER("serializable-in-commit-order reads", "each query of a committed transaction returns the rows it returns when"
                + " the committed transactions run one after another in commit order"),
        FIRST_COMMITTER_WINS("first-committer-wins", "of two concurrent transactions that change one row, at most one commits");

        private final String label;
        private final String meaning;

        Rule(String label, String meaning) {
            this.label = label;
            this.meaning = meaning;
        }

        public String label() {
            return label;
        }

        public String meaning() {
            return meaning;
        }

        /** Whether a level keeping {@code p} promises this rule. */
        public boolean promisedBy(Promised p) {
            return switch (this) {
                case SERIAL_REPLAY -> p.promise() == Promise.SERIALIZABLE;
                case READS_IN_COMMIT_ORDER -> p.promise() == Promise.SERIALIZABLE && p.readsInCommitOrder();
                case FIRST_COMMITTER_WINS -> p.promise() == Promise.SNAPSHOT_ISOLATION;
            };
        }
    }

    /** The engine step: runs these transactions, in this submitted order, on the side's engine from the case's setup. */
    @FunctionalInterface
    public interface Replay {
        Trace run(List<Txn> transactions, List<Integer> order) throws Exception;
    }

    /**
     * What one side promises at the level it ran, and how to replay on it.
     *
     * @param promise            the level's standard promise ({@code Target.promise})
     * @param readsInCommitOrder whether its profile says reads must match the commit-order serial replay
     * @param manual             where the engine documents the promise
     */
    public record Promised(Promise promise, boolean readsInCommitOrder, String manual, Replay replay) {
    }

    /**
     * A promised rule one side broke where the other kept it.
     *
     * @param left       whether the side is the left one of the comparison
     * @param side       its label
     * @param statements the statements the break involves
     * @param evidence   what shows it, in words
     * @param otherKept  whether the other side kept the rule (false: a version broke its own promise, whatever the other did)
     */
    public record Break(Rule rule, boolean left, String side, List<StmtRef> statements, String evidence, boolean otherKept) {
        public Break {
            statements = List.copyOf(statements);
        }

        public Break(Rule rule, boolean left, String side, List<StmtRef> statements, String evidence) {
            this(rule, left, side, statements, evidence, true);
        }

        /** The sentence Triage gives it. */
        public String sentence() {
            return otherKept ? side + " breaks " + rule.label() + ", which the other side keeps: " + evidence
                    : side + " breaks " + rule.label() + ", which its own level promises (a result no version may give at this level): " + evidence;
        }
    }

    /** The breaks that make a side a bug candidate, and a sentence per rule checked (or why none was). */
    public record Outcome(List<Break> breaks, List<String> evidence) {
        public Outcome {
            breaks = List.copyOf(breaks);
            evidence = List.copyOf(evidence);
        }

        public boolean brokeLeft() {
            return breaks.stream().anyMatch(Break::left);
        }

        public boolean brokeRight() {
            return breaks.stream().anyMatch(b -> !b.left());
        }
    }

    /** What one side's check of one rule found. */
    private record Finding(Kept kept, List<StmtRef> statements, String evidence) {
        static Finding broken(List<StmtRef> statements, String evidence) {
            return new Finding(Kept.BROKEN, statements, evidence);
        }

        static Finding kept(String evidence) {
            return new Finding(Kept.KEPT, List.of(), evidence);
        }

        static Finding undecided(String evidence) {
            return new Finding(Kept.UNDECIDED, List.of(), evidence);
        }
    }

    private enum Kept { KEPT, BROKEN, UNDECIDED }

    private final Promised left;
    private final Promised right;

    public PromisedRules(Promised left, Promised right) {
        this.left = left;
        this.right = right;
    }

    /** The rules both sides promise, checked on both runs of {@code c}. */
    public Outcome check(TestCase c, Divergence d, Side leftSide, SideRun leftRun, Side rightSide, SideRun rightRun) {
        return check(c, d, leftSide, leftRun, rightSide, rightRun, false);
    }

    /**
     * As {@link #check(TestCase, Divergence, Side, SideRun, Side, SideRun)}; {@code versionsOfOneEngine}: the sides are two
     * versions of one engine with the same settings, where a behaviour change is documented only when each run keeps its own
     * level's promise. Then a side that breaks a rule it judges on its own run alone (the serial replay result, reads in
     * commit order) is a culprit whether or not the other side keeps it, and wherever in the case the break is: its
     * result is wrong. First-committer-wins rests on the other side's abort, and stays attributed as before.
     */
    public Outcome check(TestCase c, Divergence d, Side leftSide, SideRun leftRun, Side rightSide, SideRun rightRun, boolean versionsOfOneEngine) {
        List<Break> breaks = new ArrayList<>();
        List<String> evidence = new ArrayList<>();
        SideCheck l = new SideCheck(c, leftSide.label(), leftRun.trace(), left.replay());
        SideCheck r = new SideCheck(c, rightSide.label(), rightRun.trace(), right.replay());
        boolean allocatesKeys = allocatesKeys(c);
        for (Rule rule : Rule.values()) {
            if (!rule.promisedBy(left) || !rule.promisedBy(right)) {
                continue;
            }
            if (allocatesKeys && rule != Rule.FIRST_COMMITTER_WINS) {
                // a replay allocates generated keys anew, in its own order: its state and reads are no evidence
                evidence.add("Both levels promise " + rule.label() + ", not checked: the case's schema generates keys, which a serial"
                        + " replay allocates anew.");
                continue;
            }
            Finding lf = l.check(rule, r);
            Finding rf = r.check(rule, l);
            String promised = "Both levels promise " + rule.label() + " (" + rule.meaning() + "; " + leftSide.label() + ": " + left.manual()
                    + "; " + rightSide.label() + ": " + right.manual() + ").";
            evidence.add(promised + " " + leftSide.label() + ": " + lf.evidence() + " " + rightSide.label() + ": " + rf.evidence());
            boolean own = versionsOfOneEngine && rule != Rule.FIRST_COMMITTER_WINS;
            if (own) {
                if (lf.kept() == Kept.BROKEN) {
                    breaks.add(new Break(rule, true, leftSide.label(), lf.statements(), lf.evidence(), rf.kept() == Kept.KEPT));
                }
                if (rf.kept() == Kept.BROKEN) {
                    breaks.add(new Break(rule, false, rightSide.label(), rf.statements(), rf.evidence(), lf.kept() == Kept.KEPT));
                }
                continue;
            }
            addBreak(breaks, evidence, rule, d, true, leftSide.label(), lf, rf, rule == Rule.FIRST_COMMITTER_WINS);
            addBreak(breaks, evidence, rule, d, false, rightSide.label(), rf, lf, rule == Rule.FIRST_COMMITTER_WINS);
        }
        if (evidence.isEmpty()) {
            evidence.add("No rule is promised by both levels (" + leftSide.label() + ": " + name(left.promise()) + "; " + rightSide.label() + ": "
                    + name(right.promise()) + "), so none was checked.");
        }
        return new Outcome(breaks, evidence);
    }

    /**
     * {@code own} broke the rule: a culprit when the other side kept it (for first-committer-wins, whose evidence
     * already rests on the other side's abort, when the other side did not break it too) and the break involves
     * the divergence.
     */
    private static void addBreak(List<Break> breaks, List<String> evidence, Rule rule, Divergence d, boolean left, String label, Finding own,
                                 Finding other, boolean otherNeedNotBeDecided) {
        if (own.kept() != Kept.BROKEN) {
            return;
        }
        boolean otherKept = other.kept() == Kept.KEPT || otherNeedNotBeDecided && other.kept() != Kept.BROKEN;
        if (!otherKept) {
            if (other.kept() != Kept.BROKEN || left) { // a break on both sides is said once
                evidence.add("Not attributed: " + (other.kept() == Kept.BROKEN ? "both sides break " + rule.label() + "."
                        : label + " breaks " + rule.label() + ", but whether the other side keeps it was not decided."));
            }
            return;
        }
        if (d.at() != null && own.statements().stream().noneMatch(s -> s.txn() == d.at().txn())) {
            evidence.add("Not attributed: " + label + "'s break of " + rule.label() + " does not involve T" + d.at().txn() + ", where the subjects diverge.");
            return;
        }
        breaks.add(new Break(rule, left, label, own.statements(), own.evidence()));
    }

    /** Whether the case's setup declares a column or sequence that generates values (identity, auto-increment, serial). */
    static boolean allocatesKeys(TestCase c) {
        for (String sql : c.setup()) {
            net.sf.jsqlparser.statement.Statement st;
            try {
                st = txfuzz.gen.StatementStructure.parseOrThrow(sql);
            } catch (net.sf.jsqlparser.JSQLParserException | RuntimeException e) {
                continue;
            }
            if (st instanceof net.sf.jsqlparser.statement.create.sequence.CreateSequence) {
                return true;
            }
            if (st instanceof net.sf.jsqlparser.statement.create.table.CreateTable ct && ct.getColumnDefinitions() != null) {
                for (net.sf.jsqlparser.statement.create.table.ColumnDefinition col : ct.getColumnDefinitions()) {
                    String words = (col.getColDataType().getDataType() + " " + String.join(" ",
                            col.getColumnSpecs() == null ? List.of() : col.getColumnSpecs())).toUpperCase(java.util.Locale.ROOT);
                    if (List.of("SERIAL", "IDENTITY", "AUTO_INCREMENT", "AUTOINCREMENT", "GENERATED").stream().anyMatch(words::contains)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** "T1 → T2". */
    static String order(List<Integer> ids) {
        return ids.isEmpty() ? "(no committed transaction)" : String.join(" → ", ids.stream().map(id -> "T" + id).toList());
    }

    private static String name(Promise p) {
        return p == null ? "no promise" : p.name().replace('_', ' ').toLowerCase(java.util.Locale.ROOT);
    }

    /** One side's run, its replays (each run once) and the rule checks on them. */
    private static final class SideCheck {
        private final TestCase c;
        private final String label;
        private final Trace trace;
        private final Replay replay;
        private final Map<List<Integer>, Optional<Trace>> replays = new LinkedHashMap<>();
        private String replayFailure;

        SideCheck(TestCase c, String label, Trace trace, Replay replay) {
            this.c = c;
            this.label = label;
            this.trace = trace;
            this.replay = replay;
        }

        Finding check(Rule rule, SideCheck other) {
            return switch (rule) {
                case SERIAL_REPLAY -> serialReplay();
                case READS_IN_COMMIT_ORDER -> readsInCommitOrder();
                case FIRST_COMMITTER_WINS -> firstCommitterWins(other);
            };
        }

        private List<Integer> commitOrder() {
            return SerialReplay.committedInEndOrder(trace);
        }

        /** The replay of the committed transactions in {@code order}; empty when it failed, hung or stalled. */
        private Optional<Trace> replay(List<Integer> order) {
            return replays.computeIfAbsent(order, o -> {
                SerialReplay s = SerialReplay.of(c, trace, o);
                try {
                    Trace t = replay.run(s.testCase().transactions(), s.testCase().order());
                    if (!t.hung().isEmpty() || t.stalls() > 0) {
                        replayFailure = "the serial replay " + order(o) + " hung or stalled";
                        return Optional.empty();
                    }
                    return Optional.of(t);
                } catch (Exception e) {
                    replayFailure = "the serial replay " + order(o) + " failed (" + e.getMessage() + ")";
                    return Optional.empty();
                }
            });
        }

        private Finding serialReplay() {
            List<Integer> committed = commitOrder();
            Optional<Trace> inCommitOrder = replay(committed);
            if (inCommitOrder.isEmpty()) {
                return Finding.undecided("not decided: " + replayFailure + ".");
            }
            List<DbState.TableDiff> diff = trace.finalState().diff(inCommitOrder.get().finalState());
            if (diff.isEmpty()) {
                return Finding.kept("its final state is the one its committed transactions leave run one after another in commit order "
                        + order(committed) + ".");
            }
            if (committed.size() > MAX_TRANSACTIONS) {
                return Finding.undecided("not decided: its final state differs from the serial replay in commit order " + order(committed)
                        + ", and its " + committed.size() + " committed transactions have too many other orders to try.");
            }
            List<List<Integer>> orders = permutations(committed);
            for (List<Integer> o : orders) {
                Optional<Trace> t = replay(o);
                if (t.isEmpty()) {
                    return Finding.undecided("not decided: " + replayFailure + ".");
                }
                if (trace.finalState().diff(t.get().finalState()).isEmpty()) {
                    return Finding.kept("its final state is the one the serial order " + order(o) + " of its committed transactions leaves.");
                }
            }
            DbState.TableDiff first = diff.get(0);
            String rows = "table " + first.table() + " has " + TraceComparison.row(firstOr(first.onlyHere())) + " where the serial replay in commit order "
                    + order(committed) + " has " + TraceComparison.row(firstOr(first.onlyThere()));
            List<StmtRef> writes = new ArrayList<>();
            committed.forEach(t -> writes.addAll(SerialReplay.effective(c, trace, t)));
            return Finding.broken(writes, "its final state is what no serial order of its committed transactions " + order(committed)
                    + " leaves (all " + (orders.size() + 1) + " tried): " + rows + ".");
        }

        private static List<String> firstOr(List<List<String>> rows) {
            return rows.isEmpty() ? List.of("no such row") : rows.get(0);
        }

        private Finding readsInCommitOrder() {
            List<Integer> committed = commitOrder();
            Optional<Trace> replayed = replay(committed);
            if (replayed.isEmpty()) {
                return Finding.undecided("not decided: " + replayFailure + ".");
            }
            SerialReplay s = SerialReplay.of(c, trace, committed);
            List<StmtRef> differing = new ArrayList<>();
            List<String> how = new ArrayList<>();
            for (Map.Entry<StmtRef, StmtRef> e : s.origin().entrySet().stream().sorted(Map.Entry.comparingByValue(
                    java.util.Comparator.comparingInt(StmtRef::txn).thenComparingInt(StmtRef::index))).toList()) {
                StmtRef original = e.getValue();
                if (!c.stmt(original).kind().isRead()) {
                    continue;
                }
                StmtResult actual = trace.executed(original).map(ExecutedStmt::result).orElse(null);
                StmtResult serial = replayed.get().executed(e.getKey()).map(ExecutedStmt::result).orElse(null);
                if (actual == null || serial == null || actual.rows() == null || serial.rows() == null) {
                    continue;
                }
                if (!DbState.sorted(actual.rows()).equals(DbState.sorted(serial.rows()))) {
                    differing.add(original);
                    how.add(original + " `" + c.stmt(original).sql() + "` returned " + rows(actual.rows()) + " where the replay returns "
                            + rows(serial.rows()));
                }
            }
            if (differing.isEmpty()) {
                return Finding.kept("its committed transactions' queries return what they return in the serial replay in commit order "
                        + order(committed) + ".");
            }
            return Finding.broken(differing, "in the serial replay in commit order " + order(committed) + ", " + String.join("; ", how) + ".");
        }

        private static String rows(List<List<String>> rows) {
            return rows.isEmpty() ? "no rows" : String.join(" ", rows.stream().map(TraceComparison::row).toList());
        }

        /**
         * A write that succeeded and committed here while the other side failed it (or its transaction's commit) as a
         * write conflict ({@link #conflictAt}), beside a transaction that changed rows, committed on both sides, and here committed
         * after this write's transaction had begun and before this write completed.
         */
        private Finding firstCommitterWins(SideCheck other) {
            List<StmtRef> involved = new ArrayList<>();
            List<String> how = new ArrayList<>();
            for (ExecutedStmt w : trace.schedule()) {
                StmtRef ref = w.ref();
                int u = ref.txn();
                if (!c.stmt(ref).kind().isWrite() || w.result().failed() || w.result().updateCount() < 1 || !committed(trace, u)
                        || !other.failedAsWriteConflict(ref)) {
                    continue;
                }
                ExecutedStmt first = firstBody(trace, u);
                int at = trace.position(ref);
                for (int t : trace.endOrder()) {
                    if (t == u || !committed(trace, t) || !committed(other.trace, t)) {
                        continue;
                    }
                    int commit = trace.position(trace.outcome(t).cause());
                    Optional<ExecutedStmt> write = changedRowsBefore(t, commit);
                    // T committed after U's first statement was sent (U's snapshot is no older) and before W completed
                    if (commit >= first.completedBefore() && commit < at && write.isPresent()) {
                        involved.add(write.get().ref());
                        involved.add(ref);
                        how.add("T" + u + " began (" + first.ref() + " was sent) before T" + t + " committed ("
                                + trace.outcome(t).cause() + "), which had changed rows (" + write.get().ref() + ": " + write.get().result().summary()
                                + "); then " + ref + " `" + c.stmt(ref).sql() + "` " + TraceComparison.describe(w) + ", and both committed, where "
                                + other.label + " failed " + other.conflictAt(ref) + " as a write conflict (" + other.errorAt(other.conflictAt(ref))
                                + (other.errorAt(other.conflictAt(ref)) == ErrorClass.DEADLOCK ? " with no other transaction open" : "")
                                + ": its engine found the writes in conflict) and committed T" + t);
                    }
                }
            }
            if (involved.isEmpty()) {
                return Finding.kept("no write that " + other.label + " failed as a write conflict committed here beside a concurrent writer.");
            }
            // The rule exists to keep a concurrent write from being lost. A run that equals a serial order in every read and
            // in its final state lost nothing: the concurrent write left the row as it was, and an engine that finds
            // conflicts by comparing values (H2 does) rightly lets the second writer commit. Not blamed then.
            List<Integer> committed = commitOrder();
            if (committed.size() > MAX_TRANSACTIONS) {
                return Finding.undecided("not decided: " + String.join("; ", how) + "; whether a serial order of its " + committed.size()
                        + " committed transactions gives the same reads and state was not tried (too many orders).");
            }
            List<List<Integer>> orders = new ArrayList<>();
            orders.add(committed);
            orders.addAll(permutations(committed)); // the orders other than the commit order
            for (List<Integer> o : orders) {
                Optional<Boolean> same = equalsSerial(o);
                if (same.isEmpty()) {
                    return Finding.undecided("not decided: " + replayFailure + ".");
                }
                if (same.get()) {
                    return Finding.kept("two concurrent writers of one row both committed (" + String.join("; ", how) + "), but every read and"
                            + " the final state are those of the serial order " + order(o) + ": no update was lost (a concurrent write that left"
                            + " the row as it was is no conflict to an engine that compares values).");
                }
            }
            return Finding.broken(involved.stream().distinct().toList(), String.join("; ", how)
                    + "; and no serial order of its committed transactions gives its reads and final state.");
        }

        /** Whether the committed transactions run one after another in {@code o} return every read and leave the state this run did. */
        private Optional<Boolean> equalsSerial(List<Integer> o) {
            Optional<Trace> replayed = replay(o);
            if (replayed.isEmpty()) {
                return Optional.empty();
            }
            if (!trace.finalState().diff(replayed.get().finalState()).isEmpty()) {
                return Optional.of(false);
            }
            SerialReplay s = SerialReplay.of(c, trace, o);
            for (Map.Entry<StmtRef, StmtRef> e : s.origin().entrySet()) {
                if (!c.stmt(e.getValue()).kind().isRead()) {
                    continue;
                }
                StmtResult actual = trace.executed(e.getValue()).map(ExecutedStmt::result).orElse(null);
                StmtResult serial = replayed.get().executed(e.getKey()).map(ExecutedStmt::result).orElse(null);
                if (actual == null || serial == null || actual.rows() == null || serial.rows() == null) {
                    continue;
                }
                if (!DbState.sorted(actual.rows()).equals(DbState.sorted(serial.rows()))) {
                    return Optional.of(false);
                }
            }
            return Optional.of(true);
        }

        /** A write of {@code txn} that changed rows and completed before schedule position {@code before}. */
        private Optional<ExecutedStmt> changedRowsBefore(int txn, int before) {
            for (int i = 0; i < before && i < trace.schedule().size(); i++) {
                ExecutedStmt e = trace.schedule().get(i);
                if (e.ref().txn() == txn && c.stmt(e.ref()).kind().isWrite() && !e.result().failed() && e.result().updateCount() > 0) {
                    return Optional.of(e);
                }
            }
            return Optional.empty();
        }

        /** Whether {@code write}, or the end of its transaction, failed here as a write conflict. */
        private boolean failedAsWriteConflict(StmtRef write) {
            return conflictAt(write) != null;
        }

        /**
         * The statement ({@code write} or its transaction's end) that failed here as a write conflict, or null: a
         * serialization failure, or a "deadlock" while no other transaction was open, so that no cycle could exist
         * (H2 reports a row changed since the snapshot as a deadlock once the writer it waited for has committed).
         */
        private StmtRef conflictAt(StmtRef write) {
            if (writeConflict(write)) {
                return write;
            }
            TxnOutcome end = trace.outcome(write.txn());
            return end != null && !end.status().committed() && end.cause() != null && end.cause().index() > write.index()
                    && writeConflict(end.cause()) ? end.cause() : null;
        }

        private boolean writeConflict(StmtRef ref) {
            ErrorClass e = errorAt(ref);
            return e == ErrorClass.SERIALIZATION || e == ErrorClass.DEADLOCK && aloneAt(ref);
        }

        /**
         * Whether every other transaction had ended, or not begun, when {@code ref} completed: none had a statement sent
         * before then (one in flight may hold locks too) without having ended before it.
         */
        private boolean aloneAt(StmtRef ref) {
            int at = trace.position(ref);
            for (ExecutedStmt e : trace.schedule()) {
                int other = e.ref().txn();
                if (other == ref.txn() || e.completedBefore() > at) {
                    continue;
                }
                TxnOutcome end = trace.outcome(other);
                int ended = end == null || end.cause() == null ? -1 : trace.position(end.cause());
                if (ended < 0 || ended > at) {
                    return false;
                }
            }
            return true;
        }

        private ErrorClass errorAt(StmtRef ref) {
            return trace.executed(ref).map(e -> e.result().errorClass()).orElse(null);
        }

        private static boolean committed(Trace t, int txn) {
            TxnOutcome o = t.outcome(txn);
            return o != null && o.status().committed() && o.cause() != null;
        }

        /** The first statement of {@code txn} after its BEGIN: no engine takes the transaction's snapshot before it is sent. */
        private ExecutedStmt firstBody(Trace t, int txn) {
            return t.schedule().stream().filter(e -> e.ref().txn() == txn && c.stmt(e.ref()).kind() != txfuzz.model.StmtKind.BEGIN)
                    .findFirst().orElseThrow();
        }
    }

    /** Every order of {@code ids} but {@code ids} itself. */
    static List<List<Integer>> permutations(List<Integer> ids) {
        List<List<Integer>> out = new ArrayList<>();
        permute(new ArrayList<>(), new ArrayList<>(ids), out);
        out.remove(ids);
        return out;
    }

    private static void permute(List<Integer> prefix, List<Integer> rest, List<List<Integer>> out) {
        if (rest.isEmpty()) {
            out.add(List.copyOf(prefix));
            return;
        }
        for (int i = 0; i < rest.size(); i++) {
            List<Integer> p = new ArrayList<>(prefix);
            p.add(rest.get(i));
            List<Integer> r = new ArrayList<>(rest);
            r.remove(i);
            permute(p, r, out);
        }
    }
}
