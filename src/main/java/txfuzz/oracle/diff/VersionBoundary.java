package txfuzz.oracle.diff;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import txfuzz.dbms.Engine;
import txfuzz.dbms.Subject;
import txfuzz.dbms.Target;
import txfuzz.dbms.versions.Bisection;
import txfuzz.dbms.versions.BundledVersions;
import txfuzz.dbms.versions.MavenArtifact;
import txfuzz.dbms.versions.MavenCentral;
import txfuzz.dbms.versions.Releases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.model.TestCase;

/**
 * Where, between two versions of one engine (same mode, execution style and settings), a confirmed divergence
 * changed: the case is replayed on the releases Maven Central lists between the two (what {@code txfuzz targets
 * --versions} lists), each twice, bisected as {@code bisect} does ({@link Bisection}, one change assumed). A version
 * behaves like a side when both its runs compare equal with that side's run ({@link TraceComparison}). The boundary
 * is named with the first new version's release notes, where the engine's package has their link
 * ({@link Engine#releaseNotes}); no line of them is quoted (txfuzz has none as data).
 *
 * <p>Done once per scenario (signature) of the pair, not per divergence: later divergences of the scenario reuse it.
 */
final class VersionBoundary {
    /** What a version did with the case, against the two sides' runs. */
    enum Behaves {
        OLD, NEW, NEITHER, NOT_COMPARABLE, FLAKY, CANNOT_RUN;

        /** The side it decides for; null when it decides nothing. */
        Object side() {
            return this == OLD || this == NEW ? this : null;
        }
    }

    /** One version's two runs. */
    record Replay(Behaves behaves, String detail) {
    }

    /**
     * A boundary search's outcome.
     *
     * @param lastOld  the last version that behaves like the older side; null when not decided
     * @param firstNew the first version that behaves like the newer side; null when not decided
     * @param sentences what was tried and found, each a fact (for the finding's evidence and the study)
     */
    record Found(String lastOld, String firstNew, List<String> sentences) {
        Found {
            sentences = List.copyOf(sentences);
        }

        boolean decided() {
            return lastOld != null && firstNew != null;
        }

        String change() {
            return "changed between " + lastOld + " and " + firstNew;
        }
    }

    private final Subject older;
    private final Subject newer;
    private final String olderRelease;
    private final String newerRelease;
    private final MavenArtifact artifact;
    private final ExecutorConfig config;
    /**
     * Each pair's scenarios searched so far, by "older vs newer|scenario": shared by every worker's oracle and the
     * oracles that reduce a study's examples, so a scenario is searched once per process.
     */
    private static final Map<String, Found> SEARCHED = new ConcurrentHashMap<>();

    private VersionBoundary(Subject older, String olderRelease, Subject newer, String newerRelease, MavenArtifact artifact, ExecutorConfig config) {
        this.older = older;
        this.newer = newer;
        this.olderRelease = olderRelease;
        this.newerRelease = newerRelease;
        this.artifact = artifact;
        this.config = config;
    }

    /**
     * The search between two subjects, or empty when they are not two releases of one engine with the same mode,
     * execution style and settings (or the engine has no versions on Maven Central).
     */
    static Optional<VersionBoundary> between(Subject a, Subject b, ExecutorConfig config) {
        if (!a.dbms().equals(b.dbms()) || !java.util.Objects.equals(a.mode(), b.mode()) || a.execution() != b.execution()
                || !a.settings().equals(b.settings())) {
            return Optional.empty();
        }
        Optional<MavenArtifact> artifact = a.engine().artifact();
        if (artifact.isEmpty()) {
            return Optional.empty();
        }
        String bundled = BundledVersions.of(a.dbms());
        String ra;
        String rb;
        try {
            ra = Releases.pick(artifact.get(), a.version(), bundled);
            rb = Releases.pick(artifact.get(), b.version(), bundled);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        int order = Versions.compare(ra, rb);
        if (order == 0) {
            return Optional.empty();
        }
        return Optional.of(order < 0 ? new VersionBoundary(a, ra, b, rb, artifact.get(), config)
                : new VersionBoundary(b, rb, a, ra, artifact.get(), config));
    }

    /** Forgets every search (tests that search one scenario twice). */
    static void forgetSearches() {
        SEARCHED.clear();
    }

    /** Whether {@code label} names the older side. */
    boolean olderIs(String label) {
        return older.label().equals(label);
    }

    /**
     * The boundary of {@code scenario}, searched on its first divergence: {@code c} (the older side's case shape;
     * both sides run the same statements) replayed on the versions between, compared with {@code oldRun} and {@code newRun}.
     */
    Found find(String scenario, TestCase c, SideRun oldRun, SideRun newRun, Rules rules) {
        return SEARCHED.computeIfAbsent(older.label() + " vs " + newer.label() + "|" + scenario, k -> search(c, oldRun, newRun, rules));
    }

    private Found search(TestCase c, SideRun oldRun, SideRun newRun, Rules rules) {
        List<String> sentences = new ArrayList<>();
        MavenCentral.Listing listing = MavenCentral.get().versions(artifact);
        List<String> releases = listing.releases();
        int from = releases.indexOf(olderRelease);
        int to = releases.indexOf(newerRelease);
        String engine = older.dbms();
        if (from < 0 || to < 0) {
            sentences.add("Not bisected: " + (from < 0 ? olderRelease : newerRelease) + " is not a release Maven Central lists for " + artifact
                    + (listing.problem() == null ? "" : " (" + oneLine(listing.problem()) + ")") + ".");
            return new Found(null, null, sentences);
        }
        List<String> range = releases.subList(from, to + 1);
        Map<String, Replay> seen = new LinkedHashMap<>();
        seen.put(olderRelease, new Replay(Behaves.OLD, "the run compared"));
        seen.put(newerRelease, new Replay(Behaves.NEW, "the run compared"));
        Bisection.halve(range, seen, v -> replay(c, v, oldRun, newRun, rules), r -> r.behaves().side());
        List<String> between = range.subList(1, range.size() - 1);
        List<String> tried = between.stream().filter(seen::containsKey).toList();
        if (between.isEmpty()) {
            sentences.add("Maven Central lists no release of " + engine + " between " + olderRelease + " and " + newerRelease
                    + "; releases it does not list were not tried.");
        } else {
            sentences.add("The scenario's first case (seed " + c.seed() + ", iteration " + c.iteration() + ") was replayed twice on " + tried.size()
                    + " of the " + between.size() + " releases of " + engine + " Maven Central lists between "
                    + olderRelease + " and " + newerRelease + " (bisected, one change assumed): "
                    + (tried.isEmpty() ? "none" : String.join("; ", tried.stream().map(v -> v + " " + words(seen.get(v))).toList()))
                    + ". Versions not listed there were not tried" + (tried.size() < between.size() ? ", nor the listed ones not named here" : "") + ".");
        }
        List<Bisection.Change> changes = Bisection.changes(range, seen, r -> r.behaves().side());
        // decided: one change, between two neighbouring releases of the range
        if (changes.size() != 1 || !changes.get(0).between().isEmpty()) {
            sentences.add("The boundary is not decided: " + (changes.isEmpty() ? "no two neighbouring decided versions differ"
                    : String.join("; ", changes.stream().map(ch -> "between " + ch.before() + " and " + ch.after()
                    + (ch.between().isEmpty() ? "" : " (" + String.join(", ", ch.between()) + " " + (ch.betweenTried() ? "could not decide" : "not replayed") + ")"))
                    .toList())) + ".");
            return new Found(null, null, sentences);
        }
        Bisection.Change ch = changes.get(0);
        // neighbours among the listed releases only: an artifact may repackage some releases of the engine, not all
        sentences.add("Changed between " + ch.before() + " and " + ch.after() + ", neighbours among the releases Maven Central lists (the last"
                + " listed release that behaves like " + older.label() + ", the first listed that behaves like " + newer.label() + ").");
        older.engine().releaseNotes(ch.after()).ifPresent(url -> sentences.add("Release notes of " + engine + " " + ch.after() + ": " + url
                + " (txfuzz has no line of them to quote; a release between " + ch.before() + " and " + ch.after()
                + " that Maven Central does not list may have made the change instead)."));
        return new Found(ch.before(), ch.after(), sentences);
    }

    private static String words(Replay r) {
        return switch (r.behaves()) {
            case OLD -> "behaves like the older side";
            case NEW -> "behaves like the newer side";
            case NEITHER -> "behaves like neither (" + r.detail() + ")";
            case NOT_COMPARABLE -> "cannot be compared with the sides (" + r.detail() + ")";
            case FLAKY -> "is flaky (its two runs differ: " + r.detail() + ")";
            case CANNOT_RUN -> "cannot run the case (" + r.detail() + ")";
        };
    }

    /** {@code c} run twice on release {@code version}, started for it (with the older side's mode, style and settings) and stopped after. */
    private Replay replay(TestCase c, String version, SideRun oldRun, SideRun newRun, Rules rules) {
        Subject at = new Subject(older.dbms(), version, older.mode(), older.execution(), older.settings());
        try (Target target = at.open(null); Executor ex = new Executor(target, config)) {
            txfuzz.model.DbState setup = DiffOracle.setupState(ex, c);
            List<Behaves> runs = new ArrayList<>();
            String detail = "";
            for (int i = 0; i < 2; i++) {
                SideRun run = new SideRun(setup, ex.run(c));
                Comparison withOld = TraceComparison.compare(c, run, oldRun, rules);
                Comparison withNew = TraceComparison.compare(c, run, newRun, rules);
                // a run the executor had to rescue (a stall broken) or whose setup differs says nothing either way
                Behaves b = withOld.status() == Comparison.Status.AGREE ? Behaves.OLD
                        : withNew.status() == Comparison.Status.AGREE ? Behaves.NEW
                        : withOld.status() == Comparison.Status.NOT_COMPARABLE ? Behaves.NOT_COMPARABLE : Behaves.NEITHER;
                if (b == Behaves.NOT_COMPARABLE) {
                    detail = withOld.reason();
                } else if (b == Behaves.NEITHER) {
                    detail = "against the older side: " + describe(withOld) + "; against the newer: " + describe(withNew);
                }
                runs.add(b);
            }
            if (runs.get(0) != runs.get(1)) {
                return new Replay(Behaves.FLAKY, runs.get(0) + " then " + runs.get(1));
            }
            return new Replay(runs.get(0), detail);
        } catch (Exception e) {
            return new Replay(Behaves.CANNOT_RUN, oneLine(e.getMessage()));
        }
    }

    private static String describe(Comparison cmp) {
        return cmp.status() == Comparison.Status.DIVERGE ? cmp.divergence().toString() : "not comparable, " + cmp.reason();
    }

    private static String oneLine(String s) {
        return String.valueOf(s).lines().findFirst().orElse("").strip();
    }
}
