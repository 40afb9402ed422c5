package txfuzz.oracle;

import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import txfuzz.exec.Executor;
import txfuzz.exec.SetupFailedException;
import txfuzz.exec.Trace;
import txfuzz.model.TestCase;

/**
 * Judges one run of a test case. Oracles that need other runs (serial replays) make them with
 * {@code executor}, on fresh databases of the same target. An oracle owns its violation kinds
 * ({@link #kinds()}): report/ renders what they say.
 *
 * <p>Optional capabilities, off by default: judging runs whose interleaving nobody controlled
 * ({@link #judgesUncontrolledRuns()}), and turning a violation of such a run into a controlled,
 * replayable case ({@link #witness}).
 */
public interface Oracle extends AutoCloseable {
    /** As named on the command line: {@code wss}. */
    String name();

    /** Every kind of violation it reports. */
    List<? extends ViolationKind> kinds();

    Verdict judge(Run run, Executor executor) throws SQLException, SetupFailedException;

    /** A controlled run of {@code testCase}. */
    default Verdict judge(TestCase testCase, Trace trace, Executor executor) throws SQLException, SetupFailedException {
        return judge(Run.controlled(testCase, trace), executor);
    }

    /**
     * Why it cannot judge {@code c} at all (e.g. its transactions run at different levels and its rule knows one level):
     * then its verdict on {@code c} is clean and says nothing, and the tool reports "not applicable: why". Empty: it judges.
     */
    default java.util.Optional<String> notApplicableTo(TestCase c) {
        return java.util.Optional.empty();
    }

    /** Whether it needs cases generated with row tracking (rowId/wList columns; gen's instrumented mode). */
    default boolean needsRowTracking() {
        return false;
    }

    /**
     * The generated case as this oracle needs it run (e.g. with extra reads of its own); the campaign
     * applies every oracle's preparation before the run they all judge. Unchanged by default.
     */
    default TestCase prepare(TestCase generated) {
        return generated;
    }

    /**
     * What it did so far, for summary.json (e.g. how many runs it really compared and how many it
     * could not judge): counts by name, in a stable order. Empty by default.
     */
    default java.util.Map<String, Long> figures() {
        return java.util.Map.of();
    }

    /**
     * Whether its verdict on a controlled run follows from the run's trace (and from serial replays and simulations of
     * it, which an engine repeats): then a confirming run whose trace equals the first one's shows every violation it
     * found again, without a second verdict. False for an oracle that makes concurrent runs of its own.
     */
    default boolean verdictFollowsFromTrace() {
        return false;
    }

    /** Whether its verdict on an uncontrolled run (concurrent sessions) means anything. */
    default boolean judgesUncontrolledRuns() {
        return false;
    }

    /**
     * A controlled case that may show {@code v} again, taken from the uncontrolled run it was seen
     * in (e.g. the anomaly's transactions in the order their statements completed): replayable,
     * confirmable and reducible like any generated case. Empty when the oracle has none.
     */
    default Optional<TestCase> witness(Run uncontrolled, Violation v) {
        return Optional.empty();
    }

    /**
     * {@code v}, as a run of its {@link #witness} case showed it, ready to be filed beside the
     * uncontrolled run: the oracle renames files that would be mistaken for that run's.
     */
    default Violation asWitnessed(Violation v) {
        return v;
    }

    /** Releases what it owns beyond the campaign's subjects (e.g. a server of its own); the campaign calls it once. Nothing by default. */
    @Override
    default void close() {
    }
}
