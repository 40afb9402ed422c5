package txfuzz.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import txfuzz.campaign.IsolationTable;
import txfuzz.exec.ExecutorConfig;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.Target;

@Command(name = "isolation-table",
        description = "Run instrumented cases at every isolation level of a DBMS and print which anomalies each level shows"
                + " (permitted, documented by the engine, or bug candidates), with an example finding per cell.")
final class IsolationTableCommand implements Callable<Integer> {
    @Option(names = "--dbms", defaultValue = "h2", description = "DBMS to test (see 'txfuzz targets'). Default: ${DEFAULT-VALUE}.")
    String dbms;

    @picocli.CommandLine.Mixin
    ServerOptions server = new ServerOptions();

    @picocli.CommandLine.Mixin
    EngineVersionOption engineVersion = new EngineVersionOption();

    @Option(names = "--isolation", defaultValue = "all", description = "Isolation level(s), comma-separated, or 'all'. Default: ${DEFAULT-VALUE}.")
    String isolation;

    @Option(names = "--mode", description = "Concurrency mode(s) where the DBMS has several, comma-separated, or 'all'. Default: the DBMS's default mode.")
    String mode;

    @Option(names = "--time", defaultValue = "20s", description = "Time per level and mode, e.g. 20s, 2m. Default: ${DEFAULT-VALUE}.")
    String time;

    @Option(names = "--tests", description = "Cases per level and mode instead of --time.")
    Integer tests;

    @Option(names = "--sessions", defaultValue = "0",
            description = "0: controlled runs (each case's submitted order, reproducible); 2-5: that many sessions run each case's transactions"
                    + " truly concurrently (IsoRel's mode). Default: ${DEFAULT-VALUE}.")
    int sessions;

    @Option(names = "--seed", description = "Seed. Default: the current time.")
    Long seed;

    @Option(names = "--out", description = "Output folder (isolation-table.md/.json, findings/); it must be new or empty. Default: a folder"
            + " of its own, txfuzz-out/<UTC time>-<dbms>-isolation-table, with txfuzz-out/latest pointing at it.")
    Path out;

    @Override
    public Integer call() {
        if (sessions != 0 && (sessions < 2 || sessions > 5)) {
            throw new Main.UserError("--sessions must be 0 (controlled) or 2 to 5, not " + sessions);
        }
        if (tests != null) {
            Options.caseLimit(tests, "--tests");
        }
        Duration perLevel = tests != null ? null : Options.timeLimit(time, "--time");
        Options.checkDbms(dbms);
        Options.checkLevelNames(isolation);
        var targetOptions = server.toTargetOptions(engineVersion.version);
        OutFolder folder = OutFolder.choose(out, dbms + "-isolation-table", "--out");
        Path out = folder.dir();
        long s = seed != null ? seed : System.currentTimeMillis();
        try (Target target = Options.open(dbms, targetOptions)) {
            List<IsolationLevel> levels = Options.levels(target, isolation);
            List<String> modes = Options.modes(target, mode);
            System.out.printf("txfuzz: isolation table of %s, %s, %s per level, seed %d; output in %s%n", target.version(),
                    sessions == 0 ? "controlled runs" : sessions + " concurrent sessions", Options.limits(tests, tests != null ? null : time), s, out);
            folder.linkLatest();
            IsolationTable.Result r = new IsolationTable(target, new IsolationTable.Config(levels, modes, s, perLevel, tests == null ? 0 : tests,
                    sessions, out, ExecutorConfig.defaults()), System.out).run();
            System.out.println();
            System.out.print(IsolationTable.markdown(r));
            boolean bugs = r.rows().stream().flatMap(row -> row.seen().values().stream())
                    .anyMatch(c -> c.standing() == IsolationTable.Standing.BUG_CANDIDATE);
            return bugs ? Main.FOUND : Main.OK;
        } catch (RuntimeException e) {
            folder.discardIfEmpty(); // the DBMS did not start, or does not offer a level asked for: no empty result folder stays
            throw e;
        }
    }
}
