package txfuzz.oracle.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.history.History;
import txfuzz.model.IsolationLevel;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;
import txfuzz.dbms.h2.H2Target;

/**
 * How the oracle classifies an anomaly: not reported where the level permits it, documented where
 * the engine's profile says so, a bug candidate otherwise. The profiles are the real targets'
 * (no engine is started: a profile is static knowledge).
 */
class IsolationOracleProfileTest {
    static final History LOST_UPDATE = History.builder()
            .txn(1).read("x", 0).update("x", 0, 2).commit()
            .txn(2).update("x", 0).commit()
            .build();

    static final History WRITE_SKEW = History.builder()
            .txn(1).read("x", 0).update("y", 0).commit()
            .txn(2).read("y", 0).update("x", 0).commit()
            .build();

    @Test
    void anAnomalyTheLevelPermitsIsNotReported() {
        assertEquals(List.of(), IsolationOracle.violations(LOST_UPDATE, IsolationLevel.READ_COMMITTED,
                new H2Target().profile().at(IsolationLevel.READ_COMMITTED)));
    }

    @Test
    void writeSkewIsNotReportedAtSnapshotAndDocumentedAtH2Serializable() {
        H2Target h2 = new H2Target();
        assertEquals(List.of(), IsolationOracle.violations(WRITE_SKEW, IsolationLevel.SNAPSHOT, h2.profile().at(IsolationLevel.SNAPSHOT)),
                "snapshot isolation permits write skew");
        List<Violation> ser = IsolationOracle.violations(WRITE_SKEW, IsolationLevel.SERIALIZABLE, h2.profile().at(IsolationLevel.SERIALIZABLE));
        assertEquals(List.of("write-skew"), ser.stream().map(vi -> vi.kind().label()).toList());
        assertEquals(Classification.DOCUMENTED, ser.get(0).classification());
        assertTrue(ser.get(0).reference().contains("doesn't ensure equivalence"), ser.get(0).reference());
    }

    @Test
    void writeSkewIsABugCandidateWhereTheProfileDocumentsNothing() {
        List<Violation> ser = IsolationOracle.violations(WRITE_SKEW, IsolationLevel.SERIALIZABLE,
                txfuzz.dbms.LevelSemantics.strict("https://www.sqlite.org/isolation.html"));
        assertEquals(Classification.BUG_CANDIDATE, ser.get(0).classification());
        assertTrue(ser.get(0).attachments().keySet().containsAll(List.of("history.jsonl", "write-skew.mmd", "write-skew.dot")));
        assertTrue(ser.get(0).attachments().get("write-skew.mmd").contains("flowchart"), "the drawing comes as a file the report embeds");
        assertTrue(ser.get(0).details().contains("a contradiction"), ser.get(0).details());
    }

    @Test
    void lostUpdateIsABugCandidateAtH2RepeatableRead() {
        List<Violation> rr = IsolationOracle.violations(LOST_UPDATE, IsolationLevel.REPEATABLE_READ,
                new H2Target().profile().at(IsolationLevel.REPEATABLE_READ));
        assertEquals(List.of("lost-update"), rr.stream().map(vi -> vi.kind().label()).toList());
        assertEquals(Classification.BUG_CANDIDATE, rr.get(0).classification());
    }
}
