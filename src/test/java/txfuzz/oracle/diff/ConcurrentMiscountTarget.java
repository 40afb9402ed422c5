package txfuzz.oracle.diff;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import txfuzz.dbms.Database;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.Target;

/**
 * Fault injection for the diff oracle: a real engine whose UPDATE reports one row more than it changed while
 * another transaction is open, a result changed under concurrency only. Serial runs are unaffected, as with a
 * real concurrency bug. The wrapped target is closed with this one.
 */
final class ConcurrentMiscountTarget extends DelegatingTarget {
    ConcurrentMiscountTarget(Target real) {
        super(real);
    }

    @Override
    public String version() {
        return real.version() + " with UPDATE counts off by one under concurrency";
    }

    @Override
    public Database freshDatabase() throws SQLException {
        Set<Connection> inTransaction = ConcurrentHashMap.newKeySet();
        return wrappingStatements(real.freshDatabase(), (c, s) -> miscounting(c, s, inTransaction));
    }

    private Statement miscounting(Connection c, Statement s, Set<Connection> inTransaction) {
        String[] last = {""};
        return (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Statement.class}, (proxy, method, args) -> {
            if (method.getName().startsWith("execute") && args != null && args.length > 0 && args[0] instanceof String sql) {
                last[0] = sql;
                if (c.getAutoCommit()) {
                    inTransaction.remove(c);
                } else {
                    inTransaction.add(c);
                }
            }
            Object r = invoke(s, method, args);
            boolean concurrent = inTransaction.stream().anyMatch(o -> o != c && !isClosedOrAutocommit(o));
            if (method.getName().equals("getUpdateCount") && (Integer) r >= 0 && last[0].startsWith("UPDATE ") && concurrent) {
                return (Integer) r + 1;
            }
            return r;
        });
    }

    private static boolean isClosedOrAutocommit(Connection o) {
        try {
            return o.isClosed() || o.getAutoCommit();
        } catch (SQLException e) {
            return true;
        }
    }
}
