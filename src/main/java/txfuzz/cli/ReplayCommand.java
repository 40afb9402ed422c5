package txfuzz.cli;

import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import txfuzz.campaign.Judge;
import txfuzz.campaign.Oracles;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.SetupFailedException;
import txfuzz.exec.Trace;
import txfuzz.model.CaseFormatException;
import txfuzz.model.CaseJson;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Oracle;
import txfuzz.oracle.Violation;
import txfuzz.report.TraceText;
import txfuzz.target.Target;

@Command(name = "replay", mixinStandardHelpOptions = true, description = "Re-run one case file and judge it again.")
final class ReplayCommand implements Callable<Integer> {
    @Parameters(paramLabel = "CASE.json", description = "A case file, e.g. txfuzz-out/findings/<id>/case.json.")
    Path caseFile;

    @Option(names = "--dbms", description = "Run on this DBMS instead of the one the case names.")
    String dbms;

    @picocli.CommandLine.Mixin
    ServerOptions server = new ServerOptions();

    @Option(names = "--oracle", defaultValue = "wss,explicit", description = "Oracles, comma-separated. Default: ${DEFAULT-VALUE}.")
    String oracles;

    @Option(names = "--quiet", description = "Print only the verdict, not the trace.")
    boolean quiet;

    /**
     * On a server given by URL, a case file (perhaps written by someone else) may only create and
     * fill its own tables: txfuzz never drops or alters anything it did not create.
     */
    private static void refuseForeignDdl(TestCase c) {
        java.util.regex.Pattern allowed = java.util.regex.Pattern.compile(
                "^\\s*(CREATE\\s+(TABLE|(UNIQUE\\s+)?INDEX)|INSERT|REPLACE)\\b", java.util.regex.Pattern.CASE_INSENSITIVE);
        for (String sql : c.setup()) {
            if (!allowed.matcher(sql).find()) {
                throw new Main.UserError("refusing to run on a server given by --url: the case's setup has a statement other than "
                        + "CREATE TABLE/INDEX or INSERT: " + sql.strip().lines().findFirst().orElse(""));
            }
        }
        for (var t : c.transactions()) {
            for (var st : t.statements()) {
                if (st.kind() == txfuzz.model.StmtKind.OTHER) {
                    throw new Main.UserError("refusing to run on a server given by --url: T" + t.id() + " has a statement that is not "
                            + "a query, a write or transaction control: " + st.sql().strip().lines().findFirst().orElse(""));
                }
            }
        }
    }

    @Override
    public Integer call() throws SQLException {
        TestCase c;
        try {
            c = CaseJson.read(caseFile);
        } catch (CaseFormatException e) {
            throw new Main.UserError(e.getMessage());
        }
        List<Oracle> chosen;
        try {
            chosen = Oracles.create(Options.list(oracles));
        } catch (IllegalArgumentException e) {
            throw new Main.UserError(e.getMessage());
        }
        try (Target target = Options.target(dbms != null ? dbms : c.dbms(), server.toTargetOptions()); Executor executor = new Executor(target, ExecutorConfig.defaults())) {
            if (!target.isolationLevels().contains(c.isolation())) {
                throw new Main.UserError(target.name() + " does not offer " + c.isolation().name());
            }
            if (!target.modes().contains(c.mode())) {
                throw new Main.UserError(target.name() + " has no mode '" + c.mode() + "'; it has: " + String.join(", ", target.modes()));
            }
            if (server.url != null) {
                refuseForeignDdl(c);
            }
            Trace trace;
            List<Violation> violations;
            try {
                trace = executor.run(c);
                violations = new Judge(chosen, executor).judge(c, trace);
            } catch (SetupFailedException e) {
                throw new Main.UserError("the case's setup does not run on " + target.name() + ": " + e.getMessage());
            }
            System.out.println("Replayed " + caseFile + " on " + target.version() + " at " + c.isolation().name());
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
                    System.out.println("  documented: " + v.reference());
                }
            }
            return violations.stream().anyMatch(v -> v.classification() == Classification.BUG_CANDIDATE) ? Main.FOUND : Main.OK;
        }
    }
}
