package txfuzz.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** run --subjects: a campaign over several subjects, and one-line errors for what is wrong with them. */
class SubjectsCliTest {
    @TempDir
    Path tmp;

    @Test
    void aBadSubjectIsAOneLineError() {
        assertUsage(CliTest.run("run", "--subjects", "h2,oracle@19"), "unknown DBMS 'oracle'");
        assertUsage(CliTest.run("run", "--subjects", "h2+MODE=Nope"), "setting MODE of h2 takes");
        assertUsage(CliTest.run("run", "--subjects", "hsqldb:mvlock"), "unknown mode 'mvlock'");
        assertUsage(CliTest.run("run", "--subjects", "h2", "--dbms", "hsqldb"), "drop --dbms");
        assertUsage(CliTest.run("run", "--subjects", "h2,postgres@15.17", "--url", "jdbc:postgresql://127.0.0.1:1/x"), "--subjects names none");
        assertUsage(CliTest.run("run", "--subjects", "postgres,mariadb", "--url", "jdbc:postgresql://127.0.0.1:1/x"), "give all but one a @version");
        assertUsage(CliTest.run("run", "--subjects", "h2,hsqldb", "--sessions", "3", "--oracle", "isolation,explicit"), "--sessions does not apply");
    }

    @Test
    void aCampaignOverTwoSubjectsSaysWhichAndRecordsThem() throws Exception {
        Path out = tmp.resolve("out");
        CliTest.Result r = CliTest.run("run", "--subjects", "h2+MODE=PostgreSQL,hsqldb:mvcc", "--isolation", "SNAPSHOT,READ_COMMITTED",
                "--tests", "4", "--seed", "3", "--reduce-time", "0", "--out", out.toString());
        assertTrue(r.code() == Main.OK || r.code() == Main.FOUND, r.toString());
        assertTrue(r.out().contains("txfuzz: subjects h2+MODE=PostgreSQL, hsqldb:mvcc"), r.out());
        assertFalse(r.out().contains("not compared"), "HSQLDB MVCC keeps snapshot isolation and read committed: " + r.out());
        JsonNode summary = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
        assertEquals("[\"h2+MODE=PostgreSQL\",\"hsqldb:mvcc\"]", summary.path("meta").path("subjects").toString());
        assertEquals("h2", summary.path("dbms").asText());

        Path out2 = tmp.resolve("out2");
        CliTest.Result locks = CliTest.run("run", "--subjects", "h2,hsqldb:locks", "--isolation", "SNAPSHOT", "--tests", "1", "--reduce-time", "0",
                "--out", out2.toString());
        assertTrue(locks.out().contains("hsqldb:locks has no level that keeps snapshot isolation"), locks.out());
    }

    /** A case that needs H2's PostgreSQL mode replays with --subject, and not without it. */
    @Test
    void replayRunsACaseOnTheSubjectItWasFoundOn() throws Exception {
        txfuzz.model.TestCase c = txfuzz.exec.Cases.on("h2").table("t").level(txfuzz.model.IsolationLevel.READ_COMMITTED)
                .setup("CREATE TABLE t (k INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 1)")
                .txn("INSERT INTO t VALUES (1, 2) ON CONFLICT DO NOTHING").order(1, 1, 1);
        Path file = tmp.resolve("case.json");
        java.nio.file.Files.writeString(file, txfuzz.model.CaseJson.write(c));
        CliTest.Result on = CliTest.run("replay", file.toString(), "--subject", "h2+MODE=PostgreSQL", "--oracle", "wss,explicit");
        assertEquals(Main.OK, on.code(), on.toString());
        assertTrue(on.out().contains("Verdict: no violation"), on.out());
        assertFalse(on.out().contains("INVALID_STATEMENT"), on.out());
        CliTest.Result plain = CliTest.run("replay", file.toString(), "--oracle", "wss,explicit");
        assertTrue(plain.out().contains("INVALID_STATEMENT"), "H2's own mode has no ON CONFLICT: " + plain);
        assertUsage(CliTest.run("replay", file.toString(), "--subject", "h2", "--dbms", "h2"), "drop --dbms and --version");
        assertEquals(" --subject h2+MODE=PostgreSQL", txfuzz.report.BugReportAccess.subjectOption("h2+MODE=PostgreSQL"), "a finding's replay line");
        assertEquals("", txfuzz.report.BugReportAccess.subjectOption("h2"), "no settings: the case's DBMS as before");
    }

    private static void assertUsage(CliTest.Result r, String expected) {
        assertEquals(Main.USAGE, r.code(), r.toString());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().contains(expected), r.err());
        assertFalse(r.err().contains("Exception"), r.err());
    }
}
