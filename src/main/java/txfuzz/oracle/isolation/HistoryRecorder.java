package txfuzz.oracle.isolation;

import txfuzz.exec.Trace;
import txfuzz.history.History;
import txfuzz.model.TestCase;

/**
 * Turns the run of an instrumented case (rowId/wList columns, see gen's instrumented mode) into a
 * row-level {@link History} for the isolation checker.
 * STUB: being written; returns an empty history.
 */
public final class HistoryRecorder {
    private HistoryRecorder() {
    }

    /** Controlled runs: every transaction on a session of its own. */
    public static History record(TestCase c, Trace trace) {
        return History.of(java.util.List.of());
    }

    /** Concurrent runs: {@code slots} says which session ran each transaction (by id), and in which position. */
    public static History record(TestCase c, Trace trace, java.util.Map<Integer, txfuzz.exec.SessionSlot> slots) {
        return History.of(java.util.List.of());
    }
}
