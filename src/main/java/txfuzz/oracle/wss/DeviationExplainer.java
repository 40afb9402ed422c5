package txfuzz.oracle.wss;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToIntFunction;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Executor;
import txfuzz.exec.SetupFailedException;
import txfuzz.exec.Trace;
import txfuzz.model.DbState;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.target.Deviation;

/**
 * Tests whether a documented write-order deviation explains a WSS violation, by simulating it on
 * the engine itself: each write's effect is computed by replaying, on a fresh database, exactly
 * what the deviation says the write could see, and the effects are then applied in commit order.
 * If that reproduces the actual final state, the violation is documented behaviour. If two
 * concurrent writes changed the same row version (a lost update), the second effect no longer
 * applies and the violation stays a bug candidate.
 */
final class DeviationExplainer {
    private final TestCase testCase;
    private final Trace trace;
    private final Executor executor;
    private final List<Integer> committed;
    private final Map<List<StmtRef>, DbState> replays = new HashMap<>();

    DeviationExplainer(TestCase testCase, Trace trace, Executor executor) {
        this.testCase = testCase;
        this.trace = trace;
        this.executor = executor;
        this.committed = SerialSchedule.fcrfsCommitted(trace);
    }

    /** Whether {@code deviation} reproduces the actual final state. */
    boolean explains(Deviation deviation) throws SQLException, SetupFailedException {
        return switch (deviation) {
            // A statement sees what was committed when it began; a blocked one may instead re-read when it resumed.
            case STATEMENT_VISIBILITY -> statementVisibility(false, ExecutedStmt::completedBefore)
                    || statementVisibility(false, e -> trace.position(e.ref()));
            // Reads see uncommitted writes of statements that ran before (READ UNCOMMITTED).
            case DIRTY_VISIBILITY -> statementVisibility(true, ExecutedStmt::completedBefore)
                    || statementVisibility(true, e -> trace.position(e.ref()));
            // A transaction sees one snapshot taken when its first statement (or its BEGIN) began.
            case TRANSACTION_SNAPSHOT -> transactionSnapshot(true) || transactionSnapshot(false);
        };
    }

    private boolean statementVisibility(boolean dirty, ToIntFunction<ExecutedStmt> visibilityPoint)
            throws SQLException, SetupFailedException {
        record Effect(int position, StateDelta delta) {
        }
        List<Effect> effects = new ArrayList<>();
        for (int txn : committed) {
            List<StmtRef> own = new ArrayList<>();
            for (StmtRef ref : SerialSchedule.effective(testCase, trace, txn)) {
                ExecutedStmt e = trace.executed(ref).orElseThrow();
                List<StmtRef> prefix = seenBy(visibilityPoint.applyAsInt(e), txn, own, dirty);
                DbState before = replay(prefix);
                prefix.add(ref);
                DbState after = replay(prefix);
                effects.add(new Effect(trace.position(ref), StateDelta.between(before, after)));
                own.add(ref);
            }
        }
        effects.sort((a, b) -> Integer.compare(a.position, b.position));
        return applyAll(effects.stream().map(Effect::delta).toList());
    }

    /**
     * What a statement of {@code self} that began at schedule position {@code point} could see,
     * as statements to replay in the order they took effect: another transaction's statements at
     * its commit (or, reading dirty, where each ran), the transaction's own earlier ones where they ran.
     */
    private List<StmtRef> seenBy(int point, int self, List<StmtRef> own, boolean dirty) {
        record Placed(int at, int seq, StmtRef ref) {
        }
        List<Placed> placed = new ArrayList<>();
        for (int txn : committed) {
            if (txn == self) {
                continue;
            }
            int end = trace.position(trace.outcome(txn).cause());
            for (StmtRef ref : SerialSchedule.effective(testCase, trace, txn)) {
                int at = dirty ? trace.position(ref) : end;
                if (at < point) {
                    placed.add(new Placed(at, placed.size(), ref));
                }
            }
        }
        for (StmtRef ref : own) {
            placed.add(new Placed(trace.position(ref), placed.size(), ref));
        }
        placed.sort((a, b) -> a.at != b.at ? Integer.compare(a.at, b.at) : Integer.compare(a.seq, b.seq));
        return new ArrayList<>(placed.stream().map(Placed::ref).toList());
    }

    private boolean transactionSnapshot(boolean atFirstStatement) throws SQLException, SetupFailedException {
        List<StateDelta> effects = new ArrayList<>();
        for (int txn : committed) {
            List<StmtRef> body = SerialSchedule.effective(testCase, trace, txn);
            if (body.isEmpty()) {
                continue;
            }
            StmtRef start = atFirstStatement || !testCase.txn(txn).explicit() ? body.get(0) : new StmtRef(txn, 0);
            int point = trace.executed(start).map(ExecutedStmt::completedBefore).orElse(0);
            List<StmtRef> prefix = visibleBefore(point, txn);
            DbState before = replay(prefix);
            prefix.addAll(body);
            DbState after = replay(prefix);
            effects.add(StateDelta.between(before, after));
        }
        return applyAll(effects);
    }

    /** Effective statements of the committed transactions (other than {@code self}) that ended before schedule position {@code point}. */
    private List<StmtRef> visibleBefore(int point, int self) {
        List<StmtRef> prefix = new ArrayList<>();
        for (int txn : committed) {
            if (txn != self && trace.position(trace.outcome(txn).cause()) < point) {
                prefix.addAll(SerialSchedule.effective(testCase, trace, txn));
            }
        }
        return prefix;
    }

    private boolean applyAll(List<StateDelta> effects) throws SQLException, SetupFailedException {
        Optional<DbState> state = Optional.of(replay(List.of()));
        for (StateDelta d : effects) {
            state = state.flatMap(d::applyTo);
            if (state.isEmpty()) {
                return false;
            }
        }
        return state.get().equals(trace.finalState());
    }

    private DbState replay(List<StmtRef> statements) throws SQLException, SetupFailedException {
        List<StmtRef> key = List.copyOf(statements);
        DbState cached = replays.get(key);
        if (cached == null) {
            cached = executor.run(SerialSchedule.autocommit(testCase, key, List.of()).testCase()).finalState();
            replays.put(key, cached);
        }
        return cached;
    }
}
