package txfuzz.oracle.wss;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import txfuzz.dbms.Database;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.Target;

/**
 * Fault injection for a write that waited for a lock: a real engine where the statement {@code failing}, when it fails
 * with a concurrency conflict, is instead carried out as {@code stale} — the same write computed from the data it would
 * have read before its wait — and reported as succeeded: the lost update of an engine that applies a waiting write to
 * the version it first saw. Serial runs never wait, so they are unaffected.
 */
final class StaleRetryTarget extends DelegatingTarget {
    private final String failing;
    private final String stale;

    StaleRetryTarget(Target real, String failing, String stale) {
        super(real);
        this.failing = failing;
        this.stale = stale;
    }

    @Override
    public String version() {
        return real.version() + " with '" + failing + "' run as '" + stale + "' when it conflicts";
    }

    @Override
    public Database freshDatabase() throws SQLException {
        return wrappingStatements(real.freshDatabase(), this::staleOnConflict);
    }

    private Statement staleOnConflict(Connection c, Statement s) {
        Statement[] current = {s}; // some drivers close a statement that raised an error
        return (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Statement.class},
                (proxy, method, args) -> {
                    try {
                        return invoke(current[0], method, args);
                    } catch (SQLException e) {
                        if (!method.getName().startsWith("execute") || args == null || !failing.equals(args[0])
                                || !real.classify(e).isConcurrencyConflict()) {
                            throw e;
                        }
                        if (current[0].isClosed()) {
                            current[0] = c.createStatement();
                        }
                        Object[] instead = args.clone();
                        instead[0] = stale; // the injected bug: the write lands, on the data from before the wait
                        return invoke(current[0], method, instead);
                    }
                });
    }
}
