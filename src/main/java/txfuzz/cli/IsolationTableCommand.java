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
    @Option(names = "--dbms", defaultValue = txfuzz.dbms.Targets.DEFAULT, description = "DBMS to test (see 'txfuzz targets'). Default: ${DEFAULT-VALUE}.")
    String dbms;

    @picocli.CommandLine.Mixin
    ServerOptions server = new ServerOptions();

    @picocli.CommandLine.Mixin
    EngineVersionOption engineVersion = new EngineVersionOption();

    @Option(names = "--isolation", defaultValue = "all", description = "Isolation level(s), comma-separated, or 'all'. Default: ${DEFAULT-VALUE}.")
    String isolation;

    @Option(names = "--mode", description = "Concurrency mode(s) where the DBMS has several, comma-separated, or 'all'. Default: the DBMS's default mode.")
    String mode;

    @Option(names = "--time", defaultValue = "20s", description = "Time for the whole table, e.g. 20s, 2m, shared equally among the levels"
            + " and modes; a level that overruns its share (a case once begun is finished) shortens the shares after it."
            + " Default: ${DEFAULT-VALUE}.")
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
        Duration total = tests != null ? null : Options.timeLimit(time, "--time");
        Options.checkDbms(dbms);
        Options.checkLevelNames(isolation);
        var targetOptions = server.toTargetOptions(engineVersion.version);
        OutFolder folder = OutFolder.choose(out, dbms + "-isolation-table", "--out");
        Path out = folder.dir();
        long s = seed != null ? seed : System.currentTimeMillis();
        try (Target target = Options.open(dbms, targetOptions)) {
            List<IsolationLevel> levels = Options.levels(target, isolation);
            List<String> modes = Options.modes(target, mode);
            int cells = levels.size() * Math.max(1, modes.size());
            // --time bounds the whole command: each level and mode gets an equal share of it
            Duration perLevel = total == null ? null : total.dividedBy(cells);
            System.out.printf("txfuzz: isolation table of %s, %s, %s, seed %d; output in %s%n", target.version(),
                    sessions == 0 ? "controlled runs" : sessions + " concurrent sessions", budget(tests, total, perLevel, cells, modes.size() > 1), s, out);
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

    /** "40 cases per level" or "20s in all: 4s per level (5 cells)", as the first line says it. */
    static String budget(Integer tests, Duration total, Duration perCell, int cells, boolean severalModes) {
        String what = severalModes ? "level and mode" : "level";
        if (total == null) {
            return tests + (tests == 1 ? " case" : " cases") + " per " + what;
        }
        return seconds(total) + " in all: " + seconds(perCell) + " per " + what + " (" + cells + (cells == 1 ? " cell" : " cells") + ")";
    }

    /** A duration in seconds, to the millisecond, without trailing zeros: "4s", "6.667s". */
    static String seconds(Duration d) {
        return java.math.BigDecimal.valueOf(d.toMillis(), 3).stripTrailingZeros().toPlainString() + "s";
    }
}
