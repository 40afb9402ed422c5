package txfuzz.campaign;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import txfuzz.dbms.Target;
import txfuzz.exec.Executor;
import txfuzz.exec.SetupFailedException;
import txfuzz.exec.Trace;
import txfuzz.gen.ForeignInstrumentation;
import txfuzz.imports.Importer;
import txfuzz.model.CaseJson;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Oracle;
import txfuzz.oracle.Run;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;
import txfuzz.reduce.ReduceConfig;
import txfuzz.reduce.Reducer;
import txfuzz.reduce.Reduction;
import txfuzz.report.FindingWriter;

/**
 * {@code txfuzz judge-suite}: imports every file of a folder of schedules written by others, runs each case on
 * one engine with the oracles that apply to it, and tabulates what happened — per file the schedules, the cases
 * imported and judged, what was skipped and why; per oracle the verdicts; and each bug candidate, confirmed by a
 * second run, reduced, and filed as a finding. With {@code instrument}, each case gets the row tracking a generated
 * case gets ({@link ForeignInstrumentation}) and every oracle's preparation, so the oracles that need row tracking
 * judge it too; where the instrumentation is incomplete those oracles are "not applicable" for the case, with the
 * statement it could not instrument, and the others judge the plain case.
 */
public final class JudgeSuite {
    /** What a verdict of one oracle on one case says, as the table spells it. */
    static final String PASS = "pass";
    /**
     * The verdict of an oracle that did not judge a case (followed by why): one that needs row tracking, on a case whose
     * instrumentation is incomplete, or one whose premise the case or its run does not meet (its {@link Verdict#notApplicable()}).
     */
    static final String NOT_APPLICABLE = "not applicable";
    /** The reason counted for an oracle that needs row tracking, on a case with a statement the instrumentation cannot handle. */
    static final String ROW_TRACKING_INCOMPLETE = "row tracking misses a statement the instrumentation cannot handle";

    /**
     * @param reduceTime time budget for reducing each bug candidate
     * @param instrument give each imported case row tracking, so the oracles that need it judge it too (false: judge it as imported)
     */
    public record Config(Importer.Options importOptions, Duration reduceTime, boolean instrument) {
    }

    /**
     * One case's verdicts: per oracle {@link #PASS}, {@link #NOT_APPLICABLE} with why, or the classification and kinds of what it
     * found; or why it did not run.
     *
     * @param notApplicable per oracle that did not judge the case, the reason counted in the table (the verdict says it in full)
     */
    public record CaseRow(String file, String schedule, String caseFile, String level, Map<String, String> verdicts, String notRun,
                          String finding, Map<String, String> notApplicable) {
    }

    /** One file's figures. */
    public record FileRow(String file, String format, long schedules, int imported, int judged, List<Importer.Skipped> skipped,
                          List<String> leftOut) {
    }

    /**
     * The whole table.
     *
     * @param perOracle     per oracle, how many judged cases got each verdict (pass, not applicable, each classification)
     * @param notApplicable per oracle, how many judged cases it did not judge for each reason
     */
    public record Table(String engine, String dbms, List<FileRow> files, List<CaseRow> cases, Map<String, Map<String, Integer>> perOracle,
                        Map<String, Map<String, Integer>> notApplicable) {
        public long bugCandidates() {
            return cases.stream().filter(c -> c.verdicts().values().stream().anyMatch(v -> v.startsWith(Classification.BUG_CANDIDATE.label()))).count();
        }
    }

    private final Config config;
    private final Target target;
    private final Executor executor;
    private final Path out;

    public JudgeSuite(Config config, Target target, Executor executor, Path out) {
        this.config = config;
        this.target = target;
        this.executor = executor;
        this.out = out;
    }

    /** The files of {@code dir} (recursively) that {@code import} reads, in name order. */
    public static List<Path> files(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).filter(p -> Importer.formatOf(p) != null).sorted().toList();
        }
    }

    public Table run(List<Path> files, java.util.function.Consumer<String> progress) throws IOException {
        Files.createDirectories(out.resolve("cases"));
        FindingWriter findings = new FindingWriter(out);
        List<FileRow> rows = new ArrayList<>();
        List<CaseRow> cases = new ArrayList<>();
        Map<String, Map<String, Integer>> perOracle = new TreeMap<>();
        Map<String, Map<String, Integer>> notApplicable = new TreeMap<>();
        for (Path file : files) {
            Importer.FileImport f;
            try {
                f = Importer.read(file, config.importOptions());
            } catch (IllegalArgumentException e) { // the file's one-line reason; the other files go on
                rows.add(new FileRow(file.getFileName().toString(), "unread", 0, 0, 0, List.of(new Importer.Skipped("the whole file", oneLine(e.getMessage()))),
                        List.of()));
                progress.accept(file.getFileName() + ": " + oneLine(e.getMessage()));
                continue;
            }
            int judged = 0;
            for (int k = 0; k < f.cases().size(); k++) {
                Importer.Imported imp = f.cases().get(k);
                String caseFile = Importer.caseFileName(f, k + 1);
                CaseRow row = judge(imp.testCase(), f, imp.schedule(), caseFile, findings);
                cases.add(row);
                if (row.notRun() == null) {
                    judged++;
                    row.verdicts().forEach((oracle, verdict) -> perOracle.computeIfAbsent(oracle, o -> new TreeMap<>())
                            .merge(verdict.split(":")[0], 1, Integer::sum));
                    row.notApplicable().forEach((oracle, reason) -> notApplicable.computeIfAbsent(oracle, o -> new TreeMap<>())
                            .merge(reason, 1, Integer::sum));
                }
            }
            rows.add(new FileRow(file.getFileName().toString(), f.format().name().toLowerCase(Locale.ROOT).replace('_', '-'), f.schedules(),
                    f.cases().size(), judged, f.skipped(), f.leftOut()));
            progress.accept(file.getFileName() + ": " + f.schedules() + " schedules, " + f.cases().size() + " imported, " + judged + " judged");
        }
        Table t = new Table(target.version(), target.name(), rows, cases, perOracle, notApplicable);
        Files.writeString(out.resolve("judge-suite.json"), CaseJson.mapper().writeValueAsString(t) + "\n");
        Files.writeString(out.resolve("judge-suite.md"), markdown(t));
        return t;
    }

    /** The case the oracles judge, the oracles judging it, and those that cannot (oracle → why, in full; the instrumentation's message). */
    private record Judged(TestCase testCase, List<String> oracles, Map<String, String> notApplicable) {
    }

    /**
     * The imported case as judged: plain with the oracles a recorded case needs; or, instrumenting, with row tracking and
     * every oracle that needs it too — each oracle's preparation applied, as a campaign prepares a generated case — unless
     * some statement could not be instrumented, which makes those oracles not applicable rather than leaves them guessing.
     */
    private Judged prepared(TestCase plain) {
        List<String> own = Oracles.forCase(plain);
        if (!config.instrument()) {
            return new Judged(plain, own, Map.of());
        }
        List<String> tracking = Oracles.needingRowTracking();
        ForeignInstrumentation.Instrumented ins;
        String why;
        try {
            ins = ForeignInstrumentation.instrument(plain, target.dialect());
            why = ins.notApplicableBecause().map(w -> w.replaceFirst("^not applicable: ", "")).orElse(null);
        } catch (RuntimeException e) { // judged plain, with the reason, rather than end the suite
            ins = null;
            why = "the instrumentation failed: " + oneLine(String.valueOf(e.getMessage()));
        }
        if (why != null) {
            Map<String, String> na = new LinkedHashMap<>();
            String reason = why;
            tracking.forEach(o -> na.put(o, reason));
            return new Judged(plain, own.stream().filter(o -> !tracking.contains(o)).toList(), na);
        }
        List<String> all = Oracles.names().stream().filter(o -> own.contains(o) || tracking.contains(o)).toList();
        return new Judged(ins.testCase(), all, Map.of());
    }

    private CaseRow judge(TestCase plain, Importer.FileImport f, String schedule, String caseFile, FindingWriter findings) throws IOException {
        String file = f.file().getFileName().toString();
        String level = plain.isolation().sql();
        Judged j = prepared(plain);
        TestCase c = j.testCase();
        Path written = out.resolve("cases").resolve(caseFile);
        if (!target.isolationLevels().contains(c.isolation()) || !target.modes().contains(c.mode())) {
            Files.writeString(written, CaseJson.write(c));
            return new CaseRow(file, schedule, caseFile, level, Map.of(), target.name() + " does not run " + level + " in mode " + c.mode(), null,
                    Map.of());
        }
        try (OracleSet set = Oracles.create(j.oracles(), txfuzz.oracle.OracleContext.of(target, txfuzz.exec.ExecutorConfig.defaults()))) {
            List<Oracle> oracles = set.oracles();
            for (Oracle o : oracles) { // the equiv oracle's version-set reads, before the one run they all judge
                c = o.prepare(c);
            }
            Files.writeString(written, CaseJson.write(c));
            Judge judge = new Judge(oracles, executor);
            Trace trace = executor.run(c);
            List<Verdict> judged = judge.verdicts(Run.controlled(c, trace));
            List<Violation> vs = judged.stream().flatMap(v -> v.violations().stream()).toList();
            if (vs.stream().anyMatch(v -> v.classification() == Classification.BUG_CANDIDATE)) {
                vs = judge.confirm(c, vs);
            }
            Map<String, String> verdicts = new LinkedHashMap<>();
            Map<String, String> notApplicable = new LinkedHashMap<>();
            for (Verdict v : judged) {
                // the oracle did not judge the case (its own reason, or a case its rules do not cover): never a pass
                java.util.Optional<String> why = !v.applicable() ? java.util.Optional.of(v.notApplicable())
                        : oracles.stream().filter(o -> o.name().equals(v.oracle())).findFirst().flatMap(o -> o.notApplicableTo(j.testCase()));
                if (why.isPresent()) {
                    verdicts.put(v.oracle(), NOT_APPLICABLE + ": " + why.get());
                    notApplicable.put(v.oracle(), why.get());
                    continue;
                }
                List<Violation> own = vs.stream().filter(x -> x.oracle().equals(v.oracle())).toList();
                verdicts.put(v.oracle(), verdict(own));
            }
            j.notApplicable().forEach((oracle, why) -> {
                verdicts.put(oracle, NOT_APPLICABLE + ": " + why);
                notApplicable.put(oracle, ROW_TRACKING_INCOMPLETE);
            });
            String finding = null;
            List<Violation> bugs = vs.stream().filter(v -> v.classification() == Classification.BUG_CANDIDATE).toList();
            if (!bugs.isEmpty()) {
                finding = file(c, trace, vs, bugs.get(0), oracles, caseFile, findings);
            }
            return new CaseRow(file, schedule, caseFile, level, verdicts, null, finding, notApplicable);
        } catch (SetupFailedException e) {
            return new CaseRow(file, schedule, caseFile, level, Map.of(), "setup failed: " + oneLine(e.getMessage()), null, Map.of());
        } catch (SQLException | RuntimeException e) {
            return new CaseRow(file, schedule, caseFile, level, Map.of(), "run failed: " + oneLine(String.valueOf(e.getMessage())), null, Map.of());
        }
    }

    /** The bug candidate's finding, reduced where the reducer confirms a smaller case; its folder's name. */
    private String file(TestCase c, Trace trace, List<Violation> vs, Violation bug, List<Oracle> oracles, String caseFile,
                        FindingWriter findings) {
        String id = caseFile.replace(".case.json", "");
        TestCase shown = c;
        Trace shownTrace = trace;
        List<Violation> shownViolations = vs;
        try {
            Reduction r = new Reducer(executor, oracles, new ReduceConfig(config.reduceTime())).reduce(c, bug);
            if (r.changed()) {
                shown = r.reduced();
                shownTrace = executor.run(shown);
                shownViolations = List.of(r.violation());
            }
        } catch (SQLException | SetupFailedException | RuntimeException e) {
            // the finding is filed as found
        }
        findings.write(id, shown, shownTrace, shownViolations, target);
        return "findings/" + id;
    }

    /** "pass", or the worst classification among an oracle's violations with their kinds: "bug-candidate: lost-update". */
    static String verdict(List<Violation> vs) {
        if (vs.isEmpty()) {
            return PASS;
        }
        Classification worst = vs.stream().map(Violation::classification).min(java.util.Comparator.naturalOrder()).orElseThrow();
        return worst.label() + ": " + String.join(", ", vs.stream().map(v -> v.kind().label()).distinct().toList());
    }

    private static String oneLine(String s) {
        return s == null ? "" : s.replaceAll("\\s+", " ").strip();
    }

    static String markdown(Table t) {
        StringBuilder md = new StringBuilder("# judge-suite on ").append(t.engine()).append("\n\n");
        long schedules = t.files().stream().mapToLong(FileRow::schedules).sum();
        int imported = t.files().stream().mapToInt(FileRow::imported).sum();
        int judged = t.files().stream().mapToInt(FileRow::judged).sum();
        int skipped = t.files().stream().mapToInt(r -> r.skipped().size()).sum();
        md.append(String.format(Locale.ROOT, "%d files, %d schedules, %d imported, %d skipped, %d judged, %d bug candidates.%n%n",
                t.files().size(), schedules, imported, skipped, judged, t.bugCandidates()));
        md.append("| file | format | schedules | imported | judged | skipped |\n|---|---|---:|---:|---:|---|\n");
        for (FileRow r : t.files()) {
            Map<String, Integer> reasons = new LinkedHashMap<>();
            r.skipped().forEach(s -> reasons.merge(s.reason(), 1, Integer::sum));
            List<String> parts = new ArrayList<>();
            reasons.forEach((reason, n) -> parts.add(n + " × " + reason.replace("|", "\\|")));
            md.append("| ").append(r.file()).append(" | ").append(r.format()).append(" | ").append(r.schedules()).append(" | ").append(r.imported())
                    .append(" | ").append(r.judged()).append(" | ").append(parts.isEmpty() ? "0" : String.join("<br>", parts)).append(" |\n");
        }
        md.append("\n## Verdicts per oracle\n\n| oracle | ").append(String.join(" | ", verdictColumns(t))).append(" |\n|---|")
                .append("---:|".repeat(verdictColumns(t).size())).append('\n');
        t.perOracle().forEach((oracle, counts) -> {
            md.append("| ").append(oracle);
            for (String col : verdictColumns(t)) {
                md.append(" | ").append(counts.getOrDefault(col, 0));
            }
            md.append(" |\n");
        });
        List<CaseRow> notRun = t.cases().stream().filter(c -> c.notRun() != null).toList();
        if (!notRun.isEmpty()) {
            md.append("\n## Imported but not judged\n\n");
            notRun.forEach(c -> md.append("- ").append(c.caseFile()).append(" (").append(c.schedule()).append("): ").append(c.notRun()).append('\n'));
        }
        md.append("\n## Cases with a violation\n\n");
        List<CaseRow> flagged = t.cases().stream().filter(c -> c.verdicts().values().stream().anyMatch(JudgeSuite::violation)).toList();
        if (flagged.isEmpty()) {
            md.append("None.\n");
        }
        for (CaseRow c : flagged) {
            md.append("- ").append(c.caseFile()).append(" (").append(c.schedule()).append(", ").append(c.level()).append("): ");
            List<String> vs = new ArrayList<>();
            c.verdicts().forEach((o, v) -> {
                if (violation(v)) {
                    vs.add(o + " " + v);
                }
            });
            md.append(String.join("; ", vs)).append(c.finding() == null ? "" : " — " + c.finding()).append('\n');
        }
        if (!t.notApplicable().isEmpty()) {
            md.append("\n## Not applicable\n\nCases an oracle did not judge (counted as \"not applicable\" above, never as a pass), by reason.\n\n")
                    .append("| oracle | reason | cases |\n|---|---|---:|\n");
            t.notApplicable().forEach((oracle, reasons) -> reasons.forEach((reason, n) ->
                    md.append("| ").append(oracle).append(" | ").append(reason.replace("|", "\\|")).append(" | ").append(n).append(" |\n")));
        }
        Map<String, List<String>> untracked = new TreeMap<>();
        for (CaseRow c : t.cases()) {
            c.notApplicable().entrySet().stream().filter(e -> e.getValue().equals(ROW_TRACKING_INCOMPLETE)).findFirst()
                    .ifPresent(e -> untracked.computeIfAbsent(c.file(), k -> new ArrayList<>())
                            .add(c.caseFile() + ": " + oneLine(c.verdicts().get(e.getKey()).substring(NOT_APPLICABLE.length() + 2))));
        }
        if (!untracked.isEmpty()) {
            md.append("\n## Row tracking not applicable\n\nThe oracles that need row tracking did not judge these cases: a statement could not be instrumented.\n\n");
            untracked.forEach((file, lines) -> lines.forEach(l -> md.append("- ").append(l.replace("|", "\\|")).append('\n')));
        }
        return md.toString();
    }

    /** Whether a verdict reports a violation (not a pass, not "not applicable"). */
    private static boolean violation(String verdict) {
        return !verdict.equals(PASS) && !verdict.startsWith(NOT_APPLICABLE);
    }

    private static List<String> verdictColumns(Table t) {
        List<String> cols = new ArrayList<>(List.of(PASS, NOT_APPLICABLE));
        for (Classification c : Classification.values()) {
            cols.add(c.label());
        }
        return cols;
    }
}
