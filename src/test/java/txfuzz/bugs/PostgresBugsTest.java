package txfuzz.bugs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.bugs.PrintedSql.Outcome;
import txfuzz.bugs.PrintedSql.Run;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Targets;

/**
 * The PostgreSQL entry of docs/bugs.md, pg-merge-rr-lost-update (fixed upstream): its printed SQL on
 * the zonky releases the page names. Each version is a server start. The oracle tests of the entry are
 * IsolationOracleEngineTest and BisectCommandTest.
 */
class PostgresBugsTest {
    private static final String MERGE = "MERGE INTO t USING s x ON (t.k = x.k) WHEN MATCHED THEN UPDATE SET wl = t.wl || ',1.2'";

    /** 15.10 and 15.17: the MERGE overwrites the version T2 committed after T1's snapshot; 15.18, 15.19, 18.6: 40001. */
    @Test
    void pgMergeRrLostUpdateOnEachVersion() throws Exception {
        for (String v : List.of("15.10", "15.17", "15.18", "15.19", "18.6")) {
            boolean affected = !PrintedSql.atLeast(v, "15.18");
            try (Target pg = Targets.create("postgres", TargetOptions.version(v))) {
                Run r = PrintedSql.of("pg-merge-rr-lost-update").run(pg);
                assertEquals(List.of(List.of(",0")), r.of("SELECT wl FROM t").rows(), "T1's snapshot: " + r);
                Outcome merge = r.of(MERGE);
                if (affected) {
                    assertEquals(1, merge.updateCount(), r.toString());
                    assertEquals(List.of(List.of(",0,2.1,1.2")), r.last().rows(), "T2's write, then T1's over it: " + r);
                } else {
                    assertEquals("40001", merge.failed() ? merge.error().getSQLState() : "no error", r.toString());
                    assertEquals(List.of(List.of(",0,2.1")), r.last().rows(), r.toString());
                }
                assertFalse(r.of("COMMIT", 1).failed(), "T2 commits: " + r);
            }
        }
    }
}
