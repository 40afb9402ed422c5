package txfuzz.oracle.diff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.SharedServers;
import txfuzz.dbms.Target;
import txfuzz.dbms.TestServers;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.model.CaseJson;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Oracle;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;
import txfuzz.oracle.wss.WssOracle;

/**
 * DiffOracle on real servers: two PostgreSQL releases on either side of the MERGE lost-update fix, and MariaDB
 * against PostgreSQL on a lost update at REPEATABLE READ.
 */
class DiffOracleServersTest {
    private static final java.util.function.Function<String, List<Oracle>> WSS = label -> List.of(new WssOracle());

    private static Verdict judge(DiffOracle diff, Target primary, TestCase c) throws Exception {
        try (Executor ex = new Executor(primary, ExecutorConfig.defaults())) {
            return diff.judge(c, ex.run(c), ex);
        }
    }

    private static TestCase corpusCase(String id) throws Exception {
        try (var in = DiffOracleServersTest.class.getResourceAsStream("/corpus/bugs/" + id + ".case.json")) {
            return CaseJson.read(new String(in.readAllBytes(), StandardCharsets.UTF_8), id);
        }
    }

    @Test
    void theMergeLostUpdateIsABugCandidateOf15_17FixedIn15_18() throws Exception {
        // T1 takes its snapshot, T2 updates the row and commits, T1's MERGE then updates the same row: at
        // REPEATABLE READ that must fail with a serialization error (15.18 does), 15.17 loses T2's update
        TestCase c = corpusCase("pg-merge-rr-lost-update");
        SharedServers.startInBackground("postgres", "15.17", "15.18"); // side by side
        try (Target old = SharedServers.open("postgres", "15.17");
             Target fixed = SharedServers.open("postgres", "15.18");
             DiffOracle diff = new DiffOracle("postgres@15.17", List.of(OtherSubject.sameLevels("postgres@15.18", fixed)), WSS)) {
            Verdict v = judge(diff, old, c);
            assertEquals(1, v.violations().size(), v.toString());
            Violation x = v.violations().get(0);
            System.out.println(x.summary() + "\n" + x.details());
            DiffEvidence e = (DiffEvidence) x.evidence();
            assertEquals(new StmtRef(1, 2), e.divergence().at(), "the MERGE");
            assertEquals(DivergenceKind.ABORT, e.divergence().kind());
            assertEquals(Classification.BUG_CANDIDATE, x.classification());
            assertEquals(List.of("postgres@15.17"), e.triaged().culprits());
            assertEquals("fixed in postgres@15.18", e.triaged().change());
            assertTrue(x.details().contains("(at the divergent statement)"), x.details());
        }
    }

    @Test
    void theMergeLostUpdateOpenedAsSubjectsKeepsItsLabelAndGetsItsBoundaryAndReleaseNotes() throws Exception {
        VersionBoundary.forgetSearches();
        Verdict v = VersionBoundaryTest.judgeOn(List.of("postgres@15.17", "postgres@15.18"), corpusCase("pg-merge-rr-lost-update"));
        assertEquals(1, v.violations().size(), v.toString());
        Violation x = v.violations().get(0);
        DiffEvidence e = (DiffEvidence) x.evidence();
        assertEquals(Classification.BUG_CANDIDATE, x.classification(), x.details());
        assertEquals(List.of("postgres@15.17"), e.triaged().culprits());
        assertEquals("fixed in postgres@15.18", e.triaged().change(), "the label's words stay");
        String evidence = String.join("\n", e.triaged().evidence());
        assertTrue(evidence.contains("Maven Central lists no release of postgres between 15.17.0 and 15.18.0; releases it does not list were not tried."), evidence);
        assertTrue(evidence.contains("Changed between 15.17.0 and 15.18.0, neighbours among the releases Maven Central lists (the last listed release that behaves like postgres@15.17,"), evidence);
        assertTrue(evidence.contains("Release notes of postgres 15.18.0: https://www.postgresql.org/docs/release/15.18/"), evidence);
        assertTrue(x.details().contains("https://www.postgresql.org/docs/release/15.18/"), "the report shows it: " + x.details());
    }

    /** Two read-modify-write transactions on one row at REPEATABLE READ, the second writer waiting for the first. */
    private static TestCase lostUpdate(String dbms) {
        return Cases.on(dbms).table("t").level(IsolationLevel.REPEATABLE_READ)
                .setup("CREATE TABLE t (k INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)")
                .txn("SELECT v FROM t WHERE k = 1", "UPDATE t SET v = v + 1 WHERE k = 1")
                .txn("SELECT v FROM t WHERE k = 1", "UPDATE t SET v = v + 10 WHERE k = 1")
                .order(1, 1, 2, 2, 1, 2, 1, 2);
    }

    @Test
    void mariadbAgainstPostgresOnALostUpdateIsACompatibilityIssue() throws Exception {
        try (Target maria = TestServers.open("mariadb"); Target pg = TestServers.open("postgres");
             DiffOracle diff = new DiffOracle("mariadb", List.of(new OtherSubject("postgres", pg, Optional::of)), WSS)) {
            Verdict v = judge(diff, maria, lostUpdate("mariadb"));
            assertEquals(1, v.violations().size(), v.toString());
            Violation x = v.violations().get(0);
            System.out.println(x.summary() + "\n" + x.details());
            DiffEvidence e = (DiffEvidence) x.evidence();
            assertEquals(DivergenceKind.ABORT, e.divergence().kind());
            assertEquals(new StmtRef(2, 2), e.divergence().at(), "T2's UPDATE");
            assertEquals(Label.COMPATIBILITY, e.triaged().label());
            assertEquals(Cause.WRITE_CONFLICT, e.triaged().cause());
            assertEquals(Classification.DOCUMENTED, x.classification());
            assertTrue(x.reference().contains("mariadb: http") && x.reference().contains("postgres: http"), x.reference());
        }
    }

    @Test
    void theSameServerOnBothSidesAgrees() throws Exception {
        try (Target pg = TestServers.open("postgres"); Target again = TestServers.open("postgres");
             DiffOracle diff = new DiffOracle("postgres", List.of(OtherSubject.sameLevels("postgres again", again)), WSS)) {
            assertTrue(judge(diff, pg, lostUpdate("postgres")).isClean());
            assertEquals(1L, diff.figures().get("agreeing"), diff.figures().toString());
        }
    }
}
