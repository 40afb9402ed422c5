package txfuzz.bugs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import txfuzz.bugs.PrintedSql.Outcome;
import txfuzz.bugs.PrintedSql.Run;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Targets;

/**
 * The SQLite entry of docs/bugs.md (sqlite-stale-schema-refuses-upsert): the printed SQL and its control on the versions
 * it names; the test fails the day a release fixes it.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class SqliteBugsTest {
    private static final List<String> VERSIONS = List.of("3.50.3.0", "3.51.3.0", "3.53.4.0", "3.54.1.0");
    private static final String UPSERT = "INSERT INTO t VALUES (1, 2) ON CONFLICT (c2) DO UPDATE SET c1 = 9";

    /**
     * A connection that read the schema before another dropped and made again its table with a UNIQUE column refuses an
     * upsert on that column, and goes on refusing it, while a new connection runs it; a plain INSERT on it sees the new
     * table (the control).
     */
    @Test
    void sqliteStaleSchemaRefusesUpsertOnEachVersion() throws Exception {
        for (String v : VERSIONS) {
            try (Target sqlite = Targets.create("sqlite", TargetOptions.version(v))) {
                Run r = PrintedSql.of("sqlite-stale-schema-refuses-upsert").run(sqlite);
                Outcome stale = r.of(UPSERT, 1); // T2's
                assertTrue(stale.failed(), v + ": " + r);
                assertTrue(stale.error().getMessage().contains("ON CONFLICT clause does not match"), v + ": " + r);
                assertEquals(1, r.of(UPSERT, 2).updateCount(), v + ": a new connection (T3) runs it: " + r);
                Outcome again = r.of(UPSERT, 3); // T2's again
                assertTrue(again.failed() && again.error().getMessage().contains("ON CONFLICT clause does not match"),
                        v + ": still refused after T3 used the new schema: " + r);
                assertEquals(PrintedSql.rows("(1, 2)"), r.last().rows(), r.toString());

                Run control = PrintedSql.of("sqlite-stale-schema-plain-insert").run(sqlite);
                assertFalse(control.of("INSERT INTO t VALUES (1, 2)", 1).failed(), v + ": " + control);
                assertTrue(control.of("INSERT INTO t VALUES (1, 2)", 2).error().getMessage().contains("UNIQUE constraint failed"),
                        v + ": the new table's key: " + control);
                assertEquals(PrintedSql.rows("(1, 2)"), control.last().rows(), control.toString());
            }
        }
    }
}
