package txfuzz.oracle.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.h2.H2Target;
import txfuzz.history.IsolationChecker;
import txfuzz.model.ExecutionMode;
import txfuzz.model.IsolationLevel;
import txfuzz.model.Stmt;
import txfuzz.model.StmtKind;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Violation;

/**
 * A case whose transactions run at different levels: a cycle is judged at the weakest level of the transactions on it
 * (Adya's mixed-level histories, conservatively) with that level's profile entry; transactions off the cycle do not
 * weaken it; levels with no weakest (REPEATABLE READ beside SNAPSHOT) leave the cycle unjudged. H2's real profile (no
 * engine started: a profile is static knowledge), the lost update of {@link IsolationOracleProfileTest}.
 */
class MixedLevelJudgementTest {
    /** Three transactions (T1, T2 on the lost update's cycle, T3 off it), at the case's level unless given their own. */
    private static TestCase caseAt(IsolationLevel caseLevel, IsolationLevel t1, IsolationLevel t2, IsolationLevel t3) {
        List<Txn> txns = new ArrayList<>();
        IsolationLevel[] own = {t1, t2, t3};
        for (int i = 0; i < 3; i++) {
            txns.add(new Txn(i + 1, List.of(Stmt.begin(), Stmt.of(StmtKind.SELECT, "SELECT * FROM t"), Stmt.commit()), List.of(), own[i]));
        }
        return new TestCase(TestCase.FORMAT_VERSION, "h2", 0, 0, caseLevel, "default", ExecutionMode.PLAIN, List.of("t"),
                List.of("CREATE TABLE t(x INT)"), txns, List.of(1, 1, 1, 2, 2, 2, 3, 3, 3));
    }

    private static List<Violation> judge(TestCase c) {
        return IsolationOracle.mixedLevelViolations(IsolationChecker.analyze(IsolationOracleProfileTest.LOST_UPDATE),
                IsolationOracleProfileTest.LOST_UPDATE, c, new H2Target().profile());
    }

    @Test
    void aCycleWhoseWeakestTransactionIsAtRepeatableReadIsJudgedThere() {
        // T2 at SERIALIZABLE, T1 at the case's REPEATABLE READ, T3 (off the cycle) at READ UNCOMMITTED
        List<Violation> vs = judge(caseAt(IsolationLevel.REPEATABLE_READ, null, IsolationLevel.SERIALIZABLE, IsolationLevel.READ_UNCOMMITTED));
        assertEquals(List.of("lost-update"), vs.stream().map(v -> v.kind().label()).toList());
        assertEquals(Classification.BUG_CANDIDATE, vs.get(0).classification(), "H2 documents no lost update at REPEATABLE READ");
    }

    @Test
    void aCycleWithATransactionAtReadCommittedIsNotAViolation() {
        assertEquals(List.of(), judge(caseAt(IsolationLevel.REPEATABLE_READ, null, IsolationLevel.READ_COMMITTED, null)),
                "READ COMMITTED permits the lost update, so a cycle through a READ COMMITTED transaction proves nothing");
    }

    @Test
    void levelsWithNoWeakestLeaveTheCycleUnjudged() {
        TestCase c = caseAt(IsolationLevel.REPEATABLE_READ, null, IsolationLevel.SNAPSHOT, null);
        assertEquals(Optional.empty(), IsolationOracle.weakestLevel(c, List.of(1L, 2L)));
        assertEquals(List.of(), judge(c));
        assertEquals(Optional.of(IsolationLevel.SNAPSHOT), IsolationOracle.weakestLevel(
                caseAt(IsolationLevel.SERIALIZABLE, IsolationLevel.SNAPSHOT, null, null), List.of(1L, 2L)));
    }

    @Test
    void theOrderOfLevels() {
        assertTrue(IsolationOracle.atMost(IsolationLevel.READ_UNCOMMITTED, IsolationLevel.SERIALIZABLE));
        assertTrue(IsolationOracle.atMost(IsolationLevel.REPEATABLE_READ, IsolationLevel.SERIALIZABLE));
        assertFalse(IsolationOracle.atMost(IsolationLevel.SERIALIZABLE, IsolationLevel.READ_COMMITTED));
        assertFalse(IsolationOracle.atMost(IsolationLevel.REPEATABLE_READ, IsolationLevel.SNAPSHOT));
        assertFalse(IsolationOracle.atMost(IsolationLevel.SNAPSHOT, IsolationLevel.REPEATABLE_READ));
    }

    /** Two MariaDB transactions at REPEATABLE READ in the default mode, with their sessions' own settings. */
    private static List<Violation> mariadb(txfuzz.history.History h, List<String> t1Settings, List<String> t2Settings) {
        txfuzz.dbms.Engine maria = txfuzz.dbms.Targets.engine("mariadb");
        List<Txn> txns = List.of(
                new Txn(1, List.of(Stmt.begin(), Stmt.of(StmtKind.SELECT, "SELECT * FROM t"), Stmt.commit()), t1Settings, null),
                new Txn(2, List.of(Stmt.begin(), Stmt.of(StmtKind.SELECT, "SELECT * FROM t"), Stmt.commit()), t2Settings, null));
        TestCase c = new TestCase(TestCase.FORMAT_VERSION, "mariadb", 0, 0, IsolationLevel.REPEATABLE_READ, "default", ExecutionMode.PLAIN,
                List.of("t"), List.of("CREATE TABLE t(x INT)"), txns, List.of(1, 1, 1, 2, 2, 2));
        java.util.Map<Integer, String> modes = new java.util.LinkedHashMap<>();
        c.transactions().forEach(t -> modes.put(t.id(), maria.sessionMode(c.mode(), t.settings())));
        return IsolationOracle.mixedLevelViolations(IsolationChecker.analyze(h), h, c, maria::profile, modes);
    }

    static final List<String> ON = List.of("SET innodb_snapshot_isolation=ON");

    @Test
    void aLostUpdateBetweenSessionsWithInnodbSnapshotIsolationOnIsABugCandidateAndDocumentedWhereOneIsOff() {
        List<Violation> both = mariadb(IsolationOracleProfileTest.LOST_UPDATE, ON, ON);
        assertEquals(List.of("lost-update"), both.stream().map(v -> v.kind().label()).toList());
        assertEquals(Classification.BUG_CANDIDATE, both.get(0).classification(), "ON: the write conflict (1020) forbids it");
        List<Violation> one = mariadb(IsolationOracleProfileTest.LOST_UPDATE, ON, List.of());
        assertEquals(Classification.DOCUMENTED, one.get(0).classification(), "the session left OFF may be the one that lost it");
        List<Violation> off = mariadb(IsolationOracleProfileTest.LOST_UPDATE, ON, List.of("SET SESSION innodb_snapshot_isolation = OFF"));
        assertEquals(Classification.DOCUMENTED, off.get(0).classification());
        // write skew: snapshot isolation permits it, ON or not
        List<Violation> skew = mariadb(IsolationOracleProfileTest.WRITE_SKEW, ON, ON);
        assertEquals(List.of("write-skew"), skew.stream().map(v -> v.kind().label()).toList());
        assertEquals(Classification.DOCUMENTED, skew.get(0).classification());
    }
}
