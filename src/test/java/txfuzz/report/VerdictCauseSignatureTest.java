package txfuzz.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.exec.Cases;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;
import txfuzz.oracle.wss.WssEvidence;
import txfuzz.oracle.wss.WssKind;

/**
 * The cause a verdict names is part of a finding's signature (issue 33, item 5): a triage found three minimal
 * reproducers of a real defect filed as duplicates of a false candidate whose statements were of the same kinds,
 * and a false one under the real defect. Two findings alike in kind and statements but explained differently, or
 * differing the other way from the serial run, are not one bug; two that differ only in a generated table's name are.
 */
@Tag("unit")
class VerdictCauseSignatureTest {
    /** References as the wss oracle writes them: a manual's sentence with its page and the rule; a measured rule and why the promise holds. */
    private static final String MECHANISM = "\"The search condition of the command (the WHERE clause) is re-evaluated\""
            + " (https://www.postgresql.org/docs/current/transaction-iso.html) (statement snapshot with re-check: a waiting UPDATE re-checked row 1)";
    private static final String OTHER_MECHANISM = "per-table snapshots: each transaction read every table from the snapshot taken when it first"
            + " read it (measured, not in the manual; pinned by SnapshotRulesTest); a row read again repeats";

    /** Two UPDATEs of one row at READ COMMITTED: the statements every candidate below shares. */
    private static TestCase twoUpdates() {
        return Cases.on("h2").table("t").level(IsolationLevel.READ_COMMITTED)
                .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 1)")
                .txn("UPDATE t SET v = v + 1 WHERE id = 1").txn("UPDATE t SET id = 2 WHERE id = 1").order(1, 2, 1, 2, 1, 2);
    }

    private static Violation writeOutcome(Classification c, String reference, String direction) {
        return new Violation(WssKind.WRITE_OUTCOME, c, "s", "d", reference, Map.of(),
                new WssEvidence(WssKind.WRITE_OUTCOME, new StmtRef(2, 1), null, List.of("UPDATE t SET v = v + 1 WHERE id = 1"), null,
                        direction));
    }

    private static Violation finalState(String direction) {
        return new Violation(WssKind.TX_WSS, Classification.BUG_CANDIDATE, "s", "d", null, Map.of(),
                new WssEvidence(WssKind.TX_WSS, null, null, List.of("UPDATE t SET v = v + 1 WHERE id = 1"), null, direction));
    }

    private static Signature signed(Violation v) {
        return Signature.of(twoUpdates(), v);
    }

    /** A violation that names the mechanism that explained it is signed by that name, not by a reading of its reference. */
    @Test
    void anExplainedViolationIsSignedByTheMechanismItNames() {
        Violation v = writeOutcome(Classification.BUG_CANDIDATE, null, "changed fewer rows than serial");
        Signature named = signed(v.explainedBy(Classification.DOCUMENTED, MECHANISM, "statement-snapshot-with-recheck"));
        assertEquals(List.of("explained by statement-snapshot-with-recheck"), named.verdictCause());
        Signature otherWords = signed(v.explainedBy(Classification.DOCUMENTED, OTHER_MECHANISM, "statement-snapshot-with-recheck"));
        assertEquals(named.id(), otherWords.id(), "the reference's words do not make another cause");
        assertNotEquals(named.id(), signed(v.explainedBy(Classification.DOCUMENTED, MECHANISM, "table-snapshots")).id());
    }

    @Test
    void candidatesThatDifferTheOtherWayFromTheSerialRunAreTwoBugs() {
        Signature fewer = signed(writeOutcome(Classification.BUG_CANDIDATE, null, "changed fewer rows than serial"));
        Signature more = signed(writeOutcome(Classification.BUG_CANDIDATE, null, "changed more rows than serial"));
        assertEquals(fewer.cause(), more.cause(), "the same deviating statement kind");
        assertNotEquals(fewer.id(), more.id(), fewer.text() + " vs. " + more.text());
        assertEquals(List.of("changed fewer rows than serial"), fewer.verdictCause());
        assertTrue(fewer.text().endsWith("· UPDATE · changed fewer rows than serial"), fewer.text());
        assertEquals(fewer.id(), signed(writeOutcome(Classification.BUG_CANDIDATE, null, "changed fewer rows than serial")).id(),
                "the same direction is the same bug");
    }

    @Test
    void aCandidateIsNeverFiledUnderAnExplainedFindingNorTheOtherWayRound() {
        Signature candidate = signed(writeOutcome(Classification.BUG_CANDIDATE, null, "changed fewer rows than serial"));
        Signature documented = signed(writeOutcome(Classification.DOCUMENTED, MECHANISM, "changed fewer rows than serial"));
        assertNotEquals(candidate.id(), documented.id());
        assertEquals(List.of("explained by \"The search condition of the command (the WHERE clause) is re-evaluated\""), documented.verdictCause(),
                "the mechanism as the manual's sentence, not what it says of this case");

        FindingIndex index = new FindingIndex();
        FindingIndex.Group explained = index.add("h2-RC-s1-i1", documented, "documented", true);
        assertTrue(index.covering(candidate).isEmpty(), "a bug candidate is not a duplicate of documented behaviour");
        index.add("h2-RC-s1-i2", candidate, "candidate", true);
        assertEquals(2, index.groups().size());
        assertEquals(List.of(), explained.duplicates());
        assertTrue(index.covering(signed(writeOutcome(Classification.DOCUMENTED, MECHANISM, "changed more rows than serial"))).isPresent(),
                "one documented mechanism is one finding, whichever way each case showed it");
    }

    @Test
    void aMeasuredMechanismIsNamedByItsRuleAlone() {
        assertEquals(List.of("explained by per-table snapshots"),
                signed(writeOutcome(Classification.NOT_PROMISED, OTHER_MECHANISM, "changed fewer rows than serial")).verdictCause());
    }

    @Test
    void behaviourExplainedByAnotherMechanismIsAnotherFinding() {
        assertNotEquals(signed(writeOutcome(Classification.DOCUMENTED, MECHANISM, "changed fewer rows than serial")).id(),
                signed(writeOutcome(Classification.DOCUMENTED, OTHER_MECHANISM, "changed fewer rows than serial")).id());
    }

    @Test
    void aGeneratedTablesNameIsNotPartOfTheCause() {
        Signature t0 = signed(finalState("t0: rows only serial"));
        Signature t1 = signed(finalState("t1: rows only serial"));
        assertEquals(List.of("rows only serial"), t0.verdictCause());
        assertEquals(t0.id(), t1.id(), t0.text() + " vs. " + t1.text());
        Signature both = signed(finalState("t0: rows only actual; t1: rows only serial"));
        assertEquals(List.of("rows only actual", "rows only serial"), both.verdictCause());
        assertNotEquals(t0.id(), both.id(), "rows the serial run lacks are another way to differ");
    }

    @Test
    void whatTheKindAlreadySaysIsNotRepeated() {
        Violation noDirection = writeOutcome(Classification.BUG_CANDIDATE, null, null);
        assertEquals(List.of(), signed(noDirection).verdictCause(), "a direction that is the kind's label says nothing more");
        assertEquals("v3|wss|write-outcome|bug-candidate|h2|RC|default|UPDATE", signed(noDirection).canonical());
    }
}
