package txfuzz.dbms;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import txfuzz.model.Values;

/** Plain-JDBC helpers for the target tests: statements on other threads, probe polling, results. */
public final class EngineTests {
    private EngineTests() {
    }

    public static void exec(Connection c, String... sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        }
    }

    /** All rows of a query, normalised, in the engine's order. */
    public static List<List<String>> rows(Connection c, String sql) throws SQLException {
        List<List<String>> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> row = new ArrayList<>();
                for (int i = 1; i <= n; i++) {
                    row.add(Values.normalise(rs.getObject(i)));
                }
                out.add(row);
            }
        }
        return out;
    }

    /** The single value of a one-row, one-column query. */
    public static String value(Connection c, String sql) throws SQLException {
        return rows(c, sql).get(0).get(0);
    }

    /** Runs {@code sql} (fetching every row) and returns the error it must raise. */
    public static SQLException error(Connection c, String sql) {
        try (Statement s = c.createStatement()) {
            if (s.execute(sql)) {
                try (ResultSet rs = s.getResultSet()) {
                    while (rs.next()) {
                        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                            rs.getObject(i);
                        }
                    }
                }
            }
        } catch (SQLException e) {
            return e;
        }
        fail("expected an error from: " + sql);
        return null;
    }

    /** Runs {@code sql} on its own thread; completes with null on success or with the SQLException. */
    public static CompletableFuture<SQLException> async(Connection c, String sql) {
        CompletableFuture<SQLException> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try (Statement s = c.createStatement()) {
                s.execute(sql);
                f.complete(null);
            } catch (SQLException e) {
                f.complete(e);
            } catch (RuntimeException e) {
                f.completeExceptionally(e);
            }
        }, "engine-test");
        t.setDaemon(true);
        t.start();
        return f;
    }

    /** The outcome of an async statement, failing the test if it has not finished within {@code max}. */
    public static SQLException outcome(CompletableFuture<SQLException> f, Duration max) {
        try {
            return f.get(max.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            fail("statement still running after " + max);
        } catch (InterruptedException | ExecutionException e) {
            fail(e);
        }
        return null;
    }

    /** Asks the probe every 2 ms until it reports {@code session} waiting, or {@code max} passes. */
    public static Optional<Set<String>> awaitWaiting(LockProbe probe, String session, Duration max) throws SQLException {
        long deadline = System.nanoTime() + max.toNanos();
        Optional<Set<String>> w = probe.waitsFor(session);
        while (w.isEmpty() && System.nanoTime() < deadline) {
            sleep(2);
            w = probe.waitsFor(session);
        }
        return w;
    }

    /** Waits until {@code f} has finished (it must), polling every 2 ms. */
    public static void awaitDone(CompletableFuture<?> f, Duration max) {
        long deadline = System.nanoTime() + max.toNanos();
        while (!f.isDone() && System.nanoTime() < deadline) {
            sleep(2);
        }
        if (!f.isDone()) {
            fail("not finished after " + max);
        }
    }

    /** Native threads of this process (Linux), or -1 where /proc is absent. */
    public static int processThreads() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Threads:")) {
                    return Integer.parseInt(line.substring(8).trim());
                }
            }
        } catch (Exception e) {
            return -1;
        }
        return -1;
    }

    public static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Two transactions write one row at READ COMMITTED on {@code target} (the second waits for the
     * first, then overwrites it): a run that shows a started server works, lock waits included.
     */
    public static txfuzz.exec.Trace runWriteWrite(txfuzz.dbms.Target target) throws Exception {
        try (txfuzz.exec.Executor ex = new txfuzz.exec.Executor(target, txfuzz.exec.ExecutorConfig.defaults())) {
            return ex.run(txfuzz.exec.Cases.on(target.name()).level(txfuzz.model.IsolationLevel.READ_COMMITTED).table("t")
                    .setup("CREATE TABLE t(id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 0)")
                    .txn("UPDATE t SET v = 1 WHERE id = 1")
                    .txn("UPDATE t SET v = 2 WHERE id = 1")
                    .order(1, 1, 2, 2, 1, 2));
        }
    }
}
