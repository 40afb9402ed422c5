package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertTrue;

import txfuzz.dbms.Target;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Verdict;

/** A case run on a real engine and judged by the wss oracle: what the wss tests on real engines share. */
record WssRun(Trace trace, Verdict verdict) {
    private static final WssOracle WSS = new WssOracle();

    static WssRun of(Target target, TestCase c) throws Exception {
        try (Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            return new WssRun(trace, WSS.judge(c, trace, ex));
        }
    }

    boolean succeeded(StmtRef ref) {
        return trace.executed(ref).map(e -> !e.result().failed()).orElse(false);
    }

    boolean committed(int txn) {
        return trace.outcome(txn).status().committed();
    }

    static void assertNoBugCandidate(Verdict v) {
        assertTrue(v.violations().stream().noneMatch(x -> x.classification() == Classification.BUG_CANDIDATE), v.toString());
    }

    void assertNoBugCandidate() {
        assertTrue(verdict.violations().stream().noneMatch(x -> x.classification() == Classification.BUG_CANDIDATE), verdict + "\n" + trace);
    }

    /** A negative control's check: the injected fault still comes out as a bug candidate. */
    void assertBugCandidate() {
        assertTrue(verdict.violations().stream().anyMatch(x -> x.classification() == Classification.BUG_CANDIDATE), verdict + "\n" + trace);
    }
}
