package txfuzz.oracle.diff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Subject;
import txfuzz.dbms.Target;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.model.CaseJson;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.OracleContext;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;
import txfuzz.oracle.wss.WssOracle;

/**
 * A behaviour change between two H2 releases gets its version boundary: the case replayed on the release Maven
 * Central lists between them (2.5.250), the first release that behaves like the newer side named, with H2's changelog.
 */
class VersionBoundaryTest {
    /** Searches are kept per process: each test searches afresh. */
    @org.junit.jupiter.api.BeforeEach
    void forget() {
        VersionBoundary.forgetSearches();
    }

    /** A query 2.4.240 answers with one row more than 2.5.252, no concurrency involved (the H2 versions study in compatibility.md). */
    static TestCase unionAllExtraRow() throws Exception {
        String id = "h2-in-subquery-union-all-extra-row";
        try (var in = VersionBoundaryTest.class.getResourceAsStream("/txfuzz/diff/" + id + ".case.json")) {
            return CaseJson.read(new String(in.readAllBytes(), StandardCharsets.UTF_8), id);
        }
    }

    /** The subjects opened as a campaign opens them, the diff oracle made from their context (each side's own oracle: wss). */
    static Verdict judgeOn(List<String> specs, TestCase c) throws Exception {
        List<OracleContext.Opened> opened = new ArrayList<>();
        try {
            for (String spec : specs) {
                Subject s = Subject.parse(spec);
                opened.add(new OracleContext.Opened(s, s.open(null)));
            }
            OracleContext context = OracleContext.of(opened, ExecutorConfig.defaults()).withOwnOracles(t -> List.of(new WssOracle()));
            try (DiffOracle diff = DiffOracle.of(context); Executor ex = new Executor(opened.get(0).target(), ExecutorConfig.defaults())) {
                return diff.judge(c, ex.run(c), ex);
            }
        } finally {
            for (OracleContext.Opened o : opened) {
                o.target().close();
            }
        }
    }

    private static Triaged behaviourChange(Verdict v) {
        assertEquals(1, v.violations().size(), v.toString());
        Violation x = v.violations().get(0);
        System.out.println(x.summary() + "\n" + x.details());
        DiffEvidence e = (DiffEvidence) x.evidence();
        assertEquals(DivergenceKind.ROWS, e.divergence().kind(), x.details());
        assertEquals(new StmtRef(1, 2), e.divergence().at(), "the UNION ALL query");
        assertEquals(Label.BEHAVIOUR_CHANGE, e.triaged().label(), x.details());
        assertEquals(Classification.DOCUMENTED, x.classification());
        return e.triaged();
    }

    @Test
    void theBehaviourChangeIsBisectedOnTheReleasesBetweenAndLinksTheChangelog() throws Exception {
        Triaged t = behaviourChange(judgeOn(List.of("h2@2.4.240", "h2@2.5.252"), unionAllExtraRow()));
        String evidence = String.join("\n", t.evidence());
        assertTrue(evidence.contains("(seed 1, iteration 1357) was replayed twice on 1 of the 1 releases of h2 Maven Central lists between 2.4.240 and 2.5.252"), evidence);
        assertTrue(evidence.contains("Versions not listed there were not tried"), evidence);
        // what 2.5.250 did decides which of the two boundaries it is; either way it is named with its neighbours
        assertTrue(t.change().equals("changed between 2.4.240 and 2.5.250") || t.change().equals("changed between 2.5.250 and 2.5.252"),
                t.change() + "\n" + evidence);
        String firstNew = t.change().substring(t.change().lastIndexOf(' ') + 1);
        assertTrue(evidence.contains("Release notes of h2 " + firstNew + ": https://h2database.com/html/changelog.html"), evidence);
        // the boundary is between listed releases only: an artifact need not list every release of its engine
        assertTrue(evidence.contains(", neighbours among the releases Maven Central lists (the last listed release that behaves like h2@2.4.240,"
                + " the first listed that behaves like h2@2.5.252)."), evidence);
        assertTrue(evidence.contains("that Maven Central does not list may have made the change instead"), evidence);
        // the newer subject as the primary: the same boundary (the older side is found by version, not by position)
        VersionBoundary.forgetSearches();
        Triaged reversed = behaviourChange(judgeOn(List.of("h2@2.5.252", "h2@2.4.240"), unionAllExtraRow()));
        assertEquals(t.change(), reversed.change(), String.join("\n", reversed.evidence()));
    }

    @Test
    void twoReleasesWithNoReleaseBetweenAreTheirOwnBoundary() throws Exception {
        // 2.5.250 and 2.5.252 are neighbours: whether they diverge on this query says which side 2.5.250 is on
        Verdict v = judgeOn(List.of("h2@2.4.240", "h2@2.5.250"), unionAllExtraRow());
        if (v.isClean()) {
            Triaged t = behaviourChange(judgeOn(List.of("h2@2.5.250", "h2@2.5.252"), unionAllExtraRow()));
            assertEquals("changed between 2.5.250 and 2.5.252", t.change());
            assertTrue(String.join("\n", t.evidence()).contains("Maven Central lists no release of h2 between 2.5.250 and 2.5.252; releases it does not list were not tried."), t.evidence().toString());
        } else {
            Triaged t = behaviourChange(v);
            assertEquals("changed between 2.4.240 and 2.5.250", t.change());
            assertTrue(String.join("\n", t.evidence()).contains("Maven Central lists no release of h2 between 2.4.240 and 2.5.250; releases it does not list were not tried."), t.evidence().toString());
        }
    }

    @Test
    void subjectsThatAreNotTwoReleasesOfOneEngineWithTheSameSettingsHaveNoBoundary() {
        ExecutorConfig cfg = ExecutorConfig.defaults();
        assertTrue(VersionBoundary.between(Subject.parse("h2@2.4.240"), Subject.parse("h2@2.5.252"), cfg).isPresent());
        assertTrue(VersionBoundary.between(Subject.parse("h2@2.4.240"), Subject.parse("h2@2.5.252:prepared"), cfg).isEmpty(), "another execution style");
        assertTrue(VersionBoundary.between(Subject.parse("h2@2.4.240"), Subject.parse("h2@2.5.252+MODE=PostgreSQL"), cfg).isEmpty(), "another mode");
        assertTrue(VersionBoundary.between(Subject.parse("h2@2.4.240"), Subject.parse("h2@2.4.240"), cfg).isEmpty(), "one release");
        assertTrue(VersionBoundary.between(Subject.parse("h2@2.4.240"), Subject.parse("hsqldb"), cfg).isEmpty(), "two engines");
    }
}
