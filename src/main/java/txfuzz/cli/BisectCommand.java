package txfuzz.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import txfuzz.dbms.Engine;
import txfuzz.dbms.Targets;
import txfuzz.dbms.versions.Bisection;
import txfuzz.dbms.versions.MavenArtifact;
import txfuzz.dbms.versions.MavenCentral;
import txfuzz.campaign.VersionReplay;
import txfuzz.model.TestCase;

/**
 * Replays a case across the versions of its engine that Maven Central lists (an in-process engine's
 * jar, a server's binaries: each version's server is started for it and stopped after) and says
 * where its bug candidate appears and disappears. Every version it decides on runs the case twice
 * (findings can be nondeterministic): two runs that disagree make the version "flaky", which no
 * conclusion rests on. Up to {@value #ALL_UP_TO} versions are all replayed; in a longer range the
 * two ends are, then the versions between two ends that disagree are bisected (one change assumed).
 */
@Command(name = "bisect", description = "Replay a case on every version of its engine (or a range) and report where its bug candidate"
        + " is introduced and fixed.")
final class BisectCommand implements Callable<Integer> {
    static final int ALL_UP_TO = 16;

    @Parameters(paramLabel = "CASE.json", description = "A case file, e.g. txfuzz-out/latest/findings/<id>/case.json.")
    Path caseFile;

    @Option(names = "--versions", paramLabel = "A..B", description = "The versions to try, both ends included (as 'txfuzz targets --versions'"
            + " lists them). Default: from the release the case was found on (its 'engine') to the newest; every release Maven Central"
            + " lists for a case that records none.")
    String range;

    @Option(names = "--oracle", description = "Oracles, comma-separated. Default: those the case needs: wss and explicit, with isolation"
            + " for a case with row tracking and equiv for one with version-set reads.")
    String oracles;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
    boolean help;

    @Override
    public Integer call() {
        TestCase c = Options.readCase(caseFile);
        List<String> chosen = Options.oracles(oracles != null ? oracles : String.join(",", txfuzz.campaign.Oracles.forCase(c)));
        if (!Targets.exists(c.dbms())) {
            throw new Main.UserError("unknown DBMS '" + c.dbms() + "' in " + caseFile);
        }
        Engine engine = Targets.engine(c.dbms());
        if (engine.artifact().isEmpty()) {
            throw new Main.UserError(c.dbms() + " has no versions on Maven Central to bisect");
        }
        MavenArtifact artifact = engine.artifact().get();
        List<String> versions = versions(artifact, c);
        System.out.println("Bisecting " + caseFile + " on " + c.dbms() + ", " + versions.size() + " versions " + versions.get(0) + ".."
                + versions.get(versions.size() - 1) + (versions.size() > ALL_UP_TO ? " (bisected)" : " (all replayed)")
                + "; each decided version runs the case twice");
        Map<String, VersionReplay> seen = new LinkedHashMap<>();
        if (versions.size() <= ALL_UP_TO) {
            versions.forEach(v -> seen.put(v, judge(c, v, chosen)));
        } else {
            bisect(c, versions, chosen, seen);
        }
        System.out.println();
        System.out.println("| version | verdict | runs |");
        System.out.println("|---|---|---|");
        for (String v : versions) {
            VersionReplay r = seen.get(v);
            if (r != null) {
                System.out.println("| " + v + " | " + r.verdict().words + " | " + r.detail() + " |");
            }
        }
        System.out.println();
        conclusions(versions, seen).forEach(System.out::println);
        if (versions.size() > ALL_UP_TO && seen.size() == 2) {
            System.out.println("(only the two ends were replayed, and they agree: a bug introduced and fixed in between is missed;"
                    + " narrow --versions to at most " + ALL_UP_TO + " versions to replay them all)");
        }
        return Main.OK;
    }

    private List<String> versions(MavenArtifact artifact, TestCase c) {
        MavenCentral.Listing listing = MavenCentral.get().versions(artifact);
        List<String> all = listing.releases();
        if (all.isEmpty()) {
            throw new Main.UserError("no versions of " + artifact + " listed" + (listing.problem() == null ? "" : ": " + listing.problem()));
        }
        if (range == null) {
            int found = foundOn(all, c);
            if (found < 0) {
                if (c.engine() != null) {
                    System.out.println("The case was found on " + c.engine().version() + ", which is not a listed release: trying every release");
                }
                return all;
            }
            System.out.println("The case was found on " + c.engine().version() + ": from " + all.get(found) + " to the newest release");
            return all.subList(found, all.size());
        }
        String[] ends = range.split("\\.\\.", -1);
        if (ends.length != 2 || ends[0].isBlank() || ends[1].isBlank()) {
            throw new Main.UserError("--versions takes A..B, e.g. 2.3.232..2.5.252; got '" + range + "'");
        }
        int from = index(all, ends[0].trim(), true);
        int to = index(all, ends[1].trim(), false);
        if (from < 0 || to < 0) {
            throw new Main.UserError("--versions " + range + ": " + (from < 0 ? ends[0] : ends[1]) + " is not a listed release of " + artifact
                    + " (see 'txfuzz targets --versions')");
        }
        if (from > to) {
            throw new Main.UserError("--versions " + range + ": the first version is newer than the second");
        }
        return all.subList(from, to + 1);
    }

    /**
     * The release the case was found on: its recorded Maven version, else a version number in the
     * engine's own words ("PostgreSQL 15.10" → the first 15.10 release); -1 when the case records none
     * or it is not listed.
     */
    static int foundOn(List<String> releases, TestCase c) {
        if (c.engine() == null || !c.dbms().equals(c.engine().dbms())) {
            return -1;
        }
        if (c.engine().release() != null) {
            return releases.indexOf(c.engine().release());
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\b\\d+(\\.\\d+)+\\b").matcher(c.engine().version());
        return m.find() ? index(releases, m.group(), true) : -1;
    }

    /**
     * Where {@code end} lies among the releases: the release itself, or, for an engine version the
     * way the engine spells it ("15.10", "15"), the first (a range's start) or last release it is a
     * prefix of (15.10.0; 15.1.0 and 15.19.0). -1 when none matches.
     */
    static int index(List<String> releases, String end, boolean first) {
        int exact = releases.indexOf(end);
        if (exact >= 0) {
            return exact;
        }
        int found = -1;
        for (int i = 0; i < releases.size(); i++) {
            if (releases.get(i).startsWith(end + ".")) {
                found = i;
                if (first) {
                    break;
                }
            }
        }
        return found;
    }

    /** The ends, then halving the range between two decided versions that disagree ({@link Bisection}). */
    private void bisect(TestCase c, List<String> versions, List<String> chosen, Map<String, VersionReplay> seen) {
        Bisection.halve(versions, seen, v -> judge(c, v, chosen), BisectCommand::side);
    }

    /** What a replay decides: its verdict when it shows the bug candidate or does not; null when flaky or it cannot run. */
    private static Object side(VersionReplay r) {
        return r.verdict().decided() ? r.verdict() : null;
    }

    private static VersionReplay judge(TestCase c, String version, List<String> chosen) {
        System.out.print("  " + version + " ...");
        System.out.flush();
        VersionReplay r = VersionReplay.at(c, version, chosen);
        System.out.println(" " + r.verdict().words);
        return r;
    }

    /** "introduced in" / "fixed in" at each change between two neighbouring decided versions. */
    static List<String> conclusions(List<String> versions, Map<String, VersionReplay> seen) {
        List<String> out = new ArrayList<>();
        for (Bisection.Change ch : Bisection.changes(versions, seen, BisectCommand::side)) {
            String where = ch.between().isEmpty() ? "" : " (between " + ch.before() + " and " + ch.after() + "; the versions between "
                    + (ch.betweenTried() ? "could not decide)" : "were not replayed)");
            out.add(seen.get(ch.after()).verdict() == VersionReplay.Verdict.SHOWS ? "introduced in " + ch.after() + where + ": " + ch.before()
                    + " does not show it" : "fixed in " + ch.after() + where + ": " + ch.before() + " shows it");
        }
        if (out.isEmpty()) {
            String last = null;
            for (String v : versions) {
                if (seen.get(v) != null && side(seen.get(v)) != null) {
                    last = v;
                }
            }
            out.add(last == null ? "no version could decide: see the table"
                    : "the same verdict on every decided version (" + seen.get(last).verdict().words + ")");
        }
        return out;
    }
}
