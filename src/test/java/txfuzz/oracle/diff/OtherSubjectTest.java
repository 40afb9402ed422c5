package txfuzz.oracle.diff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.model.ExecutionMode;
import txfuzz.model.IsolationLevel;
import txfuzz.model.TestCase;

/** How the primary's case becomes another subject's: its paired level, its own mode and execution style. */
class OtherSubjectTest {
    private static final TestCase PRIMARY = TraceComparisonTest.CASE.withExecution(ExecutionMode.PLAIN);

    @Test
    void theCaseRunsAtThePairedLevelInTheSubjectsOwnModeAndStyle() {
        try (Target h2 = Targets.create("h2")) {
            TestCase foreign = new TestCase(1, "hsqldb", 3, 4, IsolationLevel.REPEATABLE_READ, "mvlocks", ExecutionMode.PLAIN, PRIMARY.tables(),
                    PRIMARY.setup(), PRIMARY.transactions(), PRIMARY.order());
            OtherSubject snapshot = new OtherSubject("h2", h2, l -> l == IsolationLevel.REPEATABLE_READ ? Optional.of(IsolationLevel.SNAPSHOT) : Optional.empty(),
                    null, ExecutionMode.PREPARED);
            TestCase c = snapshot.caseFor(foreign).orElseThrow();
            assertEquals(IsolationLevel.SNAPSHOT, c.isolation());
            assertEquals(h2.modes().get(0), c.mode(), "hsqldb's mode is not H2's");
            assertEquals(ExecutionMode.PREPARED, c.execution());
            assertEquals("h2", c.dbms());
            assertEquals(foreign.transactions(), c.transactions());
            assertEquals(foreign.order(), c.order());
            assertTrue(snapshot.caseFor(foreign.withIsolation(IsolationLevel.READ_COMMITTED)).isEmpty(), "an unpaired level is not compared");
        }
    }
}
