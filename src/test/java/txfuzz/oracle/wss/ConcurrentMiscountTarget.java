package txfuzz.oracle.wss;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Locale;
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
        return trackingUncommittedWrites(real.freshDatabase(), this::miscounting);
    }

    private Statement miscounting(Connection c, Object session, Statement s, UncommittedWrites writes) {
        boolean[] shortNext = {false};
        return (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Statement.class}, (proxy, method, args) -> {
            if (method.getName().startsWith("execute") && args != null && args.length > 0 && args[0] instanceof String sql) {
                shortNext[0] = !c.getAutoCommit() && sql.stripLeading().toUpperCase(Locale.ROOT).startsWith("UPDATE") && writes.heldBesides(session);
                return invoke(s, method, args);
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
