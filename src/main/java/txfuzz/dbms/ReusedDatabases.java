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

        /**
         * The catalog objects of the user's schemas and the database-wide settings a case could change, as text. An engine
         * that {@link KeepsTables keeps tables} includes all that DDL makes: tables, columns, indexes, constraints,
         * identity and sequence next values, and the statistics the planner reads.
         */
        String fingerprint() throws SQLException;

        /** Throws when a session of the last run is still open (or holds a lock): the database is then not kept. */
        default void checkNoSessions() throws SQLException {
        }
    }

    /**
     * A database kept only with the tables of a setup, for the next run of the same setup, never reset to new: a database
     * of another setup is dropped and a new one made (the pool is then made with {@code onlyWithTables}).
     */
    public interface KeepsTables extends Reusable {
        @Override
        default void reset() throws SQLException {
            throw new java.sql.SQLFeatureNotSupportedException("a database of another setup is dropped, not reset");
        }

        /** Empties every table of the user's schemas and restarts their identity columns, by the engine's cheapest sound means. */
        void empty() throws SQLException;

        /** The rows in all tables of the user's schemas (0 after {@link #empty()}). */
        long rows() throws SQLException;

        /**
         * {@link #empty()}, then what the check compares: {@link #fingerprint()} and {@link #rows()} as they are then. An
         * engine on a server does it in one round trip.
         */
        default Emptied emptyAndRead() throws SQLException {
            empty();
            return new Emptied(fingerprint(), rows());
        }
    }

    /** A database's state right after {@link KeepsTables#empty()}: its fingerprint and the rows left in its tables. */
    public record Emptied(String fingerprint, long rows) {
    }

    /** Opens a new database of the engine. */
    @FunctionalInterface
    public interface Creator<D> {
        D create() throws SQLException;
    }

    /**
     * How many databases were created, handed out again after a reset, and dropped because a reset failed its check;
     * {@code tablesKept}: how many runs found their setup's tables kept (emptied and checked), a subset of reused.
     */
    public record Counts(long created, long reused, long discarded, long tablesKept) {
        public static final Counts NONE = new Counts(0, 0, 0, 0);

        public Counts(long created, long reused, long discarded) {
            this(created, reused, discarded, 0);
        }
    }

    /** -Dtxfuzz.reuse=false: every run gets a new database, as before reuse (for measurements side by side). */
    public static final boolean ENABLED = !"false".equals(System.getProperty("txfuzz.reuse"));

    /**
     * -Dtxfuzz.reuse.tables=false: a database never keeps a setup's tables for the next run of the same setup (it is reset
     * to new, or dropped, as before), for measurements side by side. Off too with -Dtxfuzz.reuse=false.
     */
    public static final boolean KEEP_TABLES = ENABLED && !"false".equals(System.getProperty("txfuzz.reuse.tables"));

    /** Why the latest discarded database was not reused (for tests and bench). */
    private volatile String lastDiscardReason = "";

    /** Idle databases a thread keeps at most (a run, its nested simulation and a spare). */
    private static final int MAX_IDLE_PER_THREAD = 3;

    /** A database with what the checks compare it with; {@code ddl} is the setup DDL whose tables it holds, or null. */
    private static final class Kept<D> {
        final D db;
        final String fingerprintWhenNew;
        List<String> ddl;
        String fingerprintAfterDdl;

        Kept(D db, String fingerprintWhenNew) {
            this.db = db;
            this.fingerprintWhenNew = fingerprintWhenNew;
        }

        D db() {
            return db;
        }

        String fingerprintWhenNew() {
            return fingerprintWhenNew;
        }
    }

    private final Creator<D> creator;
    private final boolean enabled;
    /** Databases are kept only with their tables ({@link KeepsTables}), and bound to a lease when first used. */
    private final boolean onlyWithTables;
    private final AtomicLong tablesKept = new AtomicLong();
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
        this(creator, enabled, false);
    }

    /**
     * @param onlyWithTables the engine's databases are not reset to new ({@link KeepsTables}): one is kept
     *                       only with a setup's tables, for the next run of that setup, and a run's database is chosen
     *                       (or made) when the run first uses it
     */
    public ReusedDatabases(Creator<D> creator, boolean enabled, boolean onlyWithTables) {
        this.creator = creator;
        this.enabled = enabled;
        this.onlyWithTables = onlyWithTables;
    }

    /** A database for one run: one the calling thread kept, or a new one. */
    public Database take() throws SQLException {
        if (onlyWithTables && enabled) {
            return new Lease(null); // bound at first use: to the kept tables of its setup, or to a new database
        }
        Kept<D> k = pollIdle(null);
        if (k != null) {
            reused.incrementAndGet();
            return new Lease(k);
        }
        return new Lease(newKept());
    }

    private Kept<D> newKept() throws SQLException {
        D db = creator.create();
        created.incrementAndGet();
        if (!enabled || onlyWithTables) {
            return new Kept<>(db, null);
        }
        String fingerprint;
        try {
            fingerprint = db.fingerprint();
        } catch (SQLException | RuntimeException e) {
            fingerprint = null; // an engine version whose catalog reads otherwise: its databases are used once, as before
        }
        return new Kept<>(db, fingerprint);
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
        return new Counts(created.get(), reused.get(), discarded.get(), tablesKept.get());
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

    /** An idle database of the calling thread: the latest kept, or with {@code ddl} the one holding that DDL's tables (or none). */
    private synchronized Kept<D> pollIdle(List<String> ddl) {
        Deque<Kept<D>> mine = idle.get(Thread.currentThread());
        if (mine == null) {
            return null;
        }
        if (ddl == null) {
            return mine.pollFirst();
        }
        for (java.util.Iterator<Kept<D>> i = mine.iterator(); i.hasNext(); ) {
            Kept<D> k = i.next();
            if (ddl.equals(k.ddl)) {
                i.remove();
                return k;
            }
        }
        return null;
    }

    /** Puts back a database taken from the calling thread's idle ones and not used since (it keeps its place among them). */
    private synchronized void putBack(Kept<D> k) {
        idle.computeIfAbsent(Thread.currentThread(), t -> new ArrayDeque<>()).addFirst(k);
    }

    private void discard(Kept<D> k, String problem) {
        discarded.incrementAndGet();
        lastDiscardReason = problem;
        k.db().close();
    }

    /** Empties a database holding its setup's tables and checks it is as right after that DDL ran; null when it is, else why not. */
    private String emptied(Kept<D> k) {
        try {
            Emptied now = ((KeepsTables) k.db()).emptyAndRead(); // it holds tables: it keeps them
            if (!now.fingerprint().equals(k.fingerprintAfterDdl)) {
                return "the emptied tables differ from the new ones: " + difference(k.fingerprintAfterDdl, now.fingerprint());
            }
            return now.rows() == 0 ? null : "the emptied tables still hold " + now.rows() + " rows";
        } catch (SQLException | RuntimeException e) {
            return "emptying the tables failed: " + e.getMessage();
        }
    }

    /** The lines of one fingerprint missing from the other, both ways. */
    static String difference(String before, String now) {
        List<String> a = new ArrayList<>(List.of(before.split("\n")));
        List<String> b = new ArrayList<>(List.of(now.split("\n")));
        List<String> gone = new ArrayList<>(a);
        b.forEach(gone::remove);
        List<String> come = new ArrayList<>(b);
        a.forEach(come::remove);
        return "only before: " + gone + "; only now: " + come;
    }

    /** Resets a database to new and checks it; null when it is as new, else why not. */
    private String resetToNew(Kept<D> k) {
        try {
            k.db().reset();
            String now = k.db().fingerprint();
            return now.equals(k.fingerprintWhenNew()) ? null
                    : "the reset database differs from the new one:\nnew:   " + k.fingerprintWhenNew() + "\nreset: " + now;
        } catch (SQLException | RuntimeException e) {
            return "the reset failed: " + e.getMessage();
        }
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
            if (!closed && k.ddl != null && mine.size() >= MAX_IDLE_PER_THREAD) {
                orphans.add(mine.pollLast()); // tables are a case's: the latest case's are the ones its next run wants
            }
            kept = !closed && mine.size() < MAX_IDLE_PER_THREAD;
            if (kept) {
                mine.addFirst(k);
            }
        }
        orphans.forEach(o -> o.db().close());
        return kept;
    }

    /**
     * Keeps {@code k} with its tables when it holds a setup's (emptied when a run of the same setup takes it; its last run's
     * sessions must all be closed), or resets it and keeps it if it is as it was new; drops it otherwise.
     */
    private void giveBack(Kept<D> k) {
        if (k == null) {
            return; // never used: nothing was bound
        }
        if (k.ddl != null) {
            String problem;
            try {
                k.db().checkNoSessions();
                problem = null;
            } catch (SQLException | RuntimeException e) {
                problem = "a session of the last run is still open: " + e.getMessage();
            }
            if (problem == null && keep(k)) {
                return;
            }
            if (problem != null) {
                discard(k, problem);
            } else {
                k.db().close();
            }
            return;
        }
        if (k.fingerprintWhenNew() == null) {
            k.db().close();
            return;
        }
        String problem = resetToNew(k);
        if (problem == null && keep(k)) {
            return;
        }
        if (problem != null) {
            discarded.incrementAndGet();
            lastDiscardReason = problem;
        }
        k.db().close();
    }

    /**
     * What a caller holds: the engine's database until close(), which hands it back once. A database that holds the
     * tables of a former run's setup is settled when the lease is first used: emptied and checked for a setup with the
     * same DDL ({@link #hasTablesOf}), otherwise reset to new (or dropped, and a new one made).
     */
    private final class Lease implements Database {
        private Kept<D> kept;
        private boolean settled;
        private final AtomicBoolean returned = new AtomicBoolean();

        Lease(Kept<D> kept) {
            this.kept = kept;
            this.settled = kept != null && kept.ddl == null;
        }

        private synchronized D db() throws SQLException {
            if (returned.get()) {
                throw new SQLException("this database was closed", "08003");
            }
            if (!settled) {
                settle(null);
            }
            return kept.db();
        }

        /**
         * Binds this lease to a database (with {@code ddl}: the calling thread's one holding those tables, if any) and deals
         * with tables a former run left in it; true when they are exactly {@code ddl}'s, emptied and checked.
         */
        private boolean settle(List<String> ddl) throws SQLException {
            settled = true;
            if (kept == null) {
                kept = ddl == null ? null : pollIdle(ddl);
                if (kept == null) {
                    kept = newKept();
                    return false;
                }
                reused.incrementAndGet();
            } else if (ddl != null && !ddl.equals(kept.ddl)) {
                Kept<D> other = pollIdle(ddl); // a nested run's database may hold them
                if (other != null) {
                    putBack(kept);
                    kept = other;
                }
            }
            if (kept.ddl == null) {
                return false;
            }
            if (ddl != null && ddl.equals(kept.ddl)) {
                String problem = emptied(kept);
                if (problem == null) {
                    tablesKept.incrementAndGet();
                    return true;
                }
                discard(kept, problem);
                kept = newKept();
                return false;
            }
            // the tables of another setup
            kept.ddl = null;
            kept.fingerprintAfterDdl = null;
            if (kept.fingerprintWhenNew() == null) {
                kept.db().close();
                kept = newKept();
                return false;
            }
            String problem = resetToNew(kept);
            if (problem != null) {
                discard(kept, problem);
                kept = newKept();
            }
            return false;
        }

        @Override
        public synchronized boolean hasTablesOf(List<String> ddl) throws SQLException {
            if (returned.get()) {
                throw new SQLException("this database was closed", "08003");
            }
            if (!KEEP_TABLES || !enabled || settled) {
                return false;
            }
            return settle(List.copyOf(ddl));
        }

        @Override
        public synchronized void madeTablesOf(List<String> ddl) throws SQLException {
            D db = db();
            if (!KEEP_TABLES || !enabled || !(db instanceof KeepsTables)) {
                return;
            }
            try {
                kept.fingerprintAfterDdl = db.fingerprint();
                kept.ddl = List.copyOf(ddl);
            } catch (SQLException | RuntimeException e) {
                lastDiscardReason = "the catalog after the DDL could not be read: " + e.getMessage();
                kept.ddl = null; // not kept with its tables: reset or dropped as any other
                kept.fingerprintAfterDdl = null;
            }
        }

        @Override
        public void willRun(txfuzz.model.TestCase testCase) throws SQLException {
            db().willRun(testCase);
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
                Kept<D> k;
                synchronized (this) {
                    k = kept;
                }
                giveBack(k);
            }
        }
    }
}
