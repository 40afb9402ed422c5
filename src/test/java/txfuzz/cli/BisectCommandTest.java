package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bisect on real engine versions from Maven Central: the H2 MERGE hang at READ UNCOMMITTED that the
 * default run found on 2.3.232 is fixed in 2.4.240; the H2 REPEATABLE READ row returned twice after a
 * key rewrite came with 2.3 and went with 2.5; the PostgreSQL MERGE lost update went with 15.18.
 */
class BisectCommandTest {
    private static Path corpus(String name) {
        return Path.of("src/main/resources/corpus/bugs/" + name + ".case.json");
    }

    @Test
    void theH2MergeHangIsFixedIn2_4_240() {
        CliTest.Result r = CliTest.run("bisect", corpus("h2-merge-hang-read-uncommitted").toString(), "--versions", "2.3.232..2.5.252");
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.out().contains("| 2.3.232 | shows it | explicit/hang; explicit/hang"), r.out());
        assertTrue(r.out().contains("| 2.4.240 | does not show it |"), r.out());
        assertTrue(r.out().contains("fixed in 2.4.240: 2.3.232 shows it"), r.out());
    }

    @Test
    void theRowReturnedTwiceCameWith2_3AndWentWith2_5() {
        CliTest.Result r = CliTest.run("bisect", corpus("h2-rr-rewritten-key-row-twice").toString(), "--versions", "2.2.224..2.5.252",
                "--oracle", "equiv");
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.out().contains("introduced in 2.3.230: 2.2.224 does not show it"), r.out());
        assertTrue(r.out().contains("fixed in 2.5.250: 2.4.240 shows it"), r.out());
    }

    /**
     * The PostgreSQL MERGE lost update at REPEATABLE READ that txfuzz found on 15.10: the zonky binaries
     * show it through 15.17 and no longer from 15.18 (the 15.16 release notes list a fix, and there is
     * no 15.16 binary to replay). Each version is a server started and stopped for it.
     */
    @Test
    void thePostgresMergeLostUpdateIsGoneFrom15_18() {
        CliTest.Result r = CliTest.run("bisect", corpus("pg-merge-rr-lost-update").toString(), "--versions", "15.17..15.19");
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.out().contains("| 15.17.0 | shows it | wss/first-committer-wins; wss/first-committer-wins (PostgreSQL 15.17 "), r.out());
        assertTrue(r.out().contains("| 15.18.0 | does not show it |"), r.out());
        assertTrue(r.out().contains("fixed in 15.18.0: 15.17.0 shows it"), r.out());
    }

    @Test
    void replayOnTheNewestReleaseSaysWhetherAFindingIsFixed() {
        // the H2 bug the equiv oracle found, replayed on whatever release Maven Central lists as newest
        List<String> releases = txfuzz.dbms.versions.MavenCentral.get().versions(
                txfuzz.dbms.Targets.engine("h2").artifact().orElseThrow()).releases();
        String newest = releases.get(releases.size() - 1);
        CliTest.Result r = CliTest.run("replay", corpus("h2-rr-shifted-keys-old-max").toString(), "--oracle", "equiv", "--version", "newest",
                "--quiet");
        assertTrue(r.out().contains(" on H2 " + newest + " "), r.out());
        assertTrue(r.out().contains("Verdict: "), r.out());
    }

    /**
     * A case that records the release it was found on: bisect without --versions replays every release
     * from it to the newest (not the two ends of all 141), and replay on another release says so.
     */
    @Test
    void withoutVersionsBisectStartsAtTheReleaseTheCaseWasFoundOn(@TempDir Path tmp) throws Exception {
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        com.fasterxml.jackson.databind.node.ObjectNode c = (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(
                corpus("h2-merge-hang-read-uncommitted").toFile());
        c.putObject("engine").put("dbms", "h2").put("version", "H2 2.3.232 (2024-08-11)").put("release", "2.3.232");
        Path file = tmp.resolve("case.json");
        Files.writeString(file, json.writeValueAsString(c));
        List<String> releases = txfuzz.dbms.versions.MavenCentral.get().versions(
                txfuzz.dbms.Targets.engine("h2").artifact().orElseThrow()).releases();
        List<String> fromFound = releases.subList(releases.indexOf("2.3.232"), releases.size());
        CliTest.Result r = CliTest.run("bisect", file.toString());
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.out().contains("The case was found on H2 2.3.232 (2024-08-11): from 2.3.232 to the newest release"), r.out());
        assertTrue(r.out().contains(fromFound.size() + " versions 2.3.232.." + releases.get(releases.size() - 1)), r.out());
        for (String v : fromFound) {
            assertTrue(r.out().contains("| " + v + " | "), v + " was replayed: " + r.out());
        }
        assertTrue(r.out().contains("fixed in 2.4.240: 2.3.232 shows it"), r.out());

        CliTest.Result replay = CliTest.run("replay", file.toString(), "--quiet");
        assertTrue(replay.out().contains("Note: the case was found on H2 2.3.232 (2024-08-11) (--version 2.3.232), not on H2 "), replay.out());
    }

    @Test
    void conclusionsNameEachChangeAndSkipUndecidedVersions() {
        Map<String, txfuzz.campaign.VersionReplay> seen = new LinkedHashMap<>();
        seen.put("1", new txfuzz.campaign.VersionReplay(txfuzz.campaign.VersionReplay.Verdict.CLEAN, ""));
        seen.put("2", new txfuzz.campaign.VersionReplay(txfuzz.campaign.VersionReplay.Verdict.CANNOT_RUN, ""));
        seen.put("3", new txfuzz.campaign.VersionReplay(txfuzz.campaign.VersionReplay.Verdict.SHOWS, ""));
        seen.put("5", new txfuzz.campaign.VersionReplay(txfuzz.campaign.VersionReplay.Verdict.CLEAN, ""));
        assertEquals(List.of("introduced in 3 (between 1 and 3; the versions between could not decide): 1 does not show it",
                        "fixed in 5 (between 3 and 5; the versions between were not replayed): 3 shows it"),
                BisectCommand.conclusions(List.of("1", "2", "3", "4", "5"), seen));
    }

    @Test
    void badInputIsAOneLineError(@TempDir Path tmp) throws Exception {
        CliTest.Result range = CliTest.run("bisect", corpus("h2-merge-hang-read-uncommitted").toString(), "--versions", "2.3.232-2.5.252");
        assertEquals(2, range.code(), range.toString());
        assertTrue(range.err().startsWith("txfuzz: --versions takes A..B"), range.err());
        CliTest.Result unknown = CliTest.run("bisect", corpus("h2-merge-hang-read-uncommitted").toString(), "--versions", "2.3.232..9.9.9");
        assertEquals(2, unknown.code(), unknown.toString());
        assertTrue(unknown.err().contains("9.9.9 is not a listed release"), unknown.err());
        CliTest.Result pg = CliTest.run("bisect", corpus("pg-merge-rr-lost-update").toString(), "--versions", "14..13");
        assertEquals(2, pg.code(), pg.toString());
        assertTrue(pg.err().contains("the first version is newer than the second"), pg.err());
    }

    @Test
    void rangeEndsMayBeWrittenAsTheEngineSpellsItsVersion() {
        List<String> releases = List.of("14.22.0", "15.1.0", "15.10.0", "15.12.0", "15.19.0", "16.0.0");
        assertEquals(2, BisectCommand.index(releases, "15.10", true));
        assertEquals(1, BisectCommand.index(releases, "15", true));
        assertEquals(4, BisectCommand.index(releases, "15", false));
        assertEquals(5, BisectCommand.index(releases, "16.0.0", false));
        assertEquals(-1, BisectCommand.index(releases, "15.11", true));
    }
}
