package txfuzz.campaign;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import txfuzz.exec.ConcurrentRunner;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.SetupFailedException;
import txfuzz.gen.CaseGenerator;
import txfuzz.gen.GenConfig;
import txfuzz.history.Anomaly;
import txfuzz.history.History;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.HistoryJudge;
import txfuzz.oracle.HistoryRecorder;
import txfuzz.oracle.Run;
import txfuzz.oracle.Violation;
import txfuzz.report.FindingWriter;
import txfuzz.dbms.LevelSemantics;
import txfuzz.dbms.Target;

/**
 * Hermitage's table, measured: for each isolation level of a target, run instrumented cases
 * (controlled or concurrent) and record every anomaly kind observed, whether the level permits it,
 * the engine documents it, or it is a bug candidate, with an example finding for each cell. The
 * anomalies are the judgement of the oracle that judges row-level histories ({@link Oracles#judgingHistories()}).
 */
public final class IsolationTable {
    /** Kinds every table shows as columns, seen or not (others appear only when seen). */
    static final List<Anomaly> CORE = List.of(Anomaly.G0, Anomaly.G1A, Anomaly.G1B, Anomaly.G1C, Anomaly.LOST_UPDATE,
            Anomaly.NON_REPEATABLE_READ, Anomaly.READ_SKEW, Anomaly.READ_WRITE_SKEW, Anomaly.PHANTOM, Anomaly.G_SINGLE, Anomaly.WRITE_SKEW,
            Anomaly.G2_ITEM, Anomaly.G2);

    /** How a kind observed at a level stands. */
    public enum Standing {
        PERMITTED("permitted by the level"), DOCUMENTED("documented by the engine"), BUG_CANDIDATE("bug candidate"), FLAKY("bug candidate, not reproduced");

        private final String words;

        Standing(String words) {
            this.words = words;
        }

        public String words() {
            return words;
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Cell(String anomaly, Standing standing, int histories, String example) {
    }

    /**
     * @param seen     by kind label ("lost-update"), the kinds observed
     * @param failures runs that failed (the engine or txfuzz threw) and so gave no history
     * @param failure  the first of those: what was thrown, and the finding folder it is filed in; null when none failed
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Row(String level, String mode, long histories, long transactions, double seconds, Map<String, Cell> seen, int failures,
                      String failure) {
    }

    public record Result(String dbms, String version, String run, long seed, List<Row> rows) {
    }

    /**
     * @param perLevel  each level and mode's share of the time (null: use {@code cases}). The table as a whole
     *                  gets perLevel × the cells: a cell that overruns its share (a case once begun is finished)
     *                  shortens the shares of the cells after it, and one that ends early lengthens them
     * @param cases     cases per level when {@code perLevel} is null
     * @param sessions  0 for controlled runs (the executor's submitted order, reproducible); 2..5 for
     *                  concurrent runs (IsoRel's mode)
     */
    public record Config(List<IsolationLevel> levels, List<String> modes, long seed, Duration perLevel, int cases, int sessions, Path out,
                         ExecutorConfig executor) {
    }

    private final Target target;
    private final Config config;
    private final PrintStream progress;

    public IsolationTable(Target target, Config config, PrintStream progress) {
        this.target = target;
        this.config = config;
        this.progress = progress;
    }

    /** Generated case sizes: controlled runs are a handful of transactions; concurrent ones many, spread over the sessions. */
    static GenConfig genConfig(int sessions) {
        return sessions == 0 ? GenConfig.defaults().withInstrumentation(true) : new GenConfig(2, 3, 4, 6 * sessions, 4).withInstrumentation(true);
    }

    public Result run() {
        List<Row> rows = new ArrayList<>();
        FindingWriter writer = new FindingWriter(config.out());
        CaseGenerator generator = new CaseGenerator(genConfig(config.sessions()));
        List<String> modes = config.modes().isEmpty() ? List.of(target.modes().get(0)) : config.modes();
        try (Executor executor = new Executor(target, config.executor());
             ConcurrentRunner concurrent = config.sessions() > 0 ? new ConcurrentRunner(target, config.executor()) : null) {
            int cells = modes.size() * config.levels().size();
            long end = config.perLevel() == null ? 0 : System.nanoTime() + config.perLevel().toNanos() * cells;
            for (String mode : modes) {
                for (IsolationLevel level : config.levels()) {
                    // what is left of the whole table's time, shared among the cells still to run
                    long deadline = config.perLevel() == null ? Long.MAX_VALUE
                            : System.nanoTime() + Math.max(0, (end - System.nanoTime()) / (cells - rows.size()));
                    rows.add(row(level, mode, generator, executor, concurrent, writer, deadline));
                    progress.println(line(rows.get(rows.size() - 1)));
                }
            }
        }
        Result r = new Result(target.name(), target.version(), config.sessions() == 0 ? "controlled" : "concurrent, " + config.sessions() + " sessions",
                config.seed(), rows);
        write(r);
        return r;
    }

    /** One level and mode: cases until {@code deadline} (System.nanoTime; at least one case), or {@code config.cases()} of them. */
    private Row row(IsolationLevel level, String mode, CaseGenerator generator, Executor executor, ConcurrentRunner concurrent, FindingWriter writer,
                    long deadline) {
        LevelSemantics semantics = target.profile(mode).atOrNothing(level);
        try (OracleSet oracles = Oracles.create(List.of(Oracles.judgingHistories().name()), txfuzz.oracle.OracleContext.of(target, executor.config()))) {
            return row(level, mode, generator, executor, concurrent, writer, deadline, semantics, new Judge(oracles.oracles(), executor));
        }
    }

    private Row row(IsolationLevel level, String mode, CaseGenerator generator, Executor executor, ConcurrentRunner concurrent, FindingWriter writer,
                    long deadline, LevelSemantics semantics, Judge judge) {
        HistoryJudge anomalies = anomalies();
        Map<String, Integer> counts = new LinkedHashMap<>();
        Map<String, String> examples = new LinkedHashMap<>();
        Map<String, Standing> standing = new LinkedHashMap<>();
        long start = System.nanoTime();
        long histories = 0;
        long transactions = 0;
        int failures = 0;
        String failure = null;
        for (long i = 0; config.perLevel() != null ? i == 0 || System.nanoTime() < deadline : i < config.cases(); i++) {
            TestCase c = generator.generate(target.name(), target.dialect(), level, mode, config.seed(), i);
            Run run;
            History h;
            try {
                run = concurrent == null ? Run.controlled(c, executor.run(c)) : Run.concurrent(c, concurrent.run(c, config.sessions()));
                h = HistoryRecorder.record(run);
            } catch (SetupFailedException e) {
                continue; // an invalid generated case (its setup does not run): not a history
            } catch (SQLException | RuntimeException e) {
                // no history from this run, but never silently: counted, printed and filed as the run command files it
                failures++;
                Violation failed = Oracles.engineFailure("while running the case", e);
                String id = FindingWriter.id(c, failed.kind().label());
                progress.println("txfuzz: isolation-table: case " + i + " at " + level.name() + " failed (" + id + "): " + e);
                if (failure == null) {
                    writer.write(id, c, null, List.of(failed), target);
                    failure = e + " (findings/" + id + ")";
                }
                continue;
            }
            histories++;
            transactions += c.transactions().size();
            for (Violation v : anomalies.observe(h, level, semantics.documented(), semantics.anomalyReference())) {
                String kind = v.kind().label();
                counts.merge(kind, 1, Integer::sum);
                if (examples.containsKey(kind)) {
                    continue;
                }
                Standing s = !anomalies.proscribed(v) ? Standing.PERMITTED
                        : v.classification() == Classification.DOCUMENTED ? Standing.DOCUMENTED
                        : v.classification() == Classification.NOT_PROMISED ? Standing.PERMITTED : Standing.BUG_CANDIDATE;
                if (s == Standing.BUG_CANDIDATE && concurrent == null) {
                    v = confirmed(judge, c, v, level);
                    s = v.classification() == Classification.FLAKY ? Standing.FLAKY : s;
                }
                String id = FindingWriter.id(c, kind);
                writer.write(id, c, run.trace(), List.of(v), target);
                examples.put(kind, id);
                standing.put(kind, s);
            }
        }
        Map<String, Cell> seen = new LinkedHashMap<>();
        for (Anomaly a : Anomaly.values()) { // in the taxonomy's order
            String k = anomalies.kind(a);
            if (counts.containsKey(k)) {
                seen.put(k, new Cell(k, standing.get(k), counts.get(k), examples.get(k)));
            }
        }
        return new Row(level.name(), mode, histories, transactions, Math.round((System.nanoTime() - start) / 1e6) / 1000.0, seen, failures,
                failure);
    }

    /** The violation as a re-run of the case confirms it (flaky when it does not come back, or the re-run fails). */
    private Violation confirmed(Judge judge, TestCase c, Violation v, IsolationLevel level) {
        try {
            return judge.confirm(c, List.of(v)).get(0);
        } catch (SetupFailedException | SQLException | RuntimeException e) {
            progress.println("txfuzz: isolation-table: re-running case " + c.iteration() + " at " + level.name() + " failed: " + e);
            return v.withClassification(Classification.FLAKY, null);
        }
    }

    static String line(Row r) {
        return String.format("%s%s: %d histories, %d transactions, %.1fs; seen: %s%s", r.level(), "default".equals(r.mode()) ? "" : " (" + r.mode() + ")",
                r.histories(), r.transactions(), r.seconds(), r.seen().isEmpty() ? "nothing" : String.join(", ", r.seen().keySet()),
                r.failures() == 0 ? "" : "; " + r.failures() + " runs failed, first: " + r.failure());
    }

    /** The table as Markdown: one row per level, one column per anomaly kind. */
    public static String markdown(Result r) {
        HistoryJudge anomalies = anomalies();
        List<Anomaly> columns = new ArrayList<>(CORE);
        EnumSet<Anomaly> extra = EnumSet.noneOf(Anomaly.class);
        for (Row row : r.rows()) {
            for (String label : row.seen().keySet()) {
                Anomaly a = Anomaly.parse(label);
                if (a != null && !columns.contains(a)) {
                    extra.add(a);
                }
            }
        }
        columns.addAll(extra);
        StringBuilder md = new StringBuilder();
        md.append("### ").append(r.version()).append(" (").append(r.run()).append(", seed ").append(r.seed()).append(")\n\n");
        md.append("| level | histories |");
        columns.forEach(a -> md.append(' ').append(anomalies.kind(a)).append(" |"));
        md.append("\n|---|---:|");
        columns.forEach(a -> md.append(":-:|"));
        md.append('\n');
        List<String> examples = new ArrayList<>();
        for (Row row : r.rows()) {
            md.append("| ").append(row.level()).append("default".equals(row.mode()) ? "" : " (" + row.mode() + ")").append(" | ").append(row.histories()).append(" |");
            for (Anomaly a : columns) {
                Cell c = row.seen().get(anomalies.kind(a));
                md.append(' ').append(c == null ? "—" : symbol(c.standing()) + " " + c.histories()).append(" |");
                if (c != null) {
                    examples.add("- " + row.level() + ("default".equals(row.mode()) ? "" : " (" + row.mode() + ")") + ", " + anomalies.kind(a) + ": `"
                            + c.example() + "` (" + c.standing().words() + ")");
                }
            }
            md.append('\n');
        }
        md.append("\nCells: — not seen; ✓ seen, permitted by the level's definition (Adya); 📖 seen, proscribed but documented by the engine;"
                + " ❗ seen, proscribed and not documented (bug candidate); ❔ bug candidate that did not reproduce. The number is how many"
                + " histories showed it.\n");
        if (!examples.isEmpty()) {
            md.append("\nExample findings:\n\n");
            examples.forEach(e -> md.append(e).append('\n'));
        }
        List<Row> failed = r.rows().stream().filter(row -> row.failures() > 0).toList();
        if (!failed.isEmpty()) {
            md.append("\nRuns that failed (no history; not in the counts above):\n\n");
            for (Row row : failed) {
                md.append("- ").append(row.level()).append("default".equals(row.mode()) ? "" : " (" + row.mode() + ")").append(": ")
                        .append(row.failures()).append(", first: ").append(row.failure()).append('\n');
            }
        }
        return md.toString();
    }

    private static HistoryJudge anomalies() {
        return Oracles.judgingHistories().histories();
    }

    private static String symbol(Standing s) {
        return switch (s) {
            case PERMITTED -> "✓";
            case DOCUMENTED -> "📖";
            case BUG_CANDIDATE -> "❗";
            case FLAKY -> "❔";
        };
    }

    private void write(Result r) {
        try {
            Files.createDirectories(config.out());
            Files.writeString(config.out().resolve("isolation-table.md"), markdown(r));
            Files.writeString(config.out().resolve("isolation-table.json"),
                    new com.fasterxml.jackson.databind.ObjectMapper().enable(com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT)
                            .writeValueAsString(r) + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write to " + config.out() + ": " + e.getMessage(), e);
        }
    }
}
