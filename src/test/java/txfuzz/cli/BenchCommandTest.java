package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code txfuzz bench}'s campaigns as a user runs them, on H2 with a few cases: the warm-up row apart from the
 * measured ones, and the cost table's phase and oracle columns. No figure is asserted, only that each is there.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class BenchCommandTest {
    /** The table rows (lines starting "| ") whose first cell is {@code dbms}. */
    private static List<String> rows(String out, String dbms) {
        return out.lines().filter(l -> l.startsWith("| " + dbms + " | ")).toList();
    }

    private static List<String> cells(String row) {
        return Arrays.stream(row.substring(2, row.length() - 2).split(" \\| ")).map(String::strip).toList();
    }

    /** The cost table's header and rows (its rule, "|---|...", left out), after the line that introduces it. */
    private static List<String> costSection(String out) {
        int at = out.indexOf("Cost per case:");
        assertTrue(at >= 0, "a cost table: " + out);
        return out.substring(at).lines().filter(l -> l.startsWith("| ")).toList();
    }

    /** The checker's benchmark reports its first round, which compiles, apart from the best of its rounds (issue 34 item 4). */
    @Test
    void theCheckersFirstRoundIsReportedApartFromItsBestRound() {
        CliTest.Result r = CliTest.run("bench", "--checker", "--transactions", "2000");
        assertEquals(0, r.code(), r.toString());
        List<String> lines = r.out().lines().filter(l -> l.startsWith("checker ")).toList();
        assertEquals(2, lines.size(), r.out());
        assertTrue(lines.get(0).startsWith("checker serial: 2000 transactions"), lines.get(0));
        assertTrue(lines.get(0).endsWith("observed []"), "a serial history shows no anomaly: " + lines.get(0));
        assertTrue(lines.get(1).startsWith("checker stale: 2000 transactions") && lines.get(1).contains("WRITE_SKEW"), lines.get(1));
        for (String l : lines) {
            assertTrue(l.contains("; first round (the JIT compiling): read ") && l.contains("; best of 3 rounds: read "), l);
        }
    }

    @Test
    void aWarmUpRowComesBeforeTheMeasuredRowsAndTheCostTableSplitsACase(@TempDir Path dir) {
        CliTest.Result r = CliTest.run("bench", "--dbms", "h2", "--tests", "6", "--warm-up", "4", "--jobs", "1", "--oracle", "wss,explicit",
                "--seed", "1", "--out", dir.toString());
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.out().contains("Warm-up: 4 cases per DBMS on seed 1000004, 1 worker(s)"), r.out());
        assertTrue(r.out().contains("JIT: " + JitMode.current() + "\n"), "the table says which compilers ran: " + r.out());
        List<String> throughput = rows(r.out().substring(0, r.out().indexOf("Cost per case:")), "h2");
        assertEquals(2, throughput.size(), r.out());
        assertEquals(List.of("1, warm-up", "4"), cells(throughput.get(0)).subList(2, 4), throughput.get(0));
        assertEquals(List.of("1", "6"), cells(throughput.get(1)).subList(2, 4), throughput.get(1));
        // the warm-up ran on its own seed, into a folder of its own; the measured row on --seed
        assertEquals(1000004, CliTest.json(dir.resolve("h2-warm-up/summary.json")).get("seed").asLong());
        assertEquals(1, CliTest.json(dir.resolve("h2/summary.json")).get("seed").asLong());

        List<String> costs = costSection(r.out());
        assertEquals(List.of("DBMS", "workers", "cases", "total ms/case", "generation", "run", "wss", "explicit", "confirmation", "self-check",
                "filing, reduction", "untimed"), cells(costs.get(0)));
        assertEquals(3, costs.size(), "header, warm-up and measured row: " + costs);
        List<String> measured = cells(costs.get(2));
        assertEquals(List.of("h2", "1", "6"), measured.subList(0, 3));
        assertTrue(Double.parseDouble(measured.get(3)) > 0, costs.get(2));
        int shares = 0;
        for (String cell : measured.subList(4, measured.size())) {
            if (cell.equals("-")) {
                continue; // a phase this campaign never entered: without tracked cases, no self-check
            }
            assertTrue(cell.matches("\\d+\\.\\d\\d \\(\\d+%\\)"), cell);
            shares += Integer.parseInt(cell.substring(cell.indexOf('(') + 1, cell.indexOf('%')));
        }
        assertEquals("-", measured.get(9), "no self-check without row tracking: " + costs.get(2));
        // every case runs and is judged by wss: both take time; the shares (each rounded) make up the whole
        assertFalse(measured.get(5).startsWith("0.00"), "the run: " + costs.get(2));
        assertFalse(measured.get(6).startsWith("0.00"), "wss's serial replays: " + costs.get(2));
        assertTrue(shares >= 94 && shares <= 106, "shares add up to about 100%: " + costs.get(2));
    }

    @Test
    void everyOracleGetsAColumnAndTrackedCasesASelfCheck(@TempDir Path dir) {
        CliTest.Result r = CliTest.run("bench", "--dbms", "h2", "--tests", "4", "--warm-up", "0", "--jobs", "2",
                "--oracle", "wss,explicit,isolation,equiv", "--generator", "mixed", "--out", dir.toString());
        assertEquals(0, r.code(), r.toString());
        assertFalse(r.out().contains("Warm-up"), "--warm-up 0: none: " + r.out());
        assertFalse(r.out().contains("warm-up |"), r.out());
        List<String> costs = costSection(r.out());
        List<String> header = cells(costs.get(0));
        assertEquals(List.of("generation", "run", "wss", "explicit", "isolation", "equiv", "confirmation", "self-check"), header.subList(4, 12));
        List<String> row = cells(costs.get(1));
        assertEquals(List.of("h2", "2", "4"), row.subList(0, 3));
        // iteration 0 is a self-checked one (every 10th case of a tracked campaign runs its plain twin)
        assertTrue(row.get(header.indexOf("self-check")).matches("\\d+\\.\\d\\d \\(\\d+%\\)"), costs.get(1));
        assertTrue(row.get(header.indexOf("equiv")).matches("\\d+\\.\\d\\d \\(\\d+%\\)"), costs.get(1));
        // mixed generation: the campaign's summary says so
        assertEquals("mixed", CliTest.json(dir.resolve("h2-jobs2/summary.json")).get("generation").get("generator").asText());
    }

    @Test
    void aWarmUpEndsAtItsCountOrItsTimeWhicheverComesFirst(@TempDir Path dir) {
        CliTest.Result r = CliTest.run("bench", "--dbms", "h2", "--tests", "2", "--warm-up", "100000,1s", "--jobs", "1", "--out",
                dir.resolve("by-time").toString());
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.out().contains("Warm-up: 100000 cases or 1s, whichever comes first, per DBMS"), r.out());
        String warm = rows(r.out(), "h2").get(0);
        assertEquals("1, warm-up", cells(warm).get(2), warm);
        assertTrue(Double.parseDouble(cells(warm).get(4)) >= 1.0, "ran its second: " + warm);

        r = CliTest.run("bench", "--dbms", "h2", "--tests", "2", "--warm-up", "3,10m", "--jobs", "1", "--out", dir.resolve("by-count").toString());
        assertEquals(0, r.code(), r.toString());
        assertEquals("3", cells(rows(r.out(), "h2").get(0)).get(3), r.out());
    }

    @Test
    void badBenchOptionsAreOneLineErrorsBeforeTheTable(@TempDir Path dir) {
        String[][] refused = {
                {"--warm-up", "soon"}, {"--warm-up takes a number of cases (e.g. 200), a time (e.g. 20s) or both, whichever comes first"
                        + " (e.g. 200,60s), or 0 for none; not 'soon'"},
                {"--warm-up", "5,0s"}, {"not '5,0s' (0 goes alone)"},
                {"--warm-up", "5,6"}, {"--warm-up takes a number of cases"},
                {"--warm-up", "5,soon"}, {"not 'soon'"},
                {"--warm-up", "-3"}, {"--warm-up takes a number of cases"},
                {"--warm-up", "500ms"}, {"--warm-up 500ms leaves no time to run a case"},
                {"--warm-up", "99999999999"}, {"--warm-up 99999999999 is too many cases"},
                {"--warm-up", "5", "--checker"}, {"--warm-up applies to the campaigns' table"},
                {"--warm-up", "5", "--soak", "1m"}, {"--warm-up applies to the campaigns' table"},
                {"--generator", "chaos"}, {"unknown generator 'chaos': random, pattern or mixed"},
                {"--generator", "mixed", "--corpus"}, {"--generator chooses how the campaigns' cases are made"},
                {"--generator", "random", "--patterns", "lost-update"}, {"--patterns chooses the patterns of --generator pattern or mixed"},
                {"--patterns", "lost-update"}, {"--patterns chooses the patterns of --generators or of --generator pattern or mixed"},
                {"--generator", "pattern", "--sessions", "3", "--oracle", "isolation"}, {"--sessions runs random cases concurrently"},
                {"--jobs", "1,x"}, {"--jobs takes numbers of workers"},
        };
        for (int i = 0; i < refused.length; i += 2) {
            String[] args = Stream.of(new String[] {"bench", "--dbms", "h2", "--tests", "1", "--out", dir.resolve("o" + i).toString()}, refused[i])
                    .flatMap(Arrays::stream).toArray(String[]::new);
            CliTest.Result r = CliTest.run(args);
            assertEquals(Main.USAGE, r.code(), r.toString());
            assertEquals(1, r.err().lines().count(), "one line: " + r.err());
            assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), r.err());
            assertTrue(r.err().contains(refused[i + 1][0]), "expected '" + refused[i + 1][0] + "' in: " + r.err());
            assertEquals("", r.out(), "no table header: " + r.out());
        }
    }
}
