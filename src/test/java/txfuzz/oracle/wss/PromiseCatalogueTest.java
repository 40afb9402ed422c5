package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.Deviation.ReadPoint;
import txfuzz.dbms.Engine;
import txfuzz.dbms.LevelPromise;
import txfuzz.dbms.LevelSemantics;
import txfuzz.dbms.Promise;
import txfuzz.dbms.Targets;
import txfuzz.model.IsolationLevel;
import txfuzz.oracle.Classification;

/**
 * What the promise catalogue makes of an explanation, engine by engine, without running one: documented only with a
 * manual's sentence (and only for the read points it describes), not promised where the claimed standard level permits all
 * the mechanism does or txfuzz measured it within the manual's promises, nothing where the mechanism breaks the claimed level
 * and no manual describes it.
 */
@Tag("unit")
class PromiseCatalogueTest {
    private static Optional<WssOracle.Explained> as(String dbms, IsolationLevel level, Deviation d, ReadPoint point) {
        Engine e = Targets.engine(dbms);
        LevelSemantics s = e.profile().at(level);
        return WssOracle.explainedAs(d, "the rule", Optional.ofNullable(point), s, e.promise(level, e.modes().get(0)));
    }

    @Test
    void aManualsSentenceDocumentsOnlyTheReadPointsItDescribes() {
        // InnoDB's semi-consistent read: an UPDATE of a locked row reads its newest committed version (as it resumed)
        assertEquals(Classification.DOCUMENTED, as("mariadb", IsolationLevel.READ_COMMITTED, Deviation.STATEMENT_VISIBILITY, ReadPoint.RESUMED)
                .orElseThrow().classification());
        // PostgreSQL's re-check, or a read as submitted after a wait: InnoDB's manual says neither (issue 33 rule 9)
        for (ReadPoint p : new ReadPoint[] {ReadPoint.SUBMITTED, ReadPoint.RECHECK}) {
            WssOracle.Explained x = as("mariadb", IsolationLevel.READ_COMMITTED, Deviation.STATEMENT_VISIBILITY, p).orElseThrow();
            assertEquals(Classification.NOT_PROMISED, x.classification(), p.name());
            assertTrue(x.reference().contains("PL-2"), x.reference());
        }
    }

    @Test
    void postgresReadCommittedsReCheckIsDocumentedWithTheManualsSentence() {
        WssOracle.Explained x = as("postgres", IsolationLevel.READ_COMMITTED, Deviation.STATEMENT_SNAPSHOT_WITH_RECHECK, null).orElseThrow();
        assertEquals(Classification.DOCUMENTED, x.classification());
        assertTrue(x.reference().contains("is re-evaluated to see if the updated version of the row still matches"), x.reference());
    }

    @Test
    void h2sMeasuredRulesAreNotPromisedNeverDocumented() {
        WssOracle.Explained recheck = as("h2", IsolationLevel.READ_COMMITTED, Deviation.STATEMENT_SNAPSHOT_WITH_RECHECK, null).orElseThrow();
        assertEquals(Classification.NOT_PROMISED, recheck.classification());
        assertTrue(recheck.reference().contains("measured, not in the manual; pinned by H2ReadCommittedRecheckTest"), recheck.reference());
        WssOracle.Explained tables = as("h2", IsolationLevel.REPEATABLE_READ, Deviation.TABLE_SNAPSHOTS, null).orElseThrow();
        assertEquals(Classification.NOT_PROMISED, tables.classification());
        // statement visibility at H2's READ COMMITTED: what PL-2 permits, no sentence needed
        assertEquals(Classification.NOT_PROMISED, as("h2", IsolationLevel.READ_COMMITTED, Deviation.STATEMENT_VISIBILITY, ReadPoint.SUBMITTED)
                .orElseThrow().classification());
    }

    @Test
    void aMechanismBreakingTheClaimedLevelThatNoManualDescribesExplainsNothing() {
        // statement visibility keeps PL-2 only: claimed as snapshot isolation without a sentence, it explains nothing
        LevelSemantics s = LevelSemantics.permits("a page", Deviation.STATEMENT_VISIBILITY);
        assertEquals(Optional.empty(), WssOracle.explainedAs(Deviation.STATEMENT_VISIBILITY, "the rule", Optional.of(ReadPoint.SUBMITTED), s,
                new LevelPromise(Promise.SNAPSHOT_ISOLATION, "a page")));
        assertTrue(WssOracle.explainedAs(Deviation.STATEMENT_VISIBILITY, "the rule", Optional.of(ReadPoint.SUBMITTED), s,
                new LevelPromise(Promise.READ_COMMITTED, "a page")).isPresent());
    }

    @Test
    void promisesImplyOnlyWeakerOnesAndSnapshotIsolationAndRepeatableReadAreIncomparable() {
        assertTrue(Promise.SERIALIZABLE.implies(Promise.SNAPSHOT_ISOLATION) && Promise.SERIALIZABLE.implies(Promise.REPEATABLE_READ));
        assertTrue(Promise.SNAPSHOT_ISOLATION.implies(Promise.READ_COMMITTED) && !Promise.SNAPSHOT_ISOLATION.implies(Promise.REPEATABLE_READ));
        assertTrue(!Promise.REPEATABLE_READ.implies(Promise.SNAPSHOT_ISOLATION) && Promise.REPEATABLE_READ.implies(Promise.READ_COMMITTED));
        assertTrue(!Promise.READ_COMMITTED.implies(Promise.REPEATABLE_READ) && !Promise.READ_UNCOMMITTED.implies(Promise.READ_COMMITTED));
        assertEquals(Promise.READ_COMMITTED, Mechanisms.of(Deviation.STATEMENT_SNAPSHOT_WITH_RECHECK).keeps());
        assertEquals(Promise.READ_UNCOMMITTED, Mechanisms.of(Deviation.DIRTY_VISIBILITY).keeps());
    }
}
