package txfuzz.oracle.wss;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Trace;
import txfuzz.model.StmtKind;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;

/**
 * When a snapshot-reading transaction took the snapshot a statement reads a table from, as a schedule
 * position (the number of statements completed before it: a transaction that committed at a smaller
 * position is in the snapshot). Which statement takes it is the level's documented rule.
 */
final class SnapshotPoints {
    /** Which statement of a transaction takes the snapshot a table is read from. */
    enum Rule {
        /** its BEGIN (its first statement when it has none) */
        AT_BEGIN,
        /** its first statement after BEGIN, for every table */
        AT_FIRST_STATEMENT,
        /**
         * for each table, the first statement of the transaction that reads it, or reads a table whose snapshot the engine
         * takes with it (H2's REPEATABLE READ: a table with a foreign key to the one read); what a statement reads is
         * {@link SnapshotReads}'s; where that cannot be told (a form it does not know, or a statement that reads and failed
         * other than on a constraint: H2 pins nothing for an error raised while it prepares the statement, the tables it
         * reads for one raised while it runs), the first statement whose text names the table, as before
         */
        PER_TABLE_AT_FIRST_READ
    }

    private final TestCase testCase;
    private final Trace trace;
    private final Rule rule;
    /** Per table (lower case), the other tables whose snapshot the engine takes when a statement reads it. */
    private final Map<String, Set<String>> takenWith;
    /** Whether a waiting first statement takes its snapshot as of its resumption ({@link #withWaitingFirstStatementsRestarted}). */
    private final boolean restartWaitingFirst;
    /** Per executed statement, the tables (lower case) whose snapshot it takes; empty: cannot tell, go by the names. */
    private final Map<StmtRef, Optional<Set<String>>> pinned;

    SnapshotPoints(TestCase testCase, Trace trace, Rule rule) {
        this(testCase, trace, rule, Map.of());
    }

    SnapshotPoints(TestCase testCase, Trace trace, Rule rule, Map<String, Set<String>> takenWith) {
        this(testCase, trace, rule, takenWith, false, new HashMap<>(), new HashMap<>());
    }

    private SnapshotPoints(TestCase testCase, Trace trace, Rule rule, Map<String, Set<String>> takenWith, boolean restartWaitingFirst,
                           Map<StmtRef, Optional<Set<String>>> pinned, Map<String, Pattern> namePatterns) {
        this.testCase = testCase;
        this.trace = trace;
        this.rule = rule;
        this.takenWith = takenWith;
        this.restartWaitingFirst = restartWaitingFirst;
        this.pinned = pinned;
        this.namePatterns = namePatterns;
    }

    /**
     * The same rule, but a transaction's first effective statement that waited for a lock, with nothing but its BEGIN
     * before it, takes its snapshot (and its BEGIN's) as of its resumption: it may have been restarted on a snapshot taken
     * after the wait, since nothing the transaction did before could tell — the run is then that of a transaction begun
     * when the statement resumed (H2 at REPEATABLE READ: an autocommit DELETE FROM t that waited for a writer of t's row
     * deletes the version that writer committed). An alternative to the rule's own points, not a replacement: at
     * SNAPSHOT, H2's waiting statement reads the snapshot from before its wait. DeviationExplainer's first-committer-wins
     * check takes the transactions that committed before the resumption as not concurrent either way.
     */
    SnapshotPoints withWaitingFirstStatementsRestarted() {
        return new SnapshotPoints(testCase, trace, rule, takenWith, true, pinned, namePatterns);
    }

    /**
     * The position of the snapshot statement {@code at} of its transaction reads {@code table} from;
     * {@code firstBodyStatement} is the transaction's first effective statement. A table the
     * transaction has not read by then (per table rule) is read as of {@code at}'s submission.
     */
    int point(StmtRef at, String table, StmtRef firstBodyStatement) {
        return switch (rule) {
            case AT_BEGIN -> takenBy(testCase.txn(at.txn()).explicit() ? new StmtRef(at.txn(), 0) : firstBodyStatement, firstBodyStatement);
            case AT_FIRST_STATEMENT -> takenBy(firstBodyStatement, firstBodyStatement);
            case PER_TABLE_AT_FIRST_READ -> takenBy(firstRead(at, table).orElse(at), firstBodyStatement);
        };
    }

    /** The position of the snapshot statement {@code by} takes (see {@link #withWaitingFirstStatementsRestarted}). */
    private int takenBy(StmtRef by, StmtRef firstBodyStatement) {
        boolean beganThere = by.equals(firstBodyStatement) || by.txn() == firstBodyStatement.txn() && by.index() < firstBodyStatement.index();
        if (restartWaitingFirst && beganThere && restartable(trace, testCase, firstBodyStatement)) {
            return trace.position(firstBodyStatement);
        }
        return submitted(by);
    }

    /** Whether {@code firstBodyStatement}, its transaction's first effective statement, waited with nothing but a BEGIN before it. */
    static boolean restartable(Trace trace, TestCase testCase, StmtRef firstBodyStatement) {
        return trace.executed(firstBodyStatement).map(ExecutedStmt::blocked).orElse(false) && onlyBeginBefore(trace, testCase, firstBodyStatement);
    }

    /** Whether every statement of {@code ref}'s transaction that ran before it is a BEGIN (a failed one could have read). */
    private static boolean onlyBeginBefore(Trace trace, TestCase testCase, StmtRef ref) {
        for (int i = 0; i < ref.index(); i++) {
            StmtRef before = new StmtRef(ref.txn(), i);
            if (trace.executed(before).isPresent() && testCase.stmt(before).kind() != StmtKind.BEGIN) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether, by the per-table rule, {@code at}'s transaction has taken no snapshot of {@code table} up to and including
     * {@code at}: the table is then read as of {@code at}'s submission, and {@code at} only writes it.
     */
    boolean noSnapshotTakenOf(StmtRef at, String table) {
        return rule == Rule.PER_TABLE_AT_FIRST_READ && firstRead(at, table).isEmpty();
    }

    /** The first executed statement of {@code at}'s transaction, up to {@code at}, that takes {@code table}'s snapshot. */
    private Optional<StmtRef> firstRead(StmtRef at, String table) {
        String key = table.toLowerCase(Locale.ROOT);
        for (int i = 0; i <= at.index(); i++) {
            StmtRef ref = new StmtRef(at.txn(), i);
            if (trace.executed(ref).isEmpty()) {
                continue;
            }
            Optional<Set<String>> tables = pinned.computeIfAbsent(ref, this::pinnedBy);
            if (tables.isPresent() ? tables.get().contains(key) : names(ref, table)) {
                return Optional.of(ref);
            }
        }
        return Optional.empty();
    }

    /**
     * The tables whose snapshot executed statement {@code ref} takes: those it reads and those the engine takes with
     * them. A statement that reads nothing takes none, failed or not (measured: an INSERT ... VALUES failing on a key, an
     * UPDATE without WHERE failing). One that reads and failed took them when it failed while running (measured: 22012,
     * 23503, 23505), none when it failed while H2 prepared it (42001, 42102, 42122, and 22018 from a constant): only a
     * constraint violation (SQLSTATE class 23) is surely raised while running, any other failure cannot be told.
     * Empty: cannot tell.
     */
    private Optional<Set<String>> pinnedBy(StmtRef ref) {
        Set<String> named = new HashSet<>();
        testCase.tables().stream().filter(t -> names(ref, t)).forEach(t -> named.add(t.toLowerCase(Locale.ROOT)));
        // A statement reads only tables it names (BEGIN, COMMIT, SELECT 1 read none), and a SELECT reads every table it
        // names (SnapshotReads): only writes need the parse, which costs.
        Optional<Set<String>> reads = named.isEmpty() ? Optional.of(Set.of())
                : testCase.stmt(ref).kind() == StmtKind.SELECT ? Optional.of(named) : SnapshotReads.of(testCase.stmt(ref).sql());
        if (reads.isEmpty() || reads.get().isEmpty()) {
            return reads;
        }
        if (!trace.executed(ref).map(e -> ranBeforeFailing(e.result())).orElse(false)) {
            return Optional.empty();
        }
        Set<String> out = new HashSet<>(reads.get());
        reads.get().forEach(table -> out.addAll(takenWith.getOrDefault(table, Set.of())));
        return Optional.of(out);
    }

    /** Per table, the pattern of its name as a statement's text writes it: compiled once per case, not per statement. */
    private final Map<String, Pattern> namePatterns;

    /** Whether {@code ref}'s text names {@code table}. */
    private boolean names(StmtRef ref, String table) {
        Pattern name = namePatterns.computeIfAbsent(table, t -> Pattern.compile("(?<![\\w\"`'])\"?" + Pattern.quote(t) + "\"?(?![\\w\"`'])",
                Pattern.CASE_INSENSITIVE));
        return name.matcher(testCase.stmt(ref).sql()).find();
    }

    /** Succeeded, or failed on a constraint, which H2 checks on each row it writes: after the statement took its snapshots. */
    private static boolean ranBeforeFailing(txfuzz.exec.StmtResult result) {
        return !result.failed() || result.error().sqlState() != null && result.error().sqlState().startsWith("23");
    }

    private int submitted(StmtRef ref) {
        return trace.executed(ref).map(ExecutedStmt::completedBefore).orElse(0);
    }
}
