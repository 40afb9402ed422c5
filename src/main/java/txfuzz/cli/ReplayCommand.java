package txfuzz.cli;

import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import txfuzz.campaign.Judge;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.SetupFailedException;
import txfuzz.exec.Trace;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.campaign.OracleSet;
import txfuzz.campaign.Oracles;
import txfuzz.oracle.OracleContext;
import txfuzz.oracle.Violation;
import txfuzz.report.TraceText;
import txfuzz.dbms.Target;

@Command(name = "replay", description = "Re-run one case file and judge it again.")
final class ReplayCommand implements Callable<Integer> {
    @Parameters(paramLabel = "CASE.json", description = "A case file, e.g. txfuzz-out/latest/findings/<id>/case.json.")
    Path caseFile;

    @Option(names = "--dbms", description = "Run on this DBMS instead of the one the case names.")
    String dbms;

    @Option(names = "--subject", paramLabel = "SPEC", description = "Run on this subject, dbms[@version][:mode|:plain|:prepared][+key=value]..."
            + " (e.g. h2+MODE=PostgreSQL: the one a --subjects campaign found the case on), instead of --dbms and --version.")
    String subject;

    @picocli.CommandLine.Mixin
    ServerOptions server = new ServerOptions();

    @picocli.CommandLine.Mixin
    EngineVersionOption engineVersion = new EngineVersionOption();

    @Option(names = "--oracle", description = "Oracles, comma-separated. Default: those the case needs: wss and explicit, with isolation"
            + " for a case with row tracking and equiv for one with version-set reads.")
    String oracles;

    @Option(names = "--quiet", description = "Print only the verdict, not the trace.")
    boolean quiet;

    /** --subject parsed; a one-line error for a bad one, or beside --dbms or --version. */
    private txfuzz.dbms.Subject subject(String spec) {
        if (dbms != null || engineVersion.version != null) {
            throw new Main.UserError("--subject names the DBMS and its version: drop --dbms and --version");
        }
        try {
            return txfuzz.dbms.Subject.parse(spec);
        } catch (IllegalArgumentException e) {
            throw new Main.UserError(Main.oneLine(e.getMessage()));
        }
    }

    @Override
    public Integer call() throws SQLException {
        TestCase c = Options.readCase(caseFile);
        List<String> chosen = Options.oracles(oracles != null ? oracles : String.join(",", txfuzz.campaign.Oracles.forCase(c)));
        txfuzz.dbms.Subject on = subject == null ? null : subject(subject);
        try (Target target = on != null ? Options.target(on.dbms(), on.options(server.toTargetOptions(null)))
                : Options.target(dbms != null ? dbms : c.dbms(), server.toTargetOptions(engineVersion.version));
             Executor executor = new Executor(target, ExecutorConfig.defaults());
             OracleSet oracleSet = Oracles.create(chosen, OracleContext.of(target, ExecutorConfig.defaults()))) {
            Options.checkRunnable(target, c, server.url != null);
            Trace trace;
            List<Violation> violations;
            try {
                trace = executor.run(c);
                violations = new Judge(oracleSet.oracles(), executor).judge(c, trace);
            } catch (SetupFailedException e) {
                throw new Main.UserError("the case's setup does not run on " + target.name() + ": " + Main.oneLine(e.getMessage()));
            }
            System.out.println("Replayed " + caseFile + " on " + target.version() + " at " + c.isolation().name());
            if (c.engine() != null && !c.engine().version().equals(target.version())) {
                System.out.println("Note: the case was found on " + c.engine().version() + (c.engine().release() == null ? ""
                        : " (--version " + c.engine().release() + ")") + ", not on " + target.version() + ": a different verdict may be the version's");
            }
            if (!quiet) {
                System.out.println();
                System.out.print(TraceText.render(c, trace));
            }
            System.out.println();
            if (violations.isEmpty()) {
                System.out.println("Verdict: no violation");
            }
            for (Violation v : violations) {
                System.out.println("Verdict: " + v.classification().label() + ": " + v.summary());
                if (v.reference() != null) {
                    System.out.println("  " + (v.classification() == Classification.NOT_PROMISED ? "why no promise is broken" : "documented") + ": "
                            + v.reference());
                }
            }
            return violations.stream().anyMatch(v -> v.classification() == Classification.BUG_CANDIDATE) ? Main.FOUND : Main.OK;
        }
    }
}
