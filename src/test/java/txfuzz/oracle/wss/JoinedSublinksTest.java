package txfuzz.oracle.wss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Which subqueries of an UPDATE's or DELETE's WHERE PostgreSQL's planner turns into joins (the shapes measured in PostgresRecheckJoinedRowsTest). */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class JoinedSublinksTest {
    private static Optional<List<JoinedSublinks.Sublink>> of(String sql) {
        return JoinedSublinks.of(sql).map(JoinedSublinks.Found::sublinks);
    }

    @Test
    void aCorrelatedExistsAndAnUncorrelatedInAreSemiJoins_notExistsAnAntiJoin() {
        assertEquals(Optional.of(List.of(new JoinedSublinks.Sublink("t1", false))),
                of("DELETE FROM t0 WHERE EXISTS (SELECT 0 FROM t1 s0 WHERE s0.c0 >= t0.c3)"));
        assertEquals(Optional.of(List.of(new JoinedSublinks.Sublink("t1", false))), of("DELETE FROM t0 WHERE c3 IN (SELECT c0 FROM t1)"));
        assertEquals(Optional.of(List.of(new JoinedSublinks.Sublink("t1", true), new JoinedSublinks.Sublink("t1", false))),
                of("UPDATE t0 SET c3 = 7 WHERE (NOT (EXISTS (SELECT 1 FROM t1 WHERE t1.c0 = t0.c3)) AND c3 IN (SELECT s.c0 FROM t1 s))"));
        // an alias hides the table's name: t0.c3 inside "FROM t0 s1" is the statement's row
        assertEquals(Optional.of(List.of(new JoinedSublinks.Sublink("t0", false))),
                of("DELETE FROM t0 WHERE EXISTS (SELECT 1 FROM t0 s1 WHERE s1.c3 = t0.c3)"));
    }

    @Test
    void subqueriesThatStaySubplansAreNotJoins() {
        assertTrue(of("DELETE FROM t0 WHERE 1 IN (SELECT s0.c0 FROM t1 s0 WHERE s0.c0 >= t0.c3)").isEmpty(), "a correlated IN");
        assertTrue(of("DELETE FROM t0 WHERE c3 = 9 OR EXISTS (SELECT 0 FROM t1 s0 WHERE s0.c0 >= t0.c3)").isEmpty(), "under OR");
        assertTrue(of("DELETE FROM t0 WHERE c3 NOT IN (SELECT c0 FROM t1)").isEmpty(), "NOT IN");
        assertTrue(of("DELETE FROM t0 WHERE EXISTS (SELECT 0 FROM t1 s0 WHERE s0.c0 > 2)").isEmpty(), "an uncorrelated EXISTS (an InitPlan)");
        assertTrue(of("DELETE FROM t0 WHERE EXISTS (SELECT COUNT(*) FROM t1 s0 WHERE s0.c0 >= t0.c3)").isEmpty(), "an aggregate");
    }

    @Test
    void theRenamedStatementReadsTheCopyUnderTheSubquerysAlias() {
        JoinedSublinks.Found f = JoinedSublinks.of("DELETE FROM t0 WHERE c3 IN (SELECT t1.c0 FROM t1)").orElseThrow();
        assertEquals("DELETE FROM t0 WHERE c3 IN (SELECT t1.c0 FROM t1_joined t1)", f.renamer().rename(List.of("t1_joined")));
    }
}
