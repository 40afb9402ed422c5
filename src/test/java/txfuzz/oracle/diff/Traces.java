package txfuzz.oracle.diff;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import txfuzz.dbms.ErrorClass;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.StmtResult;
import txfuzz.exec.Trace;
import txfuzz.exec.TxnOutcome;
import txfuzz.exec.TxnStatus;
import txfuzz.model.DbState;
import txfuzz.model.StmtRef;

/** Hand-built traces for the engine-free tests: statements in completion order, then the final state. */
final class Traces {
    private final List<ExecutedStmt> schedule = new ArrayList<>();
    private final Map<Integer, TxnOutcome> outcomes = new HashMap<>();
    private final List<Integer> endOrder = new ArrayList<>();
    private int stalls;

    static Traces trace() {
        return new Traces();
    }

    static StmtRef ref(int txn, int index) {
        return new StmtRef(txn, index);
    }

    private Traces add(StmtRef r, StmtResult result, boolean blocked) {
        schedule.add(new ExecutedStmt(r, result, blocked, schedule.size(), schedule.size(), -1));
        return this;
    }

    Traces ok(int txn, int index) {
        return add(ref(txn, index), StmtResult.ok(), false);
    }

    Traces count(int txn, int index, long n) {
        return add(ref(txn, index), StmtResult.ofCount(n), false);
    }

    Traces blockedCount(int txn, int index, long n) {
        return add(ref(txn, index), StmtResult.ofCount(n), true);
    }

    /** A statement that waited, submitted when only the statements at positions below {@code completedBefore} had completed. */
    Traces blockedCount(int txn, int index, long n, int completedBefore) {
        schedule.add(new ExecutedStmt(ref(txn, index), StmtResult.ofCount(n), true, schedule.size(), completedBefore, -1));
        return this;
    }

    Traces rows(int txn, int index, List<List<String>> rows) {
        return add(ref(txn, index), StmtResult.ofRows(rows), false);
    }

    Traces error(int txn, int index, ErrorClass c) {
        return add(ref(txn, index), StmtResult.failed(new StmtResult.EngineError(c, "00000", 0, "message of the engine")), false);
    }

    Traces errorWithOtherMessage(int txn, int index, ErrorClass c) {
        return add(ref(txn, index), StmtResult.failed(new StmtResult.EngineError(c, "23505", 1062, "another engine's words")), false);
    }

    Traces blockedError(int txn, int index, ErrorClass c) {
        return add(ref(txn, index), StmtResult.failed(new StmtResult.EngineError(c, "00000", 0, "message of the engine")), true);
    }

    Traces ended(int txn, TxnStatus status, int causeIndex) {
        outcomes.put(txn, new TxnOutcome(status, ref(txn, causeIndex), status.name()));
        endOrder.add(txn);
        return this;
    }

    Traces stalled() {
        stalls++;
        return this;
    }

    Trace state(List<List<String>> rowsOfT) {
        return new Trace(schedule, outcomes, endOrder, state0(rowsOfT), stalls, List.of());
    }

    static DbState state0(List<List<String>> rowsOfT) {
        return new DbState(Map.of("t", rowsOfT));
    }
}
