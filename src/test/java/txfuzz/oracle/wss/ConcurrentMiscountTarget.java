package txfuzz.oracle.wss;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import txfuzz.dbms.Database;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.Target;

/**
 * Fault injection for the write-outcome rule: a real engine whose UPDATE, submitted inside a transaction while another
 * session of the same database holds an uncommitted write, reports one row fewer than it changed (when it changed
 * any). Its effect on the data is the engine's own, so the final state is the real one; serial replays and the
 * explainer's simulations (one session at a time) never meet the fault. A miscount of this shape is what only the
 * write's count shows — the shape of DuckDB's real miscount, which the state alone let pass as documented (issue 33
 * rules 4 and 5). The wrapped target belongs to the caller, who closes it.
 */
final class ConcurrentMiscountTarget extends DelegatingTarget {

    ConcurrentMiscountTarget(Target real) {
        super(real);
    }

    @Override
    public String version() {
        return real.version() + " with UPDATE counts one short beside an uncommitted write";
    }

    @Override
    public void close() {
        // the wrapped target is the caller's (a shared server outlives the test)
    }

    @Override
    public Database freshDatabase() throws java.sql.SQLException {
        Set<Object> dirty = ConcurrentHashMap.newKeySet(); // sessions with an uncommitted write
        return wrappingConnections(real.freshDatabase(), c -> (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "commit", "rollback", "close" -> dirty.remove(proxy);
                        case "setAutoCommit" -> {
                            if (Boolean.TRUE.equals(args[0])) {
                                dirty.remove(proxy);
                            }
                        }
                        default -> {
                        }
                    }
                    Object r = invoke(c, method, args);
                    return method.getName().equals("createStatement") ? miscounting(c, proxy, (Statement) r, dirty) : r;
                }));
    }

    private Statement miscounting(Connection c, Object session, Statement s, Set<Object> dirty) {
        boolean[] shortNext = {false};
        return (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Statement.class}, (proxy, method, args) -> {
            if (method.getName().startsWith("execute") && args != null && args.length > 0 && args[0] instanceof String sql) {
                String head = sql.stripLeading().toUpperCase(Locale.ROOT);
                boolean write = head.startsWith("UPDATE") || head.startsWith("INSERT") || head.startsWith("DELETE") || head.startsWith("MERGE");
                boolean inTransaction = !c.getAutoCommit();
                shortNext[0] = inTransaction && head.startsWith("UPDATE") && dirty.stream().anyMatch(o -> o != session);
                Object r = invoke(s, method, args);
                if (write && inTransaction) {
                    dirty.add(session);
                }
                return r;
            }
            Object r = invoke(s, method, args);
            if (method.getName().equals("getUpdateCount") && shortNext[0] && (Integer) r > 0) {
                shortNext[0] = false;
                return (Integer) r - 1; // the injected bug
            }
            return r;
        });
    }
}
