package txfuzz.dbms.sqlite;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;

/**
 * The closed sessions of one SQLite database file, kept open for its next runs. Opening a SQLite connection is a file
 * open, its pragmas and a read of the schema, which was most of SQLite's cost with every oracle on (a case makes a dozen
 * runs, each of several sessions). A kept connection whose file kept its tables does not read the schema again.
 *
 * <p>A kept session must answer as a new one: SQLite's state lives in the file, but a connection has some of its own
 * (its transaction, unfinished statements, pragmas, TEMP objects, attached files, last_insert_rowid() and changes(), a
 * pending interrupt). So a session is kept only when it is back in autocommit with no transaction open, its statements
 * are closed, nothing cancelled or aborted it, and none of its SQL named what could change that state (below).
 * Anything else closes it for good.
 */
final class KeptSessions implements AutoCloseable {
    /**
     * SQL that could leave state in the connection itself (per-connection pragmas, TEMP objects, ATTACH, the last rowid
     * and change counts): a session that ran it is not kept. A whole-word match anywhere (comments included), so an
     * identifier of that name only costs the keeping.
     */
    private static final Pattern CONNECTION_STATE = Pattern.compile(
            "\\b(pragma|attach|detach|temp|temporary|last_insert_rowid|changes|total_changes|load_extension)\\b", Pattern.CASE_INSENSITIVE);

    /**
     * SQL that changes the schema. A connection reads the schema once and re-reads it when it sees the file's schema
     * cookie change, but not everywhere: a connection whose schema predates a change another connection made refuses
     * an {@code INSERT … ON CONFLICT (c)} that the new schema allows ("ON CONFLICT clause does not match any PRIMARY KEY
     * or UNIQUE constraint"), where a new connection runs it. So kept sessions serve only runs under the schema they
     * last saw: none is kept across a reset, and a run that changes the schema in its transactions gets new ones.
     */
    private static final Pattern SCHEMA_CHANGE = Pattern.compile("\\b(create|drop|alter|vacuum|reindex|analyze)\\b", Pattern.CASE_INSENSITIVE);

    /** Idle sessions kept per mode: a run's setup, transactions and state read. */
    private static final int MAX_IDLE_PER_MODE = 8;

    @FunctionalInterface
    interface Opener {
        Connection open(String mode) throws SQLException;
    }

    private final Opener opener;
    private final boolean enabled;
    private final Map<String, Deque<Connection>> idle = new HashMap<>();
    private boolean closed;
    /** Sessions opened and handed out again, counted for the whole target (tests, measurements). */
    private final java.util.concurrent.atomic.AtomicLong opened;
    private final java.util.concurrent.atomic.AtomicLong reused;

    KeptSessions(Opener opener, boolean enabled, java.util.concurrent.atomic.AtomicLong opened, java.util.concurrent.atomic.AtomicLong reused) {
        this.opener = opener;
        this.enabled = enabled;
        this.opened = opened;
        this.reused = reused;
    }

    /**
     * Whether a run may get kept sessions: none of its SQL reads or sets what a connection keeps, and its transactions do
     * not change the schema ({@code setup} does so only on a file just reset, whose kept sessions are closed then).
     */
    static boolean mayReuseFor(List<String> setup, List<String> transactions) {
        return java.util.stream.Stream.concat(setup.stream(), transactions.stream()).noneMatch(s -> CONNECTION_STATE.matcher(s).find())
                && transactions.stream().noneMatch(s -> SCHEMA_CHANGE.matcher(s).find());
    }

    /** A session in {@code mode}: with {@code mayReuse} a kept one if there is one, else a new one; closing it hands it back. */
    Connection take(String mode, boolean mayReuse) throws SQLException {
        Connection raw = mayReuse ? poll(mode) : null;
        if (raw == null) {
            raw = opener.open(mode);
            opened.incrementAndGet();
        } else {
            reused.incrementAndGet();
        }
        return new Handed(raw, mode).proxy();
    }

    /** Closes every idle session (the schema they read is about to change); those handed back later are kept. */
    void clear() {
        List<Connection> all = new java.util.ArrayList<>();
        synchronized (this) {
            idle.values().forEach(all::addAll);
            idle.clear();
        }
        all.forEach(KeptSessions::closeQuietly);
    }

    /** Closes every idle session; sessions handed back later are closed too. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        clear();
    }

    private synchronized Connection poll(String mode) {
        Deque<Connection> d = idle.get(mode);
        return d == null ? null : d.pollFirst();
    }

    private boolean keep(Connection raw, String mode) {
        synchronized (this) {
            Deque<Connection> d = idle.computeIfAbsent(mode, m -> new ArrayDeque<>());
            if (enabled && !closed && d.size() < MAX_IDLE_PER_MODE) {
                d.addFirst(raw);
                return true;
            }
        }
        return false;
    }

    /** Whether a session given back is as a new one would be: in autocommit, with no transaction open. */
    private static boolean clean(Connection raw) {
        try {
            if (!raw.getAutoCommit()) {
                return false;
            }
            try (Statement s = raw.createStatement()) {
                s.execute("ROLLBACK"); // there was a transaction open: not kept, though it is rolled back now
                return false;
            } catch (SQLException e) {
                return String.valueOf(e.getMessage()).contains("no transaction is active");
            }
        } catch (SQLException | RuntimeException e) {
            return false;
        }
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException | RuntimeException ignored) {
            // closed already
        }
    }

    /** One hand-out of a connection: the proxy the caller holds, and what decides whether the connection is kept. */
    private final class Handed {
        private final Connection raw;
        private final String mode;
        private final AtomicBoolean done = new AtomicBoolean();
        /** Set by anything after which the connection may not answer as a new one. */
        private final AtomicBoolean spoilt = new AtomicBoolean();
        private final List<Statement> statements = new CopyOnWriteArrayList<>();

        Handed(Connection raw, String mode) {
            this.raw = raw;
            this.mode = mode;
        }

        Connection proxy() {
            return (Connection) Proxy.newProxyInstance(KeptSessions.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, m, args) -> {
                switch (m.getName()) {
                    case "close" -> {
                        if (done.compareAndSet(false, true)) {
                            giveBack();
                        }
                        return null;
                    }
                    case "abort" -> {
                        spoilt.set(true);
                        if (done.compareAndSet(false, true)) {
                            closeQuietly(raw);
                        }
                        return null;
                    }
                    case "isClosed" -> {
                        return done.get() || raw.isClosed();
                    }
                    case "equals" -> {
                        return proxy == args[0];
                    }
                    case "hashCode" -> {
                        return System.identityHashCode(proxy);
                    }
                    case "toString" -> {
                        return "kept SQLite session " + raw;
                    }
                    case "unwrap", "isWrapperFor" -> spoilt.set(true); // the driver's own connection, used as the caller likes
                    default -> {
                        if (done.get()) {
                            throw new SQLException("this connection is closed", "08003");
                        }
                    }
                }
                if (args != null && args.length > 0 && args[0] instanceof String sql && m.getName().startsWith("prepare")) {
                    watch(sql);
                }
                Object result = invoke(m, raw, args);
                if (result instanceof Statement s) {
                    statements.add(s);
                    return watched(s);
                }
                return result;
            });
        }

        private void watch(String sql) {
            if (CONNECTION_STATE.matcher(sql).find()) {
                spoilt.set(true);
            }
        }

        /** The statement as a proxy that watches its SQL and a cancel (SQLite's interrupt is the connection's). */
        private Statement watched(Statement s) {
            Class<?> type = s instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
            return (Statement) Proxy.newProxyInstance(KeptSessions.class.getClassLoader(), new Class<?>[] {type}, (proxy, m, args) -> {
                switch (m.getName()) {
                    case "cancel", "unwrap", "isWrapperFor" -> spoilt.set(true);
                    case "equals" -> {
                        return proxy == args[0];
                    }
                    case "hashCode" -> {
                        return System.identityHashCode(proxy);
                    }
                    default -> {
                        if (args != null && args.length > 0 && args[0] instanceof String sql) {
                            watch(sql);
                        }
                    }
                }
                return invoke(m, s, args);
            });
        }

        private void giveBack() {
            for (Statement s : statements) {
                try {
                    s.close();
                } catch (SQLException | RuntimeException e) {
                    spoilt.set(true);
                }
            }
            if (spoilt.get() || !clean(raw) || !keep(raw, mode)) {
                closeQuietly(raw);
            }
        }
    }

    private static Object invoke(java.lang.reflect.Method m, Object target, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
