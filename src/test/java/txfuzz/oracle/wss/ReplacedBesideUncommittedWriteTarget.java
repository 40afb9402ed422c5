package txfuzz.oracle.wss;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import txfuzz.dbms.Database;
import txfuzz.dbms.DelegatingTarget;
import txfuzz.dbms.Target;

/**
 * Fault injection for rules about a write that waits: a real engine on which the statement {@code sql}, sent while another
 * session holds an uncommitted write (so it waits, in the schedules that use it), runs as {@code replacement} instead — the
 * test's bug, such as a waiting UPDATE that also writes back a value its snapshot shows, losing the other's committed
 * change. Serial replays (one session at a time) never meet the fault.
 */
final class ReplacedBesideUncommittedWriteTarget extends DelegatingTarget {
    private final String sql;
    private final String replacement;

    ReplacedBesideUncommittedWriteTarget(Target real, String sql, String replacement) {
        super(real);
        this.sql = sql;
        this.replacement = replacement;
    }

    @Override
    public String version() {
        return real.version() + " with '" + sql + "' run as '" + replacement + "' beside an uncommitted write";
    }

    @Override
    public Database freshDatabase() throws SQLException {
        return trackingUncommittedWrites(real.freshDatabase(), this::replacing);
    }

    private Statement replacing(Connection c, Object session, Statement s, UncommittedWrites writes) {
        return (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Statement.class}, (proxy, method, args) -> {
            if (method.getName().startsWith("execute") && args != null && args.length > 0 && sql.equals(args[0]) && writes.heldBesides(session)) {
                args = args.clone();
                args[0] = replacement; // the injected bug
            }
            return invoke(s, method, args);
        });
    }
}
