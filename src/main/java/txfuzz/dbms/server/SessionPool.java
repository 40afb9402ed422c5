package txfuzz.dbms.server;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Server sessions kept open across test cases, for PostgreSQL and MariaDB alike. A case opens a
 * handful of sessions (setup, one per transaction, the probe, the state read) and a campaign runs
 * each case three or more times (actual run, serial replays, explanations); opening a server
 * session costs milliseconds (a forked backend on PostgreSQL, ~4 ms; TCP, handshake and
 * authentication on MariaDB, ~1.7 ms), re-using one a round trip or two.
 *
 * <p>What differs per engine is in {@link Hooks}: how a session is opened, how a re-used one is
 * reset when taken (MariaDB: COM_RESET_CONNECTION), how one is reset when given back (PostgreSQL:
 * {@code DISCARD ALL}), and which failure of a re-used session means it died meanwhile (server
 * restarted, backend killed) so the next one is tried. The idle limit and whether pooling is on at
 * all are settings.
 *
 * <p>A session is handed out as a proxy {@link Connection}: its {@code close()} ends any open
 * transaction (an idle session never holds a lock), resets it and puts it back; {@code abort()},
 * {@link Pooled#discard()}, a connection failure seen through it, or any failure while resetting
 * close the session for good.
 */
public final class SessionPool implements AutoCloseable {

    /** Prepares a session for one use (e.g. applies session settings, selects the database). */
    public interface Use {
        void prepare(Connection c) throws SQLException;
    }

    /** What differs per engine. */
    public interface Hooks {
        Connection open() throws SQLException;

        /** Run on a re-used session before it is prepared for its next use. */
        default void resetOnTake(Connection c) throws SQLException { }

        /** Run on a session given back, after its transaction was rolled back. */
        default void resetOnReturn(Connection c) throws SQLException { }

        /**
         * Whether a failure while taking a re-used session means it died meanwhile, so the next
         * idle one (or a new one) is tried instead of failing.
         */
        default boolean diedMeanwhile(Exception e) {
            return true;
        }
    }

    /** The pool's settings: a name for messages, the idle limit, pooling on or off. */
    public record Settings(String name, int maxIdle, boolean enabled) {
    }

    /** A pooled session as handed out: close() returns it, abort() and discard() end it. */
    public interface Pooled {
        /** Closes the server session for good (it may hold locks or be stuck), without returning it. */
        void discard();
    }

    private final Hooks hooks;
    private final Settings settings;
    private final Deque<Connection> idle = new ArrayDeque<>();
    private boolean closed;
    private volatile int opened;

    public SessionPool(Hooks hooks, Settings settings) {
        this.hooks = hooks;
        this.settings = settings;
    }

    /** Sessions opened so far (for measurements). */
    public int opened() {
        return opened;
    }

    /** A session prepared by {@code use}, as a proxy whose close() returns it here. */
    public Connection take(Use use) throws SQLException {
        Connection raw;
        while ((raw = poll()) != null) {
            try {
                hooks.resetOnTake(raw);
                use.prepare(raw);
                return proxy(raw);
            } catch (SQLException | RuntimeException e) {
                abortQuietly(raw);
                if (!hooks.diedMeanwhile(e)) {
                    throw e;
                }
                // died meanwhile: try the next one
            }
        }
        raw = hooks.open();
        opened++;
        try {
            use.prepare(raw);
        } catch (SQLException | RuntimeException e) {
            abortQuietly(raw);
            throw e;
        }
        return proxy(raw);
    }

    /** Closes every idle session (e.g. the server was restarted); the pool stays usable. */
    public void clear() {
        for (Connection c : drain()) {
            abortQuietly(c);
        }
    }

    /** Closes every idle session; later hand-backs close theirs. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        clear();
    }

    private synchronized Connection poll() {
        return idle.pollFirst();
    }

    private synchronized Deque<Connection> drain() {
        Deque<Connection> all = new ArrayDeque<>(idle);
        idle.clear();
        return all;
    }

    private synchronized boolean keep(Connection raw) {
        if (!settings.enabled() || closed || idle.size() >= settings.maxIdle()) {
            return false;
        }
        idle.addFirst(raw);
        return true;
    }

    private void giveBack(Connection raw, boolean broken) {
        if (broken) {
            abortQuietly(raw);
            return;
        }
        try {
            if (!raw.getAutoCommit()) {
                raw.rollback();
                raw.setAutoCommit(true);
            }
            hooks.resetOnReturn(raw);
        } catch (SQLException | RuntimeException e) {
            abortQuietly(raw);
            return;
        }
        if (!keep(raw)) {
            closeQuietly(raw);
        }
    }

    /** Ends a session without waiting for the server (falls back to close()). */
    public static void abortQuietly(Connection c) {
        try {
            c.abort(Runnable::run);
        } catch (SQLException | RuntimeException e) {
            closeQuietly(c);
        }
    }

    public static void closeQuietly(Connection c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (SQLException | RuntimeException ignored) {
            // already broken: nothing to release
        }
    }

    private Connection proxy(Connection raw) {
        AtomicBoolean done = new AtomicBoolean();
        AtomicBoolean broken = new AtomicBoolean();
        return (Connection) Proxy.newProxyInstance(SessionPool.class.getClassLoader(), new Class<?>[] {Connection.class, Pooled.class}, (proxy, m, args) -> {
            switch (m.getName()) {
                case "close" -> {
                    if (done.compareAndSet(false, true)) {
                        giveBack(raw, broken.get());
                    }
                    return null;
                }
                case "discard" -> {
                    if (done.compareAndSet(false, true)) {
                        abortQuietly(raw);
                    }
                    return null;
                }
                case "abort" -> {
                    done.set(true); // and abort the raw session below
                }
                case "isClosed" -> {
                    return done.get() || raw.isClosed();
                }
                case "unwrap" -> {
                    if (((Class<?>) args[0]).isInstance(proxy)) {
                        return proxy;
                    }
                }
                case "isWrapperFor" -> {
                    if (((Class<?>) args[0]).isInstance(proxy)) {
                        return true;
                    }
                }
                case "equals" -> {
                    return proxy == args[0];
                }
                case "hashCode" -> {
                    return System.identityHashCode(proxy);
                }
                case "toString" -> {
                    return "pooled " + settings.name() + " session " + raw;
                }
                default -> {
                    if (done.get()) {
                        throw new SQLException("This connection has been closed.", "08003");
                    }
                }
            }
            try {
                return m.invoke(raw, args);
            } catch (InvocationTargetException e) {
                Throwable cause = e.getCause();
                if (cause instanceof SQLNonTransientConnectionException) {
                    broken.set(true);
                }
                throw cause;
            }
        });
    }
}
