package txfuzz.campaign;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import txfuzz.dbms.Target;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.SetupFailedException;
import txfuzz.exec.Trace;
import txfuzz.gen.GenConfig;
import txfuzz.model.CaseFormatException;
import txfuzz.model.CaseJson;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;
import txfuzz.report.FindingRecord;

/**
 * The corpus of published engine behaviours (resource {@code corpus/index.json}, docs/corpus.md):
 * each entry a case file with its source and the verdict it deserves. Loaded from the class path so
 * that the shipped jar ({@code txfuzz bench --corpus}) and CorpusTest replay the same files the same
 * way — the way {@code txfuzz replay} does: one run, the entry's oracles through {@link Judge}, no
 * confirmation run.
 */
public final class Corpus {
    private static final String ROOT = "corpus/";

    private final List<Entry> entries;

    private Corpus(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    /** The entries, in the index's order. */
    public List<Entry> entries() {
        return entries;
    }

    /** What an entry is, as published. */
    public enum Kind {
        /** published as a bug */
        BUG("bug"),
        /** the level's definition proscribes it, but the engine documents it */
        DOCUMENTED("documented"),
        /** the engine does what the level promises */
        CORRECT("correct");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /**
     * The verdict on a whole replay: bug-candidate if any violation is one, else documented if any is, else not-promised if
     * any is (the level's promises hold; only txfuzz's stricter expectation is broken), else none.
     */
    public enum Overall {
        NONE("none"), NOT_PROMISED("not-promised"), DOCUMENTED("documented"), BUG_CANDIDATE("bug-candidate");

        private final String label;

        Overall(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        static Overall parse(String label, String where) {
            for (Overall o : values()) {
                if (o.label.equals(label)) {
                    return o;
                }
            }
            throw new IllegalStateException(where + ": verdict '" + label + "' is none of bug-candidate, documented, not-promised, none");
        }

        /** The overall verdict of {@code oracle/kind/classification} labels. */
        public static Overall of(List<String> labels) {
            if (labels.stream().anyMatch(v -> v.endsWith("/" + Classification.BUG_CANDIDATE.label()))) {
                return BUG_CANDIDATE;
            }
            if (labels.stream().anyMatch(v -> v.endsWith("/" + Classification.DOCUMENTED.label()))) {
                return DOCUMENTED;
            }
            if (labels.stream().anyMatch(v -> v.endsWith("/" + Classification.NOT_PROMISED.label()))) {
                return NOT_PROMISED;
            }
            return NONE;
        }
    }

    /**
     * One entry of the index (docs/corpus.md, "An entry").
     *
     * @param independent true for a bug published independently of txfuzz (an upstream report or fix, a paper)
     * @param reproduces  false for a published bug fixed before the shipped version ({@code checkedOn})
     * @param caseFile    the case file, relative to the corpus folder
     * @param today       what txfuzz reported when the entry was last checked: sorted {@code oracle/kind/classification}
     * @param knownGap    why {@code today} misses {@code expected}; null when it does not
     */
    public record Entry(String id, String title, String engine, IsolationLevel level, Kind kind, String affected, boolean independent,
                        String checkedOn, boolean reproduces, List<String> sources, String caseFile, List<String> oracles,
                        Overall expected, List<String> today, String knownGap) {
        public Entry {
            sources = List.copyOf(sources);
            oracles = List.copyOf(oracles);
            today = List.copyOf(today);
        }

        /** A published bug that the shipped engine still has: what recall counts. */
        public boolean reproducingBug() {
            return kind == Kind.BUG && reproduces;
        }

        /**
         * The {@code oracle/kind} pairs a campaign has to find to count as finding this entry's
         * class: those of its bug candidates today, or (where an oracle's classification is the
         * known gap) of all its violations today.
         */
        public Set<String> soughtKinds() {
            Set<String> bugs = new TreeSet<>();
            Set<String> all = new TreeSet<>();
            for (String t : today) {
                String oracleAndKind = t.substring(0, t.lastIndexOf('/'));
                all.add(oracleAndKind);
                if (t.endsWith("/" + Classification.BUG_CANDIDATE.label())) {
                    bugs.add(oracleAndKind);
                }
            }
            return bugs.isEmpty() ? all : bugs;
        }

        /** The entry's case file, read from the class path. */
        public TestCase testCase() {
            String resource = ROOT + caseFile;
            try (InputStream in = Corpus.class.getClassLoader().getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("corpus entry " + id + ": no case file " + resource + " on the class path");
                }
                TestCase c = CaseJson.read(new String(in.readAllBytes(), StandardCharsets.UTF_8), resource);
                if (!c.dbms().equals(engine) || c.isolation() != level) {
                    throw new IllegalStateException("corpus entry " + id + ": its case runs on " + c.dbms() + " at " + c.isolation()
                            + ", the entry says " + engine + " at " + level);
                }
                return c;
            } catch (IOException e) {
                throw new UncheckedIOException(resource + ": cannot read", e);
            } catch (CaseFormatException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }
    }

    /**
     * One replay of an entry.
     *
     * @param version    the engine's exact version string
     * @param violations what the entry's oracles said, in their order
     */
    public record Replay(Entry entry, String version, TestCase testCase, Trace trace, List<Violation> violations) {
        public Replay {
            violations = List.copyOf(violations);
        }

        /** The violations as sorted, distinct {@code oracle/kind/classification} strings: the index's {@code today} form. */
        public List<String> labels() {
            Set<String> out = new TreeSet<>();
            for (Violation v : violations) {
                out.add(v.oracle() + "/" + v.kind().label() + "/" + v.classification().label());
            }
            return List.copyOf(out);
        }

        public Overall verdict() {
            return Overall.of(labels());
        }

        /** The shipped engine is the version the entry was checked on. */
        public boolean onCheckedVersion() {
            return version.contains(entry.checkedOn());
        }

        /** The violations are exactly those the index records. */
        public boolean asRecorded() {
            return labels().equals(entry.today());
        }

        /** The verdict is the expected one — or, for an entry with a known gap, still is not (the gap is still open). */
        public boolean expectedOrKnownGap() {
            return entry.knownGap() == null ? verdict() == entry.expected() : verdict() != entry.expected();
        }

        /** Why the replay is not what the index records, one phrase each; empty when it is (what CorpusTest asserts). */
        public List<String> problems() {
            List<String> out = new ArrayList<>();
            if (!onCheckedVersion()) {
                out.add("checked on " + entry.checkedOn() + ", ran on " + version);
            }
            if (!asRecorded()) {
                out.add("violations " + labels() + " instead of " + entry.today());
            }
            if (!expectedOrKnownGap()) {
                out.add(entry.knownGap() == null ? "verdict " + verdict().label() + ", expected " + entry.expected().label()
                        : "known gap closed: verdict is the expected " + verdict().label());
            }
            return out;
        }
    }

    /** The corpus shipped with txfuzz. A malformed index is a txfuzz bug: an {@link IllegalStateException} naming the entry. */
    public static Corpus load() {
        String resource = ROOT + "index.json";
        JsonNode index;
        try (InputStream in = Corpus.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("no " + resource + " on the class path");
            }
            index = new ObjectMapper().readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(resource + ": cannot read", e);
        }
        List<Entry> out = new ArrayList<>();
        for (JsonNode e : index.path("entries")) {
            out.add(entry(e));
        }
        if (out.isEmpty()) {
            throw new IllegalStateException(resource + " has no entries");
        }
        return new Corpus(out);
    }

    private static Entry entry(JsonNode e) {
        String id = text(e, "id", "an entry");
        String level = text(e, "level", id);
        IsolationLevel parsed;
        try {
            parsed = IsolationLevel.valueOf(level);
        } catch (IllegalArgumentException x) {
            throw new IllegalStateException("corpus entry " + id + ": unknown level " + level);
        }
        Kind kind = null;
        for (Kind k : Kind.values()) {
            if (k.label().equals(text(e, "kind", id))) {
                kind = k;
            }
        }
        if (kind == null) {
            throw new IllegalStateException("corpus entry " + id + ": kind '" + e.get("kind").asText() + "' is none of bug, documented, correct");
        }
        if (kind == Kind.BUG && !e.has("independent")) {
            throw new IllegalStateException("corpus entry " + id + ": a bug must say whether it was published independently of txfuzz");
        }
        JsonNode gap = e.get("knownGap");
        return new Entry(id, text(e, "title", id), text(e, "engine", id), parsed, kind, text(e, "affected", id),
                e.path("independent").asBoolean(false), text(e, "checkedOn", id), !e.has("reproduces") || e.get("reproduces").asBoolean(),
                texts(e, "sources", id), text(e, "case", id), texts(e, "oracles", id), Overall.parse(text(e, "expected", id), id),
                texts(e, "today", id), gap == null || gap.isNull() ? null : gap.asText());
    }

    private static String text(JsonNode e, String field, String id) {
        JsonNode v = e.get(field);
        if (v == null || !v.isTextual() || v.asText().isBlank()) {
            throw new IllegalStateException("corpus entry " + id + ": missing " + field);
        }
        return v.asText();
    }

    private static List<String> texts(JsonNode e, String field, String id) {
        JsonNode v = e.get(field);
        if (v == null || !v.isArray()) {
            throw new IllegalStateException("corpus entry " + id + ": missing " + field);
        }
        List<String> out = new ArrayList<>();
        v.forEach(x -> out.add(x.asText()));
        return out;
    }

    /**
     * Replays {@code entry} on {@code executor}'s target as {@code txfuzz replay --oracle} would:
     * one run, judged by the entry's oracles, no confirmation run.
     */
    public static Replay replay(Entry entry, Executor executor) throws SQLException, SetupFailedException {
        TestCase c = entry.testCase();
        Trace trace = executor.run(c);
        List<Violation> violations;
        try (OracleSet oracles = Oracles.create(entry.oracles(), txfuzz.oracle.OracleContext.of(executor.target(), executor.config()))) {
            violations = new Judge(oracles.oracles(), executor).judge(c, trace);
        }
        return new Replay(entry, executor.target().version(), c, trace, violations);
    }

    /** n of total, e.g. recall. */
    public record Ratio(int hits, int total) {
        @Override
        public String toString() {
            return hits + "/" + total;
        }
    }

    /**
     * The corpus figures over some replays (docs/corpus.md, "Figures").
     *
     * @param recall            reproducing published bugs called bug candidates
     * @param recallByEngine    the same per engine, engines in the replays' order
     * @param independentRecall the same over bugs published independently of txfuzz
     * @param falseCandidates   correct and documented entries called bug candidates
     * @param documentedAsDocumented entries of documented behaviour whose verdict is documented
     * @param fixedBugsFlagged  bugs fixed before the shipped version (regression entries) called bug candidates
     * @param offExpected       replays whose verdict is not the expected one (known gaps included)
     * @param asIndexed         replays that are what the index records (see {@link Replay#problems()})
     */
    public record Figures(Ratio recall, Map<String, Ratio> recallByEngine, Ratio independentRecall, Ratio falseCandidates,
                          List<String> falseCandidateIds, int correctEntries, Ratio documentedAsDocumented, Ratio fixedBugsFlagged,
                          List<Replay> offExpected, Ratio asIndexed) {
    }

    public static Figures figures(List<Replay> replays) {
        int bugs = 0;
        int caught = 0;
        int independent = 0;
        int independentCaught = 0;
        Map<String, int[]> byEngine = new java.util.LinkedHashMap<>();
        int cleanEntries = 0;
        int correct = 0;
        int documented = 0;
        int documentedAsDocumented = 0;
        List<String> falseIds = new ArrayList<>();
        int fixed = 0;
        int fixedFlagged = 0;
        List<Replay> off = new ArrayList<>();
        int holding = 0;
        for (Replay r : replays) {
            Entry e = r.entry();
            boolean candidate = r.verdict() == Overall.BUG_CANDIDATE;
            if (e.reproducingBug()) {
                int[] engine = byEngine.computeIfAbsent(e.engine(), k -> new int[2]);
                bugs++;
                engine[1]++;
                if (candidate) {
                    caught++;
                    engine[0]++;
                }
                if (e.independent()) {
                    independent++;
                    independentCaught += candidate ? 1 : 0;
                }
            } else if (e.kind() == Kind.BUG) {
                fixed++;
                fixedFlagged += candidate ? 1 : 0;
            } else {
                cleanEntries++;
                correct += e.kind() == Kind.CORRECT ? 1 : 0;
                documented += e.kind() == Kind.DOCUMENTED ? 1 : 0;
                documentedAsDocumented += e.kind() == Kind.DOCUMENTED && r.verdict() == Overall.DOCUMENTED ? 1 : 0;
                if (candidate) {
                    falseIds.add(e.id());
                }
            }
            if (r.verdict() != e.expected()) {
                off.add(r);
            }
            holding += r.problems().isEmpty() ? 1 : 0;
        }
        Map<String, Ratio> perEngine = new java.util.LinkedHashMap<>();
        byEngine.forEach((k, v) -> perEngine.put(k, new Ratio(v[0], v[1])));
        return new Figures(new Ratio(caught, bugs), perEngine, new Ratio(independentCaught, independent),
                new Ratio(falseIds.size(), cleanEntries), falseIds, correct, new Ratio(documentedAsDocumented, documented), new Ratio(fixedFlagged, fixed), off,
                new Ratio(holding, replays.size()));
    }

    /**
     * What a campaign at an entry's engine and level, not pointed at the entry, found: the
     * generator's power to reach the bug's class, not only the oracle's power to judge it.
     *
     * @param campaign         the campaign's folder name ({@link CampaignSetting#folder()}); entries with the same setting share one
     * @param sought           the {@code oracle/kind} pairs that count as the entry's class ({@link Entry#soughtKinds()})
     * @param sameClass        finding ids whose bug candidates are of a sought kind, in the order found
     * @param otherCandidates  bug-candidate findings of other kinds: {@code oracle/kind} → finding count
     * @param soughtDocumented findings of a sought kind classified documented
     */
    public record CampaignCheck(Entry entry, String campaign, String version, Duration duration, long seed, long cases, double seconds,
                                Set<String> sought, List<String> sameClass, Map<String, Integer> otherCandidates, int soughtDocumented) {
        public CampaignCheck {
            sought = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(sought)); // printed in order
            sameClass = List.copyOf(sameClass);
            otherCandidates = Map.copyOf(otherCandidates);
        }

        public boolean found() {
            return !sameClass.isEmpty();
        }
    }

    /**
     * What a campaign for an entry is: its engine, level, mode and oracles. Two entries with the
     * same setting get the same campaign (the same seed gives the same cases), so it runs once.
     */
    public record CampaignSetting(String engine, IsolationLevel level, String mode, List<String> oracles) {
        public CampaignSetting {
            oracles = List.copyOf(oracles);
        }

        public static CampaignSetting of(Entry e) {
            return new CampaignSetting(e.engine(), e.level(), e.testCase().mode(), e.oracles());
        }

        /** A folder name: {@code duckdb-SNAPSHOT-default-wss+explicit}. */
        public String folder() {
            return engine + "-" + level.name() + "-" + mode + "-" + String.join("+", oracles);
        }
    }

    /**
     * Runs a campaign of {@code duration} on {@code target} (the setting's engine) at the setting's
     * level and mode with its oracles and {@code seed}, writing into {@code out}. Reduction is off:
     * the question is what the search finds, and reducing would eat the budget.
     */
    public static Summary campaign(CampaignSetting setting, Target target, txfuzz.dbms.TargetOptions options, Duration duration, long seed,
                                   Path out) {
        if (!target.name().equals(setting.engine())) {
            throw new IllegalArgumentException("a " + setting.engine() + " campaign cannot run on " + target.name());
        }
        CampaignConfig config = new CampaignConfig(List.of(setting.level()), List.of(setting.mode()), setting.oracles(), null, duration, seed,
                out, GenConfig.defaults(), ExecutorConfig.defaults(), null, CampaignConfig.Execution.PLAIN, Duration.ZERO, 0);
        return new Campaign(target, config, new PrintStream(java.io.OutputStream.nullOutputStream()))
                .describedBy(RunMeta.of(target, options, null)).run();
    }

    /** Compares a campaign's findings (run for {@code entry}'s setting) with the entry's class. */
    public static CampaignCheck check(Entry entry, Summary s, Duration duration) {
        Set<String> sought = entry.soughtKinds();
        Set<String> same = new LinkedHashSet<>();
        Map<String, Set<String>> other = new TreeMap<>();
        Set<String> documented = new LinkedHashSet<>();
        for (FindingRecord f : s.findings()) {
            String kind = f.oracle() + "/" + f.kind();
            boolean bug = f.classification().equals(Classification.BUG_CANDIDATE.label());
            if (bug && sought.contains(kind)) {
                same.add(f.id());
            } else if (bug) {
                other.computeIfAbsent(kind, k -> new TreeSet<>()).add(f.id());
            } else if (sought.contains(kind) && f.classification().equals(Classification.DOCUMENTED.label())) {
                documented.add(f.id());
            }
        }
        Map<String, Integer> otherCounts = new TreeMap<>();
        other.forEach((k, v) -> otherCounts.put(k, v.size()));
        return new CampaignCheck(entry, CampaignSetting.of(entry).folder(), s.version(), duration, s.seed(), s.cases(), s.seconds(), sought,
                List.copyOf(same), otherCounts, documented.size());
    }

    /** "10m", "90s", "1500ms": a duration as the command line writes it. */
    public static String durationText(Duration d) {
        if (d.toMillis() % 60_000 == 0 && !d.isZero()) {
            return d.toMinutes() + "m";
        }
        if (d.toMillis() % 1000 == 0) {
            return d.toSeconds() + "s";
        }
        return String.format(Locale.ROOT, "%dms", d.toMillis());
    }
}
