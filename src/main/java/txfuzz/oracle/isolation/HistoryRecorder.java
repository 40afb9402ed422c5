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

    public static History record(TestCase c, Trace trace) {
        return History.of(java.util.List.of());
    }
}
