package txfuzz.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import txfuzz.campaign.JudgeSuite;
import txfuzz.dbms.Target;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;

@Command(name = "judge-suite", description = "Import every schedule file of a folder (specs, mysqltest files, plain schedules), run each case on"
        + " the engine with the oracles that apply, and write a table (judge-suite.md, judge-suite.json): files, imported, skipped and why,"
        + " verdicts per oracle, bug candidates with their reduced findings.")
final class JudgeSuiteCommand implements Callable<Integer> {
    @Parameters(paramLabel = "DIR", description = "A folder of .spec, .test and .txt files (searched recursively), or one such file.")
    Path dir;

    @Option(names = "--dbms", required = true, description = "DBMS to run the cases on (see 'txfuzz targets').")
    String dbms;

    @Option(names = "--isolation", description = "Isolation level of the transactions a file gives none. Default: the engine's default level.")
    String isolation;

    @Option(names = "--max-cases", description = "At most this many cases per file (a spec without permutations has every interleaving).")
    Integer maxCases;

    @Option(names = "--plain", description = "Judge the cases as imported, without row tracking (only the oracles that need none judge them).")
    boolean plain;

    @Option(names = "--reduce-time", defaultValue = "60s", description = "Time to reduce each bug candidate. Default: ${DEFAULT-VALUE}.")
    String reduceTime;

    @Option(names = "--out", required = true, description = "Folder for the table, the case files and the findings (new or empty).")
    Path out;

    @picocli.CommandLine.Mixin
    ServerOptions server = new ServerOptions();

    @picocli.CommandLine.Mixin
    EngineVersionOption engineVersion = new EngineVersionOption();

    @Override
    public Integer call() throws IOException {
        var importOptions = ImportCommand.options(dbms, isolation, maxCases);
        var reduce = Options.duration(reduceTime, "--reduce-time");
        if (!Files.exists(dir)) {
            throw new Main.UserError(dir + ": no such file or folder");
        }
        List<Path> files = Files.isDirectory(dir) ? JudgeSuite.files(dir) : List.of(dir);
        if (files.isEmpty()) {
            throw new Main.UserError(dir + " holds no .spec, .test, .txt or .schedule file");
        }
        Options.checkOut(out, "--out");
        try (var entries = Files.list(out)) {
            if (entries.anyMatch(p -> !p.getFileName().toString().startsWith("."))) {
                throw new Main.UserError("--out " + out + " is not empty");
            }
        }
        if (server.url != null) {
            throw new Main.UserError("judge-suite runs setups that may drop or alter tables; it runs only on a server txfuzz starts (no --url)");
        }
        try (Target target = Options.target(dbms, server.toTargetOptions(engineVersion.version));
             Executor executor = new Executor(target, ExecutorConfig.defaults())) {
            JudgeSuite.Config config = new JudgeSuite.Config(importOptions, reduce, !plain);
            JudgeSuite.Table t = new JudgeSuite(config, target, executor, out).run(files, System.out::println);
            System.out.println();
            System.out.print(t.files().size() + " files on " + t.engine() + ": ");
            System.out.println(t.cases().size() + " cases imported, " + t.cases().stream().filter(c -> c.notRun() == null).count() + " judged, "
                    + t.bugCandidates() + " with a bug candidate");
            System.out.println("Wrote " + out.resolve("judge-suite.md") + " and " + out.resolve("judge-suite.json"));
            return t.bugCandidates() > 0 ? Main.FOUND : Main.OK;
        }
    }
}
