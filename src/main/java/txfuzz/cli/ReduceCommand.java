package txfuzz.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import txfuzz.campaign.Judge;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.SetupFailedException;
import txfuzz.model.CaseJson;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Oracle;
import txfuzz.oracle.Violation;
import txfuzz.reduce.ReduceConfig;
import txfuzz.reduce.Reducer;
import txfuzz.reduce.Reduction;
import txfuzz.report.ReproduceScript;
import txfuzz.dbms.Target;

@Command(name = "reduce",
        description = "Shrink a failing case to the statements, rows and schema the violation needs; writes reduced.case.json and reduced.reproduce.sql.")
final class ReduceCommand implements Callable<Integer> {
    @Parameters(paramLabel = "CASE.json", description = "A case file, e.g. txfuzz-out/latest/findings/<id>/case.json.")
    Path caseFile;

    @picocli.CommandLine.Mixin
    ServerOptions server = new ServerOptions();

    @picocli.CommandLine.Mixin
    EngineVersionOption engineVersion = new EngineVersionOption();

    @Option(names = "--oracle", description = "Oracles, comma-separated. Default: those the case needs: wss and explicit, with isolation"
            + " for a case with row tracking and equiv for one with version-set reads.")
    String oracles;

    @Option(names = "--kind", description = "The violation to keep (e.g. tx-wss, write-outcome, hang, engine-error). Default: the first bug candidate.")
    String kind;

    @Option(names = "--time", defaultValue = "60s", description = "Time budget, e.g. 30s, 2m. Default: ${DEFAULT-VALUE}.")
    String time;

    @Option(names = "--out", description = "Directory for reduced.case.json and reduced.reproduce.sql. Default: beside the case file.")
    Path out;

    /** Runs of the case before it is declared not failing (findings can be nondeterministic). */
    private static final int TRIES = 3;

    @Override
    public Integer call() throws SQLException {
        long started = System.nanoTime();
        var budget = Options.timeLimit(time, "--time");
        if (kind != null) {
            if (txfuzz.campaign.Oracles.kind(kind).isEmpty()) {
                throw new Main.UserError("unknown violation kind '" + kind + "'; kinds: "
                        + String.join(", ", txfuzz.campaign.Oracles.kinds().stream().map(k -> k.label()).toList()));
            }
        }
        TestCase c = Options.readCase(caseFile);
        List<String> chosen = Options.oracles(oracles != null ? oracles : String.join(",", txfuzz.campaign.Oracles.forCase(c)));
        var targetOptions = server.toTargetOptions(engineVersion.version);
        Path outDir = out != null ? out : caseFile.toAbsolutePath().getParent();
        Options.checkOut(outDir, "--out"); // before any run: a reduction's result must have somewhere to go
        long end = started + budget.toNanos(); // --time is the whole command's: the runs that pick the violation count too
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch done = new CountDownLatch(1);
        try (Target target = Options.target(c.dbms(), targetOptions); Executor executor = new Executor(target, ExecutorConfig.defaults());
             txfuzz.campaign.OracleSet oracleSet = txfuzz.campaign.Oracles.create(chosen, txfuzz.oracle.OracleContext.of(target, ExecutorConfig.defaults()))) {
            Options.checkRunnable(target, c, server.url != null);
            // Ctrl-C: stop the reducer between runs and write nothing
            Thread onExit = new Thread(() -> {
                Main.SHUTTING_DOWN.set(true);
                stop.set(true);
                try {
                    done.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "txfuzz-stop-reduce");
            Main.addShutdownHook(onExit);
            try {
                // the reduced case says which build it was reduced on (the case given may say another)
                var build = txfuzz.campaign.EngineBuild.of(target.name(), targetOptions, target.version()).forCase(target.name());
                return reduce(c, oracleSet.oracles(), target, executor, outDir, end, stop, build);
            } finally {
                done.countDown();
                Main.removeShutdownHook(onExit);
            }
        } catch (IOException e) {
            throw new Main.UserError("cannot write into " + outDir + ": " + Main.oneLine(e.getMessage()));
        }
    }

    private int reduce(TestCase c, List<Oracle> chosen, Target target, Executor executor, Path outDir, long end, AtomicBoolean stop,
                       txfuzz.model.EngineVersion build) throws SQLException, IOException {
        Judge judge = new Judge(chosen, executor);
        Optional<Violation> picked = Optional.empty();
        List<String> seen = new ArrayList<>();
        long longest = 0;
        int tries = 0;
        for (int i = 0; i < TRIES && picked.isEmpty(); i++) {
            if (stop.get()) {
                throw new Main.Interrupted();
            }
            if (i > 0 && System.nanoTime() + longest > end) {
                break; // another run would overrun --time
            }
            long t0 = System.nanoTime();
            List<Violation> vs;
            try {
                vs = judge.judge(c, executor.run(c));
            } catch (SetupFailedException e) {
                throw new Main.UserError("the case's setup does not run on " + target.name() + ": " + Main.oneLine(e.getMessage()));
            }
            longest = Math.max(longest, System.nanoTime() - t0);
            tries++;
            vs.forEach(v -> seen.add(v.kind().label() + " (" + v.classification().label() + ")"));
            picked = pick(vs);
        }
        if (stop.get()) {
            throw new Main.Interrupted();
        }
        if (picked.isEmpty()) {
            System.out.println("The case does not fail on " + target.version() + " at " + c.isolation().name()
                    + (kind != null ? " with a violation of kind '" + kind + "'" : "") + " in " + tries + " runs"
                    + (tries < TRIES ? " (all --time " + time + " allowed)" : "")
                    + (seen.isEmpty() ? "" : "; it shows: " + String.join(", ", seen.stream().distinct().toList()))
                    + ". Nothing to reduce.");
            return Main.FOUND;
        }
        Violation v = picked.get();
        System.out.println("Reducing " + caseFile + " on " + target.version() + " at " + c.isolation().name() + ": " + v.oracle() + " "
                + v.kind().label() + " (" + v.classification().label() + ")");
        Duration left = Duration.ofNanos(Math.max(0, end - System.nanoTime()));
        Reduction r = new Reducer(executor, chosen, new ReduceConfig(left, stop::get)).reduce(c, v);
        if (stop.get() || r.end() == Reduction.End.INTERRUPTED) {
            throw new Main.Interrupted();
        }
        if (!r.changed()) {
            // never write the case as given as if it were reduced
            String why = switch (r.end()) {
                case TIME_UP -> "the --time budget (" + time + ") ran out before a smaller case was confirmed";
                case NOT_FAILING -> "the reducer's runs of the case did not show the violation again (it may be nondeterministic)";
                case VIOLATION_LOST -> "the reducer's runs of the case showed only other violations of its kind"
                        + (r.otherOfKind() == null ? "" : " (" + r.otherOfKind().summary() + ")") + ", never this one";
                default -> "nothing could be removed: the case is already minimal for this violation";
            };
            System.out.printf(Locale.ROOT, "No smaller case: %s (%d runs, %.1f s). Nothing written.%n", why, r.runs(), r.seconds());
            return Main.OK;
        }
        Files.createDirectories(outDir);
        Path caseOut = outDir.resolve("reduced.case.json");
        Path sqlOut = outDir.resolve("reduced.reproduce.sql");
        Files.writeString(caseOut, CaseJson.write(r.reduced().withEngine(build)));
        Files.writeString(sqlOut, ReproduceScript.render(r.reduced(), target));
        // an imported case goes back in the format it came from, for the tracker it came from
        var sourceForm = txfuzz.report.SourceForm.render(r.reduced(), null, target, "Reduced by txfuzz from " + caseFile.getFileName()
                + ": " + r.violation().summary(), "reduced.");
        Path formOut = null;
        if (sourceForm.isPresent()) {
            formOut = outDir.resolve(sourceForm.get().fileName());
            Files.writeString(formOut, sourceForm.get().text());
        }
        System.out.printf(Locale.ROOT, "Statements %d -> %d (transactions %d -> %d, setup statements %d -> %d) in %d runs, %.1f s%s%n",
                r.statementsBefore(), r.statementsAfter(), c.transactions().size(), r.reduced().transactions().size(),
                c.setup().size(), r.reduced().setup().size(), r.runs(), r.seconds(),
                r.exhausted() ? " (time budget spent: the case may shrink further with more --time)" : "");
        System.out.println();
        for (String line : ReproduceScript.lines(r.reduced())) {
            System.out.println("  " + line);
        }
        System.out.println();
        System.out.println("Verdict: " + r.violation().classification().label() + ": " + r.violation().summary());
        System.out.println("Wrote " + caseOut + (formOut == null ? " and " + sqlOut : ", " + sqlOut + " and " + formOut));
        return Main.OK;
    }

    /** The violation of --kind (a bug candidate before others), else the first bug candidate, else the first violation. */
    private Optional<Violation> pick(List<Violation> vs) {
        List<Violation> pool = kind == null ? vs : vs.stream().filter(v -> v.kind().label().equals(kind)).toList();
        return pool.stream().filter(v -> v.classification() == Classification.BUG_CANDIDATE).findFirst().or(() -> pool.stream().findFirst());
    }

}
