package txfuzz.oracle.equiv;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import txfuzz.dbms.Database;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.Target;

/**
 * Fault injection for the equiv oracle's positive tests: inside a transaction (auto-commit off) every
 * UPDATE reports one row more than it changed; in autocommit it reports the truth. A transactional
 * run then disagrees with the non-transactional replay on the affected-row count. The wrapped target
 * belongs to the caller, who closes it.
 */
final class MiscountingUpdates extends DelegatingTarget {
    MiscountingUpdates(Target real) {
        super(real);
    }

    @Override
    public String version() {
        return real.version() + " with miscounted UPDATEs inside transactions";
    }

    @Override
    public Database freshDatabase() throws SQLException {
        return wrappingStatements(real.freshDatabase(), this::miscounting);
    }

    @Override
    public void close() {
        // the wrapped target is the caller's (a shared server outlives the test)
    }

    private Statement miscounting(Connection c, Statement s) {
        List<String> last = new ArrayList<>(List.of(""));
        return (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Statement.class}, (proxy, method, args) -> {
            if (method.getName().startsWith("execute") && args != null && args.length > 0 && args[0] instanceof String sql) {
                last.set(0, sql);
            }
            Object r = invoke(s, method, args);
            if (method.getName().equals("getUpdateCount") && (Integer) r >= 0 && last.get(0).startsWith("UPDATE ") && !c.getAutoCommit()) {
                return (Integer) r + 1;
            }
            return r;
        });
    }
}
