package txfuzz.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import txfuzz.campaign.Oracles;
import txfuzz.history.Analysis;
import txfuzz.history.History;
import txfuzz.history.HistoryFormatException;
import txfuzz.history.HistoryFiles;
import txfuzz.history.IsolationChecker;
import txfuzz.model.IsolationLevel;
import txfuzz.oracle.Classification;
import txfuzz.oracle.HistoryJudge;
import txfuzz.oracle.Violation;
import txfuzz.report.FindingRecord;
import txfuzz.report.FindingWriter;
import txfuzz.dbms.LevelSemantics;
import txfuzz.dbms.Engine;

@Command(name = "check", mixinStandardHelpOptions = true,
        description = "Check a recorded history (docs/history-format.md) for isolation anomalies the level proscribes.")
final class CheckCommand implements Callable<Integer> {
    @Parameters(paramLabel = "HISTORY.jsonl", description = "A history file: JSON lines, or the compact form (docs/history-format.md).")
    Path historyFile;

    @Option(names = "--level", description = "Isolation level to judge against: one of txfuzz's (READ_COMMITTED, RC …) or Elle's"
            + " consistency models (read-uncommitted, read-committed, repeatable-read, snapshot-isolation, serializable,"
            + " strict-serializable, checked as serializable). Default: the history's meta.level.")
    String level;

    @Option(names = "--out", description = "Also write summary.json and findings/<id>/ (verdict.md, cycle.dot) here; it must be new or empty.")
    Path out;

    @Option(names = "--dbms", description = "Judge against this DBMS's profile (anomalies it documents at the level are 'documented')."
            + " Default: the history's meta.dbms; without one, or with 'none', every anomaly the level proscribes is a bug candidate.")
    String dbms;

    @Option(names = "--mode", description = "The DBMS's concurrency mode for its profile (e.g. hsqldb: mvcc, locks). Default: its default mode.")
    String mode;

    @Override
    public Integer call() {
        History h;
        try {
            h = HistoryFiles.read(historyFile);
        } catch (HistoryFormatException e) {
            throw new Main.UserError(e.getMessage());
        }
        String spec = level != null ? level : h.meta().get("level");
        if (spec == null) {
            throw new Main.UserError("say which level to judge against: --level (the history's header names none)");
        }
        if (h.transactions().isEmpty()) {
            throw new Main.UserError(historyFile + " holds no transactions: there is nothing to check");
        }
        String levelSource = level != null ? "--level" : "the history's meta.level";
        ElleModels.Model elle = ElleModels.byName(spec);
        IsolationLevel l = elle != null ? elle.level() : IsolationLevel.parse(spec);
        if (l == null || spec.equalsIgnoreCase("all")) {
            throw new Main.UserError((spec.equalsIgnoreCase("all") ? levelSource + " takes one level" : "unknown isolation level '" + spec.strip()
                    + "' in " + levelSource) + "; levels: " + String.join(", ", java.util.Arrays.stream(IsolationLevel.values()).map(Enum::name).toList())
                    + ", or Elle's consistency models: " + ElleModels.names());
        }
        dbms = profileDbms(h);
        if (out != null) {
            OutFolder.choose(out, "check", "--out"); // a new or empty folder: summary.json describes only this check
        }
        long start = System.nanoTime();
        Analysis analysis = IsolationChecker.analyze(h);
        // the history-judging oracle's violations, one per proscribed witness: the same kinds, spelling and files as a run's
        HistoryJudge anomalies = Oracles.judgingHistories().histories();
        List<Violation> proscribed = anomalies.everyWitness(analysis, h, l, documented(l), dbms == null ? null : "the " + dbms + " profile",
                historyFile.toString());
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("Checked %s: %d transactions at %s%s in %.2fs; observed: %s%n", historyFile, h.transactions().size(), l.name(),
                dbms == null ? "" : " against the " + dbms + " profile", seconds,
                analysis.observed().isEmpty() ? "no anomaly" : String.join(", ", analysis.observed().stream().map(anomalies::kind).toList()));
        if (elle != null && elle.approximation() != null) {
            System.out.println("note: " + elle.approximation());
        }
        analysis.warnings().forEach(w -> System.out.println("warning: " + w));
        for (Violation v : proscribed) {
            System.out.println(v.classification().label() + ": " + v.summary());
            anomalies.explanation(v).forEach(line -> System.out.println("  " + line));
        }
        if (proscribed.isEmpty()) {
            System.out.println("No anomaly that " + l.sql() + " proscribes.");
        }
        if (out != null) {
            write(h, l, proscribed, seconds);
        }
        return proscribed.stream().anyMatch(v -> v.classification() == Classification.BUG_CANDIDATE) ? Main.FOUND : Main.OK;
    }

    /**
     * The DBMS whose profile judges: --dbms, else the history's meta.dbms; null for none ({@code --dbms none},
     * or neither given). A name txfuzz does not know is a one-line error saying where it came from.
     */
    private String profileDbms(History h) {
        String name = dbms != null ? dbms : h.meta().get("dbms");
        if (name == null || name.isBlank() || (dbms != null && dbms.equalsIgnoreCase("none"))) {
            return null;
        }
        if (!txfuzz.dbms.Targets.exists(name)) {
            throw new Main.UserError("unknown DBMS '" + name + "'" + (dbms != null ? "" : " in the history's meta.dbms") + "; known: "
                    + String.join(", ", txfuzz.dbms.Targets.names()) + (dbms != null ? "" : "; give --dbms NAME, or --dbms none to judge"
                    + " without a DBMS's profile"));
        }
        return name;
    }

    /** What the --dbms profile documents at {@code level}; nothing without --dbms. */
    private txfuzz.history.Documented documented(IsolationLevel level) {
        if (dbms == null) {
            return txfuzz.history.Documented.NONE;
        }
        Engine engine = Options.engine(dbms); // the description: no server or engine starts
        List<String> modes = Options.modes(engine, mode);
        LevelSemantics s = engine.profile(modes.isEmpty() ? engine.modes().get(0) : modes.get(0)).levels().get(level);
        if (s == null) {
            throw new Main.UserError("isolation level " + level.name() + " is not offered by " + dbms);
        }
        return s.documented();
    }

    /** summary.json and one findings/<id>/ per violation, through the writer a run uses. */
    private void write(History h, IsolationLevel l, List<Violation> violations, double seconds) {
        FindingWriter writer = new FindingWriter(out);
        List<FindingRecord> records = new ArrayList<>();
        String dbmsName = h.meta().getOrDefault("dbms", "unknown");
        int n = 0;
        for (Violation v : violations) {
            String id = "check-" + l.shortName() + "-" + (++n);
            records.addAll(writer.writeEvidence(id, dbmsName, l, "history: `" + historyFile + "`",
                    "txfuzz check " + historyFile + " --level " + l.name() + (dbms == null ? "" : " --dbms " + dbms), List.of(v)));
        }
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("history", historyFile.toString());
        summary.put("isolation", l.name());
        summary.put("transactions", h.transactions().size());
        summary.put("seconds", Math.round(seconds * 1000) / 1000.0);
        summary.put("bugCandidates", records.stream().filter(r -> r.classification().equals(Classification.BUG_CANDIDATE.label())).count());
        summary.put("findings", records);
        try {
            Files.createDirectories(out);
            Files.writeString(out.resolve("summary.json"),
                    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(summary) + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write to " + out + ": " + e.getMessage(), e);
        }
    }
}
