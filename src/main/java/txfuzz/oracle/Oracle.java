package txfuzz.oracle;

import java.sql.SQLException;
import txfuzz.exec.Executor;
import txfuzz.exec.SetupFailedException;
import txfuzz.exec.Trace;
import txfuzz.model.TestCase;

/**
 * Judges one run of a test case. Oracles that need other runs (serial replays) make them with
 * {@code executor}, on fresh databases of the same target.
 */
public interface Oracle {
    String name();

    Verdict judge(TestCase testCase, Trace trace, Executor executor) throws SQLException, SetupFailedException;
}
