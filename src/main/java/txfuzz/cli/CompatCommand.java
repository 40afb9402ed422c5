package txfuzz.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import txfuzz.campaign.Oracles;
import txfuzz.oracle.OracleRegistration;

/**
 * {@code txfuzz compat}: a campaign over several subjects judged by the oracle that compares them (DT2), writing
 * {@code compatibility.md}, the study of every worker's comparisons, beside the usual run folder. It is a run with that
 * oracle (so summary.json records the equivalent {@code txfuzz run} command line, which replays it).
 */
@Command(name = "compat", description = "Run every case on several subjects, compare them and write compatibility.md (DT2's study):"
        + " cases compared, agreeing, not comparable, then the distinct scenarios by divergence kind x cause x consequence.")
final class CompatCommand implements Callable<Integer> {
    static final String STUDY_FILE = "compatibility.md";

    @Option(names = "--subjects", required = true, paramLabel = "A,B[,C]", description = "The subjects to compare, the first against each"
            + " other one, e.g. h2+MODE=PostgreSQL,postgres or mariadb@10.11.5,mariadb@11.4.5 (see 'txfuzz run --help').")
    String subjects;

    @Option(names = "--time", description = "Stop after this long, e.g. 90s, 10m.")
    String time;

    @Option(names = "--tests", description = "Stop after this many test cases (default 300 when --time is not given).")
    String tests;

    @Option(names = "--seed", description = "Seed; the same seed gives the same cases. Default: the current time.")
    String seed;

    @Option(names = "--isolation", description = "Isolation level(s) of the first subject, comma-separated, or 'all'. Default: all.")
    String isolation;

    @Option(names = "--out", description = "Output folder (new or empty); compatibility.md is written there. Default: as for run.")
    String out;

    @Option(names = "--jobs", paramLabel = "N", description = "Workers side by side; their comparisons are combined. Default: as for run.")
    String jobs;

    @Option(names = "--reduce-time", defaultValue = "0", description = "Reduction budget per finding. Default: ${DEFAULT-VALUE}: the study"
            + " counts each case once, as first judged.")
    String reduceTime;

    @Option(names = "--example-reduce-time", defaultValue = "30s", paramLabel = "T", description = "Reduction budget per distinct scenario:"
            + " once the campaign has run, each scenario's example (its smallest case) is reduced, keeping the divergence (same kind,"
            + " same statement, same cause, same consequence), and the study shows the reduced case. 0 shows the examples as generated. This time comes"
            + " after --time. Default: ${DEFAULT-VALUE}.")
    String exampleReduceTime;

    @Override
    public Integer call() {
        OracleRegistration comparing = Oracles.comparingSubjects()
                .orElseThrow(() -> new Main.UserError("no registered oracle compares subjects"));
        if (comparing.study() == null) {
            throw new Main.UserError("oracle " + comparing.name() + " keeps no study to write");
        }
        java.time.Duration exampleBudget = "0".equals(exampleReduceTime.strip()) ? java.time.Duration.ZERO
                : Options.duration(exampleReduceTime, "--example-reduce-time");
        List<txfuzz.dbms.Subject> named;
        try {
            named = txfuzz.dbms.Subject.parseList(subjects);
        } catch (IllegalArgumentException e) {
            throw new Main.UserError("--subjects: " + e.getMessage());
        }
        if (named.size() < 2) {
            throw new Main.UserError("compat compares subjects: --subjects needs two or more, e.g. " + subjects + ",<another>");
        }
        List<String> args = new ArrayList<>(List.of("--subjects", subjects, "--oracle", comparing.name(), "--reduce-time", reduceTime));
        add(args, "--time", time);
        add(args, "--tests", tests);
        add(args, "--seed", seed);
        add(args, "--isolation", isolation);
        add(args, "--out", out);
        add(args, "--jobs", jobs);
        // parsed as 'txfuzz run …' so that summary.json records the run command line that replays this campaign
        args.add(0, "run");
        CommandLine.ParseResult parsed = new CommandLine(new Main()).parseArgs(args.toArray(String[]::new));
        RunCommand run = (RunCommand) parsed.subcommand().commandSpec().userObject();
        run.afterRun = (campaign, dir) -> {
            List<txfuzz.oracle.Oracle> judged = campaign.judgedWith().stream().filter(o -> o.name().equals(comparing.name())).toList();
            String study;
            if (exampleBudget.isZero() || campaign.stopping()) {
                study = comparing.study().apply(judged, txfuzz.oracle.ExampleReducer.NONE);
            } else {
                System.out.println("txfuzz: reducing each distinct scenario's example, up to " + exampleReduceTime + " each");
                try (txfuzz.campaign.ExampleReduction reduction = new txfuzz.campaign.ExampleReduction(campaign.context(), comparing.name(),
                        exampleBudget, campaign::stopping)) {
                    study = comparing.study().apply(judged, reduction);
                }
            }
            Path file = dir.resolve(STUDY_FILE);
            try {
                Files.writeString(file, study);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + file, e);
            }
            System.out.println("txfuzz: study written to " + file);
        };
        return run.call();
    }

    private static void add(List<String> args, String option, String value) {
        if (value != null) {
            args.add(option);
            args.add(value);
        }
    }
}
