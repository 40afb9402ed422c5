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
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import txfuzz.exec.ConcurrentRun;
import txfuzz.exec.ConcurrentRunner;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.SetupFailedException;
import txfuzz.exec.Trace;
import txfuzz.gen.CaseGenerator;
import txfuzz.gen.GenConfig;
import txfuzz.history.Analysis;
import txfuzz.history.Anomaly;
import txfuzz.history.AnomalyFinding;
import txfuzz.history.History;
import txfuzz.history.IsolationChecker;
import txfuzz.history.IsolationModel;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;
import txfuzz.oracle.isolation.HistoryRecorder;
import txfuzz.oracle.isolation.IsolationOracle;
import txfuzz.report.FindingWriter;
import txfuzz.dbms.LevelSemantics;
import txfuzz.dbms.Target;

/**
 * Hermitage's table, measured: for each isolation level of a target, run instrumented cases
 * (controlled or concurrent) and record every anomaly kind observed, whether the level permits it,
 * the engine documents it, or it is a bug candidate, with an example finding for each cell.
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

    public record Row(String level, String mode, long histories, long transactions, double seconds, Map<String, Cell> seen) {
    }

    public record Result(String dbms, String version, String run, long seed, List<Row> rows) {
    }

    /**
     * @param perLevel  time per level (null: use {@code cases})
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
            for (String mode : modes) {
                for (IsolationLevel level : config.levels()) {
                    rows.add(row(level, mode, generator, executor, concurrent, writer));
                    progress.println(line(rows.get(rows.size() - 1)));
                }
            }
        }
        Result r = new Result(target.name(), target.version(), config.sessions() == 0 ? "controlled" : "concurrent, " + config.sessions() + " sessions",
                config.seed(), rows);
        write(r);
        return r;
    }

    private Row row(IsolationLevel level, String mode, CaseGenerator generator, Executor executor, ConcurrentRunner concurrent, FindingWriter writer) {
        LevelSemantics semantics = IsolationOracle.semantics(target.profile(mode), level);
        Set<Anomaly> documented = semantics.documentedAnomalies();
        Map<Anomaly, Integer> counts = new EnumMap<>(Anomaly.class);
        Map<Anomaly, String> examples = new EnumMap<>(Anomaly.class);
        Map<Anomaly, Standing> standing = new EnumMap<>(Anomaly.class);
        long start = System.nanoTime();
        long deadline = config.perLevel() == null ? Long.MAX_VALUE : start + config.perLevel().toNanos();
        long histories = 0;
        long transactions = 0;
        for (long i = 0; config.perLevel() != null ? System.nanoTime() < deadline : i < config.cases(); i++) {
            TestCase c = generator.generate(target.name(), target.dialect(), level, mode, config.seed(), i);
            History h;
            Trace trace;
            try {
                if (concurrent == null) {
                    trace = executor.run(c);
                    h = HistoryRecorder.record(c, trace);
                } else {
                    ConcurrentRun run = concurrent.run(c, config.sessions());
                    trace = run.trace();
                    h = HistoryRecorder.record(c, trace, run.slots());
                }
            } catch (SetupFailedException | SQLException | RuntimeException e) {
                continue; // an engine failure is the run command's business; the table counts histories
            }
            histories++;
            transactions += c.transactions().size();
            Analysis analysis = IsolationChecker.analyze(h);
            Map<Anomaly, AnomalyFinding> first = new LinkedHashMap<>();
            for (AnomalyFinding f : analysis.judge(level, documented)) {
                first.putIfAbsent(f.anomaly(), f);
            }
            for (AnomalyFinding f : first.values()) {
                Anomaly a = f.anomaly();
                counts.merge(a, 1, Integer::sum);
                if (examples.containsKey(a)) {
                    continue;
                }
                Standing s = !f.proscribed() ? Standing.PERMITTED : f.permittedByProfile() ? Standing.DOCUMENTED : Standing.BUG_CANDIDATE;
                if (s == Standing.BUG_CANDIDATE && concurrent == null && !reproduces(c, executor, level, documented, a)) {
                    s = Standing.FLAKY;
                }
                String id = target.name() + "-" + level.shortName() + ("default".equals(mode) ? "" : "-" + mode) + "-" + IsolationOracle.kind(a)
                        + "-s" + config.seed() + "-i" + i;
                writer.write(id, c, trace, List.of(violation(f, s, analysis.count(a), h, semantics)), target);
                examples.put(a, id);
                standing.put(a, s);
            }
        }
        Map<String, Cell> seen = new LinkedHashMap<>();
        for (var e : counts.entrySet()) {
            seen.put(e.getKey().label(), new Cell(e.getKey().label(), standing.get(e.getKey()), e.getValue(), examples.get(e.getKey())));
        }
        return new Row(level.name(), mode, histories, transactions, Math.round((System.nanoTime() - start) / 1e6) / 1000.0, seen);
    }

    private boolean reproduces(TestCase c, Executor executor, IsolationLevel level, Set<Anomaly> documented, Anomaly a) {
        try {
            Trace again = executor.run(c);
            return IsolationChecker.analyze(HistoryRecorder.record(c, again)).judge(level, documented).stream().anyMatch(f -> f.anomaly() == a);
        } catch (SetupFailedException | SQLException | RuntimeException e) {
            return false;
        }
    }

    /** The oracle's violation for the finding, classified by its standing in the table. */
    private static Violation violation(AnomalyFinding f, Standing s, int count, History h, LevelSemantics semantics) {
        Violation v = IsolationOracle.violation(f, count, h, semantics);
        return switch (s) {
            case PERMITTED -> v.withClassification(Classification.DOCUMENTED, IsolationModel.reference(f.level()) + " does not proscribe it");
            case FLAKY -> v.withClassification(Classification.FLAKY, null);
            default -> v;
        };
    }

    static String line(Row r) {
        return String.format("%s%s: %d histories, %d transactions, %.1fs; seen: %s", r.level(), "default".equals(r.mode()) ? "" : " (" + r.mode() + ")",
                r.histories(), r.transactions(), r.seconds(), r.seen().isEmpty() ? "nothing" : String.join(", ", r.seen().keySet()));
    }

    /** The table as Markdown: one row per level, one column per anomaly kind. */
    public static String markdown(Result r) {
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
        columns.forEach(a -> md.append(' ').append(a.label()).append(" |"));
        md.append("\n|---|---:|");
        columns.forEach(a -> md.append(":-:|"));
        md.append('\n');
        List<String> examples = new ArrayList<>();
        for (Row row : r.rows()) {
            md.append("| ").append(row.level()).append("default".equals(row.mode()) ? "" : " (" + row.mode() + ")").append(" | ").append(row.histories()).append(" |");
            for (Anomaly a : columns) {
                Cell c = row.seen().get(a.label());
                md.append(' ').append(c == null ? "—" : symbol(c.standing()) + " " + c.histories()).append(" |");
                if (c != null) {
                    examples.add("- " + row.level() + ("default".equals(row.mode()) ? "" : " (" + row.mode() + ")") + ", " + a.label() + ": `"
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
        return md.toString();
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
