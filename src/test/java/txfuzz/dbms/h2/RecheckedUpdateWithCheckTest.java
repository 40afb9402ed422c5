package txfuzz.dbms.h2;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import txfuzz.dbms.Database;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.Target;
import txfuzz.dbms.Targets;
import txfuzz.exec.Cases;
import txfuzz.exec.Executor;
import txfuzz.exec.ExecutorConfig;
import txfuzz.exec.Trace;
import txfuzz.model.IsolationLevel;
import txfuzz.model.StmtRef;
import txfuzz.model.TestCase;
import txfuzz.oracle.Classification;
import txfuzz.oracle.Verdict;
import txfuzz.oracle.wss.WssOracle;

/**
 * H2's READ COMMITTED re-check of a waiting UPDATE whose SET fails on the versions it first read: campaign h2-RC-s11-i76,
 * reduced. T1 sets {@code c2 = 'b'} in both rows of a table declared with {@code CHECK (c2 >= 'b')}; T2's autocommit UPDATE
 * waits for T1 and, once T1 commits, updates the one row its WHERE matched as submitted (row 0), computing its SET on that
 * row's newest version ({@code 'e'}). On the versions as submitted the same SET gives {@code ''}, which the CHECK refuses, so
 * the re-check simulation chose its rows by running the whole UPDATE there and explained nothing: a false bug candidate.
 * The rows are now chosen by the WHERE alone, and the run is what the re-check rule calls it without the CHECK: not promised.
 * The negative control makes the waiting UPDATE change nothing (its rows locked, then {@code AND 1 = 0}): no re-check of
 * committed data gives that, and it stays a bug candidate.
 */
class RecheckedUpdateWithCheckTest {
    private static final StmtRef WAITING_UPDATE = new StmtRef(2, 0);

    static TestCase waitingUpdateWhoseSetFailsAsSubmitted() {
        return Cases.on("h2").level(IsolationLevel.READ_COMMITTED).table("t0")
                .setup("CREATE TABLE t0 (c0 INT, c1 INT, c2 VARCHAR(10) CHECK (c2 >= 'b'), c3 DOUBLE PRECISION)",
                        "INSERT INTO t0 (c0, c1, c2, c3) VALUES (0, 0, NULL, 0)", "INSERT INTO t0 (c0, c1, c2, c3) VALUES (1, 0, NULL, 0)")
                .txn("UPDATE t0 SET c2 = 'b'")
                .autocommit("UPDATE t0 SET c2 = CASE WHEN t0.c3 <> 1 THEN CASE WHEN t0.c2 >= '' THEN 'e' ELSE '' END ELSE '' END"
                        + " WHERE (t0.c0 = 0 OR t0.c2 <= 'e')")
                .order(1, 1, 2, 1);
    }

    private static Verdict judge(Target target, TestCase c, Trace[] ran) throws Exception {
        try (Executor ex = new Executor(target, ExecutorConfig.defaults())) {
            Trace trace = ex.run(c);
            ran[0] = trace;
            return new WssOracle().judge(c, trace, ex);
        }
    }

    @Test
    void aWaitingUpdateWhoseSetFailsOnTheVersionsAsSubmittedIsTheRecheckNotABugCandidate() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            Trace[] ran = new Trace[1];
            Verdict v = judge(h2, waitingUpdateWhoseSetFailsAsSubmitted(), ran);
            assertTrue(ran[0].executed(WAITING_UPDATE).orElseThrow().blocked(), "the UPDATE waits for T1: " + ran[0]);
            assertTrue(ran[0].executed(WAITING_UPDATE).orElseThrow().result().updateCount() == 1, "it updates row 0 only: " + ran[0]);
            assertFalse(v.violations().isEmpty(), "run after T1 it updates both rows: " + ran[0]);
            assertTrue(v.violations().stream().allMatch(x -> x.classification() == Classification.NOT_PROMISED), v.toString());
        }
    }

    @Test
    void aWaitingUpdateThatChangesNothingStaysABugCandidate() throws Exception {
        try (Target h2 = Targets.create("h2")) {
            Trace[] ran = new Trace[1];
            Verdict v = judge(new WaitingUpdateSkipsRowsTarget(h2), waitingUpdateWhoseSetFailsAsSubmitted(), ran);
            assertTrue(ran[0].executed(WAITING_UPDATE).orElseThrow().blocked(), "the injected UPDATE still waits: " + ran[0]);
            assertTrue(ran[0].executed(WAITING_UPDATE).orElseThrow().result().updateCount() == 0, ran[0].toString());
            assertTrue(v.violations().stream().anyMatch(x -> x.classification() == Classification.BUG_CANDIDATE), v.toString());
        }
    }

    /**
     * Fault injection: a real engine whose {@code UPDATE t SET … WHERE c}, submitted while another session holds an uncommitted
     * write, waits for the rows it chose (a {@code SELECT … FOR UPDATE} of them) and then changes none. Serial replays and
     * simulations (one session at a time) never meet it. The wrapped target belongs to the caller.
     */
    static final class WaitingUpdateSkipsRowsTarget extends DelegatingTarget {
        private static final Pattern UPDATE = Pattern.compile("(?is)\\s*UPDATE\\s+(\\w+)\\s+SET\\s+(.+?)\\s+WHERE\\s+(\\(.+\\))\\s*;?\\s*");

        WaitingUpdateSkipsRowsTarget(Target real) {
            super(real);
        }

        @Override
        public String version() {
            return real.version() + " with a waiting UPDATE that changes nothing";
        }

        @Override
        public void close() {
            // the wrapped target is the caller's
        }

        @Override
        public Database freshDatabase() throws java.sql.SQLException {
            return trackingUncommittedWrites(real.freshDatabase(), this::skipping);
        }

        private Statement skipping(Connection c, Object session, Statement s, UncommittedWrites writes) {
            return (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Statement.class}, (proxy, method, args) -> {
                if (method.getName().startsWith("execute") && args != null && args.length > 0 && args[0] instanceof String sql) {
                    Matcher m = UPDATE.matcher(sql);
                    if (m.matches() && writes.heldBesides(session)) {
                        try (Statement lock = c.createStatement()) {
                            lock.executeQuery("SELECT * FROM " + m.group(1) + " WHERE " + m.group(3) + " FOR UPDATE").close();
                        }
                        args = args.clone();
                        args[0] = "UPDATE " + m.group(1) + " SET " + m.group(2) + " WHERE " + m.group(3) + " AND 1 = 0"; // the injected bug
                    }
                }
                return invoke(s, method, args);
            });
        }
    }
}
