package txfuzz.oracle.wss;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToIntFunction;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Executor;
import txfuzz.exec.SetupFailedException;
import txfuzz.exec.StateLoader;
import txfuzz.exec.StateReader;
import txfuzz.exec.Trace;
import txfuzz.model.DbState;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.target.Database;
import txfuzz.target.Deviation;
import txfuzz.target.Target;

/**
 * Tests whether a documented write-order deviation explains a WSS violation, by simulating it on
 * the engine itself. Each committed write is run, on a fresh database, against exactly the data
 * the deviation says it could see (the initial state plus the effects of what was visible to it);
 * its effect is the rows it removed and added. The effects, applied in the order they happened,
 * must reproduce the actual final state. If two concurrent writes changed the same row version (a
 * lost update), the second effect no longer applies and the violation stays a bug candidate.
 */
final class DeviationExplainer {
    private final TestCase testCase;
    private final Trace trace;
    private final Executor executor;
    private final Target target;
    private final List<Integer> committed;
    private DbState initial;

    DeviationExplainer(TestCase testCase, Trace trace, Executor executor) {
        this.testCase = testCase;
        this.trace = trace;
        this.executor = executor;
        this.target = executor.target();
        this.committed = SerialSchedule.fcrfsCommitted(trace);
    }

    /** Whether {@code deviation} reproduces the actual final state. */
    boolean explains(Deviation deviation) throws SQLException, SetupFailedException {
        return switch (deviation) {
            // A statement sees what was committed when it began; a blocked one may instead re-read when it resumed.
            case STATEMENT_VISIBILITY -> statementVisibility(false, ExecutedStmt::completedBefore)
                    || statementVisibility(false, e -> trace.position(e.ref()));
            // Reads also see uncommitted writes of statements that ran before (READ UNCOMMITTED).
            case DIRTY_VISIBILITY -> statementVisibility(true, ExecutedStmt::completedBefore)
                    || statementVisibility(true, e -> trace.position(e.ref()));
            // A transaction sees one snapshot taken when its first statement (or its BEGIN) began.
            case TRANSACTION_SNAPSHOT -> transactionSnapshot(true) || transactionSnapshot(false);
        };
    }

    private record Effect(StmtRef ref, int position, int txn, StateDelta delta) {
    }

    private boolean statementVisibility(boolean dirty, ToIntFunction<ExecutedStmt> visibilityPoint) throws SQLException, SetupFailedException {
        List<StmtRef> writes = new ArrayList<>();
        for (int txn : committed) {
            writes.addAll(SerialSchedule.effective(testCase, trace, txn));
        }
        writes.sort((a, b) -> Integer.compare(trace.position(a), trace.position(b)));
        Map<Integer, Integer> endOf = new HashMap<>();
        committed.forEach(t -> endOf.put(t, trace.position(trace.outcome(t).cause())));
        List<Effect> done = new ArrayList<>();
        for (StmtRef ref : writes) {
            int point = visibilityPoint.applyAsInt(trace.executed(ref).orElseThrow());
            Optional<DbState> view = Optional.of(initial());
            for (Effect e : done) {
                boolean visible = e.txn == ref.txn() || (dirty ? e.position < point : endOf.get(e.txn) < point);
                if (visible) {
                    view = view.flatMap(e.delta::applyTo);
                }
            }
            if (view.isEmpty()) {
                return false;
            }
            Optional<StateDelta> delta = effectOn(view.get(), List.of(ref));
            if (delta.isEmpty()) {
                return false;
            }
            done.add(new Effect(ref, trace.position(ref), ref.txn(), delta.get()));
        }
        return reproducesActual(done.stream().map(Effect::delta).toList());
    }

    private boolean transactionSnapshot(boolean atFirstStatement) throws SQLException, SetupFailedException {
        Map<Integer, StateDelta> effects = new HashMap<>();
        List<StateDelta> inCommitOrder = new ArrayList<>();
        for (int txn : committed) {
            List<StmtRef> body = SerialSchedule.effective(testCase, trace, txn);
            if (body.isEmpty()) {
                continue;
            }
            StmtRef start = atFirstStatement || !testCase.txn(txn).explicit() ? body.get(0) : new StmtRef(txn, 0);
            int point = trace.executed(start).map(ExecutedStmt::completedBefore).orElse(0);
            Optional<DbState> view = Optional.of(initial());
            for (int other : committed) {
                if (effects.containsKey(other) && trace.position(trace.outcome(other).cause()) < point) {
                    view = view.flatMap(effects.get(other)::applyTo);
                }
            }
            if (view.isEmpty()) {
                return false;
            }
            Optional<StateDelta> delta = effectOn(view.get(), body);
            if (delta.isEmpty()) {
                return false;
            }
            effects.put(txn, delta.get());
            inCommitOrder.add(delta.get());
        }
        return reproducesActual(inCommitOrder);
    }

    private boolean reproducesActual(List<StateDelta> effects) throws SQLException, SetupFailedException {
        Optional<DbState> state = Optional.of(initial());
        for (StateDelta d : effects) {
            state = state.flatMap(d::applyTo);
            if (state.isEmpty()) {
                return false;
            }
        }
        return state.get().equals(trace.finalState());
    }

    private DbState initial() throws SQLException, SetupFailedException {
        if (initial == null) {
            initial = executor.run(SerialSchedule.autocommit(testCase, List.of(), List.of()).testCase()).finalState();
        }
        return initial;
    }

    /** What {@code statements}, run as autocommit statements on a database holding {@code view}, remove and add. */
    private Optional<StateDelta> effectOn(DbState view, List<StmtRef> statements) throws SQLException, SetupFailedException {
        try (Database db = target.freshDatabase()) {
            try (Connection c = db.connect(testCase.isolation(), testCase.mode()); Statement s = c.createStatement()) {
                for (String sql : testCase.setup()) {
                    s.execute(sql);
                }
                try {
                    StateLoader.load(target, c, testCase.tables(), view);
                } catch (SQLException | RuntimeException e) {
                    return Optional.empty(); // the view breaks a constraint: no state the engine could have shown
                }
                DbState before = StateReader.read(target, c, testCase.tables());
                for (StmtRef ref : statements) {
                    try {
                        s.execute(testCase.stmt(ref).sql());
                    } catch (SQLException e) {
                        // a failing statement has no effect, as in the actual run
                    }
                }
                return Optional.of(StateDelta.between(before, StateReader.read(target, c, testCase.tables())));
            } catch (SQLException e) {
                throw new SetupFailedException("cannot rebuild a state for the explanation: " + e.getMessage(), e);
            }
        }
    }
}
