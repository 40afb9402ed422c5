package txfuzz.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import txfuzz.model.ExecutionMode;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.model.Txn;
import txfuzz.dbms.Database;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.ErrorClass;
import txfuzz.dbms.LockProbe;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;

/** The concurrent run mode on the embedded engines: outcomes, committed writes, conflicts, deadlocks, hangs. */
class ConcurrentRunnerTest {
    private static final Map<String, Target> TARGETS = new ConcurrentHashMap<>();

    static Target target(String name) {
        return TARGETS.computeIfAbsent(name, Targets::create);
    }

    @AfterAll
    static void closeTargets() {
        TARGETS.values().forEach(Target::close);
        TARGETS.clear();
    }

    // ---- workloads ----

    /**
     * {@code n} transactions, each adding 1 to the counter row and logging its id, so the final state
     * says exactly which transactions committed.
     */
    static TestCase counter(String dbms, IsolationLevel level, int n) {
        Cases c = Cases.on(dbms).level(level).table("t").table("log")
                .setup("CREATE TABLE t(k INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)",
                        "CREATE TABLE log(id INT PRIMARY KEY)");
        for (int i = 1; i <= n; i++) {
            c.txn("UPDATE t SET v = v + 1 WHERE k = 1", "INSERT INTO log VALUES (" + i + ")");
        }
        return c.order(sequentialOrder(n, 4));
    }

    /** Transactions that update rows 1 and 2, odd ones in that order, even ones the other way round. */
    static TestCase crossing(String dbms, IsolationLevel level, int n) {
        Cases c = Cases.on(dbms).level(level).table("t")
                .setup("CREATE TABLE t(k INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)");
        for (int i = 1; i <= n; i++) {
            int first = i % 2 == 1 ? 1 : 2;
            c.txn("UPDATE t SET v = v + 1 WHERE k = " + first, "UPDATE t SET v = v + 1 WHERE k = " + (3 - first));
        }
        return c.order(sequentialOrder(n, 4));
    }

    /** A valid submitted order for {@code n} transactions of {@code stmts} statements each (unused by the runner). */
    static Integer[] sequentialOrder(int n, int stmts) {
        List<Integer> order = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            for (int s = 0; s < stmts; s++) {
                order.add(i);
            }
        }
        return order.toArray(Integer[]::new);
    }

    static Set<Integer> committed(Trace trace) {
        return trace.outcomes().entrySet().stream().filter(e -> e.getValue().status().committed())
                .map(Map.Entry::getKey).collect(Collectors.toCollection(TreeSet::new));
    }

    /** What every concurrent run must satisfy, whatever the engine did. */
    static void assertWellFormed(TestCase c, int sessions, ConcurrentRun run) {
        Trace trace = run.trace();
        assertEquals(c.transactions().size(), trace.outcomes().size(), "every transaction has an outcome: " + trace.outcomes());
        assertEquals(new TreeSet<>(trace.outcomes().keySet()), new TreeSet<>(trace.endOrder()), "endOrder lists each once");
        assertEquals(trace.endOrder().size(), new TreeSet<>(trace.endOrder()).size());
        assertEquals(ConcurrentRunner.slots(c, sessions), run.slots());
        for (Txn t : c.transactions()) {
            SessionSlot slot = run.slots().get(t.id());
            assertEquals((t.id() - 1) % sessions, slot.session());
            assertEquals((t.id() - 1) / sessions, slot.seq());
        }
        // session order: a session's statements appear in the order it ran them, one transaction after another
        Map<Integer, StmtRef> lastOfSession = new HashMap<>();
        for (int i = 0; i < trace.schedule().size(); i++) {
            ExecutedStmt e = trace.schedule().get(i);
            assertTrue(e.completedBefore() <= i, "completedBefore is at most the position: " + e);
            assertEquals(-1, e.resumedWith());
            StmtRef prev = lastOfSession.put(run.slots().get(e.ref().txn()).session(), e.ref());
            if (prev != null) {
                assertTrue(prev.compareTo(e.ref()) < 0, prev + " ran before " + e.ref() + " on the same session");
                if (prev.txn() != e.ref().txn()) {
                    assertNotNull(trace.outcome(prev.txn()), prev.txn() + " ended before its session's next began");
                }
            }
        }
        // statements of an ended transaction stop at its cause
        for (var o : trace.outcomes().entrySet()) {
            int txn = o.getKey();
            StmtRef cause = o.getValue().cause();
            assertEquals(txn, cause.txn());
            trace.schedule().stream().filter(e -> e.ref().txn() == txn)
                    .forEach(e -> assertTrue(e.ref().index() <= cause.index(), e.ref() + " after its transaction's end " + cause));
        }
    }

    /** The counter workload's invariant: the counter and the log agree with the committed transactions. */
    static void assertNoLostIncrement(ConcurrentRun run) {
        Trace trace = run.trace();
        Set<Integer> committed = committed(trace);
        assertEquals(List.of(List.of("1", String.valueOf(committed.size()))), trace.finalState().tables().get("t"),
                "counter = committed transactions " + committed);
        Set<Integer> logged = trace.finalState().tables().get("log").stream().map(r -> Integer.parseInt(r.get(0)))
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(committed, logged, "exactly the committed transactions' writes are in the final state");
    }

    private static ConcurrentRunner runner(Target t) {
        return new ConcurrentRunner(t, ExecutorConfig.defaults());
    }

    // ---- tests ----

    @ParameterizedTest
    @ValueSource(strings = {"h2", "sqlite", "duckdb"})
    void everyTransactionEndsAndTheCommittedOnesAreExactlyTheWritesInTheFinalState(String dbms) throws Exception {
        Target t = target(dbms);
        TestCase c = counter(dbms, t.defaultIsolationLevel(), 60);
        try (ConcurrentRunner r = runner(t)) {
            ConcurrentRun run = r.run(c, 4);
            assertWellFormed(c, 4, run);
            assertNoLostIncrement(run);
            assertFalse(committed(run.trace()).isEmpty(), "something committed: " + run.trace().outcomes());
            assertEquals(0, run.trace().stalls());
            assertTrue(run.trace().hung().isEmpty());
            for (TxnOutcome o : run.trace().outcomes().values()) {
                assertTrue(o.status() != TxnStatus.ROLLED_BACK, o.toString());
                if (o.status() == TxnStatus.ABORTED) {
                    ExecutedStmt cause = run.trace().executed(o.cause()).orElseThrow();
                    assertTrue(cause.result().failed(), o + " was aborted by an error");
                }
            }
        }
    }

    @Test
    void atReadCommittedH2MakesWritersWaitAndEveryIncrementCommits() throws Exception {
        TestCase c = counter("h2", IsolationLevel.READ_COMMITTED, 80);
        try (ConcurrentRunner r = runner(target("h2"))) {
            ConcurrentRun run = r.run(c, 4);
            assertWellFormed(c, 4, run);
            assertNoLostIncrement(run);
            assertEquals(80, committed(run.trace()).size(), run.trace().outcomes().toString());
        }
    }

    @Test
    void atSerializableH2ConflictingUpdatesAbortSomeButLoseNothing() throws Exception {
        TestCase c = counter("h2", IsolationLevel.SERIALIZABLE, 80);
        try (ConcurrentRunner r = runner(target("h2"))) {
            ConcurrentRun run = r.run(c, 4);
            assertWellFormed(c, 4, run);
            assertNoLostIncrement(run);
            run.trace().outcomes().values().stream().filter(o -> o.status() == TxnStatus.ABORTED).forEach(o ->
                    assertTrue(run.trace().executed(o.cause()).orElseThrow().result().errorClass().isConcurrencyConflict(), o.toString()));
        }
    }

    @Test
    void preparedStatementsAreReusedAcrossTheTransactionsOfASession() throws Exception {
        TestCase c = counter("h2", IsolationLevel.READ_COMMITTED, 40).withExecution(ExecutionMode.PREPARED);
        try (ConcurrentRunner r = runner(target("h2"))) {
            ConcurrentRun run = r.run(c, 3);
            assertWellFormed(c, 3, run);
            assertNoLostIncrement(run);
            assertEquals(40, committed(run.trace()).size());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "sqlite", "duckdb"})
    void aDeadlockProneWorkloadFinishesAndKeepsBothRowsInStep(String dbms) throws Exception {
        Target t = target(dbms);
        TestCase c = crossing(dbms, t.defaultIsolationLevel(), 60);
        try (ConcurrentRunner r = runner(t)) {
            long start = System.nanoTime();
            ConcurrentRun run = r.run(c, 4);
            assertWellFormed(c, 4, run);
            String n = String.valueOf(committed(run.trace()).size());
            assertEquals(List.of(List.of("1", n), List.of("2", n)), sorted(run.trace().finalState().tables().get("t")));
            assertTrue(run.trace().hung().isEmpty());
            assertTrue(System.nanoTime() - start < 20_000_000_000L);
        }
    }

    @Test
    void autocommitStatementsRunAsOneStatementTransactionsAndStatementErrorsDoNotAbort() throws Exception {
        Cases b = Cases.on("h2").table("t")
                .setup("CREATE TABLE t(k INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)");
        b.autocommit("INSERT INTO t VALUES (10, 10)");
        b.txn("INSERT INTO t VALUES (1, 1)", "INSERT INTO t VALUES (20, 20)"); // the first fails: duplicate key
        b.autocommit("INSERT INTO t VALUES (1, 2)"); // fails: duplicate key, still "committed" (nothing written)
        b.txn("UPDATE t SET v = v + 1 WHERE k = 1", "ROLLBACK");
        TestCase c = b.order(1, 2, 2, 2, 2, 3, 4, 4, 4);
        try (ConcurrentRunner r = runner(target("h2"))) {
            ConcurrentRun run = r.run(c, 2);
            Trace trace = run.trace();
            assertWellFormed(c, 2, run);
            assertEquals(TxnStatus.COMMITTED, trace.outcome(1).status());
            assertEquals(TxnStatus.COMMITTED, trace.outcome(2).status());
            assertEquals(ErrorClass.CONSTRAINT, trace.executed(new StmtRef(2, 1)).orElseThrow().result().errorClass());
            assertEquals(TxnStatus.COMMITTED, trace.outcome(3).status());
            assertEquals(ErrorClass.CONSTRAINT, trace.executed(new StmtRef(3, 0)).orElseThrow().result().errorClass());
            assertEquals(TxnStatus.ROLLED_BACK, trace.outcome(4).status());
            assertEquals(List.of(List.of("1", "0"), List.of("10", "10"), List.of("20", "20")),
                    sorted(trace.finalState().tables().get("t")));
        }
    }

    @Test
    void moreSessionsThanTransactionsAndOneSessionBothWork() throws Exception {
        TestCase c = counter("h2", IsolationLevel.READ_COMMITTED, 3);
        try (ConcurrentRunner r = runner(target("h2"))) {
            for (int sessions : new int[] {1, 5}) {
                ConcurrentRun run = r.run(c, sessions);
                assertWellFormed(c, sessions, run);
                assertEquals(Set.of(1, 2, 3), committed(run.trace()));
                if (sessions == 1) {
                    assertEquals(List.of(1, 2, 3), run.trace().endOrder());
                }
            }
        }
    }

    // ---- hangs: a fault-injecting wrapper around H2 ----

    /** How a statement marked with the comment hangs. */
    enum Hang {
        /** until cancelled */
        CANCELLABLE,
        /** cancel is ignored; aborting or closing the connection ends it */
        UNTIL_ABORT,
        /** ignores cancel and abort (released when the test ends) */
        FOREVER
    }

    /** The SQL comment that makes the wrapper hang a statement. */
    static final String HANG = "/*hang*/";

    @ParameterizedTest
    @ValueSource(strings = {"CANCELLABLE", "UNTIL_ABORT", "FOREVER"})
    void aHungStatementIsCancelledAndTheRunFinishes(Hang how) throws Exception {
        HangingTarget hanging = new HangingTarget(target("h2"), how);
        ExecutorConfig quick = new ExecutorConfig(Duration.ofMillis(200), Duration.ofMillis(500), Duration.ofMillis(300));
        Cases b = Cases.on("h2").table("t").setup("CREATE TABLE t(k INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)");
        for (int i = 1; i <= 8; i++) {
            // T3 (session 0's second transaction) hangs in the middle
            b.txn("UPDATE t SET v = v + 1 WHERE k = 1", i == 3 ? "SELECT v " + HANG + " FROM t" : "SELECT v FROM t");
        }
        TestCase c = b.order(sequentialOrder(8, 4));
        try (ConcurrentRunner r = new ConcurrentRunner(hanging, quick)) {
            long start = System.nanoTime();
            ConcurrentRun run = r.run(c, 2);
            long ms = (System.nanoTime() - start) / 1_000_000;
            Trace trace = run.trace();
            assertWellFormed(c, 2, run);
            assertEquals(List.of(new StmtRef(3, 2)), trace.hung(), trace.toString());
            assertEquals(TxnStatus.ABORTED, trace.outcome(3).status());
            assertTrue(trace.outcome(3).reason().contains("cancelled by txfuzz"), trace.outcome(3).reason());
            assertTrue(ms < 5_000, "finished in " + ms + " ms");
            Set<Integer> committed = committed(trace);
            if (how == Hang.FOREVER) {
                // session 0 is given up: its later transactions never ran
                for (int id : List.of(5, 7)) {
                    assertEquals(TxnStatus.ABORTED, trace.outcome(id).status());
                    assertTrue(trace.outcome(id).reason().startsWith("never ran"), trace.outcome(id).reason());
                }
                assertEquals(Set.of(1, 2, 4, 6, 8), committed);
            } else {
                // the session goes on (after reconnecting when its connection was aborted)
                assertEquals(Set.of(1, 2, 4, 5, 6, 7, 8), committed);
            }
            // T3's update held row 1 while it hung: with it rolled back, the counter has the committed ones only
            assertEquals(List.of(List.of("1", String.valueOf(committed.size()))), trace.finalState().tables().get("t"));
        } finally {
            hanging.releaseAll();
        }
    }

    private static List<List<String>> sorted(List<List<String>> rows) {
        return rows.stream().sorted((a, b) -> String.join(",", a).compareTo(String.join(",", b))).toList();
    }

    /**
     * H2 whose statements containing {@link #HANG} do not return, as {@code how} says. Everything else
     * goes to the real engine. The hang is in the driver (a proxy), so the lock probe sees nothing waiting.
     */
    static final class HangingTarget extends DelegatingTarget {
        private final Hang how;
        private final CountDownLatch testOver = new CountDownLatch(1);

        HangingTarget(Target real, Hang how) {
            super(real);
            this.how = how;
        }

        void releaseAll() {
            testOver.countDown();
        }

        @Override
        public Database freshDatabase() throws SQLException {
            Database db = real.freshDatabase();
            Map<Connection, Connection> realOf = new ConcurrentHashMap<>();
            return new Database() {
                @Override
                public Connection connect(IsolationLevel level, String mode) throws SQLException {
                    Connection c = db.connect(level, mode);
                    Connection p = wrap(c);
                    realOf.put(p, c);
                    return p;
                }

                @Override
                public String sessionId(Connection c) throws SQLException {
                    return db.sessionId(realOf.getOrDefault(c, c));
                }

                @Override
                public Optional<LockProbe> lockProbe() throws SQLException {
                    return db.lockProbe();
                }

                @Override
                public void close() {
                    db.close();
                }
            };
        }

        private Connection wrap(Connection real) {
            CountDownLatch connectionGone = new CountDownLatch(1);
            InvocationHandler h = (proxy, m, args) -> {
                switch (m.getName()) {
                    case "abort", "close" -> connectionGone.countDown();
                    default -> {
                    }
                }
                Object r = invoke(real, m, args);
                if (r instanceof Statement s && m.getName().startsWith("create")) {
                    return wrap(s, connectionGone);
                }
                return r;
            };
            return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class}, h);
        }

        private Statement wrap(Statement real, CountDownLatch connectionGone) {
            CountDownLatch cancelled = new CountDownLatch(1);
            InvocationHandler h = (proxy, m, args) -> {
                if (m.getName().equals("cancel")) {
                    cancelled.countDown();
                    return invoke(real, m, args);
                }
                if (m.getName().startsWith("execute") && args != null && args.length > 0 && String.valueOf(args[0]).contains(HANG)) {
                    hang(cancelled, connectionGone);
                }
                return invoke(real, m, args);
            };
            return (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Statement.class}, h);
        }

        private void hang(CountDownLatch cancelled, CountDownLatch connectionGone) throws Exception {
            while (testOver.getCount() > 0) {
                if (how == Hang.CANCELLABLE && cancelled.getCount() == 0) {
                    throw new SQLException("statement cancelled", "57014");
                }
                if (how != Hang.FOREVER && connectionGone.getCount() == 0) {
                    throw new SQLException("connection closed", "08006");
                }
                testOver.await(1, TimeUnit.MILLISECONDS);
            }
            throw new SQLException("released at the end of the test", "08006");
        }
    }
}
