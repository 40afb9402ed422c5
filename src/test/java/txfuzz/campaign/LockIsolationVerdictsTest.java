package txfuzz.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import txfuzz.dbms.SharedServers;
import txfuzz.dbms.Target;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.imports.Importer;
import txfuzz.model.TestCase;

/**
 * MariaDB's own innodb.lock_isolation test (six schedules: MDEV-26642, three of MDEV-26643, MDEV-34108, MDEV-33802), imported
 * with its connections' settings and levels and judged on real servers, one per version: 10.11.5 (before
 * innodb_snapshot_isolation) and 11.4.5 (with it, OFF by default). Each schedule's verdicts are pinned; docs/imports.md
 * explains them. The verdict strings are judge-suite's own. The servers are the test JVM's shared ones
 * ({@link SharedServers}: judge-suite works in fresh databases of its own and sets only session variables); both
 * versions are judged side by side when the class starts, and each version's test asserts on its judging.
 */
class LockIsolationVerdictsTest {
    /** Where judge-suite writes each version's findings and tables (a folder per version). */
    @TempDir
    static Path out;
    /** Each version's judging, started when the class starts: the two run side by side, each on its own server. */
    private static final Map<String, CompletableFuture<Judged>> JUDGED = new ConcurrentHashMap<>();

    @BeforeAll
    static void judgeBothVersions() {
        SharedServers.startInBackground("mariadb", "10.11.5", "11.4.5");
        for (String version : List.of("10.11.5", "11.4.5")) {
            JUDGED.put(version, CompletableFuture.supplyAsync(() -> {
                try {
                    return judge(version, out.resolve(version));
                } catch (Exception e) {
                    throw new CompletionException(e);
                }
            }, r -> {
                Thread t = new Thread(r, "judge-suite-" + version);
                t.setDaemon(true);
                t.start();
            }));
        }
    }

    static final Path LOCK_ISOLATION = Path.of("src/test/resources/imports/mariadb/lock_isolation.test");
    static final String MIXED = "not applicable: its transactions run at different isolation levels";
    static final String INSERT_SET = "not applicable: row tracking misses 1 statement(s), first T1.1 `INSERT INTO t SET a=2`";

    /** Per schedule, per oracle, how the verdict starts. */
    private static Map<String, Map<String, String>> verdicts(JudgeSuite.Table t) {
        Map<String, Map<String, String>> out = new LinkedHashMap<>();
        t.cases().forEach(c -> out.put(c.schedule(), c.verdicts()));
        return out;
    }

    private static void assertStarts(String expected, String actual, String what) {
        assertTrue(actual != null && actual.startsWith(expected), what + ": expected '" + expected + "…', got '" + actual + "'");
    }

    /** The verdicts both versions give alike: MDEV-26643, MDEV-34108 and MDEV-33802. */
    private static void assertTheSchedulesAfterTheFirst(Map<String, Map<String, String>> v) {
        for (String s : List.of("MDEV-26643, line 45", "MDEV-26643, line 68", "MDEV-26643, line 89", "MDEV-34108, line 117")) {
            Map<String, String> x = v.get(s);
            assertEquals("pass", x.get("isolation"), s + ": " + x);
            assertEquals("pass", x.get("explicit"), s + ": " + x);
            assertStarts(MIXED, x.get("wss"), s);
            assertStarts(MIXED, x.get("equiv"), s);
        }
        Map<String, String> rollback = v.get("MDEV-33802, line 154");
        assertEquals("pass", rollback.get("wss"), rollback.toString());
        assertEquals("pass", rollback.get("explicit"), rollback.toString());
        assertStarts(INSERT_SET, rollback.get("isolation"), "MDEV-33802");
        assertStarts(INSERT_SET, rollback.get("equiv"), "MDEV-33802");
    }

    private record Judged(JudgeSuite.Table table, Trace firstCase) {
    }

    private static Judged judge(String version, Path out) throws Exception {
        try (Target target = SharedServers.open("mariadb", version);
             Executor executor = new Executor(target, ExecutorConfig.defaults())) {
            var config = new JudgeSuite.Config(Importer.Options.defaults(), Duration.ofSeconds(10), true);
            JudgeSuite.Table t = new JudgeSuite(config, target, executor, out).run(List.of(LOCK_ISOLATION), line -> { });
            TestCase weird = Importer.read(LOCK_ISOLATION, Importer.Options.defaults()).cases().get(0).testCase();
            return new Judged(t, executor.run(weird));
        }
    }

    /**
     * The six schedules judged on {@code version}: MDEV-26642 an internal-consistency bug candidate (con_weird, without
     * innodb_snapshot_isolation on every version: its UPDATE matched row 2 in its newest version, its next SELECT showed
     * the snapshot's), the five after it as {@link #assertTheSchedulesAfterTheFirst} says.
     */
    private static Judged judgedWithMdev26642ABugCandidate(String version) throws Throwable {
        Judged j;
        try {
            j = JUDGED.get(version).get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof CompletionException c && c.getCause() != null ? c.getCause() : e.getCause();
        }
        Map<String, Map<String, String>> v = verdicts(j.table());
        assertEquals(6, v.size(), v.toString());
        Map<String, String> weird = v.get("MDEV-26642, line 14");
        assertStarts("bug-candidate", weird.get("isolation"), "MDEV-26642");
        assertTrue(weird.get("isolation").contains("internal"), weird.toString());
        assertTheSchedulesAfterTheFirst(v);
        return j;
    }

    @Test
    void mariadb10_11_5() throws Throwable {
        Judged j = judgedWithMdev26642ABugCandidate("10.11.5");
        // 10.11.5 has no innodb_snapshot_isolation: the connection 'consistent' ran without it, and the run says so
        List<Trace.RefusedSetting> refused = j.firstCase().refusedSettings();
        assertEquals(1, refused.size(), refused.toString());
        assertEquals(3, refused.get(0).txn());
        assertEquals("SET innodb_snapshot_isolation=ON", refused.get(0).setting());
        assertTrue(refused.get(0).error().contains("innodb_snapshot_isolation"), refused.get(0).error());
    }

    @Test
    void mariadb11_4_5() throws Throwable {
        // con_weird keeps innodb_snapshot_isolation at 11.4.5's default OFF: still the hidden row
        Judged j = judgedWithMdev26642ABugCandidate("11.4.5");
        assertEquals(List.of(), j.firstCase().refusedSettings(), "11.4.5 takes innodb_snapshot_isolation=ON");
    }
}
