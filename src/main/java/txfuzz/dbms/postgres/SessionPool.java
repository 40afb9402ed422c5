package txfuzz.dbms.postgres;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Deque;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicBoolean;
import org.postgresql.PGConnection;

/**
 * Server sessions kept open across test cases. Opening a PostgreSQL session forks a backend and
 * costs about 4 ms here, while a test case (with its serial replays) needs a dozen or more; a
 * session taken from the pool costs one round trip (the session settings) and one on return
 * ({@code DISCARD ALL}).
 *
 * <p>A session is handed out as a proxy {@link Connection}: its {@code close()} puts the session
 * back after ending any open transaction and {@code DISCARD ALL} (which drops prepared statements,
 * temporary tables and session settings; pgjdbc sees it and forgets its server-side statements),
 * so no state leaks from one test case into the next. {@code abort()} and any failure while
 * resetting close the session for good. A session that died meanwhile (server restarted, backend
 * terminated) fails its settings statement when taken and is replaced by a new one.
 */
final class SessionPool implements AutoCloseable {
    private static final int MAX_IDLE = 12;

    /** Opens a new server session in the namespace database. */
    interface Opener {
        Connection open() throws SQLException;
    }

    private final Opener opener;
    private final Deque<Connection> idle = new ConcurrentLinkedDeque<>();
    private volatile boolean closed;
    /** Sessions opened (for measurements). */
    volatile int opened;

    SessionPool(Opener opener) {
        this.opener = opener;
    }

    /**
     * A session with {@code settings} (statements joined by ';', run in one round trip) applied,
     * as a proxy whose close() returns it here.
     */
    Connection take(String settings) throws SQLException {
        while (true) {
            Connection physical = idle.pollFirst();
            boolean fresh = physical == null;
            if (fresh) {
                physical = opener.open();
                opened++;
            }
            try (Statement s = physical.createStatement()) {
                s.execute(settings);
            } catch (SQLException e) {
                abortQuietly(physical);
                if (fresh || !PostgresEngine.isConnectionError(e)) {
                    throw e;
                }
                continue; // an idle session that died meanwhile: try the next one
            }
            return proxy(physical);
        }
    }

    /** Closes every idle session (e.g. the server was restarted). */
    void clear() {
        Connection c;
        while ((c = idle.pollFirst()) != null) {
            abortQuietly(c);
        }
    }

    @Override
    public void close() {
        closed = true;
        clear();
    }

    private void giveBack(Connection physical) {
        try {
            if (!physical.getAutoCommit()) {
                physical.rollback();
                physical.setAutoCommit(true);
            }
            try (Statement s = physical.createStatement()) {
                s.execute("DISCARD ALL");
            }
        } catch (SQLException | RuntimeException e) {
            abortQuietly(physical);
            return;
        }
        if (closed || idle.size() >= MAX_IDLE) {
            closeQuietly(physical);
        } else {
            idle.addFirst(physical);
        }
    }

    static void abortQuietly(Connection c) {
        try {
            c.abort(Runnable::run);
        } catch (SQLException | RuntimeException e) {
            closeQuietly(c);
        }
    }

    static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException | RuntimeException ignored) {
            // already broken: nothing to release
        }
    }

    /** The backend's process id, known to the driver since login: no round trip. */
    static int backendPid(Connection c) throws SQLException {
        return c.unwrap(PGConnection.class).getBackendPID();
    }

    /** A pooled session as handed out: close() returns it, abort() ends it. */
    interface Pooled {
        /** Closes the server session for good (it may hold locks or be stuck), without returning it. */
        void discard();
    }

    private Connection proxy(Connection physical) {
        AtomicBoolean done = new AtomicBoolean();
        InvocationHandler h = new InvocationHandler() {
            @Override
            public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
                switch (m.getName()) {
                    case "close":
                        if (done.compareAndSet(false, true)) {
                            giveBack(physical);
                        }
                        return null;
                    case "discard":
                        if (done.compareAndSet(false, true)) {
                            abortQuietly(physical);
                        }
                        return null;
                    case "abort":
                        done.set(true);
                        break; // abort the physical session below
                    case "isClosed":
                        return done.get() || physical.isClosed();
                    case "unwrap":
                        if (((Class<?>) args[0]).isInstance(proxy)) {
                            return proxy;
                        }
                        break;
                    case "isWrapperFor":
                        if (((Class<?>) args[0]).isInstance(proxy)) {
                            return true;
                        }
                        break;
                    case "equals":
                        return proxy == args[0];
                    case "hashCode":
                        return System.identityHashCode(proxy);
                    case "toString":
                        return "pooled PostgreSQL session " + physical;
                    default:
                        if (done.get()) {
                            throw new SQLException("This connection has been closed.", "08003");
                        }
                }
                try {
                    return m.invoke(physical, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            }
        };
        return (Connection) Proxy.newProxyInstance(SessionPool.class.getClassLoader(), new Class<?>[] {Connection.class, Pooled.class}, h);
    }
}
