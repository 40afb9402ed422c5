package txfuzz.oracle;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import txfuzz.model.IsolationLevel;
import txfuzz.dbms.Database;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.LockProbe;
import txfuzz.dbms.Target;

/**
 * Fault injection for oracle tests: a real engine whose COMMIT silently rolls back a transaction
 * that overlapped another open transaction, while reporting success. Serial runs are unaffected,
 * as with a real concurrency bug, so only an oracle that compares against them can catch it.
 */
public final class CommitDroppingTarget extends DelegatingTarget {
    private final boolean onlyWithRowTracking;

    public CommitDroppingTarget(Target real) {
        this(real, false);
    }

    /**
     * {@code onlyWithRowTracking}: the fault strikes only in databases whose tables carry txfuzz's
     * tracking column {@code wl}, so an instrumented case shows it and its plain twin does not: an
     * instrumentation effect, to prove the campaign's self-check tells the two apart.
     */
    public CommitDroppingTarget(Target real, boolean onlyWithRowTracking) {
        super(real);
        this.onlyWithRowTracking = onlyWithRowTracking;
    }

    @Override
    public String version() {
        return real.version() + " with commits dropped under concurrency" + (onlyWithRowTracking ? " in tracked tables" : "");
    }

    private static boolean tracked(Connection c) throws SQLException {
        try (java.sql.ResultSet rs = c.getMetaData().getColumns(null, null, "%", "WL")) {
            return rs.next();
        }
    }

    @Override
    public Database freshDatabase() throws SQLException {
        Database db = real.freshDatabase();
        // open transactions, each with the flag "another transaction was open at the same time"
        Map<Object, AtomicBoolean> open = new ConcurrentHashMap<>();
        return wrappingConnections(db, c -> (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "setAutoCommit" -> {
                            if (Boolean.FALSE.equals(args[0])) {
                                open.values().forEach(o -> o.set(true));
                                open.put(proxy, new AtomicBoolean(!open.isEmpty()));
                            } else {
                                open.remove(proxy);
                            }
                        }
                        case "commit" -> {
                            AtomicBoolean overlapped = open.get(proxy);
                            if (overlapped != null && overlapped.get() && (!onlyWithRowTracking || tracked(c))) {
                                c.rollback(); // the injected bug: success reported, writes lost
                                return null;
                            }
                        }
                        default -> {
                        }
                    }
                    return invoke(c, method, args);
                }));
    }
}
