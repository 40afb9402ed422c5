package txfuzz.oracle;

import java.util.ArrayList;
import java.util.List;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Executor;
import txfuzz.exec.Trace;
import txfuzz.model.TestCase;
import txfuzz.target.ErrorClass;

/** APTrans's explicit oracle: an internal error, a crash or a lost connection is a finding by itself. */
public final class ExplicitOracle implements Oracle {
    @Override
    public String name() {
        return "explicit";
    }

    @Override
    public Verdict judge(TestCase testCase, Trace trace, Executor executor) {
        List<Violation> found = new ArrayList<>();
        for (ExecutedStmt e : trace.schedule()) {
            if (!e.result().failed() || !e.result().errorClass().isEngineFailure()) {
                continue;
            }
            String kind = e.result().errorClass() == ErrorClass.CONNECTION_LOST ? "connection-lost" : "engine-error";
            String sql = testCase.stmt(e.ref()).sql();
            found.add(new Violation(name(), kind, Classification.BUG_CANDIDATE,
                    kind + " at " + e.ref() + ": " + e.result().error().message(),
                    "Statement " + e.ref() + " `" + sql + "` failed inside the engine:\n\n```\n" + e.result().error() + "\n```\n",
                    null));
        }
        return new Verdict(name(), found);
    }
}
