package txfuzz.bugs;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import txfuzz.dbms.Database;
import txfuzz.dbms.LockProbe;
import txfuzz.dbms.Target;
import txfuzz.model.IsolationLevel;

/**
 * One run of h2-savepoint-undo-strands-waiter's schedule in plain JDBC, judged on the state the engine reports: T2 changes row
 * 1 after a savepoint, T3's UPDATE of it waits, T2 rolls back to the savepoint and then ends. Whether T3 is still waiting
 * right after the savepoint undo is a race inside H2; given that it is (the engine says so, twice, {@link #SETTLE_MILLIS}
 * apart), whether T2's end wakes it is not. The printed block is the same schedule as a person runs it; this sends T2's two
 * statements back to back, as the race needs, and asks the engine in between.
 */
final class H2SavepointUndoRace {
    /** T3's lock timeout: a stranded waiter returns only when it runs out. */
    static final long LOCK_TIMEOUT_MILLIS = 1000;
    /** Time between the two sightings of a wait: a waiter the engine woke has cleared its blocker by then. */
    private static final long SETTLE_MILLIS = 100;

    private H2SavepointUndoRace() {
    }

    /**
     * Runs the schedule once on a fresh database of {@code h2} ({@code earlierWrite}: T2 first changes row 2, the control).
     * Empty when T3 was not seen still waiting after the savepoint undo (the race went the other way: nothing to judge);
     * else whether T2's end left it waiting until its lock timeout.
     */
    static Optional<Boolean> strandedGivenStillWaiting(Target h2, boolean earlierWrite) throws Exception {
        ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "savepoint-undo-waiter");
            t.setDaemon(true);
            return t;
        });
        try (Database db = h2.freshDatabase(); LockProbe probe = db.lockProbe().orElseThrow();
             Connection t2 = db.connect(IsolationLevel.REPEATABLE_READ, h2.modes().get(0));
             Connection t3 = db.connect(IsolationLevel.REPEATABLE_READ, h2.modes().get(0))) {
            run(t2, "CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0), (2, 0)");
            run(t2, "SET LOCK_TIMEOUT " + LOCK_TIMEOUT_MILLIS);
            run(t3, "SET LOCK_TIMEOUT " + LOCK_TIMEOUT_MILLIS);
            String waiter = db.sessionId(t3);
            t2.setAutoCommit(false);
            if (earlierWrite) {
                run(t2, "UPDATE t SET v = 2 WHERE id = 2");
            }
            run(t2, "SAVEPOINT s", "UPDATE t SET v = 1 WHERE id = 1");
            Future<Long> returned = thread.submit(() -> {
                try (Statement st = t3.createStatement()) {
                    st.executeUpdate("UPDATE t SET v = 3 WHERE id = 1");
                }
                return System.nanoTime();
            });
            while (probe.waitsFor(waiter).isEmpty()) {
                if (returned.isDone()) {
                    throw new AssertionError("T3's UPDATE did not wait for T2: " + returned.get());
                }
            }
            run(t2, "ROLLBACK TO SAVEPOINT s");
            boolean stillWaiting = stillWaiting(probe, waiter, returned);
            t2.rollback();
            long ended = System.nanoTime();
            long back = returned.get(10 * LOCK_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
            return stillWaiting ? Optional.of(back - ended >= TimeUnit.MILLISECONDS.toNanos(LOCK_TIMEOUT_MILLIS / 2)) : Optional.empty();
        } finally {
            thread.shutdownNow();
        }
    }

    /** The engine names a blocker of {@code session} twice, {@link #SETTLE_MILLIS} apart, while its statement has not returned. */
    private static boolean stillWaiting(LockProbe probe, String session, Future<Long> statement) throws Exception {
        if (statement.isDone() || probe.waitsFor(session).isEmpty()) {
            return false;
        }
        try {
            statement.get(SETTLE_MILLIS, TimeUnit.MILLISECONDS);
            return false;
        } catch (TimeoutException notYet) {
            return probe.waitsFor(session).isPresent() && !statement.isDone();
        }
    }

    private static void run(Connection c, String... sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            for (String s : sql) {
                st.execute(s);
            }
        }
    }
}
