package txfuzz.dbms.derby;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import txfuzz.dbms.Database;
import txfuzz.dbms.Jdbc;
import txfuzz.dbms.versions.EngineDrivers;

/**
 * Two Derby engines in one JVM (two releases side by side) must not boot in one clock millisecond: each names its JMX
 * bean after a UUID of the boot's millisecond and the system directory, and the loser's boot ends half done, every
 * later connect failing with a NullPointerException (10.11.1.1 beside the other releases in DerbyBugsTest). Four
 * targets, each with a driver of its own whose first connect (the boot) is slowed, take their first database at once:
 * the first connects must not overlap and must end in a millisecond before the next one starts.
 */
class DerbyBootTest {
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void enginesBootOneAtATimeInDistinctMilliseconds() throws Exception {
        Jdbc bundled = EngineDrivers.driver("derby", new DerbyEngine().artifact().orElseThrow(), null, DerbyTarget.PROBE_URL);
        int engines = 4;
        List<SlowFirstConnect> drivers = new ArrayList<>();
        List<DerbyTarget> targets = new ArrayList<>();
        for (int i = 0; i < engines; i++) {
            SlowFirstConnect d = new SlowFirstConnect(bundled.driver());
            drivers.add(d);
            targets.add(new DerbyTarget(new DerbyEngine(), new Jdbc(d, bundled.version())));
        }
        CyclicBarrier together = new CyclicBarrier(engines);
        ExecutorService pool = Executors.newFixedThreadPool(engines);
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (DerbyTarget t : targets) {
                runs.add(pool.submit(() -> {
                    together.await();
                    try (Database db = t.freshDatabase()) {
                        assertTrue(db.connect(t.defaultIsolationLevel(), "default").isValid(5));
                    }
                    return null;
                }));
            }
            for (Future<?> r : runs) {
                r.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            targets.forEach(DerbyTarget::close);
        }
        drivers.sort(Comparator.comparingLong(d -> d.startNanos));
        for (int i = 1; i < engines; i++) {
            SlowFirstConnect before = drivers.get(i - 1);
            SlowFirstConnect after = drivers.get(i);
            assertTrue(before.endNanos <= after.startNanos, "two first connects overlap: " + drivers);
            assertTrue(before.endMillis < after.startMillis, "two first connects share a millisecond: " + drivers);
        }
        assertEquals(engines, drivers.stream().filter(d -> d.endNanos > 0).count(), drivers.toString());
    }

    /** A real driver whose first connect — for a Derby loaded on its own, the engine's boot — lasts 20 ms longer and is timed. */
    private static final class SlowFirstConnect implements Driver {
        private final Driver real;
        private boolean connected;
        volatile long startNanos;
        volatile long endNanos;
        volatile long startMillis;
        volatile long endMillis;

        SlowFirstConnect(Driver real) {
            this.real = real;
        }

        @Override
        public Connection connect(String url, Properties info) throws SQLException {
            boolean first;
            synchronized (this) {
                first = !connected;
                connected = true;
            }
            if (!first) {
                return real.connect(url, info);
            }
            startMillis = System.currentTimeMillis();
            startNanos = System.nanoTime();
            try {
                Thread.sleep(20);
                return real.connect(url, info);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException(e);
            } finally {
                endNanos = System.nanoTime();
                endMillis = System.currentTimeMillis();
            }
        }

        @Override
        public boolean acceptsURL(String url) throws SQLException {
            return real.acceptsURL(url);
        }

        @Override
        public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) throws SQLException {
            return real.getPropertyInfo(url, info);
        }

        @Override
        public int getMajorVersion() {
            return real.getMajorVersion();
        }

        @Override
        public int getMinorVersion() {
            return real.getMinorVersion();
        }

        @Override
        public boolean jdbcCompliant() {
            return real.jdbcCompliant();
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            return real.getParentLogger();
        }

        @Override
        public String toString() {
            return "first connect " + startMillis + "-" + endMillis + " ms";
        }
    }
}
