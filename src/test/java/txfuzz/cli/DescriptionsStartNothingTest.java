package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.versions.BundledVersions;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.ChildJvm;
import txfuzz.dbms.Targets;

/**
 * {@code targets} and {@code check --dbms} answer from the DBMSs' descriptions: in a real txfuzz
 * process with a private home, they leave no server, no unpacked binaries and no lease behind (a server txfuzz starts
 * lives under that home, and its command line names it). How long they take is not asserted: a loaded machine's JVM
 * start alone took 4.7 s once, and the home and the process list are what show that nothing was started.
 */
class DescriptionsStartNothingTest {

    private record Run(int code, String out) {
    }

    private static Run txfuzz(Path home, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(ChildJvm.command("-Dtxfuzz.home=" + home, "txfuzz.cli.Main"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "txfuzz " + String.join(" ", args) + " did not end");
        return new Run(p.exitValue(), out);
    }

    private static void assertNothingStarted(Path home) throws Exception {
        try (Stream<Path> files = Files.walk(home)) {
            List<Path> left = files.filter(f -> !f.equals(home)).toList();
            assertEquals(List.of(), left, "files under txfuzz's home: a server was prepared");
        }
        List<String> servers = ProcessHandle.allProcesses().map(h -> h.info().commandLine().orElse(""))
                .filter(c -> c.contains(home.toString())).toList();
        assertEquals(List.of(), servers, "processes running from txfuzz's home");
    }

    @Test
    void targetsListsEveryDbmsFromItsDescriptionAndStartsNothing(@TempDir Path home) throws Exception {
        Run r = txfuzz(home, "targets");
        assertEquals(0, r.code(), r.out());
        for (String name : Targets.names()) {
            assertTrue(r.out().lines().anyMatch(l -> l.startsWith(name + " ")), name + " missing:\n" + r.out());
        }
        assertTrue(r.out().contains("PostgreSQL " + BundledVersions.of("postgres").replaceAll("\\.0$", ""))
                && r.out().contains("MariaDB " + BundledVersions.of("mariadb")) && r.out().contains("H2 2."), r.out());
        assertNothingStarted(home);
    }

    @Test
    void checkTakesTheServerDbmsProfileFromItsDescription(@TempDir Path home, @TempDir Path dir) throws Exception {
        // a lost update: documented for InnoDB's REPEATABLE READ, a bug candidate for PostgreSQL's (first updater wins)
        Path lost = dir.resolve("lost.jsonl");
        Files.writeString(lost, CliTest.LOST_UPDATE_HISTORY);
        Run maria = txfuzz(home, "check", lost.toString(), "--level", "REPEATABLE_READ", "--dbms", "mariadb");
        assertEquals(0, maria.code(), maria.out());
        assertTrue(maria.out().contains("lost update"), maria.out());
        Run pg = txfuzz(home, "check", lost.toString(), "--level", "REPEATABLE_READ", "--dbms", "postgres");
        assertEquals(1, pg.code(), pg.out());
        assertNothingStarted(home);
    }
}
