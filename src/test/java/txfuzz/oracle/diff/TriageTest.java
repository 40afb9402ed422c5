package txfuzz.oracle.diff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static txfuzz.oracle.diff.Traces.state0;
import static txfuzz.oracle.diff.Traces.trace;
import static txfuzz.oracle.diff.TraceComparisonTest.BOTH;
import static txfuzz.oracle.diff.TraceComparisonTest.CASE;
import static txfuzz.oracle.diff.TraceComparisonTest.SETUP;
import static txfuzz.oracle.diff.TraceComparisonTest.waiting;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.ErrorClass;
import txfuzz.exec.Trace;
import txfuzz.exec.TxnStatus;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.Violation;
import txfuzz.oracle.ViolationIdentity;
import txfuzz.oracle.wss.WssKind;

/** Triage on hand-built traces and verdicts: each label from its evidence, and the cause named from the traces. */
@Tag("unit")
class TriageTest {
    private static final Trace LOST_UPDATE = waiting().state(BOTH);
    private static final Trace ABORTED = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).rows(1, 2, List.of(List.of("1", "1"))).ok(1, 3)
            .ended(1, TxnStatus.COMMITTED, 3).blockedError(2, 1, ErrorClass.SERIALIZATION).ended(2, TxnStatus.ABORTED, 1).state(List.of(List.of("1", "1")));

    private static Divergence divergence(Trace l, Trace r) {
        return TraceComparison.compare(CASE, run(l), run(r), Rules.multisets(true)).divergence();
    }

    private static SideRun run(Trace t) {
        return new SideRun(state0(SETUP), t);
    }

    private static Side side(String label, String engine, String version, Verdict... own) {
        return new Side(label, engine, version, "mode default, PLAIN", IsolationLevel.REPEATABLE_READ, "https://manual/" + label, List.of(own));
    }

    private static final Verdict CLEAN = Verdict.clean("wss");

    /** A wss bug candidate about T2's UPDATE (the divergent statement). */
    private static Verdict flaggedAtT2Update() {
        Violation v = new Violation(WssKind.FIRST_COMMITTER_WINS, Classification.BUG_CANDIDATE, "two writers committed", "", null, Map.of(),
                new txfuzz.oracle.Evidence() {
                    @Override
                    public java.util.Optional<ViolationIdentity> identity() {
                        return java.util.Optional.of(new ViolationIdentity(List.of(Traces.ref(1, 1), Traces.ref(2, 1)), "both committed"));
                    }
                });
        return new Verdict("wss", List.of(v));
    }

    private static Verdict documented() {
        return new Verdict("wss", List.of(new Violation(WssKind.TX_WSS, Classification.DOCUMENTED, "lost update", "", "https://manual")));
    }

    @Test
    void theSideWhoseOwnOraclesFlagTheCaseIsTheBugCandidateAndAnotherVersionSaysItWasFixed() {
        Divergence d = divergence(LOST_UPDATE, ABORTED);
        Triaged t = Triage.triage(CASE, d, side("pg@15.17", "postgres", "PostgreSQL 15.17", flaggedAtT2Update()), run(LOST_UPDATE),
                side("pg@15.18", "postgres", "PostgreSQL 15.18", CLEAN), run(ABORTED));
        assertEquals(Label.BUG_CANDIDATE, t.label());
        assertEquals(List.of("pg@15.17"), t.culprits());
        assertEquals("fixed in pg@15.18", t.change());
        assertTrue(t.evidence().stream().anyMatch(s -> s.contains("(at the divergent statement)")), t.evidence().toString());
        Triaged reversed = Triage.triage(CASE, d, side("pg@15.18", "postgres", "PostgreSQL 15.18", flaggedAtT2Update()), run(LOST_UPDATE),
                side("pg@15.17", "postgres", "PostgreSQL 15.17", CLEAN), run(ABORTED));
        assertEquals("not in pg@15.17 (a regression)", reversed.change(), "the older version is clean");
        Triaged sameRelease = Triage.triage(CASE, d, side("h2 faulty", "h2", "H2 2.4.240 with a fault", flaggedAtT2Update()), run(LOST_UPDATE),
                side("h2", "h2", "H2 2.4.240", CLEAN), run(ABORTED));
        assertNull(sameRelease.change(), "one release, two builds: no version change to speak of");
    }

    /** A wss bug candidate about T1's first statement only: not the divergent statement. */
    private static Verdict flaggedElsewhere() {
        Violation v = new Violation(WssKind.FIRST_COMMITTER_WINS, Classification.BUG_CANDIDATE, "elsewhere", "", null, Map.of(),
                new txfuzz.oracle.Evidence() {
                    @Override
                    public java.util.Optional<ViolationIdentity> identity() {
                        return java.util.Optional.of(new ViolationIdentity(List.of(Traces.ref(1, 0)), "T1's BEGIN"));
                    }
                });
        return new Verdict("wss", List.of(v));
    }

    /** Between other engines a bug candidate elsewhere in the case does not explain this divergence. */
    @Test
    void aBugCandidateAwayFromTheDivergentStatementMakesNoCulpritBetweenEngines() {
        Triaged t = Triage.triage(CASE, divergence(LOST_UPDATE, ABORTED), side("mariadb", "mariadb", "10.11.5", flaggedElsewhere()),
                run(LOST_UPDATE), side("pg@15.18", "postgres", "PostgreSQL 15.18", CLEAN), run(ABORTED));
        assertEquals(Label.COMPATIBILITY, t.label(), t.evidence().toString());
        assertTrue(t.culprits().isEmpty());
        assertTrue(t.evidence().stream().anyMatch(e -> e.contains("elsewhere") && !e.contains("(at the divergent statement)")), t.evidence().toString());
    }

    /**
     * Issue 33 rule 8: between two versions of one engine, a version whose run breaks its own promise (its own oracles
     * report a bug candidate, here away from the divergent statement) gave a wrong result: not a behaviour change.
     */
    @Test
    void aVersionWhoseOwnOraclesFlagTheCaseAnywhereIsTheBugCandidate() {
        Triaged t = Triage.triage(CASE, divergence(LOST_UPDATE, ABORTED), side("pg@15.17", "postgres", "PostgreSQL 15.17", flaggedElsewhere()),
                run(LOST_UPDATE), side("pg@15.18", "postgres", "PostgreSQL 15.18", CLEAN), run(ABORTED));
        assertEquals(Label.BUG_CANDIDATE, t.label(), t.evidence().toString());
        assertEquals(List.of("pg@15.17"), t.culprits());
        assertTrue(t.evidence().stream().anyMatch(e -> e.contains("keeps its own level's promise")), t.evidence().toString());
    }

    @Test
    void twoVersionsOfOneEngineBothCleanOrDocumentedAreABehaviourChange() {
        Triaged t = Triage.triage(CASE, divergence(LOST_UPDATE, ABORTED), side("a", "postgres", "15.17", documented()), run(LOST_UPDATE),
                side("b", "postgres", "15.18", CLEAN), run(ABORTED));
        assertEquals(Label.BEHAVIOUR_CHANGE, t.label());
        assertTrue(t.culprits().isEmpty());
    }

    @Test
    void differentEnginesBothWithinTheirDocumentationAreACompatibilityIssueWithCauseAndReferences() {
        Triaged t = Triage.triage(CASE, divergence(LOST_UPDATE, ABORTED), side("mariadb", "mariadb", "10.11.5", documented()), run(LOST_UPDATE),
                side("postgres", "postgres", "15.18", CLEAN), run(ABORTED));
        assertEquals(Label.COMPATIBILITY, t.label());
        assertEquals(Cause.WRITE_CONFLICT, t.cause());
        assertEquals(Map.of("mariadb", "https://manual/mariadb", "postgres", "https://manual/postgres"), t.references());
        assertNull(t.change());
    }

    @Test
    void identicalSubjectsThatStayWithinTheirDocumentationHaveNothingToAttribute() {
        Triaged t = Triage.triage(CASE, divergence(LOST_UPDATE, ABORTED), side("h2", "h2", "2.4.240", CLEAN), run(LOST_UPDATE),
                side("h2 again", "h2", "2.4.240", CLEAN), run(ABORTED));
        assertEquals(Label.NOT_COMPARABLE, t.label());
    }

    @Test
    void causesAreNamedFromTheTraces() {
        Trace noWait = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).rows(1, 2, List.of(List.of("1", "1"))).ok(1, 3).ended(1, TxnStatus.COMMITTED, 3)
                .count(2, 1, 1).ok(2, 2).ended(2, TxnStatus.COMMITTED, 2).state(BOTH);
        assertEquals(Cause.BLOCKING_MODEL, Triage.cause(CASE, divergence(LOST_UPDATE, noWait), LOST_UPDATE, noWait));
        Trace failsAtOnce = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).rows(1, 2, List.of(List.of("1", "1"))).error(2, 1, ErrorClass.SERIALIZATION)
                .ended(2, TxnStatus.ABORTED, 1).ok(1, 3).ended(1, TxnStatus.COMMITTED, 3).state(List.of(List.of("1", "1")));
        assertEquals(DivergenceKind.BLOCKING, divergence(LOST_UPDATE, failsAtOnce).kind(), "one side waits, the other fails at once");
        assertEquals(Cause.WRITE_CONFLICT, Triage.cause(CASE, divergence(LOST_UPDATE, failsAtOnce), LOST_UPDATE, failsAtOnce));
        Trace deadlock = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).rows(1, 2, List.of(List.of("1", "1"))).ok(1, 3).ended(1, TxnStatus.COMMITTED, 3)
                .blockedError(2, 1, ErrorClass.DEADLOCK).state(BOTH);
        assertEquals(Cause.BLOCKING_MODEL, Triage.cause(CASE, divergence(LOST_UPDATE, deadlock), LOST_UPDATE, deadlock), "a deadlock on one side only");
        Trace otherVictim = trace().ok(1, 0).error(1, 1, ErrorClass.DEADLOCK).ok(2, 0).state(BOTH);
        Trace victimT2 = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).blockedError(2, 1, ErrorClass.DEADLOCK).state(BOTH);
        assertEquals(Cause.DEADLOCK_VICTIM, Triage.cause(CASE, divergence(otherVictim, victimT2), otherVictim, victimT2));
        Trace keepsGoing = trace().ok(1, 0).error(1, 1, ErrorClass.CONSTRAINT).rows(1, 2, List.of()).state(SETUP);
        Trace abortsTxn = trace().ok(1, 0).error(1, 1, ErrorClass.CONSTRAINT).ended(1, TxnStatus.ABORTED, 1).state(SETUP);
        assertEquals(Cause.ABORT_SCOPE, Triage.cause(CASE, divergence(keepsGoing, abortsTxn), keepsGoing, abortsTxn));
        Trace fresh = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).count(2, 1, 1).ok(2, 2).ended(2, TxnStatus.COMMITTED, 2)
                .rows(1, 2, List.of(List.of("1", "1"))).state(BOTH);
        Trace newest = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).count(2, 1, 1).ok(2, 2).ended(2, TxnStatus.COMMITTED, 2)
                .rows(1, 2, List.of(List.of("1", "11"))).state(BOTH);
        assertEquals(Cause.SNAPSHOT_POINT, Triage.cause(CASE, divergence(fresh, newest), fresh, newest), "a read after a concurrent commit");
        Trace alone1 = trace().ok(1, 0).count(1, 1, 1).state(SETUP);
        Trace alone0 = trace().ok(1, 0).count(1, 1, 0).state(SETUP);
        assertEquals(Cause.SQL_SEMANTICS, Triage.cause(CASE, divergence(alone1, alone0), alone1, alone0), "no concurrent commit before it");
    }

    @Test
    void aDivergenceThatTheSerialRunShowsTooIsSqlSemantics() {
        Trace newer = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).count(2, 1, 1).ok(2, 2).ended(2, TxnStatus.COMMITTED, 2)
                .rows(1, 2, List.of(List.of("1", "1"))).state(BOTH);
        Trace older = trace().ok(1, 0).count(1, 1, 1).ok(2, 0).count(2, 1, 1).ok(2, 2).ended(2, TxnStatus.COMMITTED, 2)
                .rows(1, 2, List.of(List.of("1", "11"))).state(BOTH);
        Divergence d = divergence(newer, older);
        Side m = side("m", "mariadb", "10.11.5", CLEAN);
        Side p = side("p", "postgres", "15.18", CLEAN);
        assertEquals(Cause.SNAPSHOT_POINT, Triage.triage(CASE, d, m, run(newer), p, run(older), null).cause(), "named from the traces");
        Triaged serialToo = Triage.triage(CASE, d, m, run(newer), p, run(older), Comparison.diverge(d));
        assertEquals(Cause.SQL_SEMANTICS, serialToo.cause());
        assertTrue(serialToo.evidence().stream().anyMatch(s -> s.contains("no concurrency is needed")), serialToo.evidence().toString());
        Triaged serialAgrees = Triage.triage(CASE, d, m, run(newer), p, run(older), Comparison.agree());
        assertEquals(Cause.SNAPSHOT_POINT, serialAgrees.cause());
        assertTrue(serialAgrees.evidence().stream().anyMatch(s -> s.contains("the divergence needs concurrency")), serialAgrees.evidence().toString());
    }

    @Test
    void aDivergenceTheSerialRunDoesNotShowIsNeverSqlSemantics() {
        Trace alone1 = trace().ok(1, 0).count(1, 1, 1).state(SETUP);
        Trace alone0 = trace().ok(1, 0).count(1, 1, 0).state(SETUP);
        Divergence d = divergence(alone1, alone0);
        Side m = side("m", "mariadb", "10.11.5", CLEAN);
        Side p = side("p", "postgres", "15.18", CLEAN);
        assertEquals(Cause.SQL_SEMANTICS, Triage.triage(CASE, d, m, run(alone1), p, run(alone0), null).cause(), "named from the traces alone");
        assertEquals(Cause.UNEXPLAINED, Triage.triage(CASE, d, m, run(alone1), p, run(alone0), Comparison.agree()).cause());
        // the serial run diverging elsewhere (H2 vs PostgreSQL: an INSERT that waited erred on one side, the serial
        // run differed only by abort scope) does not show that this divergence needs no concurrency
        Divergence elsewhere = new Divergence(DivergenceKind.ONE_SIDED, new txfuzz.model.StmtRef(2, 2), "ok", "did not run");
        assertEquals(Cause.UNEXPLAINED, Triage.triage(CASE, d, m, run(alone1), p, run(alone0), Comparison.diverge(elsewhere)).cause());
        assertEquals(Cause.UNEXPLAINED, Triage.triage(CASE, d, m, run(alone1), p, run(alone0), Comparison.notComparable("flaky")).cause());
        assertEquals(Cause.SQL_SEMANTICS, Triage.triage(CASE, d, m, run(alone1), p, run(alone0), Comparison.diverge(d)).cause(), "the serial run shows it");
    }

    @Test
    void abortScopeIsNamedFromTheErrorsEvenWhenTheSerialRunShowsItToo() {
        Trace keepsGoing = trace().ok(1, 0).error(1, 1, ErrorClass.CONSTRAINT).rows(1, 2, List.of()).state(SETUP);
        Trace abortsTxn = trace().ok(1, 0).error(1, 1, ErrorClass.CONSTRAINT).ended(1, TxnStatus.ABORTED, 1).state(SETUP);
        Divergence d = divergence(keepsGoing, abortsTxn);
        Triaged t = Triage.triage(CASE, d, side("m", "mariadb", "10.11.5", CLEAN), run(keepsGoing), side("p", "postgres", "15.18", CLEAN),
                run(abortsTxn), Comparison.diverge(d));
        assertEquals(Cause.ABORT_SCOPE, t.cause());
        Trace committedEarly = trace().ok(1, 0).count(1, 1, 1).ended(1, TxnStatus.COMMITTED, 1).state(SETUP);
        Trace goesOn = trace().ok(1, 0).count(1, 1, 1).rows(1, 2, List.of()).state(SETUP);
        assertEquals(Cause.UNEXPLAINED, Triage.cause(CASE, divergence(goesOn, committedEarly), goesOn, committedEarly),
                "no error ended the transaction: nothing says the scope of one differs");
    }

    @Test
    void theSerialCaseRunsEachTransactionWholeInTheOrderTheyEnded() {
        TestCase serial = DiffOracle.serialised(CASE, List.of(2));
        assertEquals(List.of(2, 2, 2, 1, 1, 1, 1), serial.order());
        assertEquals(CASE.transactions(), serial.transactions());
    }

    @Test
    void theSignatureNamesPairLevelKindStatementCauseAndLabel() {
        DiffSignature s = new DiffSignature("a vs b", IsolationLevel.REPEATABLE_READ, DivergenceKind.ABORT, txfuzz.model.StmtKind.UPSERT,
                Cause.WRITE_CONFLICT, Label.BUG_CANDIDATE);
        assertEquals("a vs b · REPEATABLE_READ · diff-abort · UPSERT · write-conflict · bug-candidate", s.toString());
    }

    @Test
    void aStudyCountsDistinctScenariosAndKeepsTheSmallestExample() {
        Divergence d = divergence(LOST_UPDATE, ABORTED);
        Triaged t = Triage.triage(CASE, d, side("m", "mariadb", "10.11.5", CLEAN), run(LOST_UPDATE), side("p", "postgres", "15.18", CLEAN), run(ABORTED));
        Study s = new Study.Builder("m vs p").agreed().notComparable("flaky: …").notComparable("setup differs: t")
                .notComparable("the executor broke a stall on one side")
                .diverged(d, t, Consequence.DATABASE_STATE, 9, "big").diverged(d, t, Consequence.DATABASE_STATE, 4, "small").build();
        assertEquals(6, s.compared());
        assertEquals(1, s.agreeing());
        assertEquals(Map.of("flaky", 1L, "setup differs", 1L, "the executor broke a stall on one side", 1L), s.notComparable(),
                "grouped by the reason before its details, never by a first word such as 'the'");
        assertEquals(1, s.scenarios().size());
        assertEquals(2, s.scenarios().get(0).seen());
        assertEquals("small", s.scenarios().get(0).example());
        String md = StudyReport.render(List.of(s));
        assertTrue(md.contains("| 6 | 1 | 3 | 1 |"), md);
        assertTrue(md.contains("| diff-abort | write-conflict | database state | compatibility | 2 |"), md);
        assertEquals(Consequence.DATABASE_STATE, Consequence.of(CASE, LOST_UPDATE, ABORTED));
    }

    @Test
    void theSideBySideMarksTheFirstDivergence() {
        Divergence d = divergence(LOST_UPDATE, ABORTED);
        String md = SideBySide.render(CASE, d, side("m", "mariadb", "10.11.5", CLEAN), LOST_UPDATE, side("p", "postgres", "15.18", flaggedAtT2Update()), ABORTED);
        List<String> marked = md.lines().filter(l -> l.contains(SideBySide.MARK)).toList();
        assertEquals(1, marked.size(), md);
        assertTrue(marked.get(0).contains("T2.1"), md);
        assertTrue(md.contains("bug-candidate two writers committed"), md);
    }
}
