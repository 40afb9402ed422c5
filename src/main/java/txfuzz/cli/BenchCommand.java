package txfuzz.cli;

import java.io.PrintStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import txfuzz.campaign.Campaign;
import txfuzz.campaign.CampaignConfig;
import txfuzz.campaign.Summary;
import txfuzz.exec.ExecutorConfig;
import txfuzz.gen.GenConfig;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;

@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Throughput benchmark: a fixed-seed campaign per DBMS at every level; prints a Markdown table.")
final class BenchCommand implements Callable<Integer> {
    @Option(names = "--dbms", defaultValue = "all", description = "DBMSs, comma-separated, or 'all'. Default: ${DEFAULT-VALUE}.")
    String dbms;

    @Option(names = "--tests", defaultValue = "300", description = "Cases per DBMS. Default: ${DEFAULT-VALUE}.")
    int tests;

    @Option(names = "--seed", defaultValue = "1", description = "Seed. Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--out", defaultValue = "txfuzz-out/bench", description = "Output folder (one subfolder per DBMS). Default: ${DEFAULT-VALUE}.")
    Path out;

    @Option(names = "--reduce-time", defaultValue = "0",
            description = "How long reducing one finding may take (as for run); 0, the default, measures the search alone.")
    String reduceTime;

    @Option(names = "--oracle", defaultValue = "wss,explicit", description = "Oracles, comma-separated. Default: ${DEFAULT-VALUE}.")
    String oracles;

    @Option(names = "--sessions", defaultValue = "0", description = "0: controlled runs; 2-5: concurrent runs (the isolation oracle only)."
            + " Default: ${DEFAULT-VALUE}.")
    int sessions;

    @Override
    public Integer call() {
        java.time.Duration reduce = RunCommand.reduceDuration(reduceTime);
        List<String> oracleNames = Options.list(oracles);
        Options.oracles(oracles); // unknown names: a one-line error before anything starts
        RunCommand.checkSessions(sessions, oracleNames);
        List<String> names = dbms.equalsIgnoreCase("all") ? Targets.names() : Options.list(dbms);
        if (names.isEmpty()) {
            throw new Main.UserError("--dbms names no DBMS; known: " + String.join(", ", Targets.names()) + " (or 'all')");
        }
        names.forEach(Options::checkDbms); // before the table's header, not in the middle of it
        if (tests < 1) {
            throw new Main.UserError("--tests must be at least 1");
        }
        Options.checkOut(out, "--out");
        System.out.println("| DBMS | version | cases | seconds | cases/s | transactions/s | blocked stmts | invalid stmts | bug candidates | documented | flaky |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|");
        PrintStream silent = new PrintStream(OutputStream.nullOutputStream());
        for (String name : names) {
            try (Target target = Options.target(name)) {
                CampaignConfig config = new CampaignConfig(target.isolationLevels(), List.of(), oracleNames, tests, null, seed,
                        out.resolve(name), GenConfig.defaults(), ExecutorConfig.defaults(), null, CampaignConfig.Execution.PLAIN, reduce, sessions);
                Summary s = new Campaign(target, config, silent).run();
                System.out.printf("| %s | %s | %d | %.1f | %.1f | %.1f | %.1f%% | %.1f%% | %d | %d | %d |%n", name, target.version(), s.cases(),
                        s.seconds(), s.casesPerSecond(), s.transactionsPerSecond(), 100 * s.blockedShare(), 100 * s.invalidStatementShare(),
                        s.bugCandidates(), s.documented(), s.flaky());
            }
        }
        return Main.OK;
    }
}
