package txfuzz.exec;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import txfuzz.model.DbState;
import txfuzz.model.StmtRef;

/**
 * What actually happened when a test case ran.
 *
 * @param schedule   statements in order of completion (the actual schedule); statements of a
 *                   transaction after it was aborted never ran and are absent
 * @param outcomes   how each transaction ended, by id
 * @param endOrder   transaction ids in the order they ended (commit, rollback or abort): the
 *                   First-Commit/Rollback-First-Scheduled order
 * @param finalState database contents after every transaction ended
 * @param stalls     times every remaining transaction waited and the engine did not break the
 *                   cycle within the stall timeout, so the executor cancelled one
 * @param hung       statements that ran past the statement timeout without waiting on a lock and
 *                   were cancelled: the engine hung (a finding of the explicit oracle)
 * @param hangEvidence for statements in {@code hung}, what the engine said while txfuzz decided
 *                   (absent where the runner collected none)
 * @param refusedSettings session settings of the case ({@link txfuzz.model.Txn#settings}) the engine refused, in the
 *                   order they were run: those sessions ran without them
 */
public record Trace(List<ExecutedStmt> schedule, Map<Integer, TxnOutcome> outcomes, List<Integer> endOrder,
                    DbState finalState, int stalls, List<StmtRef> hung, Map<StmtRef, HangEvidence> hangEvidence,
                    List<RefusedSetting> refusedSettings) {
    /** A session setting the engine did not take: on which transaction's session, and the engine's error. */
    public record RefusedSetting(int txn, String setting, String error) {
    }

    public Trace {
        refusedSettings = List.copyOf(refusedSettings);
        hung = List.copyOf(hung);
        hangEvidence = Map.copyOf(hangEvidence);
        schedule = List.copyOf(schedule);
        outcomes = Map.copyOf(outcomes);
        endOrder = List.copyOf(endOrder);
    }

    public Trace(List<ExecutedStmt> schedule, Map<Integer, TxnOutcome> outcomes, List<Integer> endOrder,
                 DbState finalState, int stalls, List<StmtRef> hung) {
        this(schedule, outcomes, endOrder, finalState, stalls, hung, Map.of());
    }

    /** A run whose sessions took every setting the case gave them. */
    public Trace(List<ExecutedStmt> schedule, Map<Integer, TxnOutcome> outcomes, List<Integer> endOrder,
                 DbState finalState, int stalls, List<StmtRef> hung, Map<StmtRef, HangEvidence> hangEvidence) {
        this(schedule, outcomes, endOrder, finalState, stalls, hung, hangEvidence, List.of());
    }

    public Optional<ExecutedStmt> executed(StmtRef ref) {
        return schedule.stream().filter(e -> e.ref().equals(ref)).findFirst();
    }

    public long blockedCount() {
        return schedule.stream().filter(ExecutedStmt::blocked).count();
    }

    /** Position of {@code ref} in the schedule, or -1 when it never ran. */
    public int position(StmtRef ref) {
        for (int i = 0; i < schedule.size(); i++) {
            if (schedule.get(i).ref().equals(ref)) {
                return i;
            }
        }
        return -1;
    }

    public TxnOutcome outcome(int txn) {
        return outcomes.get(txn);
    }

    /**
     * This trace first, then the recordings of the same run that differ only in the order of statements found finished in
     * one sweep ({@link ExecutedStmt#resumedWith}), where no named wait fixes it; at most {@code limit} in all.
     */
    public List<Trace> possibleRecordings(int limit) {
        return SweepRecordings.of(this, limit);
    }
}
