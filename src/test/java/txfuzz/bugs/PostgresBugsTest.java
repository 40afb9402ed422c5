package txfuzz.bugs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import org.junit.jupiter.api.Test;
import txfuzz.bugs.PrintedSql.Outcome;
import txfuzz.bugs.PrintedSql.Run;
import txfuzz.dbms.EachVersion;
import txfuzz.dbms.SharedServers;
import txfuzz.dbms.Target;

/**
 * The PostgreSQL entry of docs/bugs.md, pg-merge-rr-lost-update (fixed upstream): its printed SQL on
 * the zonky releases the page names, side by side, each on the test JVM's shared server of that release
 * ({@link SharedServers}; the block runs in a fresh database of its own). The oracle tests of the entry are
 * IsolationOracleEngineTest and BisectCommandTest.
 */
class PostgresBugsTest {
    private static final String MERGE = "MERGE INTO t USING s x ON (t.k = x.k) WHEN MATCHED THEN UPDATE SET wl = t.wl || ',1.2'";

    /** 15.10 and 15.17: the MERGE overwrites the version T2 committed after T1's snapshot; 15.18, 15.19, 18.6: 40001. */
    @Test
    void pgMergeRrLostUpdateOnEachVersion() throws Exception {
        List<String> versions = List.of("15.10", "15.17", "15.18", "15.19", "18.6");
        SharedServers.startInBackground("postgres", versions.toArray(String[]::new));
        EachVersion.run(versions, v -> {
            boolean affected = !PrintedSql.atLeast(v, "15.18");
            try (Target pg = SharedServers.open("postgres", v)) {
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
        });
    }
}
