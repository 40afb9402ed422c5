package txfuzz.dbms;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import txfuzz.model.IsolationLevel;

/**
 * The databases of one target kept for reuse, per thread: {@link Target#freshDatabase()} takes an idle one
 * of the calling thread (or creates one), and closing what it handed out resets the database and keeps it
 * for the thread that closed it. Creating a database is a large share of what a run costs on most engines
 * (docs/performance.md, "Resetting a database between runs"); dropping what a run created is cheaper.
 *
 * <p>The contract of {@code freshDatabase()} holds: a reset database is kept only when its
 * {@link Reusable#fingerprint() fingerprint} (its catalog and the settings a case could change) equals the
 * one it had when it was new, and only when the reset found no session of the last run still open and
 * raised no error. Anything else drops it for good ({@link Counts#discarded()}). A caller may hold several
 * at once (a simulation inside a run): the thread then simply has several.
 */
public final class ReusedDatabases<D extends ReusedDatabases.Reusable> implements AutoCloseable {

    /** An engine's database that can be emptied in place. {@link Database#close()} drops it for good. */
    public interface Reusable extends Database {
        /**
         * Brings the database back to how it was new: drops what the last run created and undoes settings it
         * changed. Throws when it cannot, and when a session of the last run is still open or holds a lock.
         */
        void reset() throws SQLException;

        /** The catalog objects of the user's schemas and the database-wide settings a case could change, as text. */
        String fingerprint() throws SQLException;
    }

    /** Opens a new database of the engine. */
    @FunctionalInterface
    public interface Creator<D> {
        D create() throws SQLException;
    }

    /** How many databases were created, handed out again after a reset, and dropped because a reset failed its check. */
    public record Counts(long created, long reused, long discarded) {
        public static final Counts NONE = new Counts(0, 0, 0);
    }

    /** -Dtxfuzz.reuse=false: every run gets a new database, as before reuse (for measurements side by side). */
    public static final boolean ENABLED = !"false".equals(System.getProperty("txfuzz.reuse"));

    /** Why the latest discarded database was not reused (for tests and bench). */
    private volatile String lastDiscardReason = "";

    /** Idle databases a thread keeps at most (a run, its nested simulation and a spare). */
    private static final int MAX_IDLE_PER_THREAD = 3;

    private record Kept<D>(D db, String fingerprintWhenNew) {
    }

    private final Creator<D> creator;
    private final boolean enabled;
    private final Map<Thread, Deque<Kept<D>>> idle = new HashMap<>();
    private final AtomicLong created = new AtomicLong();
    private final AtomicLong reused = new AtomicLong();
    private final AtomicLong discarded = new AtomicLong();
    private boolean closed;

    /**
     * @param enabled false makes every database a new one, dropped when closed (for measurements, and for an
     *                engine where reuse is not cheaper)
     */
    public ReusedDatabases(Creator<D> creator, boolean enabled) {
        this.creator = creator;
        this.enabled = enabled;
    }

    /** A database for one run: one the calling thread kept, or a new one. */
    public Database take() throws SQLException {
        Kept<D> k = pollIdle();
        if (k != null) {
            reused.incrementAndGet();
            return new Lease(k);
        }
        D db = creator.create();
        created.incrementAndGet();
        if (!enabled) {
            return new Lease(new Kept<>(db, null));
        }
        String fingerprint;
        try {
            fingerprint = db.fingerprint();
        } catch (SQLException | RuntimeException e) {
            fingerprint = null; // an engine version whose catalog reads otherwise: its databases are used once, as before
        }
        return new Lease(new Kept<>(db, fingerprint));
    }

    /** Every row of {@code sql}, its columns joined by a space, one line per row: a fingerprint's text. */
    public static String rows(Connection c, String sql) throws SQLException {
        StringBuilder out = new StringBuilder();
        try (java.sql.Statement s = c.createStatement(); java.sql.ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                for (int i = 1; i <= n; i++) {
                    out.append(i > 1 ? " " : "").append(rs.getString(i));
                }
                out.append('\n');
            }
        }
        return out.toString();
    }

    public Counts counts() {
        return new Counts(created.get(), reused.get(), discarded.get());
    }

    public String lastDiscardReason() {
        return lastDiscardReason;
    }

    /** Drops every idle database; a database handed out and closed later is dropped then. */
    @Override
    public void close() {
        List<Kept<D>> all = new ArrayList<>();
        synchronized (this) {
            closed = true;
            idle.values().forEach(all::addAll);
            idle.clear();
        }
        for (Kept<D> k : all) {
            k.db().close();
        }
    }

    private synchronized Kept<D> pollIdle() {
        Deque<Kept<D>> mine = idle.get(Thread.currentThread());
        return mine == null ? null : mine.pollFirst();
    }

    /** Keeps {@code k} for the calling thread; false when the pool is closed or the thread keeps enough. */
    private boolean keep(Kept<D> k) {
        List<Kept<D>> orphans = new ArrayList<>();
        boolean kept;
        synchronized (this) {
            // a thread that ended (a test's, a finished worker's) never takes its databases again
            idle.entrySet().removeIf(e -> {
                if (e.getKey().isAlive()) {
                    return false;
                }
                orphans.addAll(e.getValue());
                return true;
            });
            Deque<Kept<D>> mine = idle.computeIfAbsent(Thread.currentThread(), t -> new ArrayDeque<>());
            kept = !closed && mine.size() < MAX_IDLE_PER_THREAD;
            if (kept) {
                mine.addFirst(k);
            }
        }
        orphans.forEach(o -> o.db().close());
        return kept;
    }

    /** Resets {@code k} and keeps it if it is as it was new; drops it otherwise. */
    private void giveBack(Kept<D> k) {
        if (k.fingerprintWhenNew() == null) {
            k.db().close();
            return;
        }
        String problem;
        try {
            k.db().reset();
            String now = k.db().fingerprint();
            problem = now.equals(k.fingerprintWhenNew()) ? null
                    : "the reset database differs from the new one:\nnew:   " + k.fingerprintWhenNew() + "\nreset: " + now;
        } catch (SQLException | RuntimeException e) {
            problem = "the reset failed: " + e.getMessage();
        }
        if (problem == null && keep(k)) {
            return;
        }
        if (problem != null) {
            discarded.incrementAndGet();
            lastDiscardReason = problem;
        }
        k.db().close();
    }

    /** What a caller holds: the engine's database until close(), which hands it back once. */
    private final class Lease implements Database {
        private final Kept<D> kept;
        private final AtomicBoolean returned = new AtomicBoolean();

        Lease(Kept<D> kept) {
            this.kept = kept;
        }

        private D db() throws SQLException {
            if (returned.get()) {
                throw new SQLException("this database was closed", "08003");
            }
            return kept.db();
        }

        @Override
        public Connection connect(IsolationLevel level, String mode) throws SQLException {
            return db().connect(level, mode);
        }

        @Override
        public String sessionId(Connection c) throws SQLException {
            return db().sessionId(c);
        }

        @Override
        public Optional<LockProbe> lockProbe() throws SQLException {
            return db().lockProbe();
        }

        @Override
        public void close() {
            if (returned.compareAndSet(false, true)) {
                giveBack(kept);
            }
        }
    }
}
