package txfuzz.oracle;

import java.util.ArrayList;
import java.util.List;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Executor;
import txfuzz.exec.Trace;
import txfuzz.model.TestCase;
import txfuzz.dbms.ErrorClass;

/** APTrans's explicit oracle: an internal error, a crash, a lost connection or a hang is a finding by itself. */
public final class ExplicitOracle implements Oracle {
    @Override
    public String name() {
        return "explicit";
    }

    @Override
    public Verdict judge(TestCase testCase, Trace trace, Executor executor) {
        List<Violation> found = new ArrayList<>();
        for (var ref : trace.hung()) {
            String sql = testCase.stmt(ref).sql();
            found.add(new Violation(name(), "hang", Classification.BUG_CANDIDATE,
                    "hang at " + ref + ": the statement neither finished nor waited on a lock",
                    "Statement " + ref + " `" + sql + "` kept running without waiting on a lock until txfuzz cancelled it"
                            + " (the engine's lock probe said it was not waiting).\n", null));
        }
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
