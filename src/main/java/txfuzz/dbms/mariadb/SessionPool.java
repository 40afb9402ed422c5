package txfuzz.dbms.mariadb;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Re-used server sessions. A case opens a handful of sessions (setup, one per transaction, the
 * probe, the state read) and a campaign runs each case three or more times (actual run, serial
 * replays, explanations): opening a MariaDB session costs ~1.7 ms (TCP, handshake, authentication),
 * re-using one ~0.3 ms (COM_RESET_CONNECTION, which rolls back and resets every session variable,
 * then USE and SET). Measured over 100 cases, connecting was a quarter of the time.
 *
 * <p>A pooled connection comes wrapped: {@code close()} hands it back (rolled back and reset on the
 * next use) unless it broke or was aborted, in which case it is really closed.
 */
final class SessionPool {
    /** Opens a new raw session. */
    interface Opener {
        Connection open() throws SQLException;
    }

    private static final int MAX_IDLE = 24;
    /** -Dtxfuzz.mariadb.pool=false opens a new session every time (for measurements). */
    private static final boolean ENABLED = !"false".equals(System.getProperty("txfuzz.mariadb.pool"));
    private final Opener opener;
    private final Deque<Connection> idle = new ArrayDeque<>();
    private boolean closed;

    SessionPool(Opener opener) {
        this.opener = opener;
    }

    /** A session in autocommit mode, session state reset, on database {@code database}. */
    Connection take(String database) throws SQLException {
        Connection raw;
        while ((raw = poll()) != null) {
            try {
                raw.unwrap(org.mariadb.jdbc.Connection.class).reset();
                raw.setCatalog(database);
                return wrap(raw);
            } catch (SQLException | RuntimeException e) {
                Namespace.closeQuietly(raw); // broken meanwhile (killed, server restarted): take another
            }
        }
        raw = opener.open();
        try {
            raw.setCatalog(database);
        } catch (SQLException e) {
            Namespace.closeQuietly(raw);
            throw e;
        }
        return wrap(raw);
    }

    private synchronized Connection poll() {
        return idle.pollFirst();
    }

    private synchronized boolean giveBack(Connection raw) {
        if (!ENABLED || closed || idle.size() >= MAX_IDLE) {
            return false;
        }
        idle.addFirst(raw);
        return true;
    }

    /** Closes every idle session; later hand-backs close theirs. */
    void close() {
        Deque<Connection> all;
        synchronized (this) {
            closed = true;
            all = new ArrayDeque<>(idle);
            idle.clear();
        }
        all.forEach(Namespace::closeQuietly);
    }

    private Connection wrap(Connection raw) {
        AtomicBoolean done = new AtomicBoolean();
        AtomicBoolean broken = new AtomicBoolean();
        return (Connection) Proxy.newProxyInstance(SessionPool.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, m, args) -> {
            switch (m.getName()) {
                case "close" -> {
                    if (done.compareAndSet(false, true)) {
                        release(raw, broken.get());
                    }
                    return null;
                }
                case "isClosed" -> {
                    return done.get() || raw.isClosed();
                }
                case "abort" -> {
                    broken.set(true);
                    done.set(true);
                    raw.abort((java.util.concurrent.Executor) args[0]);
                    return null;
                }
                case "equals" -> {
                    return proxy == args[0];
                }
                case "hashCode" -> {
                    return System.identityHashCode(proxy);
                }
                case "toString" -> {
                    return "pooled " + raw;
                }
                default -> {
                }
            }
            if (done.get() && !m.getName().equals("unwrap") && !m.getName().equals("isWrapperFor")) {
                throw new SQLException("connection closed", "08003");
            }
            try {
                return m.invoke(raw, args);
            } catch (InvocationTargetException e) {
                Throwable cause = e.getCause();
                if (cause instanceof java.sql.SQLNonTransientConnectionException) {
                    broken.set(true);
                }
                throw cause;
            }
        });
    }

    /**
     * Back to the pool if it is healthy; a session killed or in doubt is closed for real. An open
     * transaction is rolled back first, so an idle session never holds a lock (DROP DATABASE would
     * wait for it).
     */
    private void release(Connection raw, boolean broken) {
        try {
            if (!broken && !raw.isClosed()) {
                if (!raw.getAutoCommit()) {
                    raw.rollback();
                    raw.setAutoCommit(true);
                }
                if (giveBack(raw)) {
                    return;
                }
            }
        } catch (SQLException | RuntimeException ignored) {
            // fall through and close it
        }
        Namespace.closeQuietly(raw);
    }
}
