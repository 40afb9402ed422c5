package txfuzz.campaign;

import java.util.ArrayList;
import java.util.List;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Targets;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.SetupFailedException;
import txfuzz.exec.Trace;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Oracle;
import txfuzz.oracle.Violation;

/**
 * A case replayed on one version of its engine, twice (findings can be nondeterministic): it shows a
 * bug candidate both times, neither time, or once ("flaky", which no conclusion rests on); or the
 * version cannot run it. What bisect and the newest-release check of a finding both rest on.
 *
 * @param verdict what the two runs say
 * @param detail  each run's first bug candidate (oracle/kind) and the version as the engine reports it, or why it cannot run
 */
public record VersionReplay(Verdict verdict, String detail) {
    public enum Verdict {
        SHOWS("shows it"), CLEAN("does not show it"), FLAKY("flaky (the two runs disagree)"), CANNOT_RUN("cannot run the case");

        public final String words;

        Verdict(String words) {
            this.words = words;
        }

        public boolean decided() {
            return this == SHOWS || this == CLEAN;
        }
    }

    /** Starts {@code dbms} at Maven version {@code version}, replays {@code c} twice on it, stops it. */
    public static VersionReplay at(TestCase c, String version, List<String> oracles) {
        try (Target target = Targets.create(c.dbms(), TargetOptions.version(version))) {
            return on(target, c, oracles);
        } catch (RuntimeException e) {
            return new VersionReplay(Verdict.CANNOT_RUN, oneLine(e.getMessage()));
        }
    }

    /** Replays {@code c} twice on {@code target}, judged by the oracles named {@code oracleNames}, made for it. */
    public static VersionReplay on(Target target, TestCase c, List<String> oracleNames) {
        try (OracleSet set = Oracles.create(oracleNames, txfuzz.oracle.OracleContext.of(target, ExecutorConfig.defaults()));
             Executor executor = new Executor(target, ExecutorConfig.defaults())) {
            List<Oracle> oracles = set.oracles();
            List<Boolean> runs = new ArrayList<>();
            List<String> details = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                Trace trace = executor.run(c);
                List<Violation> bugs = new Judge(oracles, executor).judge(c, trace).stream()
                        .filter(v -> v.classification() == Classification.BUG_CANDIDATE).toList();
                runs.add(!bugs.isEmpty());
                details.add(bugs.isEmpty() ? "no bug candidate" : bugs.get(0).oracle() + "/" + bugs.get(0).kind().label());
            }
            Verdict v = !runs.get(0).equals(runs.get(1)) ? Verdict.FLAKY : runs.get(0) ? Verdict.SHOWS : Verdict.CLEAN;
            return new VersionReplay(v, String.join("; ", details) + " (" + target.version() + ")");
        } catch (SetupFailedException e) {
            return new VersionReplay(Verdict.CANNOT_RUN, "the setup fails: " + oneLine(e.getMessage()));
        } catch (java.sql.SQLException | RuntimeException e) {
            return new VersionReplay(Verdict.CANNOT_RUN, oneLine(e.getMessage()));
        }
    }

    private static String oneLine(String s) {
        return String.valueOf(s).lines().findFirst().orElse("").strip();
    }
}
