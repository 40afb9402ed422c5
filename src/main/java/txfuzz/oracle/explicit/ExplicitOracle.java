package txfuzz.oracle.explicit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import txfuzz.dbms.ErrorClass;
import txfuzz.exec.ExecutedStmt;
import txfuzz.exec.Executor;
import txfuzz.exec.HangEvidence;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Evidence;
import txfuzz.oracle.Oracle;
import txfuzz.oracle.Run;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;
import txfuzz.oracle.ViolationIdentity;

/** APTrans's explicit oracle: an internal error, a crash, a lost connection or a hang is a finding by itself. */
public final class ExplicitOracle implements Oracle {
    public static final String NAME = "explicit";
    /** Crashes, lost connections and internal errors mean something in any run, and in every campaign. */
    public static final txfuzz.oracle.OracleRegistration REGISTRATION = txfuzz.oracle.OracleRegistration
            .of(NAME, context -> new ExplicitOracle(), List.of(ExplicitKind.values()))
            .judgingUncontrolledRuns().judgingRecordedCases(c -> true)
            .byDefaultFor(txfuzz.gen.Generation.Kind.values())
            .reportingEngineFailures(ExplicitOracle::engineFailure);

    @Override
    public String name() {
        return NAME;
    }

    /** Its verdict is the trace's: what the engine said and where it hung. */
    @Override
    public boolean verdictFollowsFromTrace() {
        return true;
    }

    @Override
    public List<ExplicitKind> kinds() {
        return List.of(ExplicitKind.values());
    }

    /** Hangs and errors are the same evidence whoever chose the interleaving. */
    @Override
    public boolean judgesUncontrolledRuns() {
        return true;
    }

    /**
     * What the engine said when it failed.
     *
     * @param statement the statement that failed or hung; null for a failure outside any statement
     * @param error     the engine's error as reported (null for a hang)
     * @param assertion the engine assertion that failed, from its crash report ("table->n_rec_locks == 0"); null if none
     * @param sql       the failing statement's SQL (its kind signs the finding); null for a failure outside any statement
     * @param code      how the engine classed the error: the error class and SQLState ({@code engine-error XJ001}); for a
     *                  failure outside any statement, the exception's type
     */
    public record Failure(StmtRef statement, String error, String assertion, String sql, String code) implements Evidence {
        @Override
        public Optional<String> caseIndependentIdentity() {
            // the same assertion is the same bug, whatever case and level hit it
            return Optional.ofNullable(assertion).map(a -> "assertion: " + a);
        }

        @Override
        public List<String> deviatingSql() {
            return sql == null ? List.of() : List.of(sql);
        }

        /** The statement that failed and how the engine classed the error: another statement failing is another violation. */
        @Override
        public Optional<ViolationIdentity> identity() {
            return Optional.of(ViolationIdentity.of(statement, code));
        }
    }

    /**
     * A hang, with the engine's own evidence that the statement did not wait.
     *
     * @param statement the statement txfuzz cancelled
     * @param engine    the lock probe's answers and the process-list states over the timeout; null
     *                  when the runner collected none (no lock probe)
     * @param sql       the statement's SQL (its kind signs the finding)
     * @param code      "hang", or "waits-for-ended" when the engine named only ended transactions as blockers
     */
    public record Hang(StmtRef statement, HangEvidence engine, String sql, String code) implements Evidence {
        @Override
        public List<String> deviatingSql() {
            return List.of(sql);
        }

        /** The statement that hung. */
        @Override
        public Optional<ViolationIdentity> identity() {
            return Optional.of(ViolationIdentity.of(statement, code));
        }
    }

    @Override
    public Verdict judge(Run run, Executor executor) {
        TestCase testCase = run.testCase();
        List<Violation> found = new ArrayList<>();
        for (var ref : run.trace().hung()) {
            String sql = testCase.stmt(ref).sql();
            HangEvidence engine = run.trace().hangEvidence().get(ref);
            boolean orphaned = engine != null && engine.waitsForEndedTransactions();
            String ended = orphaned ? String.join(", ", engine.endedBlockers().stream().map(n -> "T" + n).toList()) : "";
            found.add(new Violation(orphaned ? ExplicitKind.WAITS_FOR_ENDED : ExplicitKind.HANG, Classification.BUG_CANDIDATE,
                    orphaned ? "hang at " + ref + ": the statement waits for " + ended + ", which had already ended"
                            : "hang at " + ref + ": the statement neither finished nor waited on a lock",
                    "Statement " + ref + " `" + sql + "` "
                            + (orphaned ? "kept waiting for a lock the engine said " + ended + " held after " + ended
                            + " had ended (see the transactions' ends in the trace), so nothing could release it, until txfuzz cancelled it"
                            : "kept running without waiting on a lock until txfuzz cancelled it")
                            + (engine == null ? " (the engine's lock probe said it was not waiting).\n"
                                    : ".\n\nWhat the engine said: " + engine.describe() + ".\n")
                            + (engine == null || engine.engineState() == null ? ""
                                    : "\nThe engine's state when txfuzz called the statement hung:\n\n```\n" + engine.engineState() + "\n```\n"),
                    null, Map.of(), new Hang(ref, engine, sql, orphaned ? "waits-for-ended" : "hang")));
        }
        for (ExecutedStmt e : run.trace().schedule()) {
            if (!e.result().failed() || !e.result().errorClass().isEngineFailure()) {
                continue;
            }
            ExplicitKind kind = e.result().errorClass() == ErrorClass.CONNECTION_LOST ? ExplicitKind.CONNECTION_LOST : ExplicitKind.ENGINE_ERROR;
            String sql = testCase.stmt(e.ref()).sql();
            String error = String.valueOf(e.result().error());
            String code = e.result().errorClass().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-') + " " + e.result().error().sqlState();
            found.add(failure(kind, e.ref(), sql, error, code, kind.label() + " at " + e.ref() + ": " + e.result().error().message(),
                    "Statement " + e.ref() + " `" + sql + "` failed inside the engine:\n\n```\n" + error + "\n```\n"));
        }
        return new Verdict(name(), found);
    }

    /**
     * The engine failed outside any single statement of a run (it could not open, read back or
     * replay): reported whichever oracles were asked for, since no oracle saw a run to judge.
     */
    public static Violation engineFailure(String when, Exception e) {
        return failure(ExplicitKind.ENGINE_FAILURE, null, null, String.valueOf(e), e.getClass().getName(),
                "engine failure " + when + ": " + e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage()).lines().findFirst().orElse(""),
                "The engine failed " + when + ", outside any single statement of the run:\n\n```\n" + e + "\n```\n");
    }

    private static Violation failure(ExplicitKind kind, StmtRef ref, String sql, String error, String code, String summary, String details) {
        return new Violation(kind, Classification.BUG_CANDIDATE, summary, details, null, Map.of(),
                new Failure(ref, error, assertion(summary + "\n" + details), sql, code));
    }

    /** An engine's own assertion message in a crash report (InnoDB: "Failing assertion: table->n_rec_locks == 0"). */
    private static final Pattern ASSERTION = Pattern.compile("(?:Failing assertion|Assertion failed|assertion failed): ([^|\n]+)");

    static String assertion(String text) {
        Matcher m = ASSERTION.matcher(text);
        return m.find() ? m.group(1).strip() : null;
    }
}
