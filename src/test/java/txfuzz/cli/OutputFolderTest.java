package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs never mix their results: without --out each gets a folder of its own (txfuzz-out/latest points at
 * the newest), an --out folder that holds something is refused unless the run continues it, and every
 * folder's summary.json and findings/index.md describe exactly the finding folders in it.
 */
class OutputFolderTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** H2 at READ UNCOMMITTED files findings within the first cases of seed 1 (documented write deviations). */
    private static final List<String> FINDS = List.of("run", "--dbms", "h2", "--isolation", "READ_UNCOMMITTED", "--tests", "20",
            "--reduce-time", "0", "--not-promised");

    @Test
    void runsWithoutOutGetAFolderEachAndLatestPointsAtTheNewest(@TempDir Path cwd) throws Exception {
        assertEquals(List.of(), folders(cwd));
        assertTrue(child(cwd, FINDS, "--seed", "1") <= Main.FOUND);
        assertTrue(child(cwd, FINDS, "--seed", "1") <= Main.FOUND);
        List<Path> made = folders(cwd);
        assertEquals(2, made.size(), "one folder per run: " + made);
        for (Path f : made) {
            assertTrue(f.getFileName().toString().matches("\\d{8}-\\d{6}(-\\d+)?-h2"), f.toString());
            assertDescribesExactlyItsFolders(f);
            assertFalse(JSON.readTree(f.resolve("summary.json").toFile()).path("interrupted").asBoolean());
        }
        Path latest = cwd.resolve("txfuzz-out/latest");
        assertTrue(Files.isSymbolicLink(latest), "txfuzz-out/latest is a link");
        assertEquals(made.get(1).toRealPath(), latest.toRealPath(), "latest is the newest run's folder");
        assertFalse(findingFolders(made.get(0)).isEmpty(), "the runs did file findings (precondition)");
    }

    /** A run that cannot start (a level the DBMS does not offer) leaves no empty folder, and latest still points at a complete run. */
    @Test
    void aRunThatCannotStartLeavesNoFolderBehind(@TempDir Path cwd) throws Exception {
        assertEquals(Main.USAGE, child(cwd, List.of("run", "--dbms", "sqlite", "--isolation", "READ_COMMITTED", "--tests", "1")));
        assertEquals(List.of(), folders(cwd), "no empty result folder");
        assertFalse(Files.exists(cwd.resolve("txfuzz-out/latest"), java.nio.file.LinkOption.NOFOLLOW_LINKS), "no link to nothing");
    }

    @Test
    void anOutFolderThatHoldsAnEarlierRunIsRefusedUnlessContinued(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("o");
        List<String> first = new ArrayList<>(FINDS);
        first.addAll(List.of("--seed", "1", "--out", out.toString()));
        assertTrue(CliTest.run(first.toArray(String[]::new)).code() <= Main.FOUND);
        String before = Files.readString(out.resolve("summary.json"));
        Set<String> earlierFolders = findingFolders(out);
        assertFalse(earlierFolders.isEmpty(), "the first run filed findings (precondition)");

        CliTest.Result again = CliTest.run(first.toArray(String[]::new));
        assertEquals(Main.USAGE, again.code(), again.toString());
        assertEquals(1, again.err().lines().count(), again.err());
        assertTrue(again.err().startsWith("txfuzz: --out " + out + " is not empty"), again.err());
        assertTrue(again.err().contains("--continue"), again.err());
        assertEquals(before, Files.readString(out.resolve("summary.json")), "the earlier run's summary is untouched");

        CliTest.Result sameSeed = CliTest.run(concat(first, "--continue"));
        assertEquals(Main.USAGE, sameSeed.code(), sameSeed.toString());
        assertTrue(sameSeed.err().contains("ran with seed 1"), sameSeed.err());

        List<String> second = new ArrayList<>(FINDS);
        second.addAll(List.of("--seed", "2", "--out", out.toString(), "--continue"));
        assertTrue(CliTest.run(second.toArray(String[]::new)).code() <= Main.FOUND);
        assertTrue(findingFolders(out).containsAll(earlierFolders), "the earlier run's findings are all still there");
        assertTrue(findingFolders(out).size() > earlierFolders.size(), "the continuing run added its own");
        assertDescribesExactlyItsFolders(out);
        List<String> events = Files.readAllLines(out.resolve("events.jsonl"));
        assertEquals(2, events.stream().filter(l -> l.startsWith("{\"event\":\"start\"")).count(), "both runs' events: " + events.size());

        CliTest.Result table = CliTest.run("isolation-table", "--tests", "1", "--out", out.toString());
        assertEquals(Main.USAGE, table.code(), table.toString());
        assertTrue(table.err().startsWith("txfuzz: --out " + out + " is not empty"), table.err());
        assertFalse(table.err().contains("--continue"), "isolation-table cannot continue a folder: " + table.err());
    }

    /** summary.json lists every finding folder there is, index.md links every unique one, and neither names a folder that is not there. */
    private static void assertDescribesExactlyItsFolders(Path out) throws IOException {
        Set<String> onDisk = findingFolders(out);
        JsonNode summary = JSON.readTree(out.resolve("summary.json").toFile());
        Set<String> listed = new TreeSet<>();
        summary.path("findings").forEach(f -> listed.add(f.path("id").asText()));
        assertEquals(onDisk, listed, out + ": summary.json's findings are the folders in findings/");
        Set<String> representatives = new TreeSet<>();
        Set<String> all = new TreeSet<>();
        summary.path("signatures").forEach(g -> {
            representatives.add(g.path("finding").asText());
            all.add(g.path("finding").asText());
            g.path("duplicateIds").forEach(d -> all.add(d.asText()));
        });
        assertEquals(onDisk, all, out + ": every finding is a unique one or a duplicate of one");
        String index = Files.readString(out.resolve("findings/index.md"));
        Set<String> linked = new TreeSet<>();
        Matcher m = Pattern.compile("\\]\\(([^)/]+)/README\\.md\\)").matcher(index);
        while (m.find()) {
            linked.add(m.group(1));
        }
        assertEquals(representatives, linked, out + ": index.md links the unique findings");
        assertTrue(index.contains(representatives.size() + " unique finding"), index.lines().limit(3).toList().toString());
        assertTrue(index.contains(" among " + onDisk.size() + " finding"), index.lines().limit(3).toList().toString());
    }

    private static Set<String> findingFolders(Path out) throws IOException {
        Path dir = out.resolve("findings");
        if (!Files.isDirectory(dir)) {
            return Set.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return new TreeSet<>(s.filter(Files::isDirectory).map(p -> p.getFileName().toString()).filter(n -> !n.startsWith(".")).toList());
        }
    }

    private static List<Path> folders(Path cwd) throws IOException {
        Path root = cwd.resolve("txfuzz-out");
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(root)) {
            return s.filter(p -> !Files.isSymbolicLink(p) && Files.isDirectory(p) && !p.getFileName().toString().startsWith(".")).sorted().toList();
        }
    }

    private static String[] concat(List<String> a, String... more) {
        List<String> all = new ArrayList<>(a);
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    /** txfuzz in its own process, in {@code cwd}: the default folders are relative to the working directory. */
    private static int child(Path cwd, List<String> args, String... more) throws Exception {
        List<String> cmd = new ArrayList<>(txfuzz.ChildJvm.command("txfuzz.cli.Main"));
        cmd.addAll(args);
        cmd.addAll(List.of(more));
        Process p = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true)
                .redirectOutput(cwd.resolve("child.log").toFile()).start();
        assertTrue(p.waitFor(5, TimeUnit.MINUTES), "txfuzz ends");
        assertNotEquals(Main.INTERNAL, p.exitValue(), Files.readString(cwd.resolve("child.log")));
        return p.exitValue();
    }
}
